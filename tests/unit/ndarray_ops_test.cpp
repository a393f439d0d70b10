// NdArray, the reference backend: every op against values worked out by hand, plus every shape
// and dtype panic with its exact catalog message.
#include <crossgrad/backends/ndarray.hpp>
#include <crossgrad/core/panic.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace {

using crossgrad::Device;
using crossgrad::DType;
using crossgrad::Panic;
using crossgrad::PanicId;
using crossgrad::Shape;
using crossgrad::TensorData;
using crossgrad::backends::NdArray;
using T = NdArray::Tensor;

T f32(std::vector<float> v, Shape s) {
  return NdArray::from_data(TensorData::from_f32(std::move(v), std::move(s)), Device::cpu());
}
T f64(std::vector<double> v, Shape s) {
  return NdArray::from_data(TensorData::from_f64(std::move(v), std::move(s)), Device::cpu());
}
std::vector<float> vals32(const T& t) { return NdArray::into_data(t).to_f32(); }
std::vector<double> vals64(const T& t) { return NdArray::into_data(t).to_f64(); }

// Runs fn, which must panic with exactly this id and message.
void expect_panic(const std::function<void()>& fn, PanicId id, const std::string& message) {
  try {
    fn();
  } catch (const Panic& p) {
    EXPECT_EQ(p.id(), id) << p.message();
    EXPECT_EQ(p.message(), message);
    return;
  }
  ADD_FAILURE() << "expected a panic: " << message;
}

// ---- data -------------------------------------------------------------------------------------

TEST(NdArrayData, FromDataCopies) {
  const TensorData d = TensorData::from_f32({1, 2}, {2});
  const T a = NdArray::from_data(d, Device::cpu());
  const T b = NdArray::from_data(d, Device::cpu());
  EXPECT_NE(a.buffer.data(), b.buffer.data());
}

TEST(NdArrayData, FromDataOnCudaPanics) {
  expect_panic([] { NdArray::from_data(TensorData::from_f32({1}, {1}), Device::cuda(0)); },
               PanicId::DeviceUnavailable,
               "Device Cuda(0) of backend NdArray is not available: NdArray runs on the CPU only.");
}

TEST(NdArrayData, FullFills) {
  EXPECT_EQ(vals32(NdArray::float_full({2, 2}, 2.5, DType::F32, Device::cpu())),
            (std::vector<float>{2.5f, 2.5f, 2.5f, 2.5f}));
  const T s = NdArray::float_full({}, -1.0, DType::F64, Device::cpu());
  EXPECT_EQ(NdArray::shape(s), Shape{});
  EXPECT_EQ(vals64(s), std::vector<double>{-1.0});
  EXPECT_TRUE(vals32(NdArray::float_full({3, 0}, 1.0, DType::F32, Device::cpu())).empty());
  // 0.1 is rounded to float once, not computed in double and then rounded differently.
  EXPECT_EQ(vals32(NdArray::float_full({1}, 0.1, DType::F32, Device::cpu()))[0], 0.1f);
}

TEST(NdArrayData, FullPanics) {
  expect_panic([] { NdArray::float_full({1}, 0, DType::I64, Device::cpu()); },
               PanicId::UnsupportedDtype, "DType I64 is not supported by float_full.");
  expect_panic([] { NdArray::float_full({1}, 0, DType::F32, Device::cuda(1)); },
               PanicId::DeviceUnavailable,
               "Device Cuda(1) of backend NdArray is not available: NdArray runs on the CPU only.");
}

// ---- binary element-wise ----------------------------------------------------------------------

TEST(NdArrayBinary, SameShape) {
  const T a = f32({1, 2, 3, 4}, {2, 2});
  const T b = f32({10, 20, 30, 40}, {2, 2});
  EXPECT_EQ(vals32(NdArray::float_add(a, b)), (std::vector<float>{11, 22, 33, 44}));
  EXPECT_EQ(vals32(NdArray::float_sub(a, b)), (std::vector<float>{-9, -18, -27, -36}));
  EXPECT_EQ(vals32(NdArray::float_mul(a, b)), (std::vector<float>{10, 40, 90, 160}));
  EXPECT_EQ(vals32(NdArray::float_div(b, a)), (std::vector<float>{10, 10, 10, 10}));
  EXPECT_EQ(NdArray::shape(NdArray::float_add(a, b)), (Shape{2, 2}));
}

