// HostBuffer and its cache of released blocks (Note [Host buffer cache] in
// engine/src/core/host_buffer.cpp): alignment, sizes, reuse, the bounds, and under AddressSanitizer
// the poisoning of kept blocks. The process-wide cache is shared with every other test in this
// binary, so tests of it use sizes nothing else asks for and compare stats before and after;
// the bounds are tested on a private HostBlockCache with small limits.
#include <crossgrad/core/host_buffer.hpp>
#include <crossgrad/core/tensor_data.hpp>

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <crossgrad/backends/ndarray.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define CROSSGRAD_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CROSSGRAD_TEST_ASAN 1
#endif
#endif
#ifndef CROSSGRAD_TEST_ASAN
#define CROSSGRAD_TEST_ASAN 0
#endif
#if CROSSGRAD_TEST_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace crossgrad {
namespace {

// Element counts that nothing else allocates, one per test so that the tests do not share
// blocks through the cache (all over the cache's 256 KiB minimum as F32).
constexpr std::size_t kAlignedTest = 300007;
constexpr std::size_t kReuseTest = 310007;
constexpr std::size_t kNeverSmallerTest = 320007;
constexpr std::size_t kBoundTest = 330007;
constexpr std::size_t kDeathTest = 340007;
constexpr std::size_t kTensorDataTest = 350007;
constexpr std::size_t kGuardTest = 360007;

std::uintptr_t address(const HostBuffer& b) { return reinterpret_cast<std::uintptr_t>(b.data()); }

TEST(HostBuffer, EveryBufferIsAlignedAndHoldsWhatWasAsked) {
  std::vector<HostBuffer> kept;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{17}, std::size_t{1000},
                        std::size_t{65536}, kAlignedTest, kAlignedTest + 1, std::size_t{1} << 20}) {
    for (DType dtype : {DType::F32, DType::F64, DType::I8, DType::Bool}) {
      const HostBuffer b = HostBuffer::allocate({n}, dtype);
      ASSERT_NE(b.data(), nullptr) << n;
      EXPECT_EQ(address(b) % 64, 0u) << n << " " << dtype_name(dtype);
      EXPECT_EQ(b.size(), n * dtype_size(dtype));
      EXPECT_GE(b.capacity(), b.size());
      EXPECT_EQ(b.capacity() % 64, 0u);
      if (b.size() > 0) {  // every byte asked for is writable (ASan would report otherwise)
        b.data()[0] = std::byte{1};
        b.data()[b.size() - 1] = std::byte{2};
      }
      kept.push_back(b);
    }
  }
  // Reused blocks are aligned too: release all, allocate the same shapes again.
  std::vector<std::pair<Shape, DType>> shapes;
  for (const HostBuffer& b : kept) shapes.push_back({Shape{b.size()}, DType::I8});
  kept.clear();
  for (const auto& [shape, dtype] : shapes) EXPECT_EQ(address(HostBuffer::allocate(shape, dtype)) % 64, 0u);
}

TEST(HostBuffer, ReleasedLargeBufferIsReused) {
  const HostBlockCacheStats before = host_buffer_cache().stats();
  std::byte* first = nullptr;
  std::size_t first_capacity = 0;
  {
    const HostBuffer b = HostBuffer::allocate({kReuseTest}, DType::F32);
    first = b.data();
    first_capacity = b.capacity();
  }
  const HostBlockCacheStats released = host_buffer_cache().stats();
  EXPECT_EQ(released.blocks, before.blocks + 1);
  EXPECT_EQ(released.bytes, before.bytes + first_capacity);
  const HostBuffer again = HostBuffer::allocate({kReuseTest}, DType::F32);
  EXPECT_EQ(again.data(), first) << "the released block was not handed out again";
  EXPECT_EQ(host_buffer_cache().stats().blocks, before.blocks);
  // Small buffers are not kept.
  { const HostBuffer small = HostBuffer::allocate({1000}, DType::F32); }
  EXPECT_EQ(host_buffer_cache().stats().blocks, before.blocks);
}

