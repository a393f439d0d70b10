// The backend registry (registered_backends): what each backend reports about itself.
#include "test_support.hpp"

namespace crossgrad {
namespace {

// A backend without a device index (the CPU ones) has exactly one device when available.
TEST(BackendRegistry, CpuBackendsReportOneDevice) {
  int checked = 0;
  for (const BackendInfo& info : registered_backends()) {
    if (info.name != "NdArray" && info.name != "Flex") continue;
    ASSERT_TRUE(info.available) << info.name;
    EXPECT_EQ(info.device_count, 1u) << info.name;
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

}  // namespace
}  // namespace crossgrad
