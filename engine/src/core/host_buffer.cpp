#include <crossgrad/core/host_buffer.hpp>
#include <crossgrad/core/panic.hpp>

#include "small_blocks.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "core/asan.hpp"

namespace crossgrad {
namespace {

// Note [Host buffer cache]
// Large results come from fresh mmap'd pages, and first-touch page faults cost more than the
// element-wise work itself (an add of 16M floats spent ~95% of its time faulting in a 64 MiB
// result). Freed large buffers are therefore kept, keyed by their exact rounded size, and handed
// to the next request of that size, whose pages are already mapped. The cache is bounded in bytes
// and in blocks per size. It stays on under AddressSanitizer, where a kept block is poisoned
// (ASan's manual poisoning interface) until it is handed out again: a use of a released tensor
// buffer is still reported, as use-after-poison instead of heap-use-after-free.

void poison(void* block, std::size_t bytes) {
#if defined(ASAN_POISON_MEMORY_REGION)
  ASAN_POISON_MEMORY_REGION(block, bytes);
#else
  (void)block;
  (void)bytes;
#endif
}

void unpoison(void* block, std::size_t bytes) {
#if defined(ASAN_UNPOISON_MEMORY_REGION)
  ASAN_UNPOISON_MEMORY_REGION(block, bytes);
#else
  (void)block;
  (void)bytes;
#endif
}

}  // namespace

// The header's kHostBlockCachePoisons and the macros above must agree, or a sanitizer build would
// claim a poisoning it does not do.
#if defined(ASAN_POISON_MEMORY_REGION)
static_assert(kHostBlockCachePoisons);
#else
static_assert(!kHostBlockCachePoisons);
#endif

HostBlockCache::~HostBlockCache() {
  for (auto& [capacity, blocks] : free_) {
    for (void* block : blocks) {
      unpoison(block, capacity);
      std::free(block);
    }
  }
}

void* HostBlockCache::take(std::size_t capacity) {
  std::lock_guard lock(mutex_);
  const auto it = free_.find(capacity);
  if (it == free_.end()) return nullptr;
  void* block = it->second.back();
  it->second.pop_back();
  if (it->second.empty()) free_.erase(it);
  held_ -= capacity;
  --blocks_;
  unpoison(block, capacity);
  return block;
}

void HostBlockCache::give(void* block, std::size_t capacity) {
  if (capacity >= limits_.min_block_bytes) {
    std::lock_guard lock(mutex_);
    const auto it = free_.find(capacity);
    const std::size_t kept = it == free_.end() ? 0 : it->second.size();
    if (kept < limits_.max_blocks_per_size && held_ + capacity <= limits_.max_total_bytes) {
      // Out of memory for the free list: the cache stays as it was and the block is freed below.
      try {
        std::vector<void*>& slot = free_[capacity];
        try {
          slot.push_back(block);
        } catch (...) {
          if (slot.empty()) free_.erase(capacity);
          throw;
        }
        poison(block, capacity);  // under the lock: nobody can take it before
        held_ += capacity;
        ++blocks_;
        return;
      } catch (...) {
      }
    }
  }
  std::free(block);
}

HostBlockCacheStats HostBlockCache::stats() const {
  std::lock_guard lock(mutex_);
  return {blocks_, held_, free_.size()};
}

// Leaked on purpose: tensors may outlive static destruction (a static tensor in a test).
HostBlockCache& host_buffer_cache() {
  static HostBlockCache* c = new HostBlockCache(kHostBufferCacheLimits);
  return *c;
}

namespace {

// A block's capacity as HostBuffer::allocate rounds it, so TensorData bytes and tensor buffers of
// one size share the cache's slots.
std::size_t block_capacity(std::size_t bytes) {
  return (bytes + kHostBufferAlign - 1) / kHostBufferAlign * kHostBufferAlign + kHostBufferAlign;
}

}  // namespace

void* acquire_bytes(std::size_t bytes) {
  const std::size_t capacity = block_capacity(bytes);
  HostBlockCache& cache = host_buffer_cache();
  if (capacity < cache.limits().min_block_bytes) {
    if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
    throw std::bad_alloc();
  }
  if (void* p = cache.take(capacity)) return p;
  void* p = std::aligned_alloc(kHostBufferAlign, capacity);
  if (p == nullptr) throw std::bad_alloc();
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  if (capacity >= kHugePage) {
    // Only whole pages inside the block; the kernel backs its 2 MiB-aligned part with huge pages.
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto begin = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t first = (begin + page - 1) / page * page;
    const std::uintptr_t last = (begin + capacity) / page * page;
    if (last > first) (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);  // a hint only
  }
  return p;
}

void release_bytes(void* block, std::size_t bytes) noexcept {
  const std::size_t capacity = block_capacity(bytes);
  HostBlockCache& cache = host_buffer_cache();
  if (capacity < cache.limits().min_block_bytes) {
    std::free(block);
    return;
  }
  cache.give(block, capacity);
}

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

namespace {
// -1: no fill; else the byte (Note [Filling fresh buffers in tests]).
std::atomic<int> fresh_fill{-1};
}  // namespace

void set_fresh_host_buffer_fill(std::optional<std::uint8_t> byte) { fresh_fill.store(byte ? int{*byte} : -1); }

namespace {
// Note [Guard bytes past every buffer in tests]
std::atomic<bool> guard_spare_bytes{false};
constexpr unsigned char kGuardByte = 0xA5;

void fill_guard(std::byte* spare, std::size_t count) { std::memset(spare, kGuardByte, count); }

// `spare` is the `count` bytes after a `bytes`-byte tensor buffer.
void check_guard(const std::byte* spare, std::size_t count, std::size_t bytes) noexcept {
  for (std::size_t i = 0; i < count; ++i) {
    const auto value = static_cast<unsigned char>(spare[i]);
    if (value != kGuardByte) {
      std::fprintf(stderr,
                   "crossgrad: byte %zu past the end of a %zu-byte tensor buffer was overwritten (0x%02x): a kernel "
                   "wrote past its tensor (Note [Guard bytes past every buffer in tests])\n",
                   i, bytes, value);
      std::abort();
    }
  }
}
}  // namespace

void set_host_buffer_guard(bool on) { guard_spare_bytes.store(on && !kHostBlockCachePoisons); }

namespace {

[[noreturn]] void panic_could_not_allocate(const Shape& shape, DType dtype, std::size_t bytes) {
  panic(PanicId::TensorTooLarge, {{"shape", shape.to_string()},
                                  {"dtype", std::string(dtype_name(dtype))},
                                  {"bytes", std::to_string(bytes)},
                                  {"limit", "what this machine could allocate"}});
}

}  // namespace

// Note [Small buffers are one allocation]
// A small buffer (under the cache's minimum) used to be two allocations: an aligned_alloc block
// and shared_ptr's control block. Tensors on the fuzz targets are a few elements, so every op paid
// for both, and under AddressSanitizer an allocation is the costliest thing a fuzzer does
// (docs/FUZZ_THROUGHPUT.md, round 6); glibc's aligned allocation alone was ~520 instructions a
// call, against ~100 for malloc. make_shared_for_overwrite puts the bytes after the control block
// in one plain allocation, uninitialised, 63 bytes longer than the capacity so that a 64-byte
// boundary with the whole capacity after it lies inside; the HostBuffer holds an aliasing pointer
// to that boundary.
//
// Under AddressSanitizer every byte of a block past the `bytes` asked for is poisoned (so is the
// slack before the boundary): a kernel that writes or reads past its tensor's last element is a
// report at once, where the block's own end would let it run up to 127 bytes further (the
// capacity's spare unit plus the alignment slack).
HostBuffer HostBuffer::allocate(const Shape& shape, DType dtype) {
  const std::size_t bytes = checked_tensor_bytes(shape, dtype);
  // A multiple of the alignment; never zero, so empty tensors own a buffer too.
  const std::size_t capacity = (bytes + kHostBufferAlign - 1) / kHostBufferAlign * kHostBufferAlign + kHostBufferAlign;
  const int fill = fresh_fill.load(std::memory_order_relaxed);
  const bool guard = guard_spare_bytes.load(std::memory_order_relaxed);
  HostBlockCache& cache = host_buffer_cache();
  HostBuffer b;
  b.size_ = bytes;
  b.capacity_ = capacity;
  if (capacity < cache.limits().min_block_bytes) {  // Note [Small buffers are one allocation]
    std::size_t space = capacity + kHostBufferAlign - 1;
    std::shared_ptr<std::byte[]> block;
    try {
      // Note [Small blocks are reused per thread]
      block = std::allocate_shared_for_overwrite<std::byte[]>(SmallBlockAllocator<std::byte>{}, space);
    } catch (const std::bad_alloc&) {
      panic_could_not_allocate(shape, dtype, bytes);
    }
    std::byte* const start = block.get();
    void* aligned = start;
    std::align(kHostBufferAlign, capacity, aligned, space);  // cannot fail: 63 spare bytes
    std::byte* const data = static_cast<std::byte*>(aligned);
    const std::size_t spare = space - bytes;  // std::align left `space` from the boundary on
    if (guard) {
      fill_guard(data + bytes, spare);
      b.data_ = std::shared_ptr<std::byte>(data, [block = std::move(block), bytes, spare](std::byte* p) mutable {
        check_guard(p + bytes, spare, bytes);
        block.reset();
      });
    } else {
      b.data_ = std::shared_ptr<std::byte>(std::move(block), data);
    }
    poison(start, static_cast<std::size_t>(data - start));
    poison(data + bytes, spare);
  } else {
    void* p = cache.take(capacity);
    if (p == nullptr) p = std::aligned_alloc(kHostBufferAlign, capacity);
    if (p == nullptr) panic_could_not_allocate(shape, dtype, bytes);
    // (If the control block cannot be allocated, shared_ptr calls the deleter itself.)
    if (guard) fill_guard(static_cast<std::byte*>(p) + bytes, capacity - bytes);
    b.data_ = std::shared_ptr<std::byte>(static_cast<std::byte*>(p), [capacity, bytes, guard](std::byte* q) {
      if (guard) check_guard(q + bytes, capacity - bytes, bytes);
      host_buffer_cache().give(q, capacity);
    });
    poison(b.data_.get() + bytes, capacity - bytes);
  }
  if (fill >= 0) std::memset(b.data_.get(), fill, bytes);
  return b;
}

}  // namespace crossgrad
