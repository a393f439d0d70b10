#pragma once
// Test-only hooks into the Cuda backend's runtime layer (engine/src/backends/cuda/). Not for
// applications. Present only when the engine is built with CUDA (CROSSGRAD_WITH_CUDA in
// <crossgrad/config.hpp>). Plain C++: CUDA error codes are cudaError_t values passed as int, so a
// test needs no CUDA headers.
//
// Note [Cuda fault injection]
// A real CUDA failure (device out of memory, a failed launch, a lost device) cannot be provoked on
// demand, yet the path that reports one, the cuda-error panic, must be tested. This switch makes
// the Nth *checked* CUDA call, counted from the moment it is armed, report a chosen cudaError_t.
// The call itself still runs (a block it allocated is freed again); its result is replaced, so the
// op panics cuda-error exactly as on a real failure. Checked calls are the runtime calls and kernel
// launches whose result the backend checks: cudaSetDevice, cudaMalloc, cudaMemcpyAsync,
// cudaStreamSynchronize, every kernel launch, ...; the device probe and clean-up calls are not
// counted. The switch is one-shot: it disarms itself when it fires.
//
// Two ways to arm it:
//  - the environment variable CROSSGRAD_CUDA_FAIL_NEXT=<error>[@<nth>], read before the first
//    checked CUDA call of the process: <error> is a cudaError_t as a number (2) or by name
//    (cudaErrorMemoryAllocation); <nth> counts checked calls from 1 (default 1). A malformed value
//    stops the process with a message instead of silently testing nothing.
//  - fail_nth_call() below, from a test.
// Without a device no checked call is ever made (ops panic device-unavailable first), so the
// switch has nothing to fire on; raise_cuda_error() runs the error-to-panic conversion anywhere.
#include <optional>
#include <string>
#include <string_view>

namespace crossgrad::backends::cuda_testing {

// cudaError_t values the tests name (fixed by the CUDA runtime API; the backend static_asserts
// them against its headers).
inline constexpr int kErrorMemoryAllocation = 2;
inline constexpr int kErrorInsufficientDriver = 35;
inline constexpr int kErrorNoDevice = 100;

// ---- fault injection (Note [Cuda fault injection]) ----------------------------------------------

inline constexpr const char* kFailNextVariable = "CROSSGRAD_CUDA_FAIL_NEXT";

struct FailureSpec {
  int error = 0;  // a cudaError_t other than cudaSuccess
  long nth = 1;   // >= 1
  friend bool operator==(const FailureSpec&, const FailureSpec&) = default;
};

// Parses "<error>[@<nth>]" (the variable's syntax). nullopt when malformed: an empty or unknown
// error, cudaSuccess, nth below 1, anything trailing.
std::optional<FailureSpec> parse_failure_spec(std::string_view text);

// Arms the switch: the nth checked CUDA call from now reports `error` (replaces what was armed,
// the environment variable's arming included).
void fail_nth_call(int error, long nth = 1);
void disarm();
// Checked calls still to come before the armed failure fires; 0 when nothing is armed.
long calls_until_failure();
// What the switch makes of one checked call's `result` (every checked call goes through it); counts
// as a checked call. Lets a test drive the countdown without a device.
int pass_through_switch(int result);

// The conversion every failed checked call goes through: panics cuda-error naming `call`, with
// cudaGetErrorString's text and the cudaError_t name. Needs no device or driver.
[[noreturn]] void raise_cuda_error(int error, const char* call);

// ---- when a Cuda test may skip ------------------------------------------------------------------

// Note [Cuda test gate]
// A Cuda test skips only when the machine has nothing to test: no NVIDIA device node (/dev/nvidiactl
// or /dev/nvidia<N>) and the runtime found no device (cudaErrorNoDevice) or no driver
// (cudaErrorInsufficientDriver) while no driver library (libcuda.so.1) can be loaded. A machine
// with a device node, or with a loadable driver that the runtime calls insufficient (a driver and
// runtime mismatch), or any other runtime failure, fails the tests with the reason: that is a broken
// GPU setup, not a machine without a GPU.
enum class GateVerdict { Run, Skip, Fail };
struct Gate {
  GateVerdict verdict = GateVerdict::Run;
  std::string reason;  // empty for Run
};

// The rule above as a pure function. `probe_error` is cudaGetDeviceCount's result (0 when it
// succeeded with at least one device), `probe_reason` the backend's one-line explanation of it.
Gate decide_gate(int probe_error, bool device_node_present, bool driver_library_loadable,
                 std::string_view probe_reason);

// The facts of this machine, and the rule applied to them (computed once).
int probe_error();
bool nvidia_device_node_present();
bool nvidia_driver_library_loadable();
const Gate& gate();

}  // namespace crossgrad::backends::cuda_testing
