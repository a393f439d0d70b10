// Note [Small blocks are reused per thread]
// A small HostBuffer is one allocation (Note [Small buffers are one allocation]), but glibc's
// malloc keeps only blocks up to 1 KiB in its per-thread cache: a 1K-float result (4 KiB) went
// through its bins, ~400 instructions to allocate and free, a quarter of a 1K-element add
// (callgrind, docs/PERFORMANCE.md "Small element-wise ops"). So a thread keeps the blocks it frees
// from 1 KiB up to the host buffer cache's minimum (Note [Host buffer cache] takes over there):
// per exact size, at most kPerSize of each and kMaxBytes in all, in a small table searched
// linearly; the next request of that size on that thread takes one back. A block freed on another
// thread than the one that allocated it simply joins that thread's table. Under AddressSanitizer a
// kept block is poisoned until it is handed out again, so a use of a released small tensor buffer
// is still reported (use-after-poison), as for the large cache.
#include "small_blocks.hpp"

#include <cstdint>
#include <new>

#include "core/asan.hpp"

namespace crossgrad {
namespace {

constexpr std::size_t kMinBytes = 1024;             // below: glibc's tcache is as fast
constexpr std::size_t kSizes = 8, kPerSize = 4;     // distinct sizes kept, blocks kept of each
constexpr std::size_t kMaxBytes = std::size_t{2} << 20;  // per thread

struct Slot {
  std::size_t bytes = 0;  // 0: unused
  std::size_t count = 0;
  void* blocks[kPerSize] = {};
};

// Set when this thread's table has been destroyed (thread_local destructors run before static
// ones): a HostBuffer released later, by a static object's destructor, is simply freed.
thread_local bool table_gone = false;

struct Table {
  Slot slots[kSizes];
  std::size_t kept_bytes = 0;
  ~Table() {
    table_gone = true;
    for (Slot& s : slots) {
      for (std::size_t i = 0; i < s.count; ++i) {
#if defined(ASAN_UNPOISON_MEMORY_REGION)
        ASAN_UNPOISON_MEMORY_REGION(s.blocks[i], s.bytes);
#endif
        ::operator delete(s.blocks[i]);
      }
    }
  }
};

Table& table() {
  thread_local Table t;
  return t;
}

}  // namespace

void* take_small_block(std::size_t bytes) {
  if (bytes >= kMinBytes && !table_gone) {
    Table& t = table();
    for (Slot& s : t.slots) {
      if (s.bytes == bytes && s.count > 0) {
        void* p = s.blocks[--s.count];
        t.kept_bytes -= bytes;
#if defined(ASAN_UNPOISON_MEMORY_REGION)
        ASAN_UNPOISON_MEMORY_REGION(p, bytes);
#endif
        return p;
      }
    }
  }
  return ::operator new(bytes);
}

void give_small_block(void* block, std::size_t bytes) noexcept {
  if (bytes >= kMinBytes && !table_gone) {
    Table& t = table();
    if (t.kept_bytes + bytes <= kMaxBytes) {
      Slot* free_slot = nullptr;
      for (Slot& s : t.slots) {
        if (s.bytes == bytes) {
          free_slot = &s;
          break;
        }
        if (free_slot == nullptr && s.count == 0) free_slot = &s;
      }
      if (free_slot != nullptr && free_slot->count < kPerSize) {
        free_slot->bytes = bytes;
        free_slot->blocks[free_slot->count++] = block;
        t.kept_bytes += bytes;
#if defined(ASAN_POISON_MEMORY_REGION)
        ASAN_POISON_MEMORY_REGION(block, bytes);
#endif
        return;
      }
    }
  }
  ::operator delete(block);
}

}  // namespace crossgrad
