// Where relu or clamp masks the incoming gradient out, the gradient is +0 whatever the cotangent's
// sign, as in PyTorch and Burn (docs/OPS.md, "Zero gradients are +0"): g * 0 alone is -0 for a
// negative g, which a bit-for-bit comparison with another engine sees.
#include "test_support.hpp"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class MaskedGradientSign : public OnEachBackend<B> {
 protected:
  // d/dx sum(-1 * op(x)): the cotangent reaching op is -1 everywhere.
  static std::vector<double> gradient(const std::vector<double>& xs, DType dtype,
                                      const std::function<DispatchTensor(const DispatchTensor&)>& op) {
    return gradient_at<B>(xs, dtype, -1.0, op);
  }
};
TYPED_TEST_SUITE(MaskedGradientSign, AllBackendTypes, BackendTestName);

void expect_bits(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i], want[i]) << what << " at " << i;
    EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << what << " at " << i << ": the sign of zero";
  }
}

TYPED_TEST(MaskedGradientSign, ReluGivesPlusZeroWhereTheInputIsNotPositive) {
  for (const DType dtype : {DType::F32, DType::F64}) {
    const auto got = TestFixture::gradient({-2.0, -0.0, 0.0, 3.0}, dtype,
                                           [](const DispatchTensor& x) { return Dispatch::relu(x); });
    expect_bits(got, {0.0, 0.0, 0.0, -1.0}, std::string("relu ") + std::string(dtype_name(dtype)));
  }
}

TYPED_TEST(MaskedGradientSign, ClampGivesPlusZeroWhereTheValueWasClamped) {
  for (const DType dtype : {DType::F32, DType::F64}) {
    const auto got = TestFixture::gradient({-5.0, -1.0, 0.5, 1.0, 7.0}, dtype,
                                           [](const DispatchTensor& x) { return Dispatch::float_clamp(x, -1.0, 1.0); });
    expect_bits(got, {0.0, -1.0, -1.0, -1.0, 0.0}, std::string("clamp ") + std::string(dtype_name(dtype)));
  }
}

}  // namespace
}  // namespace crossgrad
