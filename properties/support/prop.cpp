#include "support/prop.hpp"

#include <cstdlib>
#include <iostream>
#include <sstream>

namespace rc::detail {
TestListener& globalTestListener();
}

namespace crossgrad::properties {

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
