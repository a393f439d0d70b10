// Backward rules on every backend, against derivatives worked out by hand in F64.
#include "test_support.hpp"

#include <cmath>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class AutodiffRules : public OnEachBackend<B> {
 protected:
  DispatchTensor leaf(std::vector<double> v, Shape s) {
    return Dispatch::float_from_data(TensorData::from_f64(std::move(v), std::move(s)), autodiff_device<B>());
  }
  static std::vector<double> grad(const DispatchTensor& t, const Gradients& g) {
    auto got = Dispatch::grad(t, g);
    EXPECT_TRUE(got.has_value());
    return got ? Dispatch::float_into_data(*got).to_f64() : std::vector<double>{};
  }
};
TYPED_TEST_SUITE(AutodiffRules, AllBackendTypes, BackendTestName);

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want, double tol = 1e-12) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

TYPED_TEST(AutodiffRules, BroadcastAddSubReduceBack) {
  auto a = this->leaf({1, 2, 3, 4, 5, 6}, {2, 3});
  auto b = this->leaf({10, 20, 30}, {3});
  Gradients g = Dispatch::backward(Dispatch::float_sub(Dispatch::float_add(a, b), b));
  expect_near_all(this->grad(a, g), {1, 1, 1, 1, 1, 1});
  expect_near_all(this->grad(b, g), {0, 0, 0});  // +1 and -1 from each of 2 rows
  auto c = this->leaf({1, 2}, {2, 1});
  Gradients g2 = Dispatch::backward(Dispatch::float_sub(a, c));
  expect_near_all(this->grad(c, g2), {-3, -3});
}

TYPED_TEST(AutodiffRules, MulDivProductAndQuotientRules) {
  auto a = this->leaf({1, 2}, {2});
  auto b = this->leaf({4, 8}, {2});
  Gradients g = Dispatch::backward(Dispatch::float_div(Dispatch::float_mul(a, a), b));
  // d/da a^2/b = 2a/b; d/db = -a^2/b^2
  expect_near_all(this->grad(a, g), {0.5, 0.5});
  expect_near_all(this->grad(b, g), {-1.0 / 16, -4.0 / 64});
}

