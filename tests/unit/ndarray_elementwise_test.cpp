// NdArray, the reference backend: element-wise ops (binary with broadcasting, unary, abs, clamp,
// comparisons, int_into_float) against values worked out by hand from docs/OPS.md, every panic
// with its exact catalog message, and the operand-dtype checks.
#include "ndarray_test_support.hpp"

#include <cfloat>

namespace crossgrad {
namespace {
using namespace ndarray_test;

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

// ---- sigmoid: docs/OPS.md pins the formula, 1 / (1 + exp(-x)) for x >= 0 and e / (1 + e)
// below 0. The older tests compared with a tolerance, so the branch point could move unseen.
template <class T>
void expect_sigmoid_follows_the_contract(std::vector<T> xs, DType dtype) {
  std::vector<double> wide(xs.begin(), xs.end());
  const NdArray::Tensor t = NdArray::float_cast(f64(wide, Shape{xs.size()}), dtype);
  const TensorData out = NdArray::into_data(NdArray::sigmoid(t));
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const T x = xs[i];
    T want;
    if (x >= T(0)) {
      want = T(1) / (T(1) + std::exp(-x));
    } else {
      const T e = std::exp(x);
      want = e / (T(1) + e);
    }
    const T got = dtype == DType::F32 ? T(out.to_f32()[i]) : T(out.to_f64()[i]);
    EXPECT_EQ(got, want) << "x = " << x;
  }
}

TEST(NdArraySigmoid, EachSideOfZeroUsesItsDocumentedFormulaExactly) {
  std::vector<double> xs64;
  std::vector<float> xs32;
  for (int i = -40; i <= 200; ++i) {
    xs64.push_back(i / 100.0 + 0.003);
    xs32.push_back(static_cast<float>(i / 100.0 + 0.003));
  }
  expect_sigmoid_follows_the_contract<double>(xs64, DType::F64);
  expect_sigmoid_follows_the_contract<float>(xs32, DType::F32);
}

// ---- abs, clamp -------------------------------------------------------------------------------

TEST(NdArrayAbs, Values) {
  const std::vector<float> r = vals32(NdArray::float_abs(
      f32({-1.5f, 2.0f, -0.0f, kNaN32, -std::numeric_limits<float>::infinity()}, {5})));
  EXPECT_EQ(r[0], 1.5f);
  EXPECT_EQ(r[1], 2.0f);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(r[2]), 0u);  // -0 -> +0
  EXPECT_TRUE(std::isnan(r[3]));
  EXPECT_EQ(r[4], std::numeric_limits<float>::infinity());
  const T a = NdArray::float_abs(f64({-3, 4}, {2, 1}));
  EXPECT_EQ(NdArray::shape(a), (Shape{2, 1}));
  EXPECT_EQ(NdArray::dtype(a), DType::F64);
  EXPECT_EQ(vals64(a), (std::vector<double>{3, 4}));
  EXPECT_EQ(NdArray::shape(NdArray::float_abs(f32({}, {0, 3}))), (Shape{0, 3}));
  expect_panic_id([] { NdArray::float_abs(i64({1}, {1})); }, PanicId::UnsupportedDtype);
}

TEST(NdArrayClamp, Values) {
  const std::vector<double> r =
      vals64(NdArray::float_clamp(f64({-2, -0.5, 0.5, 2, kNaN, -kInf, kInf}, {7}), -1, 1));
  EXPECT_EQ(r[0], -1);
  EXPECT_EQ(r[1], -0.5);
  EXPECT_EQ(r[2], 0.5);
  EXPECT_EQ(r[3], 1);
  EXPECT_TRUE(std::isnan(r[4]));
  EXPECT_EQ(r[5], -1);
  EXPECT_EQ(r[6], 1);
  // Bounds are converted to the dtype: 0.1 becomes 0.1f, not a double rounded later.
  EXPECT_EQ(vals32(NdArray::float_clamp(f32({0, 1}, {2}), 0.1, 0.2)),
            (std::vector<float>{0.1f, 0.2f}));
  // min == max is allowed.
  EXPECT_EQ(vals32(NdArray::float_clamp(f32({-5, 5}, {2}), 3, 3)), (std::vector<float>{3, 3}));
  EXPECT_TRUE(vals32(NdArray::float_clamp(f32({}, {0}), 0, 1)).empty());
}

