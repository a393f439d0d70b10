// The activations of issue 36 (docs/OPS.md "Element-wise and scalar ops"): log_sigmoid, gelu,
// leaky_relu, prelu, softmin and hard_sigmoid on every backend, their values at the edges (signed zeros, +-inf, NaN, the tails
// where a naive formula cancels) and their gradients against derivatives worked out by hand.
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

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

TensorData data_of(const std::vector<double>& v, DType dtype) {
  if (dtype == DType::F64) return TensorData::from_f64(v, {v.size()});
  return TensorData::from_f32(std::vector<float>(v.begin(), v.end()), {v.size()});
}

template <class B>
class ActivationOps : public ::testing::Test {
 protected:
  void SetUp() override { SKIP_IF_UNAVAILABLE(B); }
  static std::vector<double> run(const std::function<DispatchTensor(const DispatchTensor&)>& op, const std::vector<double>& xs,
                                 DType dtype) {
    return Dispatch::float_into_data(op(Dispatch::float_from_data(data_of(xs, dtype), plain_device<B>()))).to_f64();
  }
  // d/dx sum(op(x) * c).
  static std::vector<double> gradient(const std::function<DispatchTensor(const DispatchTensor&)>& op, const std::vector<double>& xs,
                                      DType dtype, double c) {
    const DispatchTensor x = Dispatch::float_from_data(data_of(xs, dtype), autodiff_device<B>());
    const DispatchTensor cot = Dispatch::float_from_data(data_of({c}, dtype), autodiff_device<B>());
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(op(x), cot)));
    const auto got = Dispatch::grad(x, g);
    EXPECT_TRUE(got.has_value());
    return got ? Dispatch::float_into_data(*got).to_f64() : std::vector<double>{};
  }
};
TYPED_TEST_SUITE(ActivationOps, AllBackendTypes);

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b)); }

TYPED_TEST(ActivationOps, EdgeValues) {
  for (const DType dtype : {DType::F32, DType::F64}) {
    const std::string d(dtype_name(dtype));
    // log_sigmoid: -ln 2 at +-0, x itself far below 0 (exp(x) underflows), -0 far above 0 and at
    // +inf, -inf at -inf, NaN at NaN.
    const auto ls = TestFixture::run([](const DispatchTensor& x) { return Dispatch::log_sigmoid(x); },
                                     {0.0, -0.0, -200, 800, kInf, -kInf, kNaN}, dtype);
    const double ln2 = dtype == DType::F32 ? static_cast<double>(static_cast<float>(-std::numbers::ln2)) : -std::numbers::ln2;
    const std::vector<double> ls_want{ln2, ln2, -200, -0.0, -0.0, -kInf, kNaN};
    for (std::size_t i = 0; i < ls_want.size(); ++i) EXPECT_TRUE(same(ls[i], ls_want[i])) << "log_sigmoid " << d << " #" << i << ": " << ls[i];
    // gelu: +-0 keep their sign, +inf, NaN at -inf (-inf * 0, as PyTorch), -0 once the tail underflows.
    const auto ge = TestFixture::run([](const DispatchTensor& x) { return Dispatch::gelu(x); },
                                     {0.0, -0.0, kInf, -kInf, kNaN, -60, 60}, dtype);
    const std::vector<double> ge_want{0.0, -0.0, kInf, kNaN, kNaN, -0.0, 60};
    for (std::size_t i = 0; i < ge_want.size(); ++i) EXPECT_TRUE(same(ge[i], ge_want[i])) << "gelu " << d << " #" << i << ": " << ge[i];
    // The tail 1 + erf cannot give: gelu(-10) = -5 erfc(5 sqrt 2) = -7.6198530241605261e-23.
    const double tail = TestFixture::run([](const DispatchTensor& x) { return Dispatch::gelu(x); }, {-10}, dtype)[0];
    EXPECT_NEAR(tail, -7.6198530241605261e-23, 1e-6 * 7.6198530241605260e-23) << d;
    // leaky_relu: x above 0, x * s otherwise (PyTorch's form: -0 * 0.5 = -0, -inf * 0 = NaN), the
    // slope rounded to the dtype.
    const auto lr = TestFixture::run([](const DispatchTensor& x) { return Dispatch::leaky_relu(x, 0.5); },
                                     {2, -2, 0.0, -0.0, kInf, -kInf, kNaN}, dtype);
    const std::vector<double> lr_want{2, -1, 0.0, -0.0, kInf, -kInf, kNaN};
    for (std::size_t i = 0; i < lr_want.size(); ++i) EXPECT_TRUE(same(lr[i], lr_want[i])) << "leaky_relu " << d << " #" << i << ": " << lr[i];
    const auto lr0 = TestFixture::run([](const DispatchTensor& x) { return Dispatch::leaky_relu(x, 0.0); }, {-kInf, -3}, dtype);
    EXPECT_TRUE(std::isnan(lr0[0]) && same(lr0[1], -0.0)) << d;
    const auto lr01 = TestFixture::run([](const DispatchTensor& x) { return Dispatch::leaky_relu(x, 0.1); }, {-1}, dtype);
    EXPECT_EQ(lr01[0], dtype == DType::F32 ? -static_cast<double>(0.1f) : -0.1) << d;
  }
}

