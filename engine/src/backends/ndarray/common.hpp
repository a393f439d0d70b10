#pragma once
// Helpers shared by the NdArray kernels. Internal to this folder: nothing here is engine API.
#include <crossgrad/backends/ndarray.hpp>
#include <crossgrad/core/panic.hpp>
#include <crossgrad/core/shape_rules.hpp>

#include <crossgrad/backends/host_common.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace crossgrad::backends::ndarray_detail {

// Uninitialised result storage; HostTensor::empty raises tensor-too-large itself.
inline NdArrayTensor make_tensor(Shape shape, DType dtype) {
  return NdArrayTensor{HostTensor::empty(std::move(shape), dtype)};
}

// The host backends' shared helpers (crossgrad/backends/host_common.hpp): the device check,
// from_data's dtype rule and the float-type dispatch (F32 -> float, F64 -> double, anything else
// the unreachable panic).
using host::require_host_device;
using host::require_storable_dtype;
using host::with_float_type;

// Row-major walk over `shape` that tracks one element offset per operand, each with its own
// strides (0 on broadcast dims). Plain odometer: the reference must be easy to check by eye.
class Odometer {
 public:
  Odometer(const Shape& shape, std::vector<std::vector<std::size_t>> strides)
      : shape_(shape), strides_(std::move(strides)), index_(shape.rank(), 0),
        offsets_(strides_.size(), 0) {}

  std::size_t offset(std::size_t operand) const { return offsets_[operand]; }

  // Moves to the next element. After the last one every offset wraps back to 0; callers stop
  // after num_elements() steps and never read past that.
  void next() {
    for (std::size_t d = shape_.rank(); d-- > 0;) {
      ++index_[d];
      for (std::size_t o = 0; o < offsets_.size(); ++o) offsets_[o] += strides_[o][d];
      if (index_[d] < shape_[d]) return;
      // Unsigned-safe: this dim's stride was added exactly shape_[d] times since it was last 0.
      for (std::size_t o = 0; o < offsets_.size(); ++o) offsets_[o] -= strides_[o][d] * shape_[d];
      index_[d] = 0;
    }
  }

 private:
  Shape shape_;
  std::vector<std::vector<std::size_t>> strides_;
  std::vector<std::size_t> index_;
  std::vector<std::size_t> offsets_;
};

}  // namespace crossgrad::backends::ndarray_detail
