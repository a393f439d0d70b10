// The cuda-error panic and the fault-injection switch that raises it (Note [Cuda fault injection]
// in crossgrad/backends/cuda_testing.hpp). The conversion, the switch's syntax and countdown and
// the environment variable are tested on every machine; with a device, the switch makes real ops
// fail and the exact catalog message is checked. Expected messages are written out by hand from
// the catalog template "CUDA error in {call}: {error}." and the CUDA runtime's error texts.
#include <crossgrad/config.hpp>

#if CROSSGRAD_WITH_CUDA

#include <crossgrad/backends/cuda.hpp>
#include <crossgrad/backends/cuda_testing.hpp>
#include <crossgrad/core/panic.hpp>
#include <crossgrad/core/tensor_data.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <regex>
#include <set>
#include <string>

namespace {

namespace ct = crossgrad::backends::cuda_testing;
using crossgrad::Device;
using crossgrad::DType;
using crossgrad::Panic;
using crossgrad::PanicId;
using crossgrad::TensorData;
using crossgrad::backends::Cuda;

std::optional<Panic> panic_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Panic& p) {
    return p;
  }
  return std::nullopt;
}

bool matches_catalog_pattern(const std::string& message) {
  return std::regex_match(message, std::regex(std::string(crossgrad::panic_pattern(PanicId::CudaError))));
}

// ---- the error-to-panic conversion: no device needed --------------------------------------------

TEST(CudaErrorPanic, ConversionGivesTheExactCatalogMessage) {
  const struct {
    int error;
    const char* call;
    const char* message;
  } cases[] = {
      {2, "cudaMalloc", "CUDA error in cudaMalloc: out of memory (cudaErrorMemoryAllocation)."},
      {700, "gemm_kernel", "CUDA error in gemm_kernel: an illegal memory access was encountered (cudaErrorIllegalAddress)."},
      {35, "cudaSetDevice",
       "CUDA error in cudaSetDevice: CUDA driver version is insufficient for CUDA runtime version "
       "(cudaErrorInsufficientDriver)."},
      // Not a cudaError_t: the runtime's text has no name to add.
      {12345, "cudaMemcpyAsync", "CUDA error in cudaMemcpyAsync: unrecognized error code."},
  };
  for (const auto& c : cases) {
    const auto caught = panic_of([&] { ct::raise_cuda_error(c.error, c.call); });
    ASSERT_TRUE(caught.has_value()) << c.error;
    EXPECT_EQ(caught->id(), PanicId::CudaError);
    EXPECT_EQ(caught->message(), c.message);
    EXPECT_TRUE(matches_catalog_pattern(caught->message())) << caught->message();
  }
}

// ---- the switch: syntax, countdown, environment -------------------------------------------------

class CudaFaultInjection : public ::testing::Test {
 protected:
  // Never in SetUp: the environment tests need the switch untouched before their statement runs.
  void TearDown() override { ct::disarm(); }
};

TEST_F(CudaFaultInjection, SpecSyntax) {
  using Spec = ct::FailureSpec;
  EXPECT_EQ(ct::parse_failure_spec("2"), (Spec{2, 1}));
  EXPECT_EQ(ct::parse_failure_spec("2@1"), (Spec{2, 1}));
  EXPECT_EQ(ct::parse_failure_spec("700@12"), (Spec{700, 12}));
  EXPECT_EQ(ct::parse_failure_spec("cudaErrorMemoryAllocation"), (Spec{2, 1}));
  EXPECT_EQ(ct::parse_failure_spec("cudaErrorIllegalAddress@3"), (Spec{700, 3}));
  for (const char* bad : {"", "@", "@2", "0", "cudaSuccess", "2@0", "2@-1", "2@", "2@3x", "2x", " 2", "-2", "12345",
                          "cudaErrorBogus", "cudaerrormemoryallocation", "2@3@4"}) {
    EXPECT_EQ(ct::parse_failure_spec(bad), std::nullopt) << '"' << bad << '"';
  }
}

TEST_F(CudaFaultInjection, FiresOnceAtTheNthCheckedCall) {
  EXPECT_EQ(ct::calls_until_failure(), 0);
  ct::fail_nth_call(2, 3);
  EXPECT_EQ(ct::calls_until_failure(), 3);
  EXPECT_EQ(ct::pass_through_switch(0), 0);
  EXPECT_EQ(ct::pass_through_switch(0), 0);
  EXPECT_EQ(ct::calls_until_failure(), 1);
  EXPECT_EQ(ct::pass_through_switch(0), 2);  // the third call
  EXPECT_EQ(ct::calls_until_failure(), 0);
  EXPECT_EQ(ct::pass_through_switch(0), 0);  // one-shot
  // A real failure before the armed call passes through and counts.
  ct::fail_nth_call(2, 2);
  EXPECT_EQ(ct::pass_through_switch(700), 700);
  EXPECT_EQ(ct::pass_through_switch(0), 2);
  // Re-arming replaces; error 0 and disarm() disarm.
  ct::fail_nth_call(2, 5);
  ct::fail_nth_call(700, 1);
  EXPECT_EQ(ct::pass_through_switch(0), 700);
  ct::fail_nth_call(2, 1);
  ct::fail_nth_call(0, 1);
  EXPECT_EQ(ct::pass_through_switch(0), 0);
  ct::fail_nth_call(2, 1);
  ct::disarm();
  EXPECT_EQ(ct::pass_through_switch(0), 0);
}