TEST(NdArrayClamp, Panics) {
  const T x = f32({1}, {1});
  expect_panic_id([&] { NdArray::float_clamp(x, 2, 1); }, PanicId::ClampBounds);
  expect_panic_id([&] { NdArray::float_clamp(x, kNaN, 1); }, PanicId::ClampBounds);
  expect_panic_id([&] { NdArray::float_clamp(x, 0, kNaN); }, PanicId::ClampBounds);
  expect_panic_id([] { NdArray::float_clamp(i32({1}, {1}), 0, 1); }, PanicId::UnsupportedDtype);
}

// ---- clamp: `x < min ? min : (x > max ? max : x)` (docs/OPS.md) keeps a value equal to a bound
// as it is, sign of zero included; the older tests never clamped a signed zero at a zero bound.
TEST(NdArrayClamp, AValueEqualToABoundKeepsItsOwnSignOfZero) {
  const std::vector<double> a = NdArray::into_data(NdArray::float_clamp(f64({-0.0}, {1}), 0.0, 1.0)).to_f64();
  ASSERT_EQ(a.size(), 1u);
  EXPECT_TRUE(std::signbit(a[0])) << "clamp(-0, 0, 1) must stay -0";
  const std::vector<double> b = NdArray::into_data(NdArray::float_clamp(f64({0.0}, {1}), -0.0, 1.0)).to_f64();
  ASSERT_EQ(b.size(), 1u);
  EXPECT_FALSE(std::signbit(b[0])) << "clamp(+0, -0, 1) must stay +0";
}

