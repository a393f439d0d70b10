// Cuda backend: the fault-injection switch (Note [Cuda fault injection] in
// crossgrad/backends/cuda_testing.hpp). Plain C++ on the CUDA runtime API.
#include <crossgrad/backends/cuda_testing.hpp>

#include <cuda_runtime_api.h>

#include "cuda_hooks.hpp"

#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace crossgrad::backends {

static_assert(cuda_testing::kErrorMemoryAllocation == cudaErrorMemoryAllocation);
static_assert(cuda_testing::kErrorInsufficientDriver == cudaErrorInsufficientDriver);
static_assert(cuda_testing::kErrorNoDevice == cudaErrorNoDevice);

namespace {

// countdown == 0: disarmed. Otherwise the checked call that takes it from 1 to 0 fails with error.
std::atomic<long> countdown{0};
std::atomic<int> armed_error{0};

bool is_cuda_error(long code) {
  if (code <= 0 || code > 0x7fffffff) return false;
  // cudaGetErrorName names every cudaError_t and says "unrecognized error code" for anything else.
  const char* name = cudaGetErrorName(static_cast<cudaError_t>(code));
  return name != nullptr && std::strncmp(name, "cudaError", 9) == 0;
}

std::optional<int> error_by_name(std::string_view name) {
  // The runtime has no name-to-code lookup; cudaError_t values are below 1000 (the deprecated
  // cudaErrorApiFailureBase aside).
  for (int code = 1; code < 1000; ++code) {
    if (name == cudaGetErrorName(static_cast<cudaError_t>(code))) return code;
  }
  return std::nullopt;
}

std::optional<long> whole_number(std::string_view text) {
  long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

void arm(int error, long nth) {
  armed_error.store(error);
  countdown.store(error == 0 ? 0 : nth);
}

// The variable is read once, before anything else arms the switch, so a test's arming wins over it.
void load_environment_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* value = std::getenv(cuda_testing::kFailNextVariable);
    if (value == nullptr || *value == '\0') return;
    const auto spec = cuda_testing::parse_failure_spec(value);
    if (!spec) {
      std::fprintf(stderr,
                   "crossgrad: %s=\"%s\" is not <error>[@<nth>] (error: a cudaError_t number or name other than "
                   "cudaSuccess, nth >= 1); stopping rather than testing nothing\n",
                   cuda_testing::kFailNextVariable, value);
      std::abort();
    }
    arm(spec->error, spec->nth);
  });
}

}  // namespace

namespace cuda_detail {

cudaError_t injected(cudaError_t result) {
  load_environment_once();
  long left = countdown.load(std::memory_order_relaxed);
  while (left > 0 && !countdown.compare_exchange_weak(left, left - 1)) {
  }
  if (left == 1) return static_cast<cudaError_t>(armed_error.load());
  return result;
}

}  // namespace cuda_detail

namespace cuda_testing {

std::optional<FailureSpec> parse_failure_spec(std::string_view text) {
  FailureSpec spec;
  const std::size_t at = text.find('@');
  const std::string_view error_text = text.substr(0, at);
  if (at != std::string_view::npos) {
    const auto nth = whole_number(text.substr(at + 1));
    if (!nth || *nth < 1) return std::nullopt;
    spec.nth = *nth;
  }
  if (const auto code = whole_number(error_text)) {
    if (!is_cuda_error(*code)) return std::nullopt;
    spec.error = static_cast<int>(*code);
  } else if (const auto named = error_by_name(error_text)) {
    spec.error = *named;
  } else {
    return std::nullopt;
  }
  return spec;
}

void fail_nth_call(int error, long nth) {
  load_environment_once();
  arm(error, nth < 1 ? 1 : nth);
}

void disarm() {
  load_environment_once();
  arm(0, 0);
}

long calls_until_failure() {
  load_environment_once();
  return countdown.load();
}

int pass_through_switch(int result) {
  return static_cast<int>(cuda_detail::injected(static_cast<cudaError_t>(result)));
}

}  // namespace cuda_testing
}  // namespace crossgrad::backends