// Note [Small blocks are reused per thread]: a small buffer's block (bytes and control block)
// goes back to its thread's table and comes back for the next buffer of that size there.
TEST(HostBuffer, ReleasedSmallBufferIsReusedOnItsThread) {
  const std::byte* first = nullptr;
  {
    const HostBuffer b = HostBuffer::allocate({1500}, DType::F32);
    first = b.data();
  }
  const HostBuffer again = HostBuffer::allocate({1500}, DType::F32);
  EXPECT_EQ(again.data(), first) << "the released small block was not handed out again";
  const HostBuffer other = HostBuffer::allocate({1500}, DType::F32);
  EXPECT_NE(other.data(), again.data());
  const HostBuffer tiny = HostBuffer::allocate({3}, DType::F32);  // under 1 KiB: glibc's own cache
  EXPECT_NE(tiny.data(), nullptr);
}

TEST(HostBuffer, AReusedBlockIsNeverSmallerThanTheRequest) {
  // Sizes 4 KiB apart, released, then asked for again in the other order and a little larger:
  // whatever released block a request gets must be at least as large as the request.
  constexpr std::size_t kBase = kNeverSmallerTest * 4;
  constexpr std::size_t kStep = 4096;
  std::vector<std::pair<std::byte*, std::size_t>> released;
  {
    std::vector<HostBuffer> held;
    for (std::size_t i = 0; i < 8; ++i) held.push_back(HostBuffer::allocate({kBase + i * kStep}, DType::I8));
    for (const HostBuffer& b : held) released.push_back({b.data(), b.capacity()});
  }
  std::vector<HostBuffer> again;
  std::size_t reused = 0;
  for (std::size_t i = 8; i-- > 0;) {
    for (std::size_t extra : {std::size_t{0}, std::size_t{1}, std::size_t{64}, kStep}) {
      const HostBuffer b = HostBuffer::allocate({kBase + i * kStep + extra}, DType::I8);
      for (const auto& [block, capacity] : released) {
        if (b.data() == block) {
          ++reused;
          EXPECT_GE(capacity, b.size()) << "a released block of " << capacity << " bytes served " << b.size();
        }
      }
      again.push_back(b);
    }
  }
  EXPECT_EQ(reused, 8u) << "each released block serves the request of its own size";
}

TEST(HostBuffer, TheProcessWideCacheKeepsAtMostFourBlocksOfASize) {
  const HostBlockCacheStats before = host_buffer_cache().stats();
  {
    std::vector<HostBuffer> held;
    for (int i = 0; i < 7; ++i) held.push_back(HostBuffer::allocate({kBoundTest}, DType::F32));
  }
  const HostBlockCacheStats after = host_buffer_cache().stats();
  EXPECT_EQ(after.blocks, before.blocks + 4);
  EXPECT_EQ(after.sizes, before.sizes + 1);
  EXPECT_LE(after.bytes, std::size_t{2} << 30);
  // Taking them back empties the size's slot entirely.
  std::vector<HostBuffer> again;
  for (int i = 0; i < 4; ++i) again.push_back(HostBuffer::allocate({kBoundTest}, DType::F32));
  EXPECT_EQ(host_buffer_cache().stats().blocks, before.blocks);
  EXPECT_EQ(host_buffer_cache().stats().sizes, before.sizes);
}

// ---- HostBlockCache with small limits ------------------------------------------------------------

void* block_of(std::size_t capacity) { return std::aligned_alloc(64, capacity); }

