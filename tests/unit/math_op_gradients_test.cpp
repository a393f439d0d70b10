// The math ops of issue 36 (docs/OPS.md "Op semantics"): their backward rules on every backend
// against derivatives worked out by hand, and the rounding ops' and sign's gradient of exactly +0
// at every element (jumps, ties, +-0, +-inf, NaN included) whatever the cotangent (-1, +-inf, NaN):
// no finite differences, which cannot judge a step.
#include "test_support.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class MathOpGradients : public ::testing::Test {
 protected:
  void SetUp() override { SKIP_IF_UNAVAILABLE(B); }
  // d/dx sum(op(x) * c): the cotangent reaching op is c (one value, broadcast).
  static std::vector<double> gradient(const std::vector<double>& xs, DType dtype, double c,
                                      const std::function<DispatchTensor(const DispatchTensor&)>& op) {
    const auto data = [dtype](const std::vector<double>& v) {
      return dtype == DType::F64 ? TensorData::from_f64(v, {v.size()})
                                 : TensorData::from_f32(std::vector<float>(v.begin(), v.end()), {v.size()});
    };
    const DispatchTensor x = Dispatch::float_from_data(data(xs), autodiff_device<B>());
    const DispatchTensor cot = Dispatch::float_from_data(data({c}), autodiff_device<B>());
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(op(x), cot)));
    const auto got = Dispatch::grad(x, g);
    EXPECT_TRUE(got.has_value());
    return got ? Dispatch::float_into_data(*got).to_f64() : std::vector<double>{};
  }
};
TYPED_TEST_SUITE(MathOpGradients, AllBackendTypes, BackendTestName);

TYPED_TEST(MathOpGradients, StepsHavePlusZeroGradientEverywhere) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> xs{-2.5, -1.5, -0.5, -0.0, 0.0, 0.5, 1.5, 2.5, 3.0, -7.0, 0.3, -0.7, inf, -inf, nan, 1e30};
  const std::pair<const char*, DispatchTensor (*)(const DispatchTensor&)> ops[] = {
      {"round", &Dispatch::float_round}, {"floor", &Dispatch::float_floor}, {"ceil", &Dispatch::float_ceil},
      {"trunc", &Dispatch::float_trunc}, {"sign", &Dispatch::float_sign}};
  for (const auto& [name, op] : ops) {
    for (const DType dtype : {DType::F32, DType::F64}) {
      for (const double c : {1.0, -1.0, inf, -inf, nan}) {
        const auto got = TestFixture::gradient(xs, dtype, c, [op = op](const DispatchTensor& x) { return op(x); });
        ASSERT_EQ(got.size(), xs.size());
        for (std::size_t i = 0; i < xs.size(); ++i) {
          EXPECT_TRUE(got[i] == 0 && !std::signbit(got[i]))
              << name << " " << dtype_name(dtype) << " cotangent " << c << " at x = " << xs[i] << ": " << got[i];
        }
      }
    }
  }
}

TYPED_TEST(MathOpGradients, SmoothOpsMatchTheirDerivatives) {
  struct Case {
    const char* name;
    DispatchTensor (*op)(const DispatchTensor&);
    double (*derivative)(double);
    std::vector<double> xs;
  };
  const Case cases[] = {
      {"cos", &Dispatch::float_cos, [](double v) { return -std::sin(v); }, {-2, -0.5, 0, 0.5, 3}},
      {"sin", &Dispatch::float_sin, [](double v) { return std::cos(v); }, {-2, -0.5, 0, 0.5, 3}},
      {"tan", &Dispatch::float_tan, [](double v) { return 1 / (std::cos(v) * std::cos(v)); }, {-1.2, -0.5, 0, 0.5, 1.2}},
      {"cosh", &Dispatch::float_cosh, [](double v) { return std::sinh(v); }, {-3, -0.5, 0, 0.5, 3}},
      {"sinh", &Dispatch::float_sinh, [](double v) { return std::cosh(v); }, {-3, -0.5, 0, 0.5, 3}},
      {"acos", &Dispatch::float_acos, [](double v) { return -1 / std::sqrt(1 - v * v); }, {-0.9, -0.5, 0, 0.5, 0.9}},
      {"acosh", &Dispatch::float_acosh, [](double v) { return 1 / std::sqrt(v * v - 1); }, {1.1, 1.5, 2, 10, 1e10}},
      {"asin", &Dispatch::float_asin, [](double v) { return 1 / std::sqrt(1 - v * v); }, {-0.9, -0.5, 0, 0.5, 0.9}},
      {"asinh", &Dispatch::float_asinh, [](double v) { return 1 / std::sqrt(v * v + 1); }, {-3, -0.5, 0, 0.5, 3}},
      {"atan", &Dispatch::float_atan, [](double v) { return 1 / (1 + v * v); }, {-3, -0.5, 0, 0.5, 3}},
      {"atanh", &Dispatch::float_atanh, [](double v) { return 1 / (1 - v * v); }, {-0.9, -0.5, 0, 0.5, 0.9}},
      {"erf", &Dispatch::float_erf, [](double v) { return 2 / std::sqrt(std::numbers::pi) * std::exp(-v * v); }, {-2, -0.5, 0, 0.5, 2}},
      {"recip", &Dispatch::float_recip, [](double v) { return -1 / (v * v); }, {-4, -0.5, 0.25, 2, 1e-3}},
  };
  for (const Case& c : cases) {
    for (const DType dtype : {DType::F32, DType::F64}) {
      const auto got = TestFixture::gradient(c.xs, dtype, 1.0, [op = c.op](const DispatchTensor& x) { return op(x); });
      ASSERT_EQ(got.size(), c.xs.size());
      const double tol = dtype == DType::F64 ? 1e-14 : 1e-6;
      for (std::size_t i = 0; i < c.xs.size(); ++i) {
        const double x = dtype == DType::F64 ? c.xs[i] : static_cast<double>(static_cast<float>(c.xs[i]));
        const double want = c.derivative(x);
        EXPECT_NEAR(got[i], want, tol * std::fmax(1.0, std::fabs(want))) << c.name << " " << dtype_name(dtype) << " at " << x;
      }
    }
  }
}

