// Backward rules of the selecting and indexing ops checked against gradients worked out by hand
// from docs/OPS.md, on every backend. Finite differences cannot judge the cases pinned here: a
// tied maximum (the rule splits the gradient evenly; the objective has a kink there), a NaN
// maximum, and duplicate indices; and the seed of ones that backward uses hides where cat's and
// slice's pieces go, so those are weighted by a distinct value per element.
#include "test_support.hpp"

#include <cmath>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class IndexingBackward : public OnEachBackend<B> {
 protected:
  static DispatchDevice device() { return DispatchDevice::Autodiff(DispatchDevice::of<B>(B::default_device())); }
  static DispatchTensor leaf(std::vector<double> v, Shape s) {
    return Dispatch::float_from_data(TensorData::from_f64(std::move(v), std::move(s)), device());
  }
  static DispatchTensor index(std::vector<std::int64_t> v) {
    const Shape s{v.size()};
    return Dispatch::int_from_data(TensorData::from_i64(std::move(v), s), device());
  }
  // sum(t * w) with w = 1, 2, 3, ... in t's order: each element's gradient names where it went.
  static DispatchTensor weighted_sum(const DispatchTensor& t) {
    const Shape s = Dispatch::float_shape(t);
    std::vector<double> w(s.num_elements());
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<double>(i + 1);
    return Dispatch::float_sum(Dispatch::float_mul(t, leaf(std::move(w), s)));
  }
  static std::vector<double> grad(const DispatchTensor& t, const Gradients& g) {
    const auto got = Dispatch::grad(t, g);
    EXPECT_TRUE(got.has_value());
    return got ? Dispatch::float_into_data(*got).to_f64() : std::vector<double>{};
  }
};
TYPED_TEST_SUITE(IndexingBackward, AllBackendTypes, BackendTestName);

TYPED_TEST(IndexingBackward, MaxDimSplitsTheGradientAmongTiedMaxima) {
  const DispatchTensor x = this->leaf({1, 3, 3, 2, 2, 2}, Shape{2, 3});
  const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_max_dim(x, 1)));
  const std::vector<double> got = this->grad(x, g);
  const std::vector<double> want{0, 0.5, 0.5, 1.0 / 3, 1.0 / 3, 1.0 / 3};
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_DOUBLE_EQ(got[i], want[i]) << "element " << i;
}

TYPED_TEST(IndexingBackward, MinDimSplitsTheGradientAmongTiedMinima) {
  const DispatchTensor x = this->leaf({3, 1, 1, -2, -2, 7}, Shape{2, 3});
  const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_min_dim(x, 1)));
  const std::vector<double> got = this->grad(x, g);
  const std::vector<double> want{0, 0.5, 0.5, 0.5, 0.5, 0};
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_DOUBLE_EQ(got[i], want[i]) << "element " << i;
}

TYPED_TEST(IndexingBackward, MinDimWithANaNMinimumGivesNaNToItsSlice) {
  const DispatchTensor x = this->leaf({4, 5, 6, 1, NAN, 2}, Shape{2, 3});
  const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_min_dim(x, 1)));
  const std::vector<double> got = this->grad(x, g);
  ASSERT_EQ(got.size(), 6u);
  EXPECT_EQ(got[0], 1);
  EXPECT_EQ(got[1], 0);
  EXPECT_EQ(got[2], 0);
  for (std::size_t i = 3; i < 6; ++i) EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
}

TYPED_TEST(IndexingBackward, MaxDimWithANaNMaximumGivesNaNToItsSlice) {
  const DispatchTensor x = this->leaf({1, NAN, 2, 4, 5, 6}, Shape{2, 3});
  const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_max_dim(x, 1)));
  const std::vector<double> got = this->grad(x, g);
  ASSERT_EQ(got.size(), 6u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
  EXPECT_EQ(got[3], 0);
  EXPECT_EQ(got[4], 0);
  EXPECT_EQ(got[5], 1);
}

TYPED_TEST(IndexingBackward, SelectAddsTheGradientsOfDuplicateIndices) {
  const DispatchTensor x = this->leaf({10, 20, 30}, Shape{3});
  const Gradients g = Dispatch::backward(this->weighted_sum(Dispatch::float_select(x, 0, this->index({2, 0, 2}))));
  // Selected positions 0, 1, 2 carry weights 1, 2, 3: x[2] gets 1 + 3, x[0] gets 2.
  EXPECT_EQ(this->grad(x, g), (std::vector<double>{2, 0, 4}));
}

