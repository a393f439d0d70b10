#include "support/prop.hpp"

#include <crossgrad/core/host_buffer.hpp>

#include <cstdlib>
#include <iostream>
#include <sstream>

namespace rc::detail {
TestListener& globalTestListener();
}

namespace crossgrad::properties {
namespace {
// Every fresh host buffer starts as 0xFF bytes, so an output element a kernel forgets to write
// shows (Note [Filling fresh buffers in tests] in core/host_buffer.hpp). This file is linked into
// every property binary: each property runs through run_property below.
[[maybe_unused]] const bool fresh_buffers_filled = (set_fresh_host_buffer_fill(0xFF), true);
// And a kernel that writes past its output aborts (Note [Guard bytes past every buffer in tests]).
[[maybe_unused]] const bool spare_bytes_guarded = (set_host_buffer_guard(true), true);
}  // namespace

void run_property(const rc::detail::Property& property, int default_cases) {
  using namespace rc::detail;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  TestMetadata metadata;
  metadata.id = std::string(info->test_suite_name()) + "/" + info->name();
  metadata.description = info->name();

  TestParams params = configuration().testParams;
  const char* env = std::getenv("RC_PARAMS");
  if (env == nullptr || std::string(env).find("max_success") == std::string::npos) params.maxSuccess = default_cases;

  const TestResult result = checkProperty(property, metadata, params, globalTestListener(), configuration().reproduce);
  if (result.template is<FailureResult>() || result.template is<GaveUpResult>()) {
    std::ostringstream ss;
    printResultMessage(result, ss);
    FAIL() << ss.str();
  } else if (result.template is<SuccessResult>() && !result.template get<SuccessResult>().distribution.empty()) {
    printResultMessage(result, std::cout);
    std::cout << std::endl;
  }
}

}  // namespace crossgrad::properties