TEST(HostBlockCache, BoundedInBlocksPerSizeAndInTotalBytes) {
  HostBlockCache cache({1024, 5 * 4096, 2});
  for (int i = 0; i < 3; ++i) cache.give(block_of(4096), 4096);
  EXPECT_EQ(cache.stats().blocks, 2u);  // the third is freed
  EXPECT_EQ(cache.stats().bytes, 2u * 4096);
  EXPECT_EQ(cache.stats().sizes, 1u);
  cache.give(block_of(8192), 8192);
  EXPECT_EQ(cache.stats().bytes, 4u * 4096);
  cache.give(block_of(8192), 8192);  // would make 6 * 4096: over the total
  EXPECT_EQ(cache.stats().blocks, 3u);
  EXPECT_EQ(cache.stats().bytes, 4u * 4096);
  cache.give(block_of(4096 + 64), 4096 + 64);  // 4 * 4096 + 4160 > 5 * 4096: refused too
  cache.give(block_of(2048), 2048);            // fits
  EXPECT_EQ(cache.stats().blocks, 4u);
  EXPECT_EQ(cache.stats().bytes, 4u * 4096 + 2048);
  EXPECT_EQ(cache.stats().sizes, 3u);
  cache.give(block_of(512), 512);  // under the minimum: never kept
  EXPECT_EQ(cache.stats().blocks, 4u);
  EXPECT_EQ(cache.stats().sizes, 3u);
}

TEST(HostBlockCache, TakesOnlyTheExactCapacityAndForgetsEmptySizes) {
  HostBlockCache cache({1024, 1 << 20, 4});
  void* a = block_of(4096);
  cache.give(a, 4096);
  EXPECT_EQ(cache.take(4096 + 64), nullptr);  // larger: would be too small
  EXPECT_EQ(cache.take(4096 - 64), nullptr);
  EXPECT_EQ(cache.take(4096), a);
  EXPECT_EQ(cache.take(4096), nullptr);
  EXPECT_EQ(cache.stats().blocks, 0u);
  EXPECT_EQ(cache.stats().bytes, 0u);
  EXPECT_EQ(cache.stats().sizes, 0u);  // no empty slot left behind
  std::free(a);
  // Refused blocks leave no slot behind either.
  HostBlockCache none({1024, 1024, 4});
  for (std::size_t c = 2048; c < 2048 + 64 * 100; c += 64) none.give(block_of(c), c);
  EXPECT_EQ(none.stats().sizes, 0u);
  EXPECT_EQ(none.stats().blocks, 0u);
}

TEST(HostBlockCache, LastReleasedIsFirstReused) {
  HostBlockCache cache({1024, 1 << 20, 4});
  void* a = block_of(4096);
  void* b = block_of(4096);
  cache.give(a, 4096);
  cache.give(b, 4096);
  EXPECT_EQ(cache.take(4096), b);  // the one most likely still in cache lines and mapped
  EXPECT_EQ(cache.take(4096), a);
  std::free(a);
  std::free(b);
}

// ---- AddressSanitizer: kept blocks are poisoned ------------------------------------------------------

TEST(HostBlockCache, PoisonsUnderAddressSanitizerOnly) { EXPECT_EQ(kHostBlockCachePoisons, bool(CROSSGRAD_TEST_ASAN)); }

#if CROSSGRAD_TEST_ASAN
TEST(HostBlockCache, KeptBlocksArePoisonedAndHandedOutUnpoisoned) {
  HostBlockCache cache({1024, 1 << 20, 4});
  auto* a = static_cast<char*>(block_of(4096));
  cache.give(a, 4096);
  EXPECT_TRUE(__asan_address_is_poisoned(a));
  EXPECT_TRUE(__asan_address_is_poisoned(a + 4095));
  EXPECT_EQ(cache.take(4096), a);
  EXPECT_FALSE(__asan_address_is_poisoned(a));
  EXPECT_FALSE(__asan_address_is_poisoned(a + 4095));
  std::free(a);
}