TYPED_TEST(ActivationOps, GradientsMatchTheirDerivatives) {
  const auto phi = [](double v) { return std::exp(-v * v / 2) / std::sqrt(2 * std::numbers::pi); };
  const auto cdf = [](double v) { return std::erfc(-v / std::numbers::sqrt2) / 2; };
  const struct {
    const char* name;
    std::function<DispatchTensor(const DispatchTensor&)> op;
    std::function<double(double)> derivative;
    std::vector<double> xs;
  } cases[] = {
      {"log_sigmoid", [](const DispatchTensor& x) { return Dispatch::log_sigmoid(x); }, [](double v) { return 1 / (1 + std::exp(v)); },
       {-30, -3, -0.5, 0, 0.5, 3, 30}},
      {"gelu", [](const DispatchTensor& x) { return Dispatch::gelu(x); }, [&](double v) { return cdf(v) + v * phi(v); },
       {-3, -1, -0.5, 0, 0.5, std::numbers::sqrt2, 3}},
      {"leaky_relu 0.25", [](const DispatchTensor& x) { return Dispatch::leaky_relu(x, 0.25); }, [](double v) { return v > 0 ? 1.0 : 0.25; },
       {-3, -0.5, 0, 0.5, 3}},
      {"leaky_relu -2", [](const DispatchTensor& x) { return Dispatch::leaky_relu(x, -2); }, [](double v) { return v > 0 ? 1.0 : -2.0; },
       {-3, 0, 3}},
  };
  for (const auto& c : cases) {
    for (const DType dtype : {DType::F32, DType::F64}) {
      const auto got = TestFixture::gradient(c.op, c.xs, dtype, 1.0);
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

// leaky_relu's masked gradient: the slope's multiple of g, exactly; +0 where that product is a zero
// (slope 0 with a negative g), and the factor is exact for an infinite slope (no 0 * inf above 0).
TYPED_TEST(ActivationOps, LeakyReluGradientEdges) {
  for (const DType dtype : {DType::F32, DType::F64}) {
    const std::string d(dtype_name(dtype));
    const auto zero_slope = TestFixture::gradient([](const DispatchTensor& x) { return Dispatch::leaky_relu(x, 0.0); },
                                                  {-1, -0.0, 0.0, 2, kNaN}, dtype, -1.0);
    const std::vector<double> zero_want{0.0, 0.0, 0.0, -1, 0.0};
    for (std::size_t i = 0; i < zero_want.size(); ++i) EXPECT_TRUE(same(zero_slope[i], zero_want[i])) << d << " #" << i << ": " << zero_slope[i];
    const auto inf_slope = TestFixture::gradient([](const DispatchTensor& x) { return Dispatch::leaky_relu(x, kInf); }, {3, -3}, dtype, 1.0);
    EXPECT_EQ(inf_slope, (std::vector<double>{1, kInf})) << d;
    const auto tenth = TestFixture::gradient([](const DispatchTensor& x) { return Dispatch::leaky_relu(x, 0.1); }, {-3}, dtype, 1.0);
    EXPECT_EQ(tenth[0], dtype == DType::F32 ? static_cast<double>(0.1f) : 0.1) << d;
  }
}

// prelu: leaky_relu with a broadcast slope tensor; the slope's gradient is x where x <= 0.
TYPED_TEST(ActivationOps, PreluValuesAndGradients) {
  for (const DType dtype : {DType::F32, DType::F64}) {
    const std::string d(dtype_name(dtype));
    const DispatchDevice dev = autodiff_device<TypeParam>();
    // x [2, 3], a [3] broadcast along the rows.
    const auto tensor = [&](const std::vector<double>& v, Shape shape) {
      return Dispatch::float_from_data(dtype == DType::F64 ? TensorData::from_f64(v, shape)
                                                           : TensorData::from_f32(std::vector<float>(v.begin(), v.end()), shape),
                                       dev);
    };
    const DispatchTensor x = tensor({2, -2, -0.0, -4, 0.5, kNaN}, {2, 3});
    const DispatchTensor a = tensor({0.5, -1, kInf}, {3});
    const DispatchTensor y = Dispatch::prelu(x, a);
    const auto yv = Dispatch::float_into_data(y).to_f64();
    const std::vector<double> y_want{2, 2, kNaN, -2, 0.5, kNaN};  // -0 * inf = NaN
    for (std::size_t i = 0; i < y_want.size(); ++i) EXPECT_TRUE(same(yv[i], y_want[i])) << "prelu " << d << " #" << i << ": " << yv[i];
    const Gradients g = Dispatch::backward(Dispatch::float_sum(y));
    const auto gx = Dispatch::float_into_data(*Dispatch::grad(x, g)).to_f64();
    const auto ga = Dispatch::float_into_data(*Dispatch::grad(a, g)).to_f64();
    // d/dx: 1 above 0, a elsewhere (NaN at NaN gets the slope too: x > 0 is false).
    const std::vector<double> gx_want{1, -1, kInf, 0.5, 1, kInf};
    for (std::size_t i = 0; i < gx_want.size(); ++i) EXPECT_TRUE(same(gx[i], gx_want[i])) << "prelu d/dx " << d << " #" << i << ": " << gx[i];
    // d/da summed over the rows: column 0: 0 (x = 2 above) + -4; column 1: -2 + 0; column 2: -0 + NaN.
    EXPECT_EQ(ga[0], -4) << d;
    EXPECT_EQ(ga[1], -2) << d;
    EXPECT_TRUE(std::isnan(ga[2])) << d;
  }
}

// softmin is softmax of -x, bit for bit, and its gradient is softmax's at -x, negated.
TYPED_TEST(ActivationOps, SoftminIsSoftmaxOfTheNegation) {
  for (const DType dtype : {DType::F32, DType::F64}) {
    const std::vector<double> xs{1.5, -2, 0.25, 7};
    const auto neg = [](std::vector<double> v) {
      for (double& e : v) e = -e;
      return v;
    };
    const auto softmin = TestFixture::run([](const DispatchTensor& x) { return Dispatch::softmin(x, 0); }, xs, dtype);
    const auto softmax = TestFixture::run([](const DispatchTensor& x) { return Dispatch::softmax(x, 0); }, neg(xs), dtype);
    EXPECT_EQ(softmin, softmax) << dtype_name(dtype);
    // d/dx_j sum_i c_i y_i with c = (1, 0, 0, 0): -(y_0 (delta_0j - y_j)).
    const DispatchTensor x = Dispatch::float_from_data(data_of(xs, dtype), autodiff_device<TypeParam>());
    const DispatchTensor c = Dispatch::float_from_data(data_of({1, 0, 0, 0}, dtype), autodiff_device<TypeParam>());
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(Dispatch::softmin(x, 0), c)));
    const auto got = Dispatch::float_into_data(*Dispatch::grad(x, g)).to_f64();
    for (std::size_t j = 0; j < xs.size(); ++j) {
      const double want = -(softmin[0] * ((j == 0 ? 1.0 : 0.0) - softmin[j]));
      EXPECT_NEAR(got[j], want, (dtype == DType::F64 ? 1e-15 : 1e-6)) << dtype_name(dtype) << " #" << j;
    }
  }
  EXPECT_PANIC(Dispatch::softmin(Dispatch::float_from_data(data_of({1}, DType::F32), plain_device<TypeParam>()), 1),
               "dim-out-of-range", "softmin got dim 1 for a tensor of rank 1.");
}

TYPED_TEST(ActivationOps, HardSigmoidClampsAnAffineMapAndKeepsItsBoundsInTheGradient) {
  const auto hs = [](double alpha, double beta) {
    return [=](const DispatchTensor& x) { return Dispatch::hard_sigmoid(x, alpha, beta); };
  };
  for (const DType dt : {DType::F32, DType::F64}) {
    // PyTorch's hardsigmoid: alpha 1/6, beta 1/2: 0 below -3, 1 above 3, x/6 + 1/2 between.
    const auto y = TestFixture::run(hs(1.0 / 6, 0.5), {-4, -3, 0, 1.5, 3, 4, -kInf, kInf}, dt);
    EXPECT_EQ(y[0], 0);
    EXPECT_EQ(y[1], 0);
    EXPECT_EQ(y[2], 0.5);
    const double sixth = dt == DType::F32 ? static_cast<double>(1.0f / 6) : 1.0 / 6;
    const double at = dt == DType::F32 ? static_cast<double>(static_cast<float>(static_cast<float>(sixth) * 1.5f) + 0.5f)
                                       : sixth * 1.5 + 0.5;
    EXPECT_EQ(y[3], at);
    EXPECT_EQ(y[4], 1);
    EXPECT_EQ(y[5], 1);
    EXPECT_EQ(y[6], 0);
    EXPECT_EQ(y[7], 1);
    EXPECT_TRUE(std::isnan(TestFixture::run(hs(0.25, 0.5), {kNaN}, dt)[0]));
    // A negative alpha flips the ramp.
    EXPECT_EQ(TestFixture::run(hs(-0.5, 0.5), {-1, 1, 0.5}, dt), (std::vector<double>{1, 0, 0.25}));
    // Gradient: alpha inside and at the bounds (x = -2 and 2 give exactly 0 and 1), +0 outside.
    const auto g = TestFixture::gradient(hs(0.25, 0.5), {-3, -2, 0, 2, 3}, dt, 4.0);
    EXPECT_EQ(g, (std::vector<double>{0, 1, 1, 1, 0}));
    EXPECT_FALSE(std::signbit(g[0]));
    EXPECT_FALSE(std::signbit(TestFixture::gradient(hs(-0.25, 0.5), {-3}, dt, 4.0)[0]));
  }
}

}  // namespace
}  // namespace crossgrad
