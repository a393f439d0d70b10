// float_div's gradient with respect to the divisor, -g * a / b^2, at points where forming g*a or
// b*b before dividing overflows or underflows but the quotient does not (docs/OPS.md, "float_div
// backward"). The expected values are the exact -a / b^2 rounded once to the dtype, computed here
// in long double from the inputs; every backend runs crossgrad's one rule through Autodiff.
#include "test_support.hpp"

#include <cfloat>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class DivBackward : public OnEachBackend<B> {
 protected:
  // d/db sum(a / b) at one point, in `dtype`.
  static double divisor_gradient(double a, double b, DType dtype) {
    const DispatchTensor ta = Dispatch::float_from_data(float_data_1d({a}, dtype), autodiff_device<B>());
    const auto g = gradient_at<B>({b}, dtype, 1.0, [&](const DispatchTensor& tb) { return Dispatch::float_div(ta, tb); });
    return g.empty() ? std::nan("") : g.at(0);
  }
};
TYPED_TEST_SUITE(DivBackward, AllBackendTypes, BackendTestName);

// -a / b^2, exact where long double holds it, rounded once to the dtype.
double exact_divisor_gradient(double a, double b, DType dtype) {
  const long double q = -static_cast<long double>(a) / (static_cast<long double>(b) * b);
  return dtype == DType::F64 ? static_cast<double>(q) : static_cast<double>(static_cast<float>(q));
}

void expect_same_value(double got, double want, const std::string& where) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << where << ": got " << got;
  } else {
    EXPECT_EQ(got, want) << where;
    EXPECT_EQ(std::signbit(got), std::signbit(want)) << where << ": the sign of zero";
  }
}

struct Point {
  double a, b;
  double want;  // written out: the exact value's class, checked against exact_divisor_gradient too
};

TYPED_TEST(DivBackward, DivisorGradientNeitherOverflowsNorUnderflowsBeforeTheQuotient) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (const DType dtype : {DType::F32, DType::F64}) {
    const double max = dtype == DType::F32 ? FLT_MAX : DBL_MAX;
    const double tiny = dtype == DType::F32 ? std::numeric_limits<float>::denorm_min()
                                            : std::numeric_limits<double>::denorm_min();
    const Point points[] = {
        {kInf, max, -kInf},  // g*a = inf and b*b = inf gave inf/inf = NaN
        {tiny, 0.0, -kInf},  // b*b = 0 and g*a tiny: -tiny/0 = -inf (was right), kept as a guard
        {max, kInf, -0.0},   // g*a = max, b*b = inf: -0 (was right); a/b = 0 first must keep it
        {-max, kInf, 0.0},   // the mirror: +0
        {max, 0.5, -kInf},   // the true value overflows: -inf, not NaN
    };
    for (const Point& p : points) {
      const std::string where = std::string(dtype_name(dtype)) + " a=" + std::to_string(p.a) +
                                " b=" + std::to_string(p.b);
      expect_same_value(exact_divisor_gradient(p.a, p.b, dtype), p.want, where + " (exact)");
      expect_same_value(TestFixture::divisor_gradient(p.a, p.b, dtype), p.want, where);
    }
  }
}

// A subnormal quotient: g*a = the smallest subnormal, divided by b*b, lost the low bits that
// (a/b)/b keeps. The result is compared with the once-rounded exact value.
TYPED_TEST(DivBackward, DivisorGradientOfATinyDividendIsCorrectlyRounded) {
  for (const DType dtype : {DType::F32, DType::F64}) {
    const double tiny = dtype == DType::F32 ? std::numeric_limits<float>::denorm_min()
                                            : std::numeric_limits<double>::denorm_min();
    for (const double a : {tiny, 3 * tiny, 1000 * tiny}) {
      for (const double b : {0.1, 0.5, 2.0}) {
        const double bb = dtype == DType::F32 ? static_cast<double>(static_cast<float>(b)) : b;
        const std::string where = std::string(dtype_name(dtype)) + " a=" + std::to_string(a / tiny) +
                                  " subnormals, b=" + std::to_string(b);
        expect_same_value(TestFixture::divisor_gradient(a, bb, dtype), exact_divisor_gradient(a, bb, dtype), where);
      }
    }
  }
}

}  // namespace
}  // namespace crossgrad