// Note [Small buffers are one allocation]: every byte past the tensor's own is poisoned, small
// buffers (one block with the control block) and cache blocks alike, so an overrun by one element
// is a report, not a write into the block's spare bytes.
TEST(HostBuffer, BytesPastTheTensorArePoisoned) {
  for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{12}, std::size_t{17}, std::size_t{1000},
                        kAlignedTest, kAlignedTest + 1}) {
    const HostBuffer b = HostBuffer::allocate({n}, DType::F32);
    EXPECT_FALSE(__asan_address_is_poisoned(b.data())) << n;
    EXPECT_FALSE(__asan_address_is_poisoned(b.data() + b.size() - 1)) << n;
    EXPECT_TRUE(__asan_address_is_poisoned(b.data() + b.size())) << n;
    EXPECT_TRUE(__asan_address_is_poisoned(b.data() + b.capacity() - 1)) << n;
  }
}

TEST(HostBufferDeathTest, UseOfAReleasedCachedBufferIsAnAsanReport) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        volatile std::byte* stale = nullptr;
        {
          const HostBuffer b = HostBuffer::allocate({kDeathTest}, DType::F32);
          stale = b.data();
          stale[0] = std::byte{1};
        }
        stale[100] = std::byte{2};  // the buffer went back to the cache
      },
      "use-after-poison");
}

TEST(HostBufferDeathTest, UseOfAReleasedSmallBufferIsAnAsanReport) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        volatile std::byte* stale = nullptr;
        {
          const HostBuffer b = HostBuffer::allocate({1700}, DType::F32);
          stale = b.data();
          stale[0] = std::byte{1};
        }
        stale[100] = std::byte{2};  // the block went back to this thread's table
      },
      "use-after-poison");
}
#endif

// Note [Guard bytes past every buffer in tests]: this binary turns the guard on
// (tests/support/buffer_checks.cpp). A byte written past the tensor, small buffer or cache block, first
// spare byte or last, aborts when the buffer is released; a buffer written in full does not.
TEST(HostBufferDeathTest, AWritePastTheTensorAbortsWhenItsBufferIsReleased) {
  if (kHostBlockCachePoisons) GTEST_SKIP() << "under AddressSanitizer the spare bytes are poisoned instead";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (std::size_t n : {std::size_t{1}, std::size_t{17}, kGuardTest}) {
    for (bool last : {false, true}) {
      EXPECT_DEATH(
          {
            const HostBuffer b = HostBuffer::allocate({n}, DType::F32);
            b.data()[last ? b.capacity() - 1 : b.size()] = std::byte{0};
          },
          "byte [0-9]+ past the end of a " + std::to_string(4 * n) + "-byte tensor buffer was overwritten")
          << n << (last ? " last spare byte" : " first spare byte");
    }
    EXPECT_EXIT(
        {
          {
            const HostBuffer b = HostBuffer::allocate({n}, DType::F32);
            for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] = std::byte{0x5A};
          }
          std::exit(0);
        },
        ::testing::ExitedWithCode(0), "")
        << n;
  }
}

// TensorData's bytes (HostBytes): a large block goes back to the cache and the next TensorData of
// that size takes it (no fresh pages); the values survive every way of building one.
TEST(HostBytes, LargeTensorDataBytesComeBackFromTheCache) {
  std::vector<float> values(kTensorDataTest);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.5f - 7.0f;
  const std::byte* first = nullptr;
  {
    const TensorData d = TensorData::from_f32(values, {kTensorDataTest});
    first = d.bytes().data();
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(first) % 64, 0u) << "a cache block is 64-byte aligned";
  }
  const TensorData again = TensorData::from_f32(values, {kTensorDataTest});
  EXPECT_EQ(again.bytes().data(), first) << "the released block was not handed out again";
  EXPECT_EQ(again.to_f32(), values);
  const TensorData copy = again;  // a copy is its own block with the same bytes
  EXPECT_NE(copy.bytes().data(), again.bytes().data());
  EXPECT_TRUE(copy == again);
  const TensorData from_raw = TensorData::from_bytes(again.bytes(), {kTensorDataTest}, DType::F32);
  EXPECT_TRUE(from_raw == again);
  HostBytes raw(again.bytes().begin(), again.bytes().end());
  const TensorData adopted = TensorData::adopt_bytes(std::move(raw), {kTensorDataTest}, DType::F32);
  EXPECT_TRUE(adopted == again);
  EXPECT_PANIC(TensorData::adopt_bytes(HostBytes(4), {2}, DType::F32), "data-length-mismatch",
               "Tensor data has 1 values but shape [2] needs 2.");
}