TEST(NdArrayBinary, BroadcastRowVector) {
  // [2,3] + [3]: the row is added to each row.
  const T a = f64({1, 2, 3, 4, 5, 6}, {2, 3});
  const T b = f64({10, 20, 30}, {3});
  const T c = NdArray::float_add(a, b);
  EXPECT_EQ(NdArray::shape(c), (Shape{2, 3}));
  EXPECT_EQ(vals64(c), (std::vector<double>{11, 22, 33, 14, 25, 36}));
  // And on the left: [3] - [2,3].
  EXPECT_EQ(vals64(NdArray::float_sub(b, a)), (std::vector<double>{9, 18, 27, 6, 15, 24}));
}

TEST(NdArrayBinary, BroadcastOuter) {
  // [2,1] * [1,3] is the outer product, shape [2,3].
  const T col = f32({2, 3}, {2, 1});
  const T row = f32({1, 10, 100}, {1, 3});
  const T c = NdArray::float_mul(col, row);
  EXPECT_EQ(NdArray::shape(c), (Shape{2, 3}));
  EXPECT_EQ(vals32(c), (std::vector<float>{2, 20, 200, 3, 30, 300}));
}

TEST(NdArrayBinary, BroadcastScalar) {
  const T s = f32({2}, {});
  const T a = f32({1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(vals32(NdArray::float_div(a, s)), (std::vector<float>{0.5f, 1, 1.5f, 2}));
  EXPECT_EQ(vals32(NdArray::float_sub(s, a)), (std::vector<float>{1, 0, -1, -2}));
  const T ss = NdArray::float_add(s, s);
  EXPECT_EQ(NdArray::shape(ss), Shape{});
  EXPECT_EQ(vals32(ss), std::vector<float>{4});
}

TEST(NdArrayBinary, BroadcastRank3Middle) {
  // [2,1,2] + [3,1] -> [2,3,2]: out[i,j,k] = a[i,0,k] + b[j,0].
  const T a = f32({1, 2, 3, 4}, {2, 1, 2});
  const T b = f32({10, 20, 30}, {3, 1});
  const T c = NdArray::float_add(a, b);
  EXPECT_EQ(NdArray::shape(c), (Shape{2, 3, 2}));
  EXPECT_EQ(vals32(c), (std::vector<float>{11, 12, 21, 22, 31, 32, 13, 14, 23, 24, 33, 34}));
}

TEST(NdArrayBinary, ZeroSize) {
  const T a = f32({}, {0, 3});
  const T b = f32({1, 2, 3}, {3});
  const T c = NdArray::float_add(a, b);
  EXPECT_EQ(NdArray::shape(c), (Shape{0, 3}));
  EXPECT_TRUE(vals32(c).empty());
  // [2,1] with [0]: the 1 broadcasts to 0.
  EXPECT_EQ(NdArray::shape(NdArray::float_mul(f32({1, 2}, {2, 1}), f32({}, {0}))), (Shape{2, 0}));
}

TEST(NdArrayBinary, IeeeSpecialValues) {
  const T a = f64({1, -1, 0}, {3});
  const T z = f64({0}, {1});
  const std::vector<double> q = vals64(NdArray::float_div(a, z));
  EXPECT_EQ(q[0], std::numeric_limits<double>::infinity());
  EXPECT_EQ(q[1], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(q[2]));
}

TEST(NdArrayBinary, Panics) {
  expect_panic([] { NdArray::float_add(f32({1, 2, 3, 4, 5, 6}, {2, 3}), f32(std::vector<float>(12), {4, 3})); },
               PanicId::BroadcastMismatch, "float_add cannot broadcast shapes [2, 3] and [4, 3].");
  expect_panic([] { NdArray::float_div(f32({1, 2}, {2}), f32({1, 2, 3}, {3})); },
               PanicId::BroadcastMismatch, "float_div cannot broadcast shapes [2] and [3].");
  expect_panic([] { NdArray::float_mul(f32({1}, {1}), f64({1}, {1})); }, PanicId::DtypeMismatch,
               "float_mul needs operands of one dtype, got F32 and F64.");
  expect_panic(
      [] {
        NdArray::float_sub(NdArray::from_data(TensorData::from_i64({1}, {1}), Device::cpu()),
                           f32({1}, {1}));
      },
      PanicId::UnsupportedDtype, "DType I64 is not supported by float_sub.");
}

// ---- unary ------------------------------------------------------------------------------------

TEST(NdArrayUnary, Values) {
  const T a = f64({0, 1, 4}, {3});
  EXPECT_EQ(vals64(NdArray::float_neg(a)), (std::vector<double>{-0.0, -1, -4}));
  EXPECT_TRUE(std::signbit(vals64(NdArray::float_neg(a))[0]));
  EXPECT_EQ(vals64(NdArray::float_sqrt(a)), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(vals64(NdArray::float_exp(f64({0}, {1}))), std::vector<double>{1});
  EXPECT_DOUBLE_EQ(vals64(NdArray::float_exp(f64({1}, {1})))[0], 2.718281828459045);
  EXPECT_EQ(vals64(NdArray::float_log(f64({1}, {1}))), std::vector<double>{0});
  EXPECT_DOUBLE_EQ(vals64(NdArray::float_log(f64({2.718281828459045}, {1})))[0], 1.0);
  EXPECT_EQ(vals64(NdArray::float_log(f64({0}, {1})))[0], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(vals64(NdArray::float_sqrt(f64({-1}, {1})))[0]));
  const std::vector<double> th = vals64(NdArray::float_tanh(f64({0, 1000, -1000}, {3})));
  EXPECT_EQ(th, (std::vector<double>{0, 1, -1}));
  // tanh(0.5) = (e - 1) / (e + 1) with e = exp(1).
  EXPECT_NEAR(vals64(NdArray::float_tanh(f64({0.5}, {1})))[0], 0.46211715726000974, 1e-15);
}

TEST(NdArrayUnary, ComputesInTheTensorDtype) {
  // In float, exp(1) is the float nearest e (within one float ulp), not e rounded to float
  // after a double computation; both are 2.7182817f here.
  EXPECT_FLOAT_EQ(vals32(NdArray::float_exp(f32({1}, {1})))[0], 2.7182817f);
  EXPECT_EQ(NdArray::dtype(NdArray::float_exp(f32({1}, {1}))), DType::F32);
  EXPECT_EQ(NdArray::dtype(NdArray::sigmoid(f64({1}, {1}))), DType::F64);
}

TEST(NdArrayUnary, Relu) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> r = vals64(NdArray::relu(f64({-2, -0.0, 0, 3, nan}, {5})));
  EXPECT_EQ(r[0], 0);
  EXPECT_EQ(r[1], 0);
  EXPECT_FALSE(std::signbit(r[1]));  // -0.0 -> +0.0
  EXPECT_EQ(r[2], 0);
  EXPECT_EQ(r[3], 3);
  EXPECT_TRUE(std::isnan(r[4]));
  EXPECT_EQ(vals32(NdArray::relu(f32({-1, 2}, {1, 2}))), (std::vector<float>{0, 2}));
}

TEST(NdArrayUnary, Sigmoid) {
  const std::vector<double> s = vals64(NdArray::sigmoid(f64({0, 1000, -1000}, {3})));
  EXPECT_EQ(s, (std::vector<double>{0.5, 1, 0}));
  // 1 / (1 + e^-1) = e / (e + 1).
  EXPECT_NEAR(vals64(NdArray::sigmoid(f64({1}, {1})))[0], 0.7310585786300049, 1e-15);
}

TEST(NdArrayUnary, ScalarAndZeroSize) {
  const T s = f32({4}, {});
  EXPECT_EQ(NdArray::shape(NdArray::float_sqrt(s)), Shape{});
  EXPECT_EQ(vals32(NdArray::float_sqrt(s)), std::vector<float>{2});
  EXPECT_TRUE(vals32(NdArray::float_exp(f32({}, {2, 0}))).empty());
  EXPECT_EQ(NdArray::shape(NdArray::float_exp(f32({}, {2, 0}))), (Shape{2, 0}));
}

TEST(NdArrayUnary, WithScalar) {
  const T a = f32({1, 2, 3}, {3});
  EXPECT_EQ(vals32(NdArray::float_powf_scalar(a, 2)), (std::vector<float>{1, 4, 9}));
  EXPECT_EQ(vals32(NdArray::float_powf_scalar(f32({4, 9}, {2}), 0.5)), (std::vector<float>{2, 3}));
  EXPECT_EQ(vals32(NdArray::float_powf_scalar(a, 0)), (std::vector<float>{1, 1, 1}));
  EXPECT_EQ(vals32(NdArray::float_add_scalar(a, -1.5)), (std::vector<float>{-0.5f, 0.5f, 1.5f}));
  EXPECT_EQ(vals32(NdArray::float_mul_scalar(a, -2)), (std::vector<float>{-2, -4, -6}));
  // The scalar is cast to the tensor dtype first: 0.1 becomes 0.1f before the add.
  EXPECT_EQ(vals32(NdArray::float_add_scalar(f32({0}, {1}), 0.1))[0], 0.1f);
  EXPECT_EQ(vals64(NdArray::float_mul_scalar(f64({3}, {}), 0.5)), std::vector<double>{1.5});
}

TEST(NdArrayUnary, Panics) {
  const T b = NdArray::from_data(TensorData::from_bool({true}, {1}), Device::cpu());
  const T i = NdArray::from_data(TensorData::from_i64({1}, {1}), Device::cpu());
  expect_panic([&] { NdArray::float_exp(i); }, PanicId::UnsupportedDtype,
               "DType I64 is not supported by float_exp.");
  expect_panic([&] { NdArray::relu(b); }, PanicId::UnsupportedDtype,
               "DType Bool is not supported by relu.");
  expect_panic([&] { NdArray::float_powf_scalar(i, 2); }, PanicId::UnsupportedDtype,
               "DType I64 is not supported by float_powf_scalar.");
}

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

// ---- layout -----------------------------------------------------------------------------------

TEST(NdArrayLayout, Reshape) {
  const T a = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  const T r = NdArray::float_reshape(a, {3, 2});
  EXPECT_EQ(NdArray::shape(r), (Shape{3, 2}));
  EXPECT_EQ(vals32(r), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(NdArray::shape(NdArray::float_reshape(f32({5}, {}), {1, 1})), (Shape{1, 1}));
  EXPECT_EQ(NdArray::shape(NdArray::float_reshape(f32({5}, {1, 1}), {})), Shape{});
  EXPECT_EQ(NdArray::shape(NdArray::float_reshape(f32({}, {0, 3}), {3, 0, 7})), (Shape{3, 0, 7}));
  // The original keeps its shape.
  EXPECT_EQ(NdArray::shape(a), (Shape{2, 3}));
  expect_panic([&] { NdArray::float_reshape(a, {4}); }, PanicId::ReshapeMismatch,
               "float_reshape cannot turn shape [2, 3] into [4]: element counts differ.");
}

TEST(NdArrayLayout, SwapDims) {
  // Transpose of [[1,2,3],[4,5,6]].
  const T a = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  const T t = NdArray::float_swap_dims(a, 0, 1);
  EXPECT_EQ(NdArray::shape(t), (Shape{3, 2}));
  EXPECT_EQ(vals32(t), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(vals32(NdArray::float_swap_dims(a, 1, 1)), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  // [2,2,3] swap 0 and 2 -> [3,2,2]: out[k,j,i] = a[i,j,k], a[i,j,k] = 6i + 3j + k + 1.
  const T b = f64({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {2, 2, 3});
  const T s = NdArray::float_swap_dims(b, 2, 0);
  EXPECT_EQ(NdArray::shape(s), (Shape{3, 2, 2}));
  EXPECT_EQ(vals64(s), (std::vector<double>{1, 7, 4, 10, 2, 8, 5, 11, 3, 9, 6, 12}));
  EXPECT_EQ(NdArray::shape(NdArray::float_swap_dims(f32({}, {0, 4}), 0, 1)), (Shape{4, 0}));
  expect_panic([&] { NdArray::float_swap_dims(a, 0, 5); }, PanicId::DimOutOfRange,
               "float_swap_dims got dim 5 for a tensor of rank 2.");
  expect_panic([&] { NdArray::float_swap_dims(a, 2, 0); }, PanicId::DimOutOfRange,
               "float_swap_dims got dim 2 for a tensor of rank 2.");
}

TEST(NdArrayLayout, ToDevice) {
  const T a = f32({1, 2}, {2});
  const T b = NdArray::float_to_device(a, Device::cpu());
  EXPECT_EQ(NdArray::into_data(b), NdArray::into_data(a));
  EXPECT_EQ(NdArray::device(b), Device::cpu());
  expect_panic([&] { NdArray::float_to_device(a, Device::cuda(0)); }, PanicId::DeviceUnavailable,
               "Device Cuda(0) of backend NdArray is not available: NdArray runs on the CPU only.");
}

TEST(NdArrayLayout, Cast) {
  const T a = f64({1.5, 0.1, 1e300}, {3});
  const T c = NdArray::float_cast(a, DType::F32);
  EXPECT_EQ(NdArray::dtype(c), DType::F32);
  EXPECT_EQ(NdArray::shape(c), (Shape{3}));
  const std::vector<float> v = vals32(c);
  EXPECT_EQ(v[0], 1.5f);
  EXPECT_EQ(v[1], 0.1f);
  EXPECT_EQ(v[2], std::numeric_limits<float>::infinity());
  const T back = NdArray::float_cast(f32({0.1f}, {}), DType::F64);
  EXPECT_EQ(NdArray::dtype(back), DType::F64);
  EXPECT_EQ(vals64(back), std::vector<double>{static_cast<double>(0.1f)});
  EXPECT_EQ(NdArray::into_data(NdArray::float_cast(a, DType::F64)), NdArray::into_data(a));
  expect_panic([&] { NdArray::float_cast(a, DType::I32); }, PanicId::UnsupportedDtype,
               "DType I32 is not supported by float_cast.");
  expect_panic([&] { NdArray::float_cast(a, DType::F16); }, PanicId::UnsupportedDtype,
               "DType F16 is not supported by float_cast.");
}

// ---- compare / bool ---------------------------------------------------------------------------

TEST(NdArrayCompare, GreaterScalarAndBack) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const T a = f64({-1, 0, 0.5, 2, nan}, {5});
  const T g = NdArray::float_greater_scalar(a, 0);
  EXPECT_EQ(NdArray::dtype(g), DType::Bool);
  EXPECT_EQ(NdArray::into_data(g).to_bool(), (std::vector<bool>{false, false, true, true, false}));
  const T f = NdArray::bool_into_float(g, DType::F32);
  EXPECT_EQ(NdArray::dtype(f), DType::F32);
  EXPECT_EQ(vals32(f), (std::vector<float>{0, 0, 1, 1, 0}));
  EXPECT_EQ(vals64(NdArray::bool_into_float(g, DType::F64)), (std::vector<double>{0, 0, 1, 1, 0}));
  EXPECT_EQ(NdArray::shape(NdArray::float_greater_scalar(f32({1}, {}), 0.5)), Shape{});
  expect_panic([&] { NdArray::bool_into_float(a, DType::F32); }, PanicId::UnsupportedDtype,
               "DType F64 is not supported by bool_into_float.");
  expect_panic([&] { NdArray::bool_into_float(g, DType::I64); }, PanicId::UnsupportedDtype,
               "DType I64 is not supported by bool_into_float.");
}

// ---- quantization -----------------------------------------------------------------------------

TEST(NdArrayQuantize, RoundTrip) {
  // max|x| = 127, so scale = 1 and q = round(x).
  const T a = f32({127, -63.5f, 0.4f, 2}, {2, 2});
  const NdArray::Quantized q = NdArray::quantize(a);
  EXPECT_EQ(q.scale, 1.0f);
  EXPECT_EQ(NdArray::dtype(q.values), DType::QInt8);
  EXPECT_EQ(NdArray::shape(q.values), (Shape{2, 2}));
  const std::int8_t* v = q.values.data<std::int8_t>();
  EXPECT_EQ((std::vector<int>{v[0], v[1], v[2], v[3]}), (std::vector<int>{127, -64, 0, 2}));
  const T d = NdArray::dequantize(q);
  EXPECT_EQ(NdArray::dtype(d), DType::F32);
  EXPECT_EQ(vals32(d), (std::vector<float>{127, -64, 0, 2}));
}

TEST(NdArrayQuantize, ScaleAndZeros) {
  // max|x| = 254 -> scale 2; 3 / 2 = 1.5 rounds away from zero to 2 -> dequantized 4.
  const NdArray::Quantized q = NdArray::quantize(f64({-254, 3}, {2}));
  EXPECT_EQ(q.scale, 2.0f);
  EXPECT_EQ(vals32(NdArray::dequantize(q)), (std::vector<float>{-254, 4}));
  const NdArray::Quantized z = NdArray::quantize(f32({0, 0}, {2}));
  EXPECT_EQ(z.scale, 1.0f);
  EXPECT_EQ(vals32(NdArray::dequantize(z)), (std::vector<float>{0, 0}));
  const NdArray::Quantized e = NdArray::quantize(f32({}, {0}));
  EXPECT_EQ(NdArray::shape(NdArray::dequantize(e)), (Shape{0}));
}

TEST(NdArrayQuantize, Panics) {
  expect_panic([] { NdArray::quantize(f32({1, std::numeric_limits<float>::infinity()}, {2})); },
               PanicId::QuantizeNonFinite, "quantize needs finite values, got inf.");
  expect_panic([] { NdArray::quantize(NdArray::from_data(TensorData::from_i64({1}, {1}), Device::cpu())); },
               PanicId::UnsupportedDtype, "DType I64 is not supported by quantize.");
}

TEST(NdArrayData, FromDataRejectsQuantizedStorage) {
  // QInt8 data has no scale, so it cannot become a tensor directly.
  const std::byte one{1};
  expect_panic(
      [&] {
        NdArray::from_data(TensorData::from_bytes(std::span<const std::byte>(&one, 1), {1}, DType::QInt8),
                           Device::cpu());
      },
      PanicId::UnsupportedDtype, "DType QInt8 is not supported by NdArray::from_data.");
}

}  // namespace
