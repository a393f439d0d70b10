#pragma once
#include <crossgrad/core/dtype.hpp>
#include <crossgrad/core/shape.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace crossgrad {

// Largest single tensor the engine allocates; past it, ops panic tensor-too-large instead of
// throwing std::bad_alloc or being killed by the OOM killer.
inline constexpr std::size_t kMaxTensorBytes = std::size_t{16} << 30;

// Panics tensor-too-large when shape x dtype needs more than kMaxTensorBytes; returns the bytes.
std::size_t checked_tensor_bytes(const Shape& shape, DType dtype);

// Raw blocks for TensorData's bytes (HostBytes below). A large one (the cache's minimum block size
// or more) comes from the host buffer cache (Note [Host buffer cache]): its pages are already
// mapped, so a 64 MiB TensorData built again and again does not fault in and zero 16,384 fresh pages
// each time (in a VM that was most of a Remote bulk download); a fresh large block asks for
// transparent huge pages. Small blocks are plain malloc. Release with the same byte count.
void* acquire_bytes(std::size_t bytes);
void release_bytes(void* block, std::size_t bytes) noexcept;

// The allocator of TensorData's bytes: blocks from acquire_bytes, and elements a resize adds left
// uninitialised (every TensorData constructor writes all of them), so receiving tens of MiB into a
// buffer does not first clear it.
template <class T>
struct HostBytesAllocator {
  using value_type = T;
  HostBytesAllocator() = default;
  template <class U>
  HostBytesAllocator(const HostBytesAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(acquire_bytes(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { release_bytes(p, n * sizeof(T)); }
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-initialised: no zeroing
  }
  template <class U, class... A>
  void construct(U* p, A&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(args)...);
  }
  friend bool operator==(const HostBytesAllocator&, const HostBytesAllocator&) { return true; }
};
using HostBytes = std::vector<std::byte, HostBytesAllocator<std::byte>>;

// Every host buffer starts on this boundary.
inline constexpr std::size_t kHostBufferAlign = 64;

// Shared, 64-byte aligned host memory. Tensors are immutable once built, so sharing is safe.
// Large buffers come from a bounded cache of released ones (Note [Host buffer cache] in
// host_buffer.cpp).
class HostBuffer {
 public:
  HostBuffer() = default;
  // Uninitialised storage for shape x dtype (checked as above).
  static HostBuffer allocate(const Shape& shape, DType dtype);

  std::byte* data() const { return data_.get(); }
  std::size_t size() const { return size_; }          // what was asked for
  std::size_t capacity() const { return capacity_; }  // what the block holds: at least size()

 private:
  std::shared_ptr<std::byte> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

// ---- the cache of released blocks ----------------------------------------------------------------
// Public so that it can be tested directly (tests/unit/host_buffer_test.cpp) with small limits.

struct HostBlockCacheLimits {
  std::size_t min_block_bytes;      // smaller blocks are not worth keeping
  std::size_t max_total_bytes;      // all kept blocks together
  std::size_t max_blocks_per_size;  // kept blocks of one size
};

// What HostBuffer::allocate uses.
inline constexpr HostBlockCacheLimits kHostBufferCacheLimits{std::size_t{256} << 10, std::size_t{2} << 30, 4};

struct HostBlockCacheStats {
  std::size_t blocks = 0;  // blocks kept
  std::size_t bytes = 0;   // their capacities together
  std::size_t sizes = 0;   // distinct capacities among them
};

// True when kept blocks are poisoned for AddressSanitizer: a use of a released buffer is then an
// ASan report (use-after-poison) although its memory has not been freed.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kHostBlockCachePoisons = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kHostBlockCachePoisons = true;
#else
inline constexpr bool kHostBlockCachePoisons = false;
#endif
#else
inline constexpr bool kHostBlockCachePoisons = false;
#endif

// Released blocks (from std::aligned_alloc) keyed by exact capacity. Thread-safe.
class HostBlockCache {
 public:
  explicit HostBlockCache(HostBlockCacheLimits limits) : limits_(limits) {}
  ~HostBlockCache();  // frees what it keeps
  HostBlockCache(const HostBlockCache&) = delete;
  HostBlockCache& operator=(const HostBlockCache&) = delete;

  // A kept block of exactly `capacity` bytes, no longer kept; nullptr when there is none.
  void* take(std::size_t capacity);
  // Keeps the block when the limits allow, else frees it.
  void give(void* block, std::size_t capacity);
  HostBlockCacheStats stats() const;
  const HostBlockCacheLimits& limits() const { return limits_; }

 private:
  const HostBlockCacheLimits limits_;
  mutable std::mutex mutex_;
  std::map<std::size_t, std::vector<void*>> free_;  // no empty vectors
  std::size_t held_ = 0;
  std::size_t blocks_ = 0;
};

// The cache HostBuffer::allocate uses (limits kHostBufferCacheLimits).
HostBlockCache& host_buffer_cache();

// Note [Filling fresh buffers in tests]
// HostBuffer::allocate hands out uninitialised memory, and a reused cache block still holds the
// bytes of the tensor it last belonged to, often a result of the same shape: a kernel that leaves
// part of its output unwritten (a chunk edge, a tile edge, a thread's range) can then pass every
// comparison by luck. The test binaries set a fill byte, so every fresh buffer starts as that
// pattern (0xFF: NaN in F32/F64, -1 in ints) and an unwritten element shows. Off (nullopt) by
// default: production code never pays for it.
void set_fresh_host_buffer_fill(std::optional<std::uint8_t> byte);

// Note [Guard bytes past every buffer in tests]
// A kernel that writes one element past its output lands in the block's spare bytes (64-127 past
// a tensor's last byte), where a Release build sees nothing: only AddressSanitizer, which poisons
// those bytes, reports it. With the guard on, every buffer allocated from then on fills its spare
// bytes with a pattern, and releasing the buffer checks them: a changed byte prints what was
// overwritten and aborts, so the test that ran the kernel fails in any build. The test binaries
// turn it on with the fill above. Off by default, and always off under AddressSanitizer (the
// bytes are poisoned there, which is the stronger check).
void set_host_buffer_guard(bool on);

}  // namespace crossgrad
