#pragma once
// The storage CPU backends share: a contiguous row-major buffer with its shape and dtype.
// Each CPU backend derives its own tensor type from it, so the types stay distinct.
#include <crossgrad/core/device.hpp>
#include <crossgrad/core/host_buffer.hpp>
#include <crossgrad/core/tensor_data.hpp>

namespace crossgrad::backends {

struct HostTensor {
  Shape shape;
  DType dtype = DType::F32;
  HostBuffer buffer;

  Device device() const { return Device::cpu(); }
  std::size_t num_elements() const { return shape.num_elements(); }
  template <class T> const T* data() const { return reinterpret_cast<const T*>(buffer.data()); }
  template <class T> T* mutable_data() { return reinterpret_cast<T*>(buffer.data()); }

  // Fresh, uninitialised storage (panics tensor-too-large).
  static HostTensor empty(Shape shape, DType dtype);
  static HostTensor copy_of(const TensorData& data);
  TensorData to_data() const;
};

}  // namespace crossgrad::backends
