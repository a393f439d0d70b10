// float_prod's and float_prod_dim's gradient, d(prod x)/dx_i = g * the product of the other
// elements of x_i's lane, on every backend, at points where dividing the product by x_i is wrong:
// zeros (one zero: only it gets the others' product; two: every gradient is 0) and products that
// overflow although the others' product does not. Expected values are the products of the other
// elements worked out by hand; finite differences cannot pin the zero cases exactly.
#include "test_support.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class ProdBackward : public OnEachBackend<B> {
 protected:
  static DispatchTensor leaf(std::vector<double> v, Shape s) {
    return Dispatch::float_from_data(TensorData::from_f64(std::move(v), std::move(s)), autodiff_device<B>());
  }
  static std::vector<double> grad(const DispatchTensor& x, const DispatchTensor& loss) {
    const auto got = Dispatch::grad(x, Dispatch::backward(loss));
    EXPECT_TRUE(got.has_value());
    return got ? Dispatch::float_into_data(*got).to_f64() : std::vector<double>{};
  }
  static std::vector<double> prod_grad(std::vector<double> v) {
    const Shape s{v.size()};
    const DispatchTensor x = leaf(std::move(v), s);
    return grad(x, Dispatch::float_prod(x));
  }
};
TYPED_TEST_SUITE(ProdBackward, AllBackendTypes, BackendTestName);

void expect_values(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_DOUBLE_EQ(got[i], want[i]) << what << ", element " << i;
}

TYPED_TEST(ProdBackward, ProductOfTheOthers) {
  expect_values(this->prod_grad({2, 3, 4}), {12, 8, 6}, "[2, 3, 4]");
  // Five elements: the doubling scan's passes 1, 2, 4 do not divide the length.
  expect_values(this->prod_grad({1, 2, 3, 4, 5}), {120, 60, 40, 30, 24}, "[1 .. 5]");
  expect_values(this->prod_grad({-1.5}), {1}, "one element: the empty product of the others");
}

TYPED_TEST(ProdBackward, ZerosGetTheirTrueGradient) {
  // One zero: it gets the product of the others, every other element 0.
  expect_values(this->prod_grad({2, 0, 4}), {0, 8, 0}, "one zero");
  expect_values(this->prod_grad({0, -3, 5, 2}), {-30, 0, 0, 0}, "a zero first");
  // Two zeros: every product of the others holds a zero.
  expect_values(this->prod_grad({0, 3, 0}), {0, 0, 0}, "two zeros");
}

TYPED_TEST(ProdBackward, NoDivisionByX) {
  // prod = 1e300 * 1e300 * 1e-300 overflows to inf in index order, but the product of the others
  // of each element is finite for two of them: 1e300 * 1e-300 = 1. A rule dividing the product
  // by x_i gives inf there.
  const std::vector<double> got = this->prod_grad({1e300, 1e300, 1e-300});
  ASSERT_EQ(got.size(), 3u);
  EXPECT_NEAR(got[0], 1.0, 1e-12);
  EXPECT_NEAR(got[1], 1.0, 1e-12);
  EXPECT_TRUE(std::isinf(got[2]) && got[2] > 0) << "1e300 * 1e300 overflows: " << got[2];
}

TYPED_TEST(ProdBackward, F32FactorsMultiplyInDouble) {
  // The others of the last element multiply to 1e-30 * 1e-30 * 1e30 * 1e30 (about 1): in F32 the
  // first partial product, 1e-60, is 0 whatever the order pairs first; in double it is not.
  const DispatchTensor x =
      Dispatch::float_from_data(float_data_1d({1e-30, 1e-30, 1e30, 1e30, 3}, DType::F32), autodiff_device<TypeParam>());
  const std::vector<double> got = this->grad(x, Dispatch::float_prod(x));
  ASSERT_EQ(got.size(), 5u);
  EXPECT_NEAR(got[4], 1.0, 1e-5);
  EXPECT_NEAR(got[0] / 3e30, 1.0, 1e-5);
}

TYPED_TEST(ProdBackward, AlongADim) {
  // [[2, 0, 4], [1, 2, 3]] along dim 1: the first row has one zero.
  const DispatchTensor x = this->leaf({2, 0, 4, 1, 2, 3}, Shape{2, 3});
  expect_values(this->grad(x, Dispatch::float_sum(Dispatch::float_prod_dim(x, 1))), {0, 8, 0, 6, 3, 2}, "dim 1");
  // Along dim 0 each column is a pair: the gradient of each is the other.
  expect_values(this->grad(x, Dispatch::float_sum(Dispatch::float_prod_dim(x, 0))), {1, 2, 3, 2, 0, 4}, "dim 0");
  // A rank-3 tensor along its middle dim of length 3, two lanes.
  const DispatchTensor y = this->leaf({1, 2, 3, 4, 5, 6}, Shape{1, 3, 2});
  expect_values(this->grad(y, Dispatch::float_sum(Dispatch::float_prod_dim(y, 1))), {15, 24, 5, 12, 3, 8}, "[1, 3, 2] dim 1");
}

TYPED_TEST(ProdBackward, EmptyAndRankZero) {
  // No element: the gradient is empty, of the operand's shape.
  const DispatchTensor e = this->leaf({}, Shape{2, 0});
  const auto ge = Dispatch::grad(e, Dispatch::backward(Dispatch::float_sum(Dispatch::float_prod_dim(e, 1))));
  ASSERT_TRUE(ge.has_value());
  EXPECT_EQ(Dispatch::float_shape(*ge), (Shape{2, 0}));
  const DispatchTensor s = this->leaf({-4}, Shape{});
  const auto gs = Dispatch::grad(s, Dispatch::backward(Dispatch::float_prod(s)));
  ASSERT_TRUE(gs.has_value());
  EXPECT_EQ(Dispatch::float_shape(*gs), Shape{});
  EXPECT_EQ(Dispatch::float_into_data(*gs).to_f64(), std::vector<double>{1});
}

}  // namespace
}  // namespace crossgrad