// The total limit is inclusive: blocks that fill it exactly are kept.
TEST(HostBlockCache, BlocksThatFillTheTotalExactlyAreKept) {
  HostBlockCache cache({1024, 2 * 4096, 4});
  cache.give(std::aligned_alloc(64, 4096), 4096);
  cache.give(std::aligned_alloc(64, 4096), 4096);
  EXPECT_EQ(cache.stats().blocks, 2u);
  EXPECT_EQ(cache.stats().bytes, 2u * 4096);
  cache.give(std::aligned_alloc(64, 4096), 4096);  // one more would go over: freed
  EXPECT_EQ(cache.stats().blocks, 2u);
}

// ---- the system allocator refusing a buffer below the 16 GiB limit -------------------------------

// Address space of this process in bytes (/proc/self/statm, first field in pages).
std::size_t address_space_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0;
  statm >> pages;
  return pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

// In a child process: caps the address space 64 MiB above what it uses, asks for a 1 GiB buffer,
// restores the cap (so that the child can still write its results) and exits 0 when the catalog's
// tensor-too-large panic came with the limit "what this machine could allocate".
void allocate_past_a_lowered_address_space_cap() {
  rlimit old{};
  if (getrlimit(RLIMIT_AS, &old) != 0) std::exit(10);
  rlimit low = old;
  low.rlim_cur = address_space_bytes() + (std::size_t{64} << 20);
  if (setrlimit(RLIMIT_AS, &low) != 0) std::exit(11);
  const auto caught = crossgrad::testing_support::panic_of(
      [] { (void)HostBuffer::allocate(Shape({std::size_t{1} << 28}), DType::F32); });
  setrlimit(RLIMIT_AS, &old);
  if (!caught) std::exit(12);
  std::fprintf(stderr, "%s: %s\n", caught->id.c_str(), caught->message.c_str());
  std::exit(0);
}

TEST(HostBufferDeathTest, AllocatorFailureBelowTheLimitIsTensorTooLarge) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(allocate_past_a_lowered_address_space_cap(), ::testing::ExitedWithCode(0),
              "tensor-too-large: A tensor of shape \\[268435456\\] and dtype F32 needs 1073741824 bytes, over "
              "the limit of what this machine could allocate bytes\\.");
}

// An allocation under the 16 GiB limit that the system refuses is a tensor-too-large panic,
// not a null buffer. Refusal is forced in a child process by capping its address space.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CROSSGRAD_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define CROSSGRAD_TEST_SANITIZED 1
#endif
#endif

#ifndef CROSSGRAD_TEST_SANITIZED
[[noreturn]] void allocate_under_a_capped_address_space() {
  std::size_t pages = 0;
  std::ifstream("/proc/self/statm") >> pages;
  const rlim_t cap = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + (rlim_t{1} << 30);
  const rlimit lim{cap, cap};
  if (setrlimit(RLIMIT_AS, &lim) != 0) std::_Exit(5);
  try {
    (void)backends::NdArray::float_full(Shape{std::size_t{2} << 30}, 1.0, DType::F32, Device::cpu());  // 8 GiB
  } catch (const Panic& p) {
    const bool ok = p.id() == PanicId::TensorTooLarge &&
                    p.message() == "A tensor of shape [2147483648] and dtype F32 needs 8589934592 bytes, over the "
                                   "limit of what this machine could allocate bytes.";
    std::_Exit(ok ? 7 : 6);
  }
  std::_Exit(4);
}

TEST(HostBufferDeathTest, ABackendOpWhoseAllocationIsRefusedPanicsTensorTooLarge) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(allocate_under_a_capped_address_space(), ::testing::ExitedWithCode(7), "");
}
#endif

}  // namespace
}  // namespace crossgrad
