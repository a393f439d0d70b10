// powf_scalar's backward at x = +-0 for every kind of exponent, on every backend through
// Autodiff, in F32 and F64 (docs/OPS.md, "powf_scalar backward"): d/dx x^0 = 0 everywhere (the
// formula p * x^(p-1) would give 0 * inf = NaN at 0); for other p the IEEE value of
// p * x^(p-1): p = 1 -> 1, p > 1 -> 0, 0 < p < 1 -> +inf, p < 0 -> -inf at +0 (at -0, +inf when
// p - 1 is an odd negative integer). Values are written by hand; zeros compare equal to -0.
#include "test_support.hpp"

#include <cmath>
#include <limits>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Case {
  double p;
  // d/dx x^p at x = +0, -0, 2.
  double at_pos_zero, at_neg_zero, at_two;
};

// At x = 2 the reference is p * 2^(p-1), written out.
const Case kCases[] = {
    {0.0, 0, 0, 0},                          // x^0 = 1: derivative 0, also at 0
    {1.0, 1, 1, 1},                          // 1 * x^0
    {2.0, 0, 0, 4},                          // 2x
    {3.0, 0, 0, 12},                         // 3x^2
    {1.5, 0, 0, 2.1213203435596424},         // 1.5 sqrt(x)
    {0.5, kInf, kInf, 0.35355339059327373},  // 0.5 / sqrt(x): one-sided slope +inf at 0
    {-0.5, -kInf, -kInf, -0.17677669529663687},
    {-1.0, -kInf, -kInf, -0.25},  // -1 / x^2
    {-2.0, -kInf, kInf, -0.25},   // -2 / x^3: +inf from the left
};

template <class B>
class PowfBackward : public OnEachBackend<B> {
 protected:
  // d/dx of sum(x^p) at xs, in `dtype`.
  static std::vector<double> derivative(const std::vector<double>& xs, double p, DType dtype) {
    return gradient_at<B>(xs, dtype, 1.0, [p](const DispatchTensor& x) { return Dispatch::float_powf_scalar(x, p); });
  }
};
TYPED_TEST_SUITE(PowfBackward, AllBackendTypes, BackendTestName);

void expect_value(double got, double want, DType dtype, const std::string& where) {
  if (std::isinf(want) || want == 0) {
    EXPECT_EQ(got, want) << where;  // exact: same-sign inf, or a zero (either sign)
  } else {
    const double tol = (dtype == DType::F64 ? 1e-14 : 1e-6) * std::fabs(want);
    EXPECT_NEAR(got, want, tol) << where;
  }
}

TYPED_TEST(PowfBackward, AtZeroForEveryKindOfExponent) {
  for (DType dtype : {DType::F64, DType::F32}) {
    for (const Case& c : kCases) {
      const std::vector<double> got = this->derivative({0.0, -0.0, 2.0}, c.p, dtype);
      ASSERT_EQ(got.size(), 3u);
      const std::string where = std::string(dtype_name(dtype)) + " p=" + std::to_string(c.p);
      expect_value(got[0], c.at_pos_zero, dtype, where + " x=+0");
      expect_value(got[1], c.at_neg_zero, dtype, where + " x=-0");
      expect_value(got[2], c.at_two, dtype, where + " x=2");
    }
  }
}

TYPED_TEST(PowfBackward, ExponentZeroIsZeroEverywhere) {
  const double tiny = std::numeric_limits<double>::denorm_min();
  for (DType dtype : {DType::F64, DType::F32}) {
    const std::vector<double> got = this->derivative({0.0, -0.0, tiny, -3.5, 1e300, -kInf, kInf}, 0.0, dtype);
    EXPECT_EQ(got, std::vector<double>(7, 0.0)) << dtype_name(dtype);
  }
}

TYPED_TEST(PowfBackward, ExponentZeroStillPassesANonFiniteUpstreamGradientOn) {
  // grad = g * 0: a NaN or inf coming from above stays visible as NaN, as for any zero derivative.
  const DispatchDevice dev = autodiff_device<TypeParam>();
  const DispatchTensor x = Dispatch::float_from_data(TensorData::from_f64({0.0, 0.0, 0.0}, {3}), dev);
  const DispatchTensor w = Dispatch::float_from_data(TensorData::from_f64({2.0, kNaN, kInf}, {3}), dev);
  const Gradients g = Dispatch::backward(Dispatch::float_mul(Dispatch::float_powf_scalar(x, 0.0), w));
  const std::vector<double> got = Dispatch::float_into_data(*Dispatch::grad(x, g)).to_f64();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], 0.0);
  EXPECT_TRUE(std::isnan(got[1]));
  EXPECT_TRUE(std::isnan(got[2]));
}

}  // namespace
}  // namespace crossgrad
