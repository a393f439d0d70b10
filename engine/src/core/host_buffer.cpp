#include <crossgrad/core/host_buffer.hpp>
#include <crossgrad/core/panic.hpp>

#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

namespace crossgrad {
namespace {

constexpr std::size_t kAlign = 64;

// Note [Host buffer cache]
// Large results come from fresh mmap'd pages, and first-touch page faults cost more than the
// element-wise work itself (an add of 16M floats spent ~95% of its time faulting in a 64 MiB
// result). Freed large buffers are therefore kept, keyed by their exact rounded size, and handed
// to the next request of that size, whose pages are already mapped. The cache is bounded, and off
// under AddressSanitizer so that a use-after-free of a tensor buffer is still reported.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kCacheEnabled = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kCacheEnabled = false;
#else
constexpr bool kCacheEnabled = true;
#endif
#else
constexpr bool kCacheEnabled = true;
#endif
constexpr std::size_t kCacheMinBytes = std::size_t{256} << 10;
constexpr std::size_t kCacheMaxBytes = std::size_t{2} << 30;
constexpr std::size_t kCachePerSize = 4;

class BufferCache {
 public:
  void* take(std::size_t bytes) {
    std::lock_guard lock(mutex_);
    auto it = free_.find(bytes);
    if (it == free_.end() || it->second.empty()) return nullptr;
    void* p = it->second.back();
    it->second.pop_back();
    held_ -= bytes;
    return p;
  }
  void give(void* p, std::size_t bytes) {
    {
      std::lock_guard lock(mutex_);
      std::vector<void*>& slot = free_[bytes];
      if (slot.size() < kCachePerSize && held_ + bytes <= kCacheMaxBytes) {
        slot.push_back(p);
        held_ += bytes;
        return;
      }
    }
    std::free(p);
  }

 private:
  std::mutex mutex_;
  std::map<std::size_t, std::vector<void*>> free_;
  std::size_t held_ = 0;
};

// Leaked on purpose: tensors may outlive static destruction (a static tensor in a test).
BufferCache& cache() {
  static BufferCache* c = new BufferCache;
  return *c;
}

}  // namespace

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
  // aligned_alloc wants a multiple of the alignment; never zero, so empty tensors own a buffer too.
  const std::size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign + kAlign;
  const bool cacheable = kCacheEnabled && rounded >= kCacheMinBytes;
  void* p = cacheable ? cache().take(rounded) : nullptr;
  if (p == nullptr) p = std::aligned_alloc(kAlign, rounded);
  if (p == nullptr) {
    panic(PanicId::TensorTooLarge, {{"shape", shape.to_string()},
                                    {"dtype", std::string(dtype_name(dtype))},
                                    {"bytes", std::to_string(bytes)},
                                    {"limit", "what this machine could allocate"}});
  }
  HostBuffer b;
  if (cacheable) {
    b.data_ = std::shared_ptr<std::byte>(static_cast<std::byte*>(p), [rounded](std::byte* q) { cache().give(q, rounded); });
  } else {
    b.data_ = std::shared_ptr<std::byte>(static_cast<std::byte*>(p), [](std::byte* q) { std::free(q); });
  }
  b.size_ = bytes;
  return b;
}

}  // namespace crossgrad
