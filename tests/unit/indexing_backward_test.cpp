// Backward rules of the selecting and indexing ops checked against gradients worked out by hand
// from docs/OPS.md, on every backend. Finite differences cannot judge the cases pinned here: a
// tied maximum (the rule splits the gradient evenly; the objective has a kink there), a NaN
// maximum, x and -x tied in max_abs, and duplicate indices; and the seed of ones that backward uses hides where cat's and
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

TYPED_TEST(IndexingBackward, MaxAndMinSplitTheGradientAmongTiedExtremesOfTheWholeTensor) {
  const DispatchTensor x = this->leaf({3, 1, 3, 2, -1, 3}, Shape{2, 3});
  const std::vector<double> got_max = this->grad(x, Dispatch::backward(Dispatch::float_max(x)));
  const std::vector<double> want_max{1.0 / 3, 0, 1.0 / 3, 0, 0, 1.0 / 3};
  ASSERT_EQ(got_max.size(), want_max.size());
  for (std::size_t i = 0; i < want_max.size(); ++i) EXPECT_DOUBLE_EQ(got_max[i], want_max[i]) << "max, element " << i;
  const std::vector<double> got_min = this->grad(x, Dispatch::backward(Dispatch::float_min(x)));
  const std::vector<double> want_min{0, 0, 0, 0, 1, 0};
  ASSERT_EQ(got_min.size(), want_min.size());
  for (std::size_t i = 0; i < want_min.size(); ++i) EXPECT_DOUBLE_EQ(got_min[i], want_min[i]) << "min, element " << i;
  // A rank-0 tensor is its own extreme; its gradient keeps its shape.
  const DispatchTensor s = this->leaf({-5}, Shape{});
  const auto gs = Dispatch::grad(s, Dispatch::backward(Dispatch::float_min(s)));
  ASSERT_TRUE(gs.has_value());
  EXPECT_EQ(Dispatch::float_shape(*gs), Shape{});
  EXPECT_EQ(Dispatch::float_into_data(*gs).to_f64(), std::vector<double>{1});
}

TYPED_TEST(IndexingBackward, MaxWithANaNGivesNaNEverywhere) {
  const DispatchTensor x = this->leaf({1, NAN, 7, 2}, Shape{2, 2});
  const std::vector<double> got = this->grad(x, Dispatch::backward(Dispatch::float_max(x)));
  ASSERT_EQ(got.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
}

// max_abs: y = max |x|, so the maximal elements share g (split evenly, as max_dim) times
// d|x|/dx = sign(x); x and -x both at the maximum get the shares with opposite signs.
TYPED_TEST(IndexingBackward, MaxAbsGivesSignedSharesToXAndMinusX) {
  const DispatchTensor x = this->leaf({-2, 1, 2, 0.5}, Shape{4});
  const std::vector<double> got = this->grad(x, Dispatch::backward(Dispatch::float_max_abs(x)));
  const std::vector<double> want{-0.5, 0, 0.5, 0};
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_DOUBLE_EQ(got[i], want[i]) << "element " << i;
  // Along dim 1 of [[-3, 1, 3], [2, -4, 1]]: the first row's -3 and 3 tie, the second's -4 alone.
  const DispatchTensor m = this->leaf({-3, 1, 3, 2, -4, 1}, Shape{2, 3});
  const std::vector<double> got_dim = this->grad(m, Dispatch::backward(Dispatch::float_sum(Dispatch::float_max_abs_dim(m, 1))));
  const std::vector<double> want_dim{-0.5, 0, 0.5, 0, -1, 0};
  ASSERT_EQ(got_dim.size(), want_dim.size());
  for (std::size_t i = 0; i < want_dim.size(); ++i) EXPECT_DOUBLE_EQ(got_dim[i], want_dim[i]) << "dim 1, element " << i;
}

TYPED_TEST(IndexingBackward, MaxAbsAtZeroAndAtNaN) {
  // Every |x| is 0: all tie, and sign(0) = 0 gives each a zero gradient.
  const DispatchTensor z = this->leaf({0.0, -0.0}, Shape{2});
  const std::vector<double> got_zero = this->grad(z, Dispatch::backward(Dispatch::float_max_abs(z)));
  EXPECT_EQ(got_zero, (std::vector<double>{0, 0}));
  // A NaN maximum equals nothing: its slice gets NaN, the other slice its usual share.
  const DispatchTensor x = this->leaf({1, -NAN, 3, -5}, Shape{2, 2});
  const std::vector<double> got = this->grad(x, Dispatch::backward(Dispatch::float_sum(Dispatch::float_max_abs_dim(x, 1))));
  ASSERT_EQ(got.size(), 4u);
  EXPECT_TRUE(std::isnan(got[0]));
  EXPECT_TRUE(std::isnan(got[1]));
  EXPECT_EQ(got[2], 0);
  EXPECT_EQ(got[3], -1);
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