TYPED_TEST(IndexingBackward, SelectAssignSendsTheSelectedGradientToTheValues) {
  const DispatchTensor x = this->leaf({1, 2, 3, 4, 5, 6}, Shape{3, 2});
  const DispatchTensor v = this->leaf({7, 8, 9, 10}, Shape{2, 2});
  const Gradients g = Dispatch::backward(this->weighted_sum(Dispatch::float_select_assign(x, 0, this->index({2, 2}), v)));
  EXPECT_EQ(this->grad(x, g), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(this->grad(v, g), (std::vector<double>{5, 6, 5, 6}));
}

TYPED_TEST(IndexingBackward, CatGivesEachInputItsOwnSlice) {
  const DispatchTensor a = this->leaf({1, 2, 3, 4}, Shape{2, 2});
  const DispatchTensor b = this->leaf({5, 6}, Shape{2, 1});
  const Gradients g = Dispatch::backward(this->weighted_sum(Dispatch::float_cat({a, b}, 1)));
  // Output [2, 3] row-major weights 1..6: a's columns get 1 2 / 4 5, b's column 3 / 6.
  EXPECT_EQ(this->grad(a, g), (std::vector<double>{1, 2, 4, 5}));
  EXPECT_EQ(this->grad(b, g), (std::vector<double>{3, 6}));
}

TYPED_TEST(IndexingBackward, SlicePadsTheGradientWithZerosAtItsPlace) {
  const DispatchTensor x = this->leaf({1, 2, 3, 4, 5, 6, 7, 8}, Shape{2, 4});
  const Gradients g = Dispatch::backward(this->weighted_sum(Dispatch::float_slice(x, {Range{1, 2}, Range{1, 3}})));
  EXPECT_EQ(this->grad(x, g), (std::vector<double>{0, 0, 0, 0, 0, 1, 2, 0}));
}

TYPED_TEST(IndexingBackward, PermuteSendsEachGradientBackThroughTheInversePermutation) {
  std::vector<double> v(24);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  const DispatchTensor x = this->leaf(v, Shape{2, 3, 4});
  // out[i][j][k] = x[j][k][i] (axes {2, 0, 1}): x[a][b][c] lands at out[c][a][b], weight
  // 1 + c*6 + a*3 + b.
  const Gradients g = Dispatch::backward(this->weighted_sum(Dispatch::float_permute(x, {2, 0, 1})));
  std::vector<double> want(24);
  for (std::size_t a = 0; a < 2; ++a)
    for (std::size_t b = 0; b < 3; ++b)
      for (std::size_t c = 0; c < 4; ++c) want[a * 12 + b * 4 + c] = static_cast<double>(1 + c * 6 + a * 3 + b);
  EXPECT_EQ(this->grad(x, g), want);
}

TYPED_TEST(IndexingBackward, SoftmaxBackwardKeepsItsSumTerm) {
  // y = softmax([0, ln 3]) = [1/4, 3/4]; L = 1*y0 + 2*y1; dL/dx = y * (w - sum(w*y)) with
  // sum(w*y) = 7/4: [1/4 * -3/4, 3/4 * 1/4] = [-3/16, 3/16].
  const DispatchTensor x = this->leaf({0, std::log(3.0)}, Shape{2});
  const Gradients g = Dispatch::backward(this->weighted_sum(Dispatch::softmax(x, 0)));
  const std::vector<double> got = this->grad(x, g);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_NEAR(got[0], -3.0 / 16, 1e-14);
  EXPECT_NEAR(got[1], 3.0 / 16, 1e-14);
}

TYPED_TEST(IndexingBackward, ClampPassesTheGradientOnlyInsideItsBounds) {
  const DispatchTensor x = this->leaf({-2, -1, 0, 1, 2}, Shape{5});
  const Gradients g = Dispatch::backward(this->weighted_sum(Dispatch::float_clamp(x, -1, 1)));
  // The bounds themselves pass the gradient (inclusive).
  EXPECT_EQ(this->grad(x, g), (std::vector<double>{0, 2, 3, 4, 0}));
}

}  // namespace
}  // namespace crossgrad