TYPED_TEST(AutodiffRules, UnaryFunctions) {
  auto x = this->leaf({0.5, 2.0}, {2});
  struct Case {
    const char* name;
    DispatchTensor (*op)(const DispatchTensor&);
    double (*derivative)(double);
  };
  const Case cases[] = {
      {"exp", &Dispatch::float_exp, [](double v) { return std::exp(v); }},
      {"log", &Dispatch::float_log, [](double v) { return 1 / v; }},
      {"sqrt", &Dispatch::float_sqrt, [](double v) { return 0.5 / std::sqrt(v); }},
      {"tanh", &Dispatch::float_tanh, [](double v) { return 1 - std::tanh(v) * std::tanh(v); }},
      {"sigmoid", &Dispatch::sigmoid, [](double v) { const double s = 1 / (1 + std::exp(-v)); return s * (1 - s); }},
      {"neg", &Dispatch::float_neg, [](double) { return -1.0; }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Gradients g = Dispatch::backward(c.op(x));
    expect_near_all(this->grad(x, g), {c.derivative(0.5), c.derivative(2.0)});
  }
}

TYPED_TEST(AutodiffRules, ReluMasksNonPositiveInputs) {
  auto x = this->leaf({-1, 0, 3}, {3});
  Gradients g = Dispatch::backward(Dispatch::relu(x));
  expect_near_all(this->grad(x, g), {0, 0, 1});
}

TYPED_TEST(AutodiffRules, ScalarOps) {
  auto x = this->leaf({2, 3}, {2});
  Gradients g = Dispatch::backward(
      Dispatch::float_mul_scalar(Dispatch::float_add_scalar(Dispatch::float_powf_scalar(x, 3.0), 5.0), -2.0));
  expect_near_all(this->grad(x, g), {-2 * 3 * 4.0, -2 * 3 * 9.0});
}

TYPED_TEST(AutodiffRules, MatmulBatchedWithBroadcast) {
  // a: [2, 1, 2] (batch 2), w: [2, 1] shared across the batch.
  auto a = this->leaf({1, 2, 3, 4}, {2, 1, 2});
  auto w = this->leaf({5, 7}, {2, 1});
  Gradients g = Dispatch::backward(Dispatch::float_matmul(a, w));
  expect_near_all(this->grad(a, g), {5, 7, 5, 7});
  expect_near_all(this->grad(w, g), {1 + 3, 2 + 4});
}

TYPED_TEST(AutodiffRules, Reductions) {
  auto x = this->leaf({1, 2, 3, 4, 5, 6}, {2, 3});
  expect_near_all(this->grad(x, Dispatch::backward(Dispatch::float_mean(x))), std::vector<double>(6, 1.0 / 6));
  expect_near_all(this->grad(x, Dispatch::backward(Dispatch::float_mean_dim(x, 1))), std::vector<double>(6, 1.0 / 3));
  const auto weights = this->leaf({1, 10}, {2, 1});
  Gradients g = Dispatch::backward(Dispatch::float_mul(Dispatch::float_sum_dim(x, 1), weights));
  expect_near_all(this->grad(x, g), {1, 1, 1, 10, 10, 10});
  expect_near_all(this->grad(weights, g), {6, 15});
}

TYPED_TEST(AutodiffRules, LayoutOpsRouteGradientsBack) {
  auto x = this->leaf({1, 2, 3, 4, 5, 6}, {2, 3});
  auto w = this->leaf({1, 2, 3, 4, 5, 6}, {3, 2});
  // swap_dims(x) is [3, 2]; multiply element-wise by w, so dx[i][j] = w[j][i].
  Gradients g = Dispatch::backward(Dispatch::float_mul(Dispatch::float_swap_dims(x, 0, 1), w));
  expect_near_all(this->grad(x, g), {1, 3, 5, 2, 4, 6});
  Gradients g2 = Dispatch::backward(Dispatch::float_mul(Dispatch::float_reshape(x, {3, 2}), w));
  expect_near_all(this->grad(x, g2), {1, 2, 3, 4, 5, 6});
  const DispatchTensor as_f32 = Dispatch::float_cast(x, DType::F32);
  Gradients g3 = Dispatch::backward(Dispatch::float_mul_scalar(as_f32, 2.0));
  const TensorData dx = Dispatch::float_into_data(*Dispatch::grad(x, g3));
  EXPECT_EQ(dx.dtype(), DType::F64);
  expect_near_all(dx.to_f64(), std::vector<double>(6, 2.0));
}

TYPED_TEST(AutodiffRules, SharedSubexpressionsAccumulate) {
  auto x = this->leaf({3}, {1});
  auto y = Dispatch::float_mul(x, x);               // x^2
  Gradients g = Dispatch::backward(Dispatch::float_add(y, Dispatch::float_mul(y, x)));  // x^2 + x^3
  expect_near_all(this->grad(x, g), {2 * 3 + 3 * 9.0});
}

TYPED_TEST(AutodiffRules, NonScalarRootActsLikeItsSum) {
  auto x = this->leaf({1, 2, 3}, {3});
  Gradients g = Dispatch::backward(Dispatch::float_mul(x, x));
  expect_near_all(this->grad(x, g), {2, 4, 6});
}

TYPED_TEST(AutodiffRules, DeepChainDoesNotRecurse) {
  auto x = this->leaf({1}, {1});
  DispatchTensor y = x;
  for (int i = 0; i < 5000; ++i) y = Dispatch::float_add_scalar(y, 1.0);
  expect_near_all(this->grad(x, Dispatch::backward(y)), {1});
}

// d|x|/dx = sign(x), 0 at 0 (docs/OPS.md), with magnitudes on both sides of 1 so that a rule
// comparing against 1 instead of 0 shows.
TYPED_TEST(AutodiffRules, AbsGradientIsTheSignForSmallMagnitudesAndZeroAtZero) {
  auto x = this->leaf({-2, -0.75, -0.25, 0, 0.25, 0.75, 2}, {7});
  EXPECT_EQ(this->grad(x, Dispatch::backward(Dispatch::float_sum(Dispatch::float_abs(x)))),
            (std::vector<double>{-1, -1, -1, 0, 1, 1, 1}));
}

// Autodiff<B>::from_data: every call starts a new leaf holding the data.
template <class B>
void expect_from_data_makes_fresh_leaves() {
  const TensorData data = TensorData::from_f32({1.5f, -2.0f, 0.25f}, {3});
  const auto a = Autodiff<B>::from_data(data, Device::cpu());
  const auto b = Autodiff<B>::from_data(data, Device::cpu());
  EXPECT_EQ(B::into_data(a.primitive), TensorData::from_f32({1.5f, -2.0f, 0.25f}, {3}));
  EXPECT_EQ(Autodiff<B>::shape(a), Shape({3}));
  EXPECT_EQ(Autodiff<B>::dtype(a), DType::F32);
  ASSERT_NE(a.node, nullptr);
  ASSERT_NE(b.node, nullptr);
  EXPECT_NE(a.id(), b.id());  // every from_data starts a new leaf
}

TEST(AutodiffLeaves, FromDataHoldsTheDataInAFreshLeaf) {
  expect_from_data_makes_fresh_leaves<backends::NdArray>();
  expect_from_data_makes_fresh_leaves<backends::Flex>();
}

}  // namespace
}  // namespace crossgrad
