// NdArray, the reference backend: matmul, sums and means, products, max_dim / argmax (ties, NaN),
// max / min / max_abs over everything and along a dim, any / all, and softmax / log_softmax
// against values worked out by hand, and their panics.
#include "ndarray_test_support.hpp"

#include <cfloat>
#include <cstdint>
#include <cstring>

namespace crossgrad {
namespace {
using namespace ndarray_test;

// ---- matmul -----------------------------------------------------------------------------------

TEST(NdArrayMatmul, TwoD) {
  // [2,3] x [3,2]:
  //   [1 2 3]   [ 7  8]   [1*7+2*9+3*11  1*8+2*10+3*12]   [ 58  64]
  //   [4 5 6] x [ 9 10] = [4*7+5*9+6*11  4*8+5*10+6*12] = [139 154]
  //             [11 12]
  const T a = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  const T b = f32({7, 8, 9, 10, 11, 12}, {3, 2});
  const T c = NdArray::float_matmul(a, b);
  EXPECT_EQ(NdArray::shape(c), (Shape{2, 2}));
  EXPECT_EQ(vals32(c), (std::vector<float>{58, 64, 139, 154}));
}

TEST(NdArrayMatmul, BatchedBroadcast) {
  // [2,1,2,2] x [3,2,2] -> [2,3,2,2]. lhs batch i in {0,1}, rhs batch j in {0,1,2}.
  //   L0 = [1 0; 0 1] (identity), L1 = [0 1; 1 0] (row swap)
  //   R0 = [1 2; 3 4], R1 = [5 6; 7 8], R2 = [0 0; 0 1]
  const T a = f64({1, 0, 0, 1, 0, 1, 1, 0}, {2, 1, 2, 2});
  const T b = f64({1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 1}, {3, 2, 2});
  const T c = NdArray::float_matmul(a, b);
  EXPECT_EQ(NdArray::shape(c), (Shape{2, 3, 2, 2}));
  EXPECT_EQ(vals64(c), (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 1,  // L0 * Rj = Rj
                                            3, 4, 1, 2, 7, 8, 5, 6, 0, 1, 0, 0}));  // rows swapped
}

TEST(NdArrayMatmul, BatchOnOneSide) {
  // [2,1,2] x [2,1]: each 1x2 row times the column [1; 10].
  const T a = f32({1, 2, 3, 4}, {2, 1, 2});
  const T b = f32({1, 10}, {2, 1});
  const T c = NdArray::float_matmul(a, b);
  EXPECT_EQ(NdArray::shape(c), (Shape{2, 1, 1}));
  EXPECT_EQ(vals32(c), (std::vector<float>{21, 43}));
}

TEST(NdArrayMatmul, ZeroSizes) {
  // k = 0: an empty sum, so every element is exactly 0.
  const T c = NdArray::float_matmul(f32({}, {2, 0}), f32({}, {0, 3}));
  EXPECT_EQ(NdArray::shape(c), (Shape{2, 3}));
  EXPECT_EQ(vals32(c), (std::vector<float>(6, 0.0f)));
  EXPECT_EQ(NdArray::shape(NdArray::float_matmul(f32({}, {0, 2}), f32({1, 2}, {2, 1}))), (Shape{0, 1}));
  EXPECT_EQ(NdArray::shape(NdArray::float_matmul(f32({}, {0, 1, 2}), f32({1, 2}, {2, 1}))),
            (Shape{0, 1, 1}));
}

TEST(NdArrayMatmul, Panics) {
  expect_panic([] { NdArray::float_matmul(f32({1, 2, 3}, {3}), f32({1, 2, 3, 4, 5, 6}, {3, 2})); },
               PanicId::MatmulRank,
               "float_matmul needs tensors of rank 2 or more, got shapes [3] and [3, 2].");
  expect_panic([] { NdArray::float_matmul(f32({1}, {}), f32({1}, {1, 1})); }, PanicId::MatmulRank,
               "float_matmul needs tensors of rank 2 or more, got shapes [] and [1, 1].");
  expect_panic(
      [] { NdArray::float_matmul(f32({1, 2, 3, 4, 5, 6}, {2, 3}), f32({1, 2, 3, 4, 5, 6}, {2, 3})); },
      PanicId::MatmulInnerDim,
      "float_matmul needs the inner dims to agree, got shapes [2, 3] and [2, 3].");
  expect_panic(
      [] { NdArray::float_matmul(f32(std::vector<float>(8), {2, 2, 2}), f32(std::vector<float>(12), {3, 2, 2})); },
      PanicId::BroadcastMismatch, "float_matmul cannot broadcast shapes [2] and [3].");
  expect_panic([] { NdArray::float_matmul(f32({1}, {1, 1}), f64({1}, {1, 1})); },
               PanicId::DtypeMismatch, "float_matmul needs operands of one dtype, got F32 and F64.");
}

// ---- reductions -------------------------------------------------------------------------------

TEST(NdArrayReduce, SumAndMean) {
  const T a = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  const T s = NdArray::float_sum(a);
  EXPECT_EQ(NdArray::shape(s), Shape{1});
  EXPECT_EQ(vals32(s), std::vector<float>{21});
  EXPECT_EQ(vals32(NdArray::float_mean(a)), std::vector<float>{3.5f});
  EXPECT_EQ(vals64(NdArray::float_sum(f64({7}, {}))), std::vector<double>{7});
  EXPECT_EQ(NdArray::shape(NdArray::float_mean(f64({7}, {}))), Shape{1});
}

TEST(NdArrayReduce, F32SumAccumulatesInDouble) {
  // In float, 2^24 + 1 + 1 stays 2^24 (each +1 rounds away); in double it is exactly 2^24 + 2,
  // which float represents.
  const T a = f32({16777216.0f, 1, 1}, {3});
  EXPECT_EQ(vals32(NdArray::float_sum(a)), std::vector<float>{16777218.0f});
}

TEST(NdArrayReduce, Empty) {
  EXPECT_EQ(vals32(NdArray::float_sum(f32({}, {0}))), std::vector<float>{0});
  EXPECT_TRUE(std::isnan(vals32(NdArray::float_mean(f32({}, {2, 0})))[0]));
  EXPECT_EQ(NdArray::shape(NdArray::float_mean(f32({}, {2, 0}))), Shape{1});
}

TEST(NdArrayReduce, SumDimMeanDim) {
  const T a = f64({1, 2, 3, 4, 5, 6}, {2, 3});
  const T s0 = NdArray::float_sum_dim(a, 0);
  EXPECT_EQ(NdArray::shape(s0), (Shape{1, 3}));
  EXPECT_EQ(vals64(s0), (std::vector<double>{5, 7, 9}));
  const T s1 = NdArray::float_sum_dim(a, 1);
  EXPECT_EQ(NdArray::shape(s1), (Shape{2, 1}));
  EXPECT_EQ(vals64(s1), (std::vector<double>{6, 15}));
  EXPECT_EQ(vals64(NdArray::float_mean_dim(a, 0)), (std::vector<double>{2.5, 3.5, 4.5}));
  EXPECT_EQ(vals64(NdArray::float_mean_dim(a, 1)), (std::vector<double>{2, 5}));
}

TEST(NdArrayReduce, MiddleDimOfRank3) {
  // [2,2,2] = [[[1,2],[3,4]],[[5,6],[7,8]]]; summing dim 1 adds the two rows of each block.
  const T a = f32({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2});
  const T s = NdArray::float_sum_dim(a, 1);
  EXPECT_EQ(NdArray::shape(s), (Shape{2, 1, 2}));
  EXPECT_EQ(vals32(s), (std::vector<float>{4, 6, 12, 14}));
  EXPECT_EQ(vals32(NdArray::float_mean_dim(a, 2)), (std::vector<float>{1.5f, 3.5f, 5.5f, 7.5f}));
}

TEST(NdArrayReduce, DimZeroSize) {
  // Reducing an empty dim: sums are 0, means are 0/0 = NaN, and the dim is kept as 1.
  const T a = f32({}, {2, 0});
  const T s = NdArray::float_sum_dim(a, 1);
  EXPECT_EQ(NdArray::shape(s), (Shape{2, 1}));
  EXPECT_EQ(vals32(s), (std::vector<float>{0, 0}));
  const std::vector<float> m = vals32(NdArray::float_mean_dim(a, 1));
  ASSERT_EQ(m.size(), 2u);
  EXPECT_TRUE(std::isnan(m[0]) && std::isnan(m[1]));
  // Reducing a non-empty dim of an empty tensor leaves an empty tensor.
  const T e = NdArray::float_sum_dim(a, 0);
  EXPECT_EQ(NdArray::shape(e), (Shape{1, 0}));
  EXPECT_TRUE(vals32(e).empty());
}

TEST(NdArrayReduce, Panics) {
  const T a = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  expect_panic([&] { NdArray::float_sum_dim(a, 2); }, PanicId::DimOutOfRange,
               "float_sum_dim got dim 2 for a tensor of rank 2.");
  expect_panic([&] { NdArray::float_mean_dim(f32({1}, {}), 0); }, PanicId::DimOutOfRange,
               "float_mean_dim got dim 0 for a tensor of rank 0.");
  expect_panic([] { NdArray::float_sum(NdArray::from_data(TensorData::from_i64({1}, {1}), Device::cpu())); },
               PanicId::UnsupportedDtype, "DType I64 is not supported by float_sum.");
}

// ---- max_dim, argmax --------------------------------------------------------------------------

TEST(NdArrayMaxDim, Values) {
  // [[1, 5, 3], [4, 2, 6]]
  const T x = f32({1, 5, 3, 4, 2, 6}, {2, 3});
  const T m1 = NdArray::float_max_dim(x, 1);
  EXPECT_EQ(NdArray::shape(m1), (Shape{2, 1}));
  EXPECT_EQ(vals32(m1), (std::vector<float>{5, 6}));
  const T a1 = NdArray::float_argmax(x, 1);
  EXPECT_EQ(NdArray::dtype(a1), DType::I64);
  EXPECT_EQ(NdArray::shape(a1), (Shape{2, 1}));
  EXPECT_EQ(ints(a1), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(vals32(NdArray::float_max_dim(x, 0)), (std::vector<float>{4, 5, 6}));
  EXPECT_EQ(ints(NdArray::float_argmax(x, 0)), (std::vector<std::int64_t>{1, 0, 1}));
  // A middle dim: [2,2,2] of 0..7, along dim 1 -> [2,1,2] {2, 3, 6, 7}, all at index 1.
  const T y = f64({0, 1, 2, 3, 4, 5, 6, 7}, {2, 2, 2});
  EXPECT_EQ(NdArray::shape(NdArray::float_max_dim(y, 1)), (Shape{2, 1, 2}));
  EXPECT_EQ(vals64(NdArray::float_max_dim(y, 1)), (std::vector<double>{2, 3, 6, 7}));
  EXPECT_EQ(ints(NdArray::float_argmax(y, 1)), (std::vector<std::int64_t>{1, 1, 1, 1}));
  // A zero dim that is not reduced: empty output, no panic.
  EXPECT_EQ(NdArray::shape(NdArray::float_max_dim(f32({}, {0, 3}), 1)), (Shape{0, 1}));
  EXPECT_EQ(NdArray::shape(NdArray::float_argmax(f32({}, {0, 3}), 1)), (Shape{0, 1}));
}

TEST(NdArrayMaxDim, TiesKeepTheFirst) {
  // -0 and +0 are equal: the first in index order is kept, with its sign.
  const T neg_first = f32({-0.0f, 0.0f}, {2});
  EXPECT_TRUE(std::signbit(vals32(NdArray::float_max_dim(neg_first, 0))[0]));
  EXPECT_EQ(ints(NdArray::float_argmax(neg_first, 0)), std::vector<std::int64_t>{0});
  const T pos_first = f64({0.0, -0.0}, {2});
  EXPECT_FALSE(std::signbit(vals64(NdArray::float_max_dim(pos_first, 0))[0]));
  EXPECT_EQ(ints(NdArray::float_argmax(pos_first, 0)), std::vector<std::int64_t>{0});
  // Equal maxima later on: the first one.
  EXPECT_EQ(ints(NdArray::float_argmax(f32({2, 5, 5, 1}, {4}), 0)), std::vector<std::int64_t>{1});
  // All -inf: -inf at index 0.
  const T ninf = f64({-kInf, -kInf}, {2});
  EXPECT_EQ(vals64(NdArray::float_max_dim(ninf, 0)), std::vector<double>{-kInf});
  EXPECT_EQ(ints(NdArray::float_argmax(ninf, 0)), std::vector<std::int64_t>{0});
}

TEST(NdArrayMaxDim, NaNWinsAndTheFirstNaNIsKept) {
  const T x = f32({1, kNaN32, 3}, {3});
  EXPECT_TRUE(std::isnan(vals32(NdArray::float_max_dim(x, 0))[0]));
  EXPECT_EQ(ints(NdArray::float_argmax(x, 0)), std::vector<std::int64_t>{1});
  // Two NaNs with different payloads after a larger number: the first NaN's bits.
  const float nan_a = std::bit_cast<float>(0x7fc00001u);
  const float nan_b = std::bit_cast<float>(0x7fc00002u);
  const T two = f32({7, nan_a, 9, nan_b}, {4});
  EXPECT_EQ(std::bit_cast<std::uint32_t>(vals32(NdArray::float_max_dim(two, 0))[0]), 0x7fc00001u);
  EXPECT_EQ(ints(NdArray::float_argmax(two, 0)), std::vector<std::int64_t>{1});
  // NaN first, then larger numbers: still the NaN.
  EXPECT_EQ(ints(NdArray::float_argmax(f64({kNaN, kInf, 1}, {3}), 0)), std::vector<std::int64_t>{0});
}

TEST(NdArrayMinDim, ValuesAndIndices) {
  // [[1, 5, 3], [4, 2, 6]]: minima 1 and 2 along dim 1, [1, 2, 3] along dim 0.
  const T x = f32({1, 5, 3, 4, 2, 6}, {2, 3});
  EXPECT_EQ(vals32(NdArray::float_min_dim(x, 1)), (std::vector<float>{1, 2}));
  EXPECT_EQ(NdArray::shape(NdArray::float_min_dim(x, 1)), (Shape{2, 1}));
  EXPECT_EQ(ints(NdArray::float_argmin(x, 1)), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(vals32(NdArray::float_min_dim(x, 0)), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(ints(NdArray::float_argmin(x, 0)), (std::vector<std::int64_t>{0, 1, 0}));
  // -inf is the smallest; +inf is kept only when alone.
  EXPECT_EQ(ints(NdArray::float_argmin(f64({kInf, -kInf, 0}, {3}), 0)), std::vector<std::int64_t>{1});
  EXPECT_EQ(vals64(NdArray::float_min_dim(f64({kInf}, {1}), 0)), std::vector<double>{kInf});
}

TEST(NdArrayMinDim, TiesKeepTheFirstAndTheFirstNaNWins) {
  const std::vector<float> pos_first = vals32(NdArray::float_min_dim(f32({0.0f, -0.0f}, {2}), 0));
  EXPECT_FALSE(std::signbit(pos_first[0])) << "+0 then -0: the first (+0) is kept";
  const std::vector<float> neg_first = vals32(NdArray::float_min_dim(f32({-0.0f, 0.0f}, {2}), 0));
  EXPECT_TRUE(std::signbit(neg_first[0]));
  EXPECT_EQ(ints(NdArray::float_argmin(f32({2, 1, 5, 1}, {4}), 0)), std::vector<std::int64_t>{1});
  const T x = f32({1, kNaN32, -3, kNaN32}, {4});
  EXPECT_TRUE(std::isnan(vals32(NdArray::float_min_dim(x, 0))[0]));
  EXPECT_EQ(ints(NdArray::float_argmin(x, 0)), std::vector<std::int64_t>{1});
}

TEST(NdArrayMinDim, Panics) {
  expect_panic(
      [] { NdArray::float_min_dim(f32({}, {2, 0}), 1); }, PanicId::EmptyReduction,
      "float_min_dim over dim 1 of size 0 has no result.");
  expect_panic([] { NdArray::float_argmin(f32({}, {0}), 0); }, PanicId::EmptyReduction,
               "float_argmin over dim 0 of size 0 has no result.");
  expect_panic_id([] { NdArray::float_min_dim(f32({1, 2}, {2}), 1); }, PanicId::DimOutOfRange);
  expect_panic(
      [] { NdArray::float_argmin(i64({1}, {1}), 0); }, PanicId::UnsupportedDtype,
      "DType I64 is not supported by float_argmin.");
}

TEST(NdArrayMaxDim, Panics) {
  expect_panic_id([] { NdArray::float_max_dim(f32({}, {2, 0}), 1); }, PanicId::EmptyReduction);
  expect_panic_id([] { NdArray::float_argmax(f32({}, {0}), 0); }, PanicId::EmptyReduction);
  expect_panic_id([] { NdArray::float_max_dim(f32({1, 2}, {2}), 1); }, PanicId::DimOutOfRange);
  expect_panic_id([] { NdArray::float_argmax(f32({1}, {}), 0); }, PanicId::DimOutOfRange);
  expect_panic_id([] { NdArray::float_argmax(i64({1}, {1}), 0); }, PanicId::UnsupportedDtype);
}

// ---- softmax, log_softmax ---------------------------------------------------------------------

// ---- prod, prod_dim ---------------------------------------------------------------------------

TEST(NdArrayProd, ValuesAndShapes) {
  const T a = f64({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(NdArray::shape(NdArray::float_prod(a)), Shape{1});
  EXPECT_EQ(vals64(NdArray::float_prod(a)), std::vector<double>{720});
  EXPECT_EQ(NdArray::shape(NdArray::float_prod_dim(a, 0)), (Shape{1, 3}));
  EXPECT_EQ(vals64(NdArray::float_prod_dim(a, 0)), (std::vector<double>{4, 10, 18}));
  EXPECT_EQ(NdArray::shape(NdArray::float_prod_dim(a, 1)), (Shape{2, 1}));
  EXPECT_EQ(vals64(NdArray::float_prod_dim(a, 1)), (std::vector<double>{6, 120}));
  // [2,2,2] along the middle dim: [[1,2],[3,4]] -> [3, 8], [[5,6],[7,8]] -> [35, 48].
  EXPECT_EQ(vals32(NdArray::float_prod_dim(f32({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}), 1)),
            (std::vector<float>{3, 8, 35, 48}));
  EXPECT_EQ(vals64(NdArray::float_prod(f64({7}, {}))), std::vector<double>{7});
}

TEST(NdArrayProd, EmptyProductsAreOne) {
  EXPECT_EQ(vals32(NdArray::float_prod(f32({}, {0}))), std::vector<float>{1});
  EXPECT_EQ(NdArray::shape(NdArray::float_prod(f32({}, {2, 0}))), Shape{1});
  EXPECT_EQ(vals32(NdArray::float_prod(f32({}, {2, 0}))), std::vector<float>{1});
  const T d = NdArray::float_prod_dim(f64({}, {2, 0}), 1);
  EXPECT_EQ(NdArray::shape(d), (Shape{2, 1}));
  EXPECT_EQ(vals64(d), (std::vector<double>{1, 1}));
  // Along a non-empty dim of an empty tensor: no lane, an empty result.
  EXPECT_EQ(NdArray::shape(NdArray::float_prod_dim(f64({}, {2, 0}), 0)), (Shape{1, 0}));
}

TEST(NdArrayProd, SpecialValues) {
  EXPECT_TRUE(std::isnan(vals64(NdArray::float_prod(f64({0, kInf}, {2})))[0])) << "0 * inf";
  EXPECT_TRUE(std::isnan(vals64(NdArray::float_prod(f64({2, kNaN, 0}, {3})))[0]));
  const double neg_zero = vals64(NdArray::float_prod(f64({-0.0, 1, 3}, {3})))[0];
  EXPECT_EQ(neg_zero, 0);
  EXPECT_TRUE(std::signbit(neg_zero)) << "-0 * 1 * 3 is -0";
  EXPECT_FALSE(std::signbit(vals64(NdArray::float_prod(f64({-0.0, -1}, {2})))[0]));
  EXPECT_EQ(vals64(NdArray::float_prod(f64({-2, -kInf}, {2}))), std::vector<double>{kInf});
}

TEST(NdArrayProd, MultipliesInDoubleInIndexOrder) {
  // F32: 1e30 * 1e30 overflows float but not double, so the product of [1e30, 1e30, 1e-30] is
  // about 1e30, where a float accumulator gives inf.
  const float f = vals32(NdArray::float_prod(f32({1e30f, 1e30f, 1e-30f}, {3})))[0];
  EXPECT_TRUE(std::isfinite(f));
  EXPECT_NEAR(f / 1e30f, 1.0f, 1e-5f);
  // F64: where an intermediate overflows depends on the order, which docs/OPS.md fixes as the index
  // order: 1e300 * 1e300 is inf first, while 1e300 * 1e-300 * 1e300 stays finite.
  EXPECT_EQ(vals64(NdArray::float_prod(f64({1e300, 1e300, 1e-300}, {3}))), std::vector<double>{kInf});
  const double finite = vals64(NdArray::float_prod(f64({1e300, 1e-300, 1e300}, {3})))[0];
  EXPECT_NEAR(finite / 1e300, 1.0, 1e-12);
}

TEST(NdArrayProd, Panics) {
  expect_panic([] { NdArray::float_prod_dim(f32({1, 2}, {2}), 1); }, PanicId::DimOutOfRange,
               "float_prod_dim got dim 1 for a tensor of rank 1.");
  expect_panic([] { NdArray::float_prod(i64({1}, {1})); }, PanicId::UnsupportedDtype,
               "DType I64 is not supported by float_prod.");
}

// ---- max, min, max_abs, max_abs_dim -------------------------------------------------------------

// A quiet NaN whose payload names it, so a test can tell which NaN a scan kept.
float nan_with_payload(std::uint32_t payload) {
  const std::uint32_t bits = 0x7fc00000u | payload;
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}
std::uint32_t bits_of(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

TEST(NdArrayExtremes, MaxAndMinOverEveryElement) {
  const T a = f32({1, 5, 3, 4, -2, 6}, {2, 3});
  EXPECT_EQ(NdArray::shape(NdArray::float_max(a)), Shape{1});
  EXPECT_EQ(vals32(NdArray::float_max(a)), std::vector<float>{6});
  EXPECT_EQ(vals32(NdArray::float_min(a)), std::vector<float>{-2});
  EXPECT_EQ(vals64(NdArray::float_max(f64({-kInf, -kInf}, {2}))), std::vector<double>{-kInf});
  EXPECT_EQ(vals64(NdArray::float_min(f64({kInf, 0, -kInf}, {3}))), std::vector<double>{-kInf});
  EXPECT_EQ(vals64(NdArray::float_min(f64({-4}, {}))), std::vector<double>{-4});
}

TEST(NdArrayExtremes, TiesKeepTheFirstAndTheFirstNaNWins) {
  EXPECT_TRUE(std::signbit(vals32(NdArray::float_max(f32({-0.0f, 0.0f}, {2})))[0]));
  EXPECT_FALSE(std::signbit(vals32(NdArray::float_max(f32({0.0f, -0.0f}, {2})))[0]));
  EXPECT_TRUE(std::signbit(vals32(NdArray::float_min(f32({-0.0f, 0.0f}, {1, 2})))[0]));
  EXPECT_FALSE(std::signbit(vals32(NdArray::float_min(f32({0.0f, -0.0f}, {2, 1})))[0]));
  const float first = nan_with_payload(1), second = nan_with_payload(2);
  const T x = f32({1, first, 9, second, -9}, {5});
  EXPECT_EQ(bits_of(vals32(NdArray::float_max(x))[0]), bits_of(first));
  EXPECT_EQ(bits_of(vals32(NdArray::float_min(x))[0]), bits_of(first));
}

TEST(NdArrayMaxAbs, ValuesAlongADimAndOverEveryElement) {
  // [[-3, 2], [1, -4]]: |x| maxima 3 and 4 along dim 1, 3 and 4 along dim 0, 4 overall.
  const T a = f64({-3, 2, 1, -4}, {2, 2});
  EXPECT_EQ(vals64(NdArray::float_max_abs(a)), std::vector<double>{4});
  EXPECT_EQ(NdArray::shape(NdArray::float_max_abs(a)), Shape{1});
  EXPECT_EQ(vals64(NdArray::float_max_abs_dim(a, 1)), (std::vector<double>{3, 4}));
  EXPECT_EQ(NdArray::shape(NdArray::float_max_abs_dim(a, 1)), (Shape{2, 1}));
  EXPECT_EQ(vals64(NdArray::float_max_abs_dim(a, 0)), (std::vector<double>{3, 4}));
  EXPECT_EQ(NdArray::shape(NdArray::float_max_abs_dim(a, 0)), (Shape{1, 2}));
  // x and -x tie: the value is |x| either way.
  EXPECT_EQ(vals64(NdArray::float_max_abs(f64({-2, 2}, {2}))), std::vector<double>{2});
  EXPECT_EQ(vals64(NdArray::float_max_abs(f64({1, -kInf}, {2}))), std::vector<double>{kInf});
}

TEST(NdArrayMaxAbs, ZerosAndNaN) {
  // |-0| is +0: the result of all zeros is +0 whatever their signs.
  EXPECT_FALSE(std::signbit(vals32(NdArray::float_max_abs(f32({-0.0f, -0.0f}, {2})))[0]));
  EXPECT_FALSE(std::signbit(vals32(NdArray::float_max_abs_dim(f32({-0.0f, 0.0f}, {1, 2}), 1))[0]));
  // The first NaN wins, with its payload and without its sign (|x|).
  const float first = nan_with_payload(5), second = nan_with_payload(6);
  const T x = f32({-7, -first, 100, second}, {4});
  EXPECT_EQ(bits_of(vals32(NdArray::float_max_abs(x))[0]), bits_of(first));
  EXPECT_EQ(bits_of(vals32(NdArray::float_max_abs_dim(x, 0))[0]), bits_of(first));
}

TEST(NdArrayExtremes, Panics) {
  // An empty tensor has no extreme; the message names its first dim of size 0.
  expect_panic([] { NdArray::float_max(f32({}, {2, 0})); }, PanicId::EmptyReduction,
               "float_max over dim 1 of size 0 has no result.");
  expect_panic([] { NdArray::float_min(f64({}, {0})); }, PanicId::EmptyReduction,
               "float_min over dim 0 of size 0 has no result.");
  expect_panic([] { NdArray::float_max_abs(f32({}, {3, 0, 0})); }, PanicId::EmptyReduction,
               "float_max_abs over dim 1 of size 0 has no result.");
  expect_panic([] { NdArray::float_max_abs_dim(f32({}, {2, 0}), 1); }, PanicId::EmptyReduction,
               "float_max_abs_dim over dim 1 of size 0 has no result.");
  expect_panic([] { NdArray::float_max_abs_dim(f32({1}, {1}), 1); }, PanicId::DimOutOfRange,
               "float_max_abs_dim got dim 1 for a tensor of rank 1.");
  expect_panic([] { NdArray::float_max(i64({1}, {1})); }, PanicId::UnsupportedDtype,
               "DType I64 is not supported by float_max.");
  // Along a non-empty dim of an empty tensor there is no lane, so nothing is missing.
  EXPECT_EQ(NdArray::shape(NdArray::float_max_abs_dim(f32({}, {2, 0}), 0)), (Shape{1, 0}));
}

// ---- any, all -----------------------------------------------------------------------------------

TEST(NdArrayAnyAll, NonZeroIncludingNaN) {
  const T zeros = f32({0.0f, -0.0f, 0.0f}, {3});
  EXPECT_EQ(NdArray::dtype(NdArray::float_any(zeros)), DType::Bool);
  EXPECT_EQ(NdArray::shape(NdArray::float_any(zeros)), Shape{1});
  EXPECT_EQ(bools(NdArray::float_any(zeros)), std::vector<bool>{false});
  EXPECT_EQ(bools(NdArray::float_all(zeros)), std::vector<bool>{false});
  EXPECT_EQ(bools(NdArray::float_any(f64({0, kNaN}, {2}))), std::vector<bool>{true}) << "NaN != 0";
  EXPECT_EQ(bools(NdArray::float_all(f64({1, kNaN, -kInf, 1e-320}, {4}))), std::vector<bool>{true});
  EXPECT_EQ(bools(NdArray::float_all(f64({1, -0.0}, {2}))), std::vector<bool>{false});
  EXPECT_EQ(bools(NdArray::float_any(f64({3}, {}))), std::vector<bool>{true});
}

TEST(NdArrayAnyAll, AlongADim) {
  // [[0, 2, 0], [1, 3, 0]]
  const T a = f64({0, 2, 0, 1, 3, 0}, {2, 3});
  EXPECT_EQ(NdArray::shape(NdArray::float_any_dim(a, 1)), (Shape{2, 1}));
  EXPECT_EQ(bools(NdArray::float_any_dim(a, 1)), (std::vector<bool>{true, true}));
  EXPECT_EQ(bools(NdArray::float_all_dim(a, 1)), (std::vector<bool>{false, false}));
  EXPECT_EQ(NdArray::shape(NdArray::float_all_dim(a, 0)), (Shape{1, 3}));
  EXPECT_EQ(bools(NdArray::float_any_dim(a, 0)), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(bools(NdArray::float_all_dim(a, 0)), (std::vector<bool>{false, true, false}));
  EXPECT_EQ(NdArray::dtype(NdArray::float_all_dim(a, 0)), DType::Bool);
}

TEST(NdArrayAnyAll, EmptyIsFalseForAnyAndTrueForAll) {
  EXPECT_EQ(bools(NdArray::float_any(f32({}, {0}))), std::vector<bool>{false});
  EXPECT_EQ(bools(NdArray::float_all(f32({}, {2, 0}))), std::vector<bool>{true});
  EXPECT_EQ(bools(NdArray::float_any_dim(f32({}, {2, 0}), 1)), (std::vector<bool>{false, false}));
  EXPECT_EQ(bools(NdArray::float_all_dim(f32({}, {2, 0}), 1)), (std::vector<bool>{true, true}));
  EXPECT_EQ(NdArray::shape(NdArray::float_all_dim(f32({}, {2, 0}), 0)), (Shape{1, 0}));
}

TEST(NdArrayAnyAll, Panics) {
  expect_panic([] { NdArray::float_any_dim(f32({1, 2}, {2}), 3); }, PanicId::DimOutOfRange,
               "float_any_dim got dim 3 for a tensor of rank 1.");
  expect_panic([] { NdArray::float_all(i64({1}, {1})); }, PanicId::UnsupportedDtype,
               "DType I64 is not supported by float_all.");
}

TEST(NdArraySoftmax, Values) {
  EXPECT_EQ(vals32(NdArray::softmax(f32({0, 0}, {2}), 0)), (std::vector<float>{0.5f, 0.5f}));
  // Large inputs do not overflow: the max is subtracted first.
  EXPECT_EQ(vals32(NdArray::softmax(f32({1000, 1000}, {2}), 0)), (std::vector<float>{0.5f, 0.5f}));
  // softmax(1, 2, 3) = (e^-2, e^-1, 1) / (e^-2 + e^-1 + 1).
  const std::vector<double> s = vals64(NdArray::softmax(f64({1, 2, 3}, {3}), 0));
  EXPECT_NEAR(s[0], 0.09003057317038046, 1e-15);
  EXPECT_NEAR(s[1], 0.24472847105479764, 1e-15);
  EXPECT_NEAR(s[2], 0.6652409557748219, 1e-15);
  // Along dim 0 of [[0, 1], [0, 3]]: columns (0, 0) and (1, 3).
  const std::vector<double> c = vals64(NdArray::softmax(f64({0, 1, 0, 3}, {2, 2}), 0));
  EXPECT_EQ(c[0], 0.5);
  EXPECT_NEAR(c[1], 0.11920292202211755, 1e-15);  // 1 / (1 + e^2)
  EXPECT_EQ(c[2], 0.5);
  EXPECT_NEAR(c[3], 0.8807970779778823, 1e-15);   // e^2 / (1 + e^2)
  // -inf contributes 0; all -inf gives NaN (x - m = -inf - -inf).
  EXPECT_EQ(vals64(NdArray::softmax(f64({-kInf, 0}, {2}), 0)), (std::vector<double>{0, 1}));
  const std::vector<double> all_ninf = vals64(NdArray::softmax(f64({-kInf, -kInf}, {2}), 0));
  EXPECT_TRUE(std::isnan(all_ninf[0]) && std::isnan(all_ninf[1]));
  // A NaN makes the whole lane NaN, other lanes are untouched.
  const std::vector<float> n = vals32(NdArray::softmax(f32({1, kNaN32, 0, 0}, {2, 2}), 1));
  EXPECT_TRUE(std::isnan(n[0]) && std::isnan(n[1]));
  EXPECT_EQ(n[2], 0.5f);
  EXPECT_EQ(n[3], 0.5f);
  // A zero dim (the softmax dim or another): empty output, no panic.
  EXPECT_EQ(NdArray::shape(NdArray::softmax(f32({}, {2, 0}), 1)), (Shape{2, 0}));
  EXPECT_EQ(NdArray::shape(NdArray::log_softmax(f32({}, {0, 3}), 1)), (Shape{0, 3}));
}

TEST(NdArraySoftmax, LogSoftmaxValues) {
  const std::vector<double> h = vals64(NdArray::log_softmax(f64({0, 0}, {2}), 0));
  EXPECT_EQ(h[0], -std::log(2.0));
  EXPECT_EQ(h[1], -std::log(2.0));
  // (1000, 0): s = 1 + e^-1000 = 1 in F32, so y = (0, -1000) exactly, no overflow.
  EXPECT_EQ(vals32(NdArray::log_softmax(f32({1000, 0}, {2}), 0)), (std::vector<float>{0, -1000}));
  EXPECT_EQ(vals64(NdArray::log_softmax(f64({-kInf, 0}, {2}), 0)), (std::vector<double>{-kInf, 0}));
  // log_softmax(1, 2, 3) = (x - 3) - log(e^-2 + e^-1 + 1).
  const std::vector<double> l = vals64(NdArray::log_softmax(f64({1, 2, 3}, {3}), 0));
  EXPECT_NEAR(l[0], -2.4076059644443806, 1e-15);
  EXPECT_NEAR(l[1], -1.4076059644443804, 1e-15);
  EXPECT_NEAR(l[2], -0.4076059644443804, 1e-15);
}

TEST(NdArraySoftmax, Panics) {
  expect_panic_id([] { NdArray::softmax(f32({1, 2}, {2}), 1); }, PanicId::DimOutOfRange);
  expect_panic_id([] { NdArray::log_softmax(f32({1}, {}), 0); }, PanicId::DimOutOfRange);
  expect_panic_id([] { NdArray::softmax(i64({1}, {1}), 0); }, PanicId::UnsupportedDtype);
}

}  // namespace
}  // namespace crossgrad
