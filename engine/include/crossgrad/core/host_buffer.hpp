#pragma once
#include <crossgrad/core/dtype.hpp>
#include <crossgrad/core/shape.hpp>

#include <cstddef>
#include <memory>

namespace crossgrad {

// Largest single tensor the engine allocates; past it, ops panic tensor-too-large instead of
// throwing std::bad_alloc or being killed by the OOM killer.
inline constexpr std::size_t kMaxTensorBytes = std::size_t{16} << 30;

// Panics tensor-too-large when shape x dtype needs more than kMaxTensorBytes; returns the bytes.
std::size_t checked_tensor_bytes(const Shape& shape, DType dtype);

// Shared, 64-byte aligned host memory. Tensors are immutable once built, so sharing is safe.
class HostBuffer {
 public:
  HostBuffer() = default;
  // Uninitialised storage for shape x dtype (checked as above).
  static HostBuffer allocate(const Shape& shape, DType dtype);

  std::byte* data() const { return data_.get(); }
  std::size_t size() const { return size_; }

 private:
  std::shared_ptr<std::byte> data_;
  std::size_t size_ = 0;
};

}  // namespace crossgrad