// ---- clamp-bounds prints its bounds so that they read back as the same double; the older tests
// used small integers, which print the same at any precision. 1234567.5 needs 8 digits.
TEST(NdArrayClamp, BoundsInTheMessageKeepAllTheirDigits) {
  EXPECT_PANIC(NdArray::float_clamp(f64({1}, {1}), 1234567.5, 0.0), "clamp-bounds",
               "float_clamp needs min <= max, got min 1234567.5 and max 0.");
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

// ---- greater, lower, equal --------------------------------------------------------------------

TEST(NdArrayCompare, BroadcastAndNaN) {
  // [2,1] {1, NaN} against [3] {0, 1, 2} -> [2,3]; NaN compares false everywhere.
  const T a = f32({1, kNaN32}, {2, 1});
  const T b = f32({0, 1, 2}, {3});
  const T g = NdArray::float_greater(a, b);
  EXPECT_EQ(NdArray::dtype(g), DType::Bool);
  EXPECT_EQ(NdArray::shape(g), (Shape{2, 3}));
  EXPECT_EQ(bools(g), (std::vector<bool>{true, false, false, false, false, false}));
  EXPECT_EQ(bools(NdArray::float_lower(a, b)),
            (std::vector<bool>{false, false, true, false, false, false}));
  EXPECT_EQ(bools(NdArray::float_equal(a, b)),
            (std::vector<bool>{false, true, false, false, false, false}));
}

TEST(NdArrayCompare, SignedZeroAndInfinity) {
  const T a = f64({-0.0, kNaN, kInf, -kInf}, {4});
  const T b = f64({0.0, kNaN, kInf, 1}, {4});
  EXPECT_EQ(bools(NdArray::float_equal(a, b)), (std::vector<bool>{true, false, true, false}));
  EXPECT_EQ(bools(NdArray::float_greater(a, b)), (std::vector<bool>{false, false, false, false}));
  EXPECT_EQ(bools(NdArray::float_lower(a, b)), (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(NdArray::shape(NdArray::float_greater(f32({}, {0, 1}), f32({1, 2}, {2}))), (Shape{0, 2}));
}

TEST(NdArrayCompare, Panics) {
  expect_panic_id([] { NdArray::float_greater(f32({1}, {1}), f64({1}, {1})); }, PanicId::DtypeMismatch);
  expect_panic_id([] { NdArray::float_lower(f32({1, 2}, {2}), f32({1, 2, 3}, {3})); },
                  PanicId::BroadcastMismatch);
  expect_panic_id([] { NdArray::float_equal(i64({1}, {1}), f32({1}, {1})); }, PanicId::UnsupportedDtype);
}

// ---- int_into_float ---------------------------------------------------------------------------

TEST(NdArrayIntIntoFloat, Values) {
  // 2^53 + 1 rounds to 2^53 in F64 (ties to even).
  const T a = NdArray::int_into_float(i64({-3, 0, 7, (std::int64_t{1} << 53) + 1}, {2, 2}), DType::F64);
  EXPECT_EQ(NdArray::dtype(a), DType::F64);
  EXPECT_EQ(NdArray::shape(a), (Shape{2, 2}));
  EXPECT_EQ(vals64(a), (std::vector<double>{-3, 0, 7, 9007199254740992.0}));
  // 2^24 + 1 rounds to 2^24 in F32.
  EXPECT_EQ(vals32(NdArray::int_into_float(i32({16777217, -1}, {2}), DType::F32)),
            (std::vector<float>{16777216.0f, -1}));
  const T i8 = NdArray::from_data(TensorData::from_i8({-128, 127}, {2}), Device::cpu());
  EXPECT_EQ(vals32(NdArray::int_into_float(i8, DType::F32)), (std::vector<float>{-128, 127}));
  const T u8 = NdArray::from_data(TensorData::from_u8({0, 255}, {2}), Device::cpu());
  EXPECT_EQ(vals64(NdArray::int_into_float(u8, DType::F64)), (std::vector<double>{0, 255}));
  EXPECT_EQ(NdArray::shape(NdArray::int_into_float(i64({}, {0, 2}), DType::F32)), (Shape{0, 2}));
}

TEST(NdArrayIntIntoFloat, Panics) {
  expect_panic_id([] { NdArray::int_into_float(f32({1}, {1}), DType::F64); }, PanicId::UnsupportedDtype);
  const T b = NdArray::from_data(TensorData::from_bool({true}, {1}), Device::cpu());
  expect_panic_id([&] { NdArray::int_into_float(b, DType::F32); }, PanicId::UnsupportedDtype);
  expect_panic_id([] { NdArray::int_into_float(i64({1}, {1}), DType::I32); }, PanicId::UnsupportedDtype);
}

// ---- A non-float operand on either side is reported as unsupported-dtype, before any dtype
// mismatch (the older tests put the int operand on the left only).
TEST(NdArrayOperandDtypes, BinaryOpsReportANonFloatRightOperand) {
  EXPECT_PANIC(NdArray::float_add(f32({1}, {1}), i64({1}, {1})), "unsupported-dtype",
               "DType I64 is not supported by float_add.");
  EXPECT_PANIC(NdArray::float_sub(f64({1}, {1}), i64({1}, {1})), "unsupported-dtype",
               "DType I64 is not supported by float_sub.");
  EXPECT_PANIC(NdArray::float_mul(f32({1}, {1}), i64({1}, {1})), "unsupported-dtype",
               "DType I64 is not supported by float_mul.");
  EXPECT_PANIC(NdArray::float_div(f64({1}, {1}), i64({1}, {1})), "unsupported-dtype",
               "DType I64 is not supported by float_div.");
}

TEST(NdArrayOperandDtypes, MatmulReportsANonFloatOperandOnEitherSide) {
  EXPECT_PANIC(NdArray::float_matmul(i64({1, 2, 3, 4}, {2, 2}), f32({1, 2, 3, 4}, {2, 2})),
               "unsupported-dtype", "DType I64 is not supported by float_matmul.");
  EXPECT_PANIC(NdArray::float_matmul(f32({1, 2, 3, 4}, {2, 2}), i64({1, 2, 3, 4}, {2, 2})),
               "unsupported-dtype", "DType I64 is not supported by float_matmul.");
}

// The older tests checked a non-float target dtype only; a non-float source is refused too.
TEST(NdArrayOperandDtypes, CastReportsANonFloatSourceTensor) {
  EXPECT_PANIC(NdArray::float_cast(i64({1, 2}, {2}), DType::F32), "unsupported-dtype",
               "DType I64 is not supported by float_cast.");
  EXPECT_PANIC(NdArray::float_cast(i64({1, 2}, {2}), DType::F64), "unsupported-dtype",
               "DType I64 is not supported by float_cast.");
}

}  // namespace
}  // namespace crossgrad