// Domain edges: the rules' values where the derivative is infinite (acos, asin at +-1, acosh at 1,
// atanh at +-1, recip at +-0).
TYPED_TEST(MathOpGradients, InfiniteDerivativesAtTheDomainEdges) {
  const double inf = std::numeric_limits<double>::infinity();
  for (const DType dtype : {DType::F32, DType::F64}) {
    EXPECT_EQ(TestFixture::gradient({1, -1}, dtype, 1.0, [](const DispatchTensor& x) { return Dispatch::float_asin(x); }),
              (std::vector<double>{inf, inf}));
    EXPECT_EQ(TestFixture::gradient({1, -1}, dtype, 1.0, [](const DispatchTensor& x) { return Dispatch::float_acos(x); }),
              (std::vector<double>{-inf, -inf}));
    EXPECT_EQ(TestFixture::gradient({1}, dtype, 1.0, [](const DispatchTensor& x) { return Dispatch::float_acosh(x); }),
              (std::vector<double>{inf}));
    EXPECT_EQ(TestFixture::gradient({1, -1}, dtype, 1.0, [](const DispatchTensor& x) { return Dispatch::float_atanh(x); }),
              (std::vector<double>{inf, inf}));
    EXPECT_EQ(TestFixture::gradient({0.0, -0.0}, dtype, 1.0, [](const DispatchTensor& x) { return Dispatch::float_recip(x); }),
              (std::vector<double>{-inf, -inf}));
  }
}

// Forward values at the documented edges (docs/OPS.md): ties to even, the signs of zeros, sign's
// +0 for +-0 and NaN.
TYPED_TEST(MathOpGradients, ForwardEdgeValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const DType dtype : {DType::F32, DType::F64}) {
    const auto run = [dtype](DispatchTensor (*op)(const DispatchTensor&), const std::vector<double>& xs) {
      const TensorData d = dtype == DType::F64 ? TensorData::from_f64(xs, {xs.size()})
                                               : TensorData::from_f32(std::vector<float>(xs.begin(), xs.end()), {xs.size()});
      return Dispatch::float_into_data(op(Dispatch::float_from_data(d, plain_device<TypeParam>()))).to_f64();
    };
    const auto r = run(&Dispatch::float_round, {0.5, 1.5, 2.5, -0.5, -2.5, -0.4, 3.5});
    EXPECT_EQ(r, (std::vector<double>{0, 2, 2, -0.0, -2, -0.0, 4}));
    EXPECT_TRUE(std::signbit(r[3]) && std::signbit(r[5])) << "round keeps the sign of a zero result";
    const auto s = run(&Dispatch::float_sign, {-3, -0.0, 0.0, 2, nan});
    EXPECT_EQ(s, (std::vector<double>{-1, 0, 0, 1, 0}));
    EXPECT_FALSE(std::signbit(s[1]) || std::signbit(s[4])) << "sign(-0) and sign(NaN) are +0";
    const auto c = run(&Dispatch::float_ceil, {-0.5, 0.5});
    EXPECT_TRUE(std::signbit(c[0]) && c[0] == 0 && c[1] == 1);
  }
}

}  // namespace
}  // namespace crossgrad