// The variable is read once per process, so these run in a fresh process of their own.
TEST_F(CudaFaultInjection, EnvironmentVariableArmsTheSwitch) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("CROSSGRAD_CUDA_FAIL_NEXT", "cudaErrorMemoryAllocation@2", 1);
        const bool armed = ct::calls_until_failure() == 2;
        const bool first_passes = ct::pass_through_switch(0) == 0;
        const bool second_fails = ct::pass_through_switch(0) == 2;
        std::fprintf(stderr, "armed %d first %d second %d\n", armed, first_passes, second_fails);
        std::exit(armed && first_passes && second_fails ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "armed 1 first 1 second 1");
  EXPECT_EXIT(
      {
        setenv("CROSSGRAD_CUDA_FAIL_NEXT", "700", 1);
        std::exit(ct::pass_through_switch(0) == 700 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(CudaFaultInjection, TestArmingWinsOverTheVariable) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("CROSSGRAD_CUDA_FAIL_NEXT", "2@1", 1);
        ct::fail_nth_call(700, 2);
        const bool first_passes = ct::pass_through_switch(0) == 0;
        std::exit(first_passes && ct::pass_through_switch(0) == 700 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(CudaFaultInjection, MalformedVariableStopsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        setenv("CROSSGRAD_CUDA_FAIL_NEXT", "cudaErrorBogus@2", 1);
        (void)ct::calls_until_failure();
      },
      "CROSSGRAD_CUDA_FAIL_NEXT=\"cudaErrorBogus@2\" is not <error>\\[@<nth>\\]");
}

// ---- with a device: real ops fail with the catalog panic ------------------------------------------

class CudaFaultInjectionOnDevice : public CudaFaultInjection {
 protected:
  void SetUp() override {
    const ct::Gate& gate = ct::gate();
    if (gate.verdict == ct::GateVerdict::Skip) GTEST_SKIP() << gate.reason;
    ASSERT_NE(gate.verdict, ct::GateVerdict::Fail) << gate.reason;
  }
};

const Device kCuda0 = Device::cuda(0);

TEST_F(CudaFaultInjectionOnDevice, NextCallRaisesTheCatalogPanicThenTheBackendWorks) {
  // Once the device is set up, every op's first checked call is activate()'s cudaSetDevice.
  (void)Cuda::into_data(Cuda::float_full({1}, 0.0, DType::F32, kCuda0));
  ct::fail_nth_call(ct::kErrorMemoryAllocation);
  const auto caught = panic_of([] { Cuda::float_full({4}, 1.5, DType::F32, kCuda0); });
  ASSERT_TRUE(caught.has_value()) << "the armed switch did not fire";
  EXPECT_EQ(caught->id(), PanicId::CudaError);
  EXPECT_EQ(caught->message(), "CUDA error in cudaSetDevice: out of memory (cudaErrorMemoryAllocation).");
  EXPECT_EQ(ct::calls_until_failure(), 0);
  EXPECT_EQ(Cuda::into_data(Cuda::float_full({4}, 1.5, DType::F32, kCuda0)),
            TensorData::from_f32({1.5f, 1.5f, 1.5f, 1.5f}, {4}));
}

TEST_F(CudaFaultInjectionOnDevice, EveryCheckedCallOfAnOpSequenceFailsCleanly) {
  const TensorData input = TensorData::from_f32({1, 2, 3, 4, 5, 6}, {2, 3});
  const TensorData expected = TensorData::from_f32({2, 4, 6, 8, 10, 12}, {2, 3});
  const auto run = [&] { return Cuda::into_data(Cuda::float_add(Cuda::from_data(input, kCuda0), Cuda::from_data(input, kCuda0))); };
  ASSERT_EQ(run(), expected);
  const std::regex message("CUDA error in (\\S+): out of memory \\(cudaErrorMemoryAllocation\\)\\.");
  std::set<std::string> calls;
  long nth = 1;
  for (; nth <= 64; ++nth) {
    ct::fail_nth_call(ct::kErrorMemoryAllocation, nth);
    std::optional<TensorData> got;
    const auto caught = panic_of([&] { got = run(); });
    if (!caught) {  // past the sequence's last checked call: nothing fired
      EXPECT_GT(ct::calls_until_failure(), 0) << nth;
      EXPECT_EQ(got, expected);
      break;
    }
    EXPECT_EQ(caught->id(), PanicId::CudaError) << nth;
    std::smatch m;
    ASSERT_TRUE(std::regex_match(caught->message(), m, message)) << nth << ": " << caught->message();
    calls.insert(m[1]);
    ct::disarm();
    EXPECT_EQ(run(), expected) << "after the injected failure at checked call " << nth;
  }
  ct::disarm();
  EXPECT_LE(nth, 64) << "the switch fired at every one of 64 calls: is it counting?";
  EXPECT_GE(nth - 1, 4) << "checked calls in the sequence";
  for (const char* call : {"cudaSetDevice", "cudaMemcpyAsync", "float_add", "cudaStreamSynchronize"}) {
    EXPECT_EQ(calls.count(call), 1u) << call << " was never reached by the switch";
  }
}

TEST_F(CudaFaultInjectionOnDevice, VariableReachesCudaMallocInAFreshProcess) {
  // A fresh process: the first op sets the device up (cudaSetDevice, cudaStreamCreateWithFlags,
  // cudaDeviceGetAttribute), activates it (cudaSetDevice) and allocates (cudaMalloc: call 5).
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("CROSSGRAD_CUDA_FAIL_NEXT", "cudaErrorMemoryAllocation@5", 1);
        try {
          Cuda::float_full({4}, 1.0, DType::F32, kCuda0);
        } catch (const Panic& p) {
          std::fprintf(stderr, "panic: %s\n", p.message().c_str());
          std::exit(p.id() == PanicId::CudaError ? 0 : 2);
        }
        std::exit(1);
      },
      ::testing::ExitedWithCode(0), "panic: CUDA error in cudaMalloc: out of memory \\(cudaErrorMemoryAllocation\\)\\.");
}

}  // namespace

#endif  // CROSSGRAD_WITH_CUDA
