#include <crossgrad/backends/host_tensor.hpp>

#include <cstring>

namespace crossgrad::backends {

HostTensor HostTensor::empty(Shape shape, DType dtype) {
  HostBuffer buffer = HostBuffer::allocate(shape, dtype);
  return HostTensor{std::move(shape), dtype, std::move(buffer)};
}

HostTensor HostTensor::copy_of(const TensorData& data) {
  HostTensor t = empty(data.shape(), data.dtype());
  if (!data.bytes().empty()) std::memcpy(t.buffer.data(), data.bytes().data(), data.bytes().size());
  return t;
}

TensorData HostTensor::to_data() const {
  return TensorData::from_bytes(std::span<const std::byte>(buffer.data(), buffer.size()), shape, dtype);
}

}  // namespace crossgrad::backends
