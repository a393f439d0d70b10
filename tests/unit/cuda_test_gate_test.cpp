// When a Cuda test may skip (Note [Cuda test gate] in crossgrad/backends/cuda_testing.hpp): the
// rule as a pure function, case by case, and this machine's verdict. Runs without a GPU.
#include <crossgrad/config.hpp>

#if CROSSGRAD_WITH_CUDA

#include <crossgrad/backends/cuda.hpp>
#include <crossgrad/backends/cuda_testing.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace {

namespace ct = crossgrad::backends::cuda_testing;
using ct::GateVerdict;

// cudaError_t values, from the CUDA runtime API's documentation.
constexpr int kSuccess = 0;
constexpr int kMemoryAllocation = 2;
constexpr int kInitializationError = 3;
constexpr int kInsufficientDriver = 35;
constexpr int kNoDevice = 100;

const std::string kWhy = "the probe's reason";

GateVerdict verdict(int error, bool node, bool driver) { return ct::decide_gate(error, node, driver, kWhy).verdict; }

TEST(CudaTestGate, RunsWhenTheProbeFoundADevice) {
  for (bool node : {false, true}) {
    for (bool driver : {false, true}) {
      const ct::Gate g = ct::decide_gate(kSuccess, node, driver, "");
      EXPECT_EQ(g.verdict, GateVerdict::Run);
      EXPECT_EQ(g.reason, "");
    }
  }
}

TEST(CudaTestGate, SkipsOnlyWithNeitherDeviceNodeNorUsableDriver) {
  // No GPU at all: no node, no driver library; the runtime says the driver is missing.
  EXPECT_EQ(verdict(kInsufficientDriver, false, false), GateVerdict::Skip);
  // A driver installed on a machine without a GPU: no node, and the runtime sees no device.
  EXPECT_EQ(verdict(kNoDevice, false, true), GateVerdict::Skip);
  EXPECT_EQ(verdict(kNoDevice, false, false), GateVerdict::Skip);
}

TEST(CudaTestGate, FailsWhenADeviceNodeExistsButCudaCannotUseIt) {
  // The driver/runtime mismatch of the issue: /dev/nvidiactl present, runtime says insufficient.
  EXPECT_EQ(verdict(kInsufficientDriver, true, false), GateVerdict::Fail);
  EXPECT_EQ(verdict(kInsufficientDriver, true, true), GateVerdict::Fail);
  // A node but no visible device (e.g. hidden by CUDA_VISIBLE_DEVICES): not a GPU-less machine.
  EXPECT_EQ(verdict(kNoDevice, true, true), GateVerdict::Fail);
  EXPECT_EQ(verdict(kNoDevice, true, false), GateVerdict::Fail);
}

TEST(CudaTestGate, FailsWhenTheDriverLoadsButIsCalledInsufficient) {
  EXPECT_EQ(verdict(kInsufficientDriver, false, true), GateVerdict::Fail);
}

TEST(CudaTestGate, FailsOnAnyOtherRuntimeError) {
  for (int error : {kMemoryAllocation, kInitializationError, 999}) {
    for (bool node : {false, true}) {
      for (bool driver : {false, true}) {
        EXPECT_EQ(verdict(error, node, driver), GateVerdict::Fail) << error << " " << node << " " << driver;
      }
    }
  }
}

TEST(CudaTestGate, ReasonsSayWhatWasFoundAndKeepTheProbesReason) {
  EXPECT_EQ(ct::decide_gate(kInsufficientDriver, false, false, kWhy).reason,
            "no NVIDIA driver or device here (no /dev/nvidia* node, no libcuda.so.1): the probe's reason");
  EXPECT_EQ(ct::decide_gate(kNoDevice, false, true, kWhy).reason,
            "no NVIDIA device here (no /dev/nvidia* node): the probe's reason");
  EXPECT_EQ(ct::decide_gate(kInsufficientDriver, true, false, kWhy).reason,
            "an NVIDIA device node is present (/dev/nvidia*) but CUDA cannot use it: the probe's reason");
  EXPECT_EQ(ct::decide_gate(kInsufficientDriver, false, true, kWhy).reason,
            "the NVIDIA driver library (libcuda.so.1) loads but CUDA calls it insufficient (driver and runtime "
            "mismatch?): the probe's reason");
  EXPECT_EQ(ct::decide_gate(kInitializationError, false, false, kWhy).reason,
            "the CUDA runtime failed in a way that does not mean \"no GPU\": the probe's reason");
}

TEST(CudaTestGate, ThisMachinesVerdictFollowsFromItsFacts) {
  const ct::Gate& g = ct::gate();
  EXPECT_EQ(g.verdict, ct::decide_gate(ct::probe_error(), ct::nvidia_device_node_present(),
                                       ct::nvidia_driver_library_loadable(), crossgrad::backends::Cuda::unavailable_reason())
                           .verdict);
  EXPECT_EQ(g.verdict == GateVerdict::Run, crossgrad::backends::Cuda::is_available());
  EXPECT_EQ(ct::probe_error() == kSuccess, crossgrad::backends::Cuda::is_available());
  // Printed so that a log says why the Cuda tests ran, skipped or failed here.
  std::printf("Cuda test gate here: %s%s%s\n",
              g.verdict == GateVerdict::Run ? "run" : g.verdict == GateVerdict::Skip ? "skip" : "fail",
              g.reason.empty() ? "" : ": ", g.reason.c_str());
}

}  // namespace

#endif  // CROSSGRAD_WITH_CUDA
