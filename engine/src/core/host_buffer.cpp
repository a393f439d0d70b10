#include <crossgrad/core/host_buffer.hpp>
#include <crossgrad/core/panic.hpp>

#include <cstdlib>
#include <new>

namespace crossgrad {

std::size_t checked_tensor_bytes(const Shape& shape, DType dtype) {
  std::size_t bytes = 0;
  const bool overflow = __builtin_mul_overflow(shape.num_elements(), dtype_size(dtype), &bytes);
  if (overflow || bytes > kMaxTensorBytes) {
    panic(PanicId::TensorTooLarge, {{"shape", shape.to_string()},
                                    {"dtype", std::string(dtype_name(dtype))},
                                    {"bytes", overflow ? std::string("more than 2^64") : std::to_string(bytes)},
                                    {"limit", std::to_string(kMaxTensorBytes)}});
  }
  return bytes;
}

HostBuffer HostBuffer::allocate(const Shape& shape, DType dtype) {
  const std::size_t bytes = checked_tensor_bytes(shape, dtype);
  constexpr std::size_t kAlign = 64;
  // aligned_alloc wants a multiple of the alignment; never zero, so empty tensors own a buffer too.
  const std::size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign + kAlign;
  void* p = std::aligned_alloc(kAlign, rounded);
  if (p == nullptr) {
    panic(PanicId::TensorTooLarge, {{"shape", shape.to_string()},
                                    {"dtype", std::string(dtype_name(dtype))},
                                    {"bytes", std::to_string(bytes)},
                                    {"limit", "what this machine could allocate"}});
  }
  HostBuffer b;
  b.data_ = std::shared_ptr<std::byte>(static_cast<std::byte*>(p), [](std::byte* q) { std::free(q); });
  b.size_ = bytes;
  return b;
}

}  // namespace crossgrad
