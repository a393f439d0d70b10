#pragma once
// Per-thread reuse of small host blocks (Note [Small blocks are reused per thread]), for
// HostBuffer::allocate's small path through SmallBlockAllocator.
#include <cstddef>

namespace crossgrad {

// A block of `bytes` (at least alignof(std::max_align_t)-aligned): one this thread freed with
// give_small_block at exactly that size, else a fresh ::operator new. Throws std::bad_alloc.
void* take_small_block(std::size_t bytes);
// Keeps `block` (from take_small_block(bytes)) for this thread's next request of `bytes`, or
// frees it when this thread keeps enough already.
void give_small_block(void* block, std::size_t bytes) noexcept;

// The allocator std::allocate_shared_for_overwrite uses for a small HostBuffer: the bytes and the
// shared_ptr control block in one block, as before, but from take_small_block.
template <class T>
struct SmallBlockAllocator {
  using value_type = T;
  SmallBlockAllocator() = default;
  template <class U>
  SmallBlockAllocator(const SmallBlockAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    static_assert(alignof(T) <= alignof(std::max_align_t));
    return static_cast<T*>(take_small_block(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { give_small_block(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const SmallBlockAllocator<U>&) const noexcept { return true; }
};

}  // namespace crossgrad
