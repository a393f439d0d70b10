// Tests for the engine/src lines that docs/COVERAGE.md listed as executed by no test (issue 12,
// item 6). Each test names the lines it reaches. The lines no test can reach are explained in
// docs/coverage-exceptions.json instead. Expected values and messages come from the contract and
// the panic catalog (engine/panics.json), written out by hand.
#include "test_support.hpp"

#include <crossgrad/backends/flex.hpp>
#include <crossgrad/backends/flex_tuning.hpp>
#include <crossgrad/backends/ndarray.hpp>
#include <crossgrad/core/host_buffer.hpp>

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>

namespace {

using crossgrad::Autodiff;
using crossgrad::Device;
using crossgrad::DType;
using crossgrad::HostBuffer;
using crossgrad::Shape;
using crossgrad::TensorData;
using crossgrad::backends::Flex;
using crossgrad::backends::NdArray;

// ---- Autodiff<B>::from_data (autodiff/autodiff_impl.hpp) -----------------------------------------

template <class B>
void expect_from_data_makes_fresh_leaves() {
  const TensorData data = TensorData::from_f32({1.5f, -2.0f, 0.25f}, {3});
  const auto a = Autodiff<B>::from_data(data, Device::cpu());
  const auto b = Autodiff<B>::from_data(data, Device::cpu());
  EXPECT_EQ(B::into_data(a.primitive), TensorData::from_f32({1.5f, -2.0f, 0.25f}, {3}));
  EXPECT_EQ(Autodiff<B>::shape(a), Shape({3}));
  EXPECT_EQ(Autodiff<B>::dtype(a), DType::F32);
  ASSERT_NE(a.node, nullptr);
  ASSERT_NE(b.node, nullptr);
  EXPECT_NE(a.id(), b.id());  // every from_data starts a new leaf
}

TEST(EngineCoverageGaps, AutodiffFromDataHoldsTheDataInAFreshLeaf) {
  expect_from_data_makes_fresh_leaves<NdArray>();
  expect_from_data_makes_fresh_leaves<Flex>();
}

// ---- synchronize (ndarray/data.cpp, flex/data.cpp) -------------------------------------------------

// CPU backends finish every op before it returns: synchronize is a no-op that must not disturb a
// result computed before it.
TEST(EngineCoverageGaps, CpuSynchronizeLeavesResultsAsTheyWere) {
  const auto n = NdArray::float_neg(NdArray::from_data(TensorData::from_f32({1, -2}, {2}), Device::cpu()));
  NdArray::synchronize(Device::cpu());
  EXPECT_EQ(NdArray::into_data(n), TensorData::from_f32({-1, 2}, {2}));
  const auto f = Flex::float_neg(Flex::from_data(TensorData::from_f32({1, -2}, {2}), Device::cpu()));
  Flex::synchronize(Device::cpu());
  EXPECT_EQ(Flex::into_data(f), TensorData::from_f32({-1, 2}, {2}));
}

// ---- dequantize of a non-QInt8 Quantized (ndarray/quantize.cpp, flex/quantize.cpp) ---------------

// A Quantized assembled by hand around float values is refused with unsupported-dtype
// ("DType {dtype} is not supported by {what}.").
TEST(EngineCoverageGaps, DequantizeRefusesValuesThatAreNotQInt8) {
  const NdArray::Quantized nq{NdArray::from_data(TensorData::from_f32({1, 2}, {2}), Device::cpu()), 0.5f};
  EXPECT_PANIC(NdArray::dequantize(nq), "unsupported-dtype", "DType F32 is not supported by dequantize.");
  const Flex::Quantized fq{Flex::from_data(TensorData::from_i64({1, 2}, {2}), Device::cpu()), 0.5f};
  EXPECT_PANIC(Flex::dequantize(fq), "unsupported-dtype", "DType I64 is not supported by dequantize.");
}

// ---- CROSSGRAD_NUM_THREADS (flex/thread_pool.cpp, configured_threads) ------------------------------

// Flex's pool is sized once, from CROSSGRAD_NUM_THREADS when it is a whole number >= 1, else from the
// hardware (flex_tuning.hpp, docs/PERFORMANCE.md). The cap at 256 threads is thread_pool.cpp's own.
// Only digits count, read in base 10 ("010" is 10); a sign, a space or a trailing letter gives the
// hardware's count ("-2" once gave 256 threads). The pool is created on first use, so each value is
// checked in a fresh process: a threadsafe death-test child re-runs this test up to its statement,
// with the variable set just before it.
int hardware_threads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

void exit_with_pool_size() {
  const std::size_t n = crossgrad::backends::flex::num_threads();
  std::fprintf(stderr, "pool size %zu\n", n);
  std::exit(static_cast<int>(n % 256));  // exit codes are 8 bits: 256 reads as 0
}

TEST(EngineCoverageGaps, NumThreadsVariableSizesTheFlexPool) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  using ::testing::ExitedWithCode;
  ASSERT_EQ(setenv("CROSSGRAD_NUM_THREADS", "3", 1), 0);
  EXPECT_EXIT(exit_with_pool_size(), ExitedWithCode(3), "pool size 3\n");
  ASSERT_EQ(setenv("CROSSGRAD_NUM_THREADS", "1", 1), 0);
  EXPECT_EXIT(exit_with_pool_size(), ExitedWithCode(1), "pool size 1\n");
  ASSERT_EQ(setenv("CROSSGRAD_NUM_THREADS", "100000", 1), 0);  // capped
  EXPECT_EXIT(exit_with_pool_size(), ExitedWithCode(0), "pool size 256\n");
  ASSERT_EQ(setenv("CROSSGRAD_NUM_THREADS", "010", 1), 0);  // decimal, not octal
  EXPECT_EXIT(exit_with_pool_size(), ExitedWithCode(10), "pool size 10\n");
  const std::string hw = "pool size " + std::to_string(hardware_threads()) + "\n";
  for (const char* ignored : {"0", "4x", "1a", "", "-2", "+3", " 3"}) {  // not digits >= 1: the hardware's count
    ASSERT_EQ(setenv("CROSSGRAD_NUM_THREADS", ignored, 1), 0);
    EXPECT_EXIT(exit_with_pool_size(), ExitedWithCode(hardware_threads() % 256), hw) << "'" << ignored << "'";
  }
  ASSERT_EQ(unsetenv("CROSSGRAD_NUM_THREADS"), 0);
}

// ---- the system allocator failing below the 16 GiB limit (core/host_buffer.cpp) -------------------

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

TEST(EngineCoverageGaps, AllocatorFailureBelowTheLimitIsTensorTooLarge) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(allocate_past_a_lowered_address_space_cap(), ::testing::ExitedWithCode(0),
              "tensor-too-large: A tensor of shape \\[268435456\\] and dtype F32 needs 1073741824 bytes, over "
              "the limit of what this machine could allocate bytes\\.");
}

}  // namespace
