// The integer rules of docs/OPS.md "Integer arithmetic", one test per rule, on every backend, plain
// and on an autodiff device, for every int dtype the rule concerns; expected values are worked out
// here from the rule (two's complement at the dtype's ends, truncation, floor modulo, shifts), not
// by the engine. And the bool ops' truth tables, the comparisons and the casts.
#include "test_support.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class IntArithmetic : public OnEachBackend<B> {};
TYPED_TEST_SUITE(IntArithmetic, AllBackendTypes, BackendTestName);

constexpr std::int64_t kI64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();

DispatchTensor ints_on(const DispatchDevice& device, const std::vector<std::int64_t>& v, DType dtype) {
  const Shape shape{v.size()};
  if (dtype == DType::I64) return Dispatch::int_from_data(TensorData::from_i64(v, shape), device);
  if (dtype == DType::I32) return Dispatch::int_from_data(TensorData::from_i32(std::vector<std::int32_t>(v.begin(), v.end()), shape), device);
  if (dtype == DType::I8) return Dispatch::int_from_data(TensorData::from_i8(std::vector<std::int8_t>(v.begin(), v.end()), shape), device);
  return Dispatch::int_from_data(TensorData::from_u8(std::vector<std::uint8_t>(v.begin(), v.end()), shape), device);
}

std::vector<std::int64_t> ints_of(const DispatchTensor& t, DType want) {
  const TensorData d = Dispatch::int_into_data(t);
  EXPECT_EQ(d.dtype(), want);
  return d.to_i64();
}

std::vector<DispatchDevice> devices_of(const DispatchDevice& plain) { return {plain, DispatchDevice::Autodiff(plain)}; }

TYPED_TEST(IntArithmetic, AddSubMulNegAbsWrapAtTheDtypesEnds) {
  for (const DispatchDevice& d : devices_of(plain_device<TypeParam>())) {
    const DispatchTensor a = ints_on(d, {kI64Max, kI64Min, kI64Min, 3}, DType::I64);
    const DispatchTensor b = ints_on(d, {1, -1, 2, 4}, DType::I64);
    EXPECT_EQ(ints_of(Dispatch::int_add(a, b), DType::I64), (std::vector<std::int64_t>{kI64Min, kI64Max, kI64Min + 2, 7}));
    EXPECT_EQ(ints_of(Dispatch::int_sub(a, b), DType::I64), (std::vector<std::int64_t>{kI64Max - 1, kI64Min + 1, kI64Max - 1, -1}));
    // MAX * 1, MIN * -1 = MIN, MIN * 2 = 0 (2^64 mod 2^64), 12.
    EXPECT_EQ(ints_of(Dispatch::int_mul(a, b), DType::I64), (std::vector<std::int64_t>{kI64Max, kI64Min, 0, 12}));
    EXPECT_EQ(ints_of(Dispatch::int_neg(a), DType::I64), (std::vector<std::int64_t>{-kI64Max, kI64Min, kI64Min, -3}));
    EXPECT_EQ(ints_of(Dispatch::int_abs(a), DType::I64), (std::vector<std::int64_t>{kI64Max, kI64Min, kI64Min, 3}));

    const DispatchTensor i8 = ints_on(d, {127, -128, 100, -7}, DType::I8);
    EXPECT_EQ(ints_of(Dispatch::int_add(i8, i8), DType::I8), (std::vector<std::int64_t>{-2, 0, -56, -14}));
    EXPECT_EQ(ints_of(Dispatch::int_mul(i8, i8), DType::I8), (std::vector<std::int64_t>{1, 0, 16, 49}));  // 10000 mod 256 = 16
    EXPECT_EQ(ints_of(Dispatch::int_neg(i8), DType::I8), (std::vector<std::int64_t>{-127, -128, -100, 7}));

    const DispatchTensor u8 = ints_on(d, {0, 1, 255, 16}, DType::U8);
    EXPECT_EQ(ints_of(Dispatch::int_sub(u8, ints_on(d, {1, 2, 0, 17}, DType::U8)), DType::U8), (std::vector<std::int64_t>{255, 255, 255, 255}));
    EXPECT_EQ(ints_of(Dispatch::int_mul(u8, u8), DType::U8), (std::vector<std::int64_t>{0, 1, 1, 0}));  // 255^2 = 65025 = 254*256 + 1
    EXPECT_EQ(ints_of(Dispatch::int_neg(u8), DType::U8), (std::vector<std::int64_t>{0, 255, 1, 240}));
    EXPECT_EQ(ints_of(Dispatch::int_abs(u8), DType::U8), (std::vector<std::int64_t>{0, 1, 255, 16}));

    const DispatchTensor i32 = ints_on(d, {2147483647, -2147483648LL, 65536, -5}, DType::I32);
    EXPECT_EQ(ints_of(Dispatch::int_mul(i32, i32), DType::I32), (std::vector<std::int64_t>{1, 0, 0, 25}));  // 2^32 mod 2^32 = 0
  }
}

TYPED_TEST(IntArithmetic, DivTruncatesTowardZeroAndMinByMinusOneWraps) {
  for (const DispatchDevice& d : devices_of(plain_device<TypeParam>())) {
    for (const DType dt : {DType::I64, DType::I32, DType::I8}) {
      const std::int64_t lo = dt == DType::I64 ? kI64Min : dt == DType::I32 ? -2147483648LL : -128;
      const DispatchTensor a = ints_on(d, {7, -7, 7, -7, lo, lo, 0}, dt);
      const DispatchTensor b = ints_on(d, {2, 2, -2, -2, -1, 1, -3}, dt);
      EXPECT_EQ(ints_of(Dispatch::int_div(a, b), dt), (std::vector<std::int64_t>{3, -3, -3, 3, lo, lo, 0}));
    }
    EXPECT_EQ(ints_of(Dispatch::int_div(ints_on(d, {255, 7}, DType::U8), ints_on(d, {2, 255}, DType::U8)), DType::U8),
              (std::vector<std::int64_t>{127, 0}));
  }
}

TYPED_TEST(IntArithmetic, RemainderTakesTheDivisorsSign) {
  for (const DispatchDevice& d : devices_of(plain_device<TypeParam>())) {
    for (const DType dt : {DType::I64, DType::I32, DType::I8}) {
      const std::int64_t lo = dt == DType::I64 ? kI64Min : dt == DType::I32 ? -2147483648LL : -128;
      const DispatchTensor a = ints_on(d, {7, -7, 7, -7, 6, -6, lo, lo}, dt);
      const DispatchTensor b = ints_on(d, {2, 2, -2, -2, 3, -3, -1, 3}, dt);
      // lo rem 3: -2^63 = 3 * (-3074457345618258603) + 1, -2^31 = 3 * (-715827883) + 1, -128 = 3 * (-43) + 1.
      EXPECT_EQ(ints_of(Dispatch::int_remainder(a, b), dt), (std::vector<std::int64_t>{1, 1, -1, -1, 0, 0, 0, 1}));
    }
  }
}

TYPED_TEST(IntArithmetic, ADivisorElementOfZeroPanics) {
  const DispatchDevice d = plain_device<TypeParam>();
  const DispatchTensor a = ints_on(d, {1, 2, 3}, DType::I32);
  const DispatchTensor b = ints_on(d, {1, 0, 3}, DType::I32);
  EXPECT_PANIC(Dispatch::int_div(a, b), "int-division-by-zero", "int_div divides by zero.");
  EXPECT_PANIC(Dispatch::int_remainder(a, b), "int-division-by-zero", "int_remainder divides by zero.");
  // At the first and the last element, and in a broadcast row.
  EXPECT_PANIC(Dispatch::int_div(a, ints_on(d, {0, 1, 1}, DType::I32)), "int-division-by-zero", "int_div divides by zero.");
  EXPECT_PANIC(Dispatch::int_div(a, ints_on(d, {1, 1, 0}, DType::I32)), "int-division-by-zero", "int_div divides by zero.");
  EXPECT_PANIC(Dispatch::int_remainder(Dispatch::int_from_data(TensorData::from_i32({1, 2, 3, 4, 5, 6}, Shape{2, 3}), d),
                                       ints_on(d, {0, 2, 3}, DType::I32)),
               "int-division-by-zero", "int_remainder divides by zero.");
  // An empty result divides nothing: the zero divisor is never used.
  const DispatchTensor empty = Dispatch::int_from_data(TensorData::from_i32({}, Shape{0, 3}), d);
  EXPECT_EQ(Dispatch::int_into_data(Dispatch::int_div(empty, b)).shape(), (Shape{0, 3}));
}

TYPED_TEST(IntArithmetic, ScalarsBecomeElementsOfTheDtype) {
  for (const DispatchDevice& d : devices_of(plain_device<TypeParam>())) {
    const DispatchTensor u8 = ints_on(d, {0, 10, 250}, DType::U8);
    // 300 -> 44, -1 -> 255 (so + -1 subtracts one), 2.9 -> 2 (toward zero), 1e30 -> I64 MAX -> 255.
    EXPECT_EQ(ints_of(Dispatch::int_add_scalar(u8, 300), DType::U8), (std::vector<std::int64_t>{44, 54, 38}));
    EXPECT_EQ(ints_of(Dispatch::int_add_scalar(u8, -1), DType::U8), (std::vector<std::int64_t>{255, 9, 249}));
    EXPECT_EQ(ints_of(Dispatch::int_mul_scalar(u8, 2.9), DType::U8), (std::vector<std::int64_t>{0, 20, 244}));
    EXPECT_EQ(ints_of(Dispatch::int_sub_scalar(u8, 1e30), DType::U8), (std::vector<std::int64_t>{1, 11, 251}));
    const DispatchTensor i64 = ints_on(d, {kI64Max, -9, 9}, DType::I64);
    // -inf -> I64 MIN; NaN -> 0.
    EXPECT_EQ(ints_of(Dispatch::int_add_scalar(i64, -INFINITY), DType::I64), (std::vector<std::int64_t>{-1, kI64Max - 8, kI64Min + 9}));
    EXPECT_EQ(ints_of(Dispatch::int_add_scalar(i64, NAN), DType::I64), (std::vector<std::int64_t>{kI64Max, -9, 9}));
    EXPECT_EQ(ints_of(Dispatch::int_div_scalar(i64, -2.5), DType::I64), (std::vector<std::int64_t>{-(kI64Max / 2), 4, -4}));
    EXPECT_EQ(ints_of(Dispatch::int_remainder_scalar(i64, -4), DType::I64), (std::vector<std::int64_t>{-1, -1, -3}));
  }
}

TYPED_TEST(IntArithmetic, AScalarDivisorOfZeroPanicsEvenOnAnEmptyTensor) {
  const DispatchDevice d = plain_device<TypeParam>();
  const DispatchTensor u8 = ints_on(d, {1, 2}, DType::U8);
  EXPECT_PANIC(Dispatch::int_div_scalar(u8, 0.5), "int-division-by-zero", "int_div_scalar divides by zero.");
  EXPECT_PANIC(Dispatch::int_remainder_scalar(u8, 256), "int-division-by-zero", "int_remainder_scalar divides by zero.");
  const DispatchTensor empty = Dispatch::int_from_data(TensorData::from_i64({}, Shape{0}), d);
  EXPECT_PANIC(Dispatch::int_div_scalar(empty, NAN), "int-division-by-zero", "int_div_scalar divides by zero.");
}

TYPED_TEST(IntArithmetic, SignIsMinusOneZeroOrOne) {
  const DispatchDevice d = plain_device<TypeParam>();
  EXPECT_EQ(ints_of(Dispatch::int_sign(ints_on(d, {kI64Min, -1, 0, 5}, DType::I64)), DType::I64), (std::vector<std::int64_t>{-1, -1, 0, 1}));
  EXPECT_EQ(ints_of(Dispatch::int_sign(ints_on(d, {0, 200}, DType::U8)), DType::U8), (std::vector<std::int64_t>{0, 1}));
}

TYPED_TEST(IntArithmetic, OperandsMustBeIntsOfOneDtypeAndBroadcast) {
  const DispatchDevice d = plain_device<TypeParam>();
  const DispatchTensor i32 = ints_on(d, {1, 2, 3}, DType::I32);
  EXPECT_PANIC(Dispatch::int_add(i32, ints_on(d, {1, 2, 3}, DType::I64)), "dtype-mismatch",
               "int_add needs operands of one dtype, got I32 and I64.");
  EXPECT_PANIC(Dispatch::int_add(i32, ints_on(d, {1, 2}, DType::I32)), "broadcast-mismatch",
               "int_add cannot broadcast shapes [3] and [2].");
  const DispatchTensor f = tensor_on(d, {1.0}, DType::F32, {1});
  EXPECT_PANIC(Dispatch::int_neg(f), "op-kind-mismatch", "int_neg needs a tensor of kind Int, got " + debug(f.kind) + ".");
  // [2, 1] against [3]: a [2, 3] result.
  const DispatchTensor col = Dispatch::int_from_data(TensorData::from_i32({10, 20}, Shape{2, 1}), d);
  EXPECT_EQ(ints_of(Dispatch::int_sub(col, i32), DType::I32), (std::vector<std::int64_t>{9, 8, 7, 19, 18, 17}));
}

TYPED_TEST(IntArithmetic, BoolOpsFollowTheirTruthTables) {
  for (const DispatchDevice& d : devices_of(plain_device<TypeParam>())) {
    const DispatchTensor a = Dispatch::bool_from_data(TensorData::from_bool({false, false, true, true}, Shape{4}), d);
    const DispatchTensor b = Dispatch::bool_from_data(TensorData::from_bool({false, true, false, true}, Shape{4}), d);
    EXPECT_EQ(Dispatch::bool_into_data(Dispatch::bool_not(a)).to_bool(), (std::vector<bool>{true, true, false, false}));
    EXPECT_EQ(Dispatch::bool_into_data(Dispatch::bool_and(a, b)).to_bool(), (std::vector<bool>{false, false, false, true}));
    EXPECT_EQ(Dispatch::bool_into_data(Dispatch::bool_or(a, b)).to_bool(), (std::vector<bool>{false, true, true, true}));
    EXPECT_EQ(Dispatch::bool_into_data(Dispatch::bool_xor(a, b)).to_bool(), (std::vector<bool>{false, true, true, false}));
    const DispatchTensor one = Dispatch::bool_from_data(TensorData::from_bool({true}, Shape{1}), d);
    EXPECT_EQ(Dispatch::bool_into_data(Dispatch::bool_xor(a, one)).to_bool(), (std::vector<bool>{true, true, false, false}));
  }
}

TYPED_TEST(IntArithmetic, ShiftsOutsideTheWidthGiveZeroOrTheSignFill) {
  for (const DispatchDevice& d : devices_of(plain_device<TypeParam>())) {
    const DispatchTensor i8 = ints_on(d, {-9, -9, -9, -9, 5, 64, -128}, DType::I8);
    const DispatchTensor n = ints_on(d, {1, 7, 8, -1, 32, 1, 7}, DType::I8);
    // -9 << 1 = -18; -9 << 7 = -1152 mod 256 = -128; 64 << 1 = 128 -> -128; -128 << 7 = 0.
    EXPECT_EQ(ints_of(Dispatch::bitwise_left_shift(i8, n), DType::I8), (std::vector<std::int64_t>{-18, -128, 0, 0, 0, -128, 0}));
    // Arithmetic: -9 >> 1 = -5 (floor), -9 >> 7 = -1; at the width or a negative count: the sign fill.
    EXPECT_EQ(ints_of(Dispatch::bitwise_right_shift(i8, n), DType::I8), (std::vector<std::int64_t>{-5, -1, -1, -1, 0, 32, -1}));
    const DispatchTensor u8 = ints_on(d, {255, 128, 1}, DType::U8);
    EXPECT_EQ(ints_of(Dispatch::bitwise_right_shift_scalar(u8, 7), DType::U8), (std::vector<std::int64_t>{1, 1, 0}));  // logical
    EXPECT_EQ(ints_of(Dispatch::bitwise_left_shift_scalar(u8, 8), DType::U8), (std::vector<std::int64_t>{0, 0, 0}));
    const DispatchTensor i64 = ints_on(d, {1, -1, kI64Min}, DType::I64);
    EXPECT_EQ(ints_of(Dispatch::bitwise_left_shift_scalar(i64, 63), DType::I64), (std::vector<std::int64_t>{kI64Min, kI64Min, 0}));
    EXPECT_EQ(ints_of(Dispatch::bitwise_right_shift_scalar(i64, 64), DType::I64), (std::vector<std::int64_t>{0, -1, -1}));
  }
}

TYPED_TEST(IntArithmetic, BitwiseOpsActOnTwosComplementBits) {
  const DispatchDevice d = plain_device<TypeParam>();
  const DispatchTensor a = ints_on(d, {12, -1, -128}, DType::I8);
  const DispatchTensor b = ints_on(d, {10, 85, 127}, DType::I8);
  EXPECT_EQ(ints_of(Dispatch::bitwise_and(a, b), DType::I8), (std::vector<std::int64_t>{8, 85, 0}));
  EXPECT_EQ(ints_of(Dispatch::bitwise_or(a, b), DType::I8), (std::vector<std::int64_t>{14, -1, -1}));
  EXPECT_EQ(ints_of(Dispatch::bitwise_xor(a, b), DType::I8), (std::vector<std::int64_t>{6, -86, -1}));
  EXPECT_EQ(ints_of(Dispatch::bitwise_not(a), DType::I8), (std::vector<std::int64_t>{-13, 0, 127}));
  EXPECT_EQ(ints_of(Dispatch::bitwise_not(ints_on(d, {0, 255}, DType::U8)), DType::U8), (std::vector<std::int64_t>{255, 0}));
  // -1 as a U8 scalar is 255: every bit.
  EXPECT_EQ(ints_of(Dispatch::bitwise_and_scalar(ints_on(d, {7, 200}, DType::U8), -1), DType::U8), (std::vector<std::int64_t>{7, 200}));
}

TYPED_TEST(IntArithmetic, ComparisonsTakeTheConvertedScalar) {
  const DispatchDevice d = plain_device<TypeParam>();
  const DispatchTensor u8 = ints_on(d, {40, 44, 200}, DType::U8);
  // 300 is 44 in U8.
  EXPECT_EQ(Dispatch::bool_into_data(Dispatch::int_greater_elem(u8, 300)).to_bool(), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(Dispatch::bool_into_data(Dispatch::int_equal_elem(u8, 300)).to_bool(), (std::vector<bool>{false, true, false}));
  const DispatchTensor i64 = ints_on(d, {kI64Min, kI64Max, 0}, DType::I64);
  EXPECT_EQ(Dispatch::bool_into_data(Dispatch::int_lower(i64, ints_on(d, {kI64Min + 1, kI64Max, -1}, DType::I64))).to_bool(),
            (std::vector<bool>{true, false, false}));
  EXPECT_EQ(Dispatch::bool_into_data(Dispatch::int_lower_equal_elem(i64, 1e30)).to_bool(), (std::vector<bool>{true, true, true}));
}

TYPED_TEST(IntArithmetic, CastsWrapIntoTheTarget) {
  const DispatchDevice d = plain_device<TypeParam>();
  const DispatchTensor i64 = ints_on(d, {300, -1, kI64Min, 127}, DType::I64);
  EXPECT_EQ(ints_of(Dispatch::int_cast(i64, DType::I8), DType::I8), (std::vector<std::int64_t>{44, -1, 0, 127}));
  EXPECT_EQ(ints_of(Dispatch::int_cast(i64, DType::U8), DType::U8), (std::vector<std::int64_t>{44, 255, 0, 127}));
  EXPECT_EQ(ints_of(Dispatch::int_cast(ints_on(d, {-1}, DType::I8), DType::I64), DType::I64), (std::vector<std::int64_t>{-1}));
  const DispatchTensor b = Dispatch::bool_from_data(TensorData::from_bool({true, false}, Shape{2}), d);
  EXPECT_EQ(ints_of(Dispatch::bool_into_int(b, DType::U8), DType::U8), (std::vector<std::int64_t>{1, 0}));
  EXPECT_PANIC(Dispatch::int_cast(i64, DType::F32), "unsupported-dtype", "DType F32 is not supported by int_cast targets.");
  EXPECT_PANIC(Dispatch::bool_into_int(b, DType::Bool), "unsupported-dtype", "DType Bool is not supported by bool_into_int targets.");
}

TYPED_TEST(IntArithmetic, SumsAndProductsWrapAndMeansTruncate) {
  for (const DispatchDevice& d : devices_of(plain_device<TypeParam>())) {
    const DispatchTensor i8 = Dispatch::int_from_data(TensorData::from_i8({100, 100, -3, 0, 5, -7}, Shape{2, 3}), d);
    // 100 + 100 - 3 + 0 + 5 - 7 = 195 -> -61 in I8; the product 100 * 100 * -3 * 0 ... = 0.
    EXPECT_EQ(ints_of(Dispatch::int_sum(i8), DType::I8), (std::vector<std::int64_t>{-61}));
    EXPECT_EQ(ints_of(Dispatch::int_prod(i8), DType::I8), (std::vector<std::int64_t>{0}));
    // Rows: 197 -> -59, -2; the mean divides the wrapped sum: -59 / 3 = -19 (toward zero), -2 / 3 = 0.
    EXPECT_EQ(ints_of(Dispatch::int_sum_dim(i8, 1), DType::I8), (std::vector<std::int64_t>{-59, -2}));
    EXPECT_EQ(ints_of(Dispatch::int_mean_dim(i8, 1), DType::I8), (std::vector<std::int64_t>{-19, 0}));
    // Columns: 100 * 0 = 0, 100 * 5 = 500 -> -12, -3 * -7 = 21.
    EXPECT_EQ(ints_of(Dispatch::int_prod_dim(i8, 0), DType::I8), (std::vector<std::int64_t>{0, -12, 21}));
    const DispatchTensor i64 = ints_on(d, {kI64Max, 1, kI64Max}, DType::I64);
    EXPECT_EQ(ints_of(Dispatch::int_sum(i64), DType::I64), (std::vector<std::int64_t>{-1}));  // 2 MAX + 1 = 2^64 - 1
  }
}

TYPED_TEST(IntArithmetic, ExtremesTakeTheFirstAndEmptyLanesHaveNone) {
  const DispatchDevice d = plain_device<TypeParam>();
  const DispatchTensor x = Dispatch::int_from_data(TensorData::from_i32({3, 7, 7, -2, -2, 5}, Shape{2, 3}), d);
  EXPECT_EQ(ints_of(Dispatch::int_argmax(x, 1), DType::I64), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(ints_of(Dispatch::int_argmin(x, 1), DType::I64), (std::vector<std::int64_t>{0, 0}));
  EXPECT_EQ(ints_of(Dispatch::int_max_dim(x, 0), DType::I32), (std::vector<std::int64_t>{3, 7, 7}));
  EXPECT_EQ(ints_of(Dispatch::int_min(x), DType::I32), (std::vector<std::int64_t>{-2}));
  const DispatchTensor empty = Dispatch::int_from_data(TensorData::from_i32({}, Shape{2, 0}), d);
  EXPECT_PANIC(Dispatch::int_max(empty), "empty-reduction", "int_max over dim 1 of size 0 has no result.");
  EXPECT_PANIC(Dispatch::int_mean_dim(empty, 1), "empty-reduction", "int_mean_dim over dim 1 of size 0 has no result.");
  EXPECT_EQ(ints_of(Dispatch::int_sum_dim(empty, 1), DType::I32), (std::vector<std::int64_t>{0, 0}));
  EXPECT_EQ(ints_of(Dispatch::int_prod(empty), DType::I32), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(Dispatch::bool_into_data(Dispatch::int_all(empty)).to_bool(), (std::vector<bool>{true}));
  EXPECT_EQ(Dispatch::bool_into_data(Dispatch::int_any(x)).to_bool(), (std::vector<bool>{true}));
  // The wrapping abs: |MIN| is MIN, the smallest, so [MIN, 1] has max_abs 1.
  EXPECT_EQ(ints_of(Dispatch::int_max_abs(ints_on(d, {kI64Min, 1, -3}, DType::I64)), DType::I64), (std::vector<std::int64_t>{3}));
  EXPECT_EQ(ints_of(Dispatch::int_max_abs(ints_on(d, {kI64Min, 1}, DType::I64)), DType::I64), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(ints_of(Dispatch::int_max_abs_dim(x, 1), DType::I32), (std::vector<std::int64_t>{7, 5}));
  EXPECT_EQ(Dispatch::bool_into_data(Dispatch::int_all_dim(empty, 1)).to_bool(), (std::vector<bool>{true, true}));
  EXPECT_EQ(Dispatch::bool_into_data(Dispatch::int_any_dim(Dispatch::int_from_data(TensorData::from_i32({0, 0, 0, 4}, Shape{2, 2}), d), 1))
                .to_bool(),
            (std::vector<bool>{false, true}));
  const DispatchTensor b = Dispatch::bool_from_data(TensorData::from_bool({true, false}, Shape{2}), d);
  EXPECT_EQ(Dispatch::bool_into_data(Dispatch::bool_all_dim(b, 0)).to_bool(), (std::vector<bool>{false}));
  EXPECT_EQ(Dispatch::bool_into_data(Dispatch::bool_any_dim(b, 0)).to_bool(), (std::vector<bool>{true}));
  EXPECT_EQ(Dispatch::bool_into_data(Dispatch::bool_all(b)).to_bool(), (std::vector<bool>{false}));
  EXPECT_EQ(Dispatch::bool_into_data(Dispatch::bool_any(b)).to_bool(), (std::vector<bool>{true}));
}

TYPED_TEST(IntArithmetic, ClampBoundsSaturateIntoTheDtype) {
  for (const DispatchDevice& d : devices_of(plain_device<TypeParam>())) {
    const DispatchTensor u8 = ints_on(d, {0, 10, 200, 255}, DType::U8);
    // 300 saturates to 255 (a wrapped 44 would clamp 200 down); -5 saturates to 0; 2.9 is 2.
    EXPECT_EQ(ints_of(Dispatch::int_clamp(u8, -5, 300), DType::U8), (std::vector<std::int64_t>{0, 10, 200, 255}));
    EXPECT_EQ(ints_of(Dispatch::int_clamp(u8, 2.9, 100), DType::U8), (std::vector<std::int64_t>{2, 10, 100, 100}));
    EXPECT_EQ(ints_of(Dispatch::int_clamp_min(u8, 11), DType::U8), (std::vector<std::int64_t>{11, 11, 200, 255}));
    EXPECT_EQ(ints_of(Dispatch::int_clamp_max(u8, 1e30), DType::U8), (std::vector<std::int64_t>{0, 10, 200, 255}));
    EXPECT_EQ(ints_of(Dispatch::int_square(ints_on(d, {-12, 16, 3}, DType::I8)), DType::I8), (std::vector<std::int64_t>{-112, 0, 9}));
  }
  const DispatchTensor x = ints_on(plain_device<TypeParam>(), {1}, DType::I32);
  EXPECT_PANIC(Dispatch::int_clamp(x, 2, 1), "clamp-bounds", "int_clamp needs min <= max, got min 2 and max 1.");
}

TYPED_TEST(IntArithmetic, PowiWrapsAndTruncatesNegativePowers) {
  for (const DispatchDevice& d : devices_of(plain_device<TypeParam>())) {
    // 3^40 mod 2^64 as a signed I64; (-2)^63 = MIN; 2^64 = 0 (mod 2^64); 7^0 = 1; 0^0 = 1.
    EXPECT_EQ(ints_of(Dispatch::int_powi(ints_on(d, {3, -2, 2, 7, 0, kI64Min}, DType::I64), ints_on(d, {40, 63, 64, 0, 0, 1}, DType::I64)),
                      DType::I64),
              (std::vector<std::int64_t>{-6289078614652622815LL, kI64Min, 0, 1, 1, kI64Min}));
    // I8: 3^5 = 243 -> -13, 2^7 = 128 -> -128, 2^8 -> 0; negative exponents: 1 for 1, +-1 for -1 by
    // parity, 0 for every other base, 0 included.
    EXPECT_EQ(ints_of(Dispatch::int_powi(ints_on(d, {3, 2, 2, 1, -1, -1, 2, -3, 0}, DType::I8),
                                         ints_on(d, {5, 7, 8, -5, -3, -4, -1, -2, -1}, DType::I8)),
                      DType::I8),
              (std::vector<std::int64_t>{-13, -128, 0, 1, -1, 1, 0, 0, 0}));
    // Broadcast exponent [1] over the receiver.
    EXPECT_EQ(ints_of(Dispatch::int_powi(ints_on(d, {2, -3}, DType::I32), ints_on(d, {31}, DType::I32)), DType::I32),
              (std::vector<std::int64_t>{-2147483648LL, -1264544299}));  // (-3)^31 = -617673396283947, modulo 2^32
    // The scalar converts as every scalar: -1 into U8 is 255, so 3^255 mod 256 = 171, 7^255 mod 256 =
    // 183; 3.9 is 3: 7^3 = 343 -> 87.
    const DispatchTensor u8 = ints_on(d, {3, 7, 0, 1}, DType::U8);
    EXPECT_EQ(ints_of(Dispatch::int_powi_scalar(u8, -1), DType::U8), (std::vector<std::int64_t>{171, 183, 0, 1}));
    EXPECT_EQ(ints_of(Dispatch::int_powi_scalar(u8, 3.9), DType::U8), (std::vector<std::int64_t>{27, 87, 0, 1}));
    EXPECT_EQ(ints_of(Dispatch::int_powi_scalar(ints_on(d, {2, -1, 5}, DType::I64), -1), DType::I64), (std::vector<std::int64_t>{0, -1, 0}));
  }
}

TYPED_TEST(IntArithmetic, ScansWrapAndKeepRunningExtremes) {
  for (const DispatchDevice& d : devices_of(plain_device<TypeParam>())) {
    // I8: 100 + 100 = 200 -> -56, -56 + -128 = -184 -> 72; 16 * 16 = 256 -> 0, and 0 after.
    EXPECT_EQ(ints_of(Dispatch::int_cumsum(ints_on(d, {100, 100, -128}, DType::I8), 0), DType::I8), (std::vector<std::int64_t>{100, -56, 72}));
    EXPECT_EQ(ints_of(Dispatch::int_cumprod(ints_on(d, {16, 16, 3}, DType::I8), 0), DType::I8), (std::vector<std::int64_t>{16, 0, 0}));
    EXPECT_EQ(ints_of(Dispatch::int_cumsum(ints_on(d, {kI64Max, 1}, DType::I64), 0), DType::I64), (std::vector<std::int64_t>{kI64Max, kI64Min}));
    const DispatchTensor i32 = ints_on(d, {3, -1, 5, -1}, DType::I32);
    EXPECT_EQ(ints_of(Dispatch::int_cummin(i32, 0), DType::I32), (std::vector<std::int64_t>{3, -1, -1, -1}));
    EXPECT_EQ(ints_of(Dispatch::int_cummax(i32, 0), DType::I32), (std::vector<std::int64_t>{3, 3, 5, 5}));
    // U8 compares unsigned.
    EXPECT_EQ(ints_of(Dispatch::int_cummax(ints_on(d, {200, 100, 255, 0}, DType::U8), 0), DType::U8), (std::vector<std::int64_t>{200, 200, 255, 255}));
    // Along dim 0 of [2, 2]: each column separately.
    const DispatchTensor m = Dispatch::int_from_data(TensorData::from_i32({1, 2, 3, 4}, Shape{2, 2}), d);
    EXPECT_EQ(ints_of(Dispatch::int_cumsum(m, 0), DType::I32), (std::vector<std::int64_t>{1, 2, 4, 6}));
    EXPECT_EQ(ints_of(Dispatch::int_cumprod(m, 1), DType::I32), (std::vector<std::int64_t>{1, 2, 3, 12}));
    EXPECT_PANIC(Dispatch::int_cumsum(m, 2), "dim-out-of-range", "int_cumsum got dim 2 for a tensor of rank 2.");
  }
}

TYPED_TEST(IntArithmetic, SortOrdersValuesWithTiesInIndexOrder) {
  for (const DispatchDevice& d : devices_of(plain_device<TypeParam>())) {
    const DispatchTensor i8 = ints_on(d, {3, -1, 3, -128, 127}, DType::I8);
    EXPECT_EQ(ints_of(Dispatch::int_argsort(i8, 0, false), DType::I64), (std::vector<std::int64_t>{3, 1, 0, 2, 4}));
    // Descending reverses the values, not the ties: the first 3 (index 0) stays before the second.
    EXPECT_EQ(ints_of(Dispatch::int_argsort(i8, 0, true), DType::I64), (std::vector<std::int64_t>{4, 0, 2, 1, 3}));
    EXPECT_EQ(ints_of(Dispatch::int_sort(i8, 0, false), DType::I8), (std::vector<std::int64_t>{-128, -1, 3, 3, 127}));
    EXPECT_EQ(ints_of(Dispatch::int_topk(i8, 0, 2), DType::I8), (std::vector<std::int64_t>{127, 3}));
    EXPECT_EQ(ints_of(Dispatch::int_argtopk(i8, 0, 3), DType::I64), (std::vector<std::int64_t>{4, 0, 2}));
    // U8 orders unsigned (200 is large); I64 keeps values beyond 2^53 apart.
    EXPECT_EQ(ints_of(Dispatch::int_argsort(ints_on(d, {200, 1, 255}, DType::U8), 0, false), DType::I64), (std::vector<std::int64_t>{1, 0, 2}));
    EXPECT_EQ(ints_of(Dispatch::int_argsort(ints_on(d, {kI64Max, kI64Max - 1, kI64Min}, DType::I64), 0, false), DType::I64),
              (std::vector<std::int64_t>{2, 1, 0}));
    EXPECT_PANIC(Dispatch::int_topk(i8, 0, 6), "topk-k", "int_topk needs k of at most 5, the size of dim 0, got 6.");
    // Burn's two-result forms pair the values with their positions.
    const auto [sorted, positions] = Dispatch::int_sort_with_indices(i8, 0, true);
    EXPECT_EQ(ints_of(sorted, DType::I8), (std::vector<std::int64_t>{127, 3, 3, -1, -128}));
    EXPECT_EQ(ints_of(positions, DType::I64), (std::vector<std::int64_t>{4, 0, 2, 1, 3}));
    const auto [top, top_positions] = Dispatch::int_topk_with_indices(i8, 0, 2);
    EXPECT_EQ(ints_of(top, DType::I8), (std::vector<std::int64_t>{127, 3}));
    EXPECT_EQ(ints_of(top_positions, DType::I64), (std::vector<std::int64_t>{4, 0}));
  }
}

TYPED_TEST(IntArithmetic, MatmulWrapsEveryProductAndSum) {
  for (const DispatchDevice& d : devices_of(plain_device<TypeParam>())) {
    // I8: 100 * 2 + 100 * 1 = 300 -> 44; -128 * 2 = -256 -> 0; -128 * -1 = 128 -> -128.
    const DispatchTensor a = Dispatch::int_from_data(TensorData::from_i8({100, 100, -128, 0}, Shape{2, 2}), d);
    const DispatchTensor b = Dispatch::int_from_data(TensorData::from_i8({2, -1, 1, 0}, Shape{2, 2}), d);
    EXPECT_EQ(ints_of(Dispatch::int_matmul(a, b), DType::I8), (std::vector<std::int64_t>{44, -100, 0, -128}));
    const DispatchTensor big = Dispatch::int_from_data(TensorData::from_i64({kI64Max, 1}, Shape{1, 2}), d);
    const DispatchTensor ones = Dispatch::int_from_data(TensorData::from_i64({1, 1}, Shape{2, 1}), d);
    EXPECT_EQ(ints_of(Dispatch::int_matmul(big, ones), DType::I64), (std::vector<std::int64_t>{kI64Min}));
    // k = 0: empty dot products are 0.
    const DispatchTensor l = Dispatch::int_from_data(TensorData::from_i32({}, Shape{2, 0}), d);
    const DispatchTensor r = Dispatch::int_from_data(TensorData::from_i32({}, Shape{0, 3}), d);
    EXPECT_EQ(ints_of(Dispatch::int_matmul(l, r), DType::I32), (std::vector<std::int64_t>(6, 0)));
    EXPECT_PANIC(Dispatch::int_matmul(big, big), "matmul-inner-dim", "int_matmul needs the inner dims to agree, got shapes [1, 2] and [1, 2].");
  }
}

// The index updates of the int kind (docs/OPS.md "Integer arithmetic"): the float op's order, each
// combination wrapping.
TYPED_TEST(IntArithmetic, IndexUpdatesWrapAndCombineInIndexOrder) {
  for (const DispatchDevice& d : devices_of(plain_device<TypeParam>())) {
    const auto i8 = [&](std::vector<std::int8_t> v, Shape shape) { return Dispatch::int_from_data(TensorData::from_i8(std::move(v), std::move(shape)), d); };
    const auto i64 = [&](std::vector<std::int64_t> v) { return ints_on(d, v, DType::I64); };
    // Row 0 gets 100, then 28: 100 + 100 = 200 -> -56, -56 + 28 = -28.
    const DispatchTensor x = i8({100, 1, 2, 3}, Shape{2, 2});
    const DispatchTensor rows = i64({0, 0});
    const DispatchTensor values = i8({100, 0, 28, 0}, Shape{2, 2});
    EXPECT_EQ(ints_of(Dispatch::int_select_add(x, 0, rows, values), DType::I8), (std::vector<std::int64_t>{-28, 1, 2, 3}));
    EXPECT_EQ(ints_of(Dispatch::int_select_assign(x, 0, rows, values), DType::I8), (std::vector<std::int64_t>{-28, 1, 2, 3}));
    // MAX + 1 + 1 wraps to MIN + 1.
    EXPECT_EQ(ints_of(Dispatch::int_scatter_add(i64({kI64Max, 0}), 0, i64({0, 0, 1}), i64({1, 1, 5})), DType::I64),
              (std::vector<std::int64_t>{kI64Min + 1, 5}));
    // U8 Mul: 16 * 16 = 256 -> 0, then 0 * 2; Min and Max compare; the last Assign wins.
    const DispatchTensor u8 = ints_on(d, {16, 3}, DType::U8);
    EXPECT_EQ(ints_of(Dispatch::int_scatter(u8, 0, i64({0, 0}), ints_on(d, {16, 2}, DType::U8), IndexingUpdateOp::Mul), DType::U8),
              (std::vector<std::int64_t>{0, 3}));
    const DispatchTensor i32 = ints_on(d, {5, 5}, DType::I32);
    const DispatchTensor picks = ints_on(d, {-7, 9, 4}, DType::I32);
    EXPECT_EQ(ints_of(Dispatch::int_scatter(i32, 0, i64({0, 1, 1}), picks, IndexingUpdateOp::Min), DType::I32), (std::vector<std::int64_t>{-7, 4}));
    EXPECT_EQ(ints_of(Dispatch::int_scatter(i32, 0, i64({0, 1, 1}), picks, IndexingUpdateOp::Max), DType::I32), (std::vector<std::int64_t>{5, 9}));
    EXPECT_EQ(ints_of(Dispatch::int_scatter(i32, 0, i64({0, 1, 1}), picks, IndexingUpdateOp::Assign), DType::I32), (std::vector<std::int64_t>{-7, 4}));
    // Row 1 named twice: 3 + 127 = 130 -> -126, then -126 + 1 = -125.
    EXPECT_EQ(ints_of(Dispatch::int_scatter_nd(i8({1, 2, 3, 4}, Shape{2, 2}), Dispatch::int_from_data(TensorData::from_i64({1, 1}, Shape{2, 1}), d),
                                               i8({127, 0, 1, 0}, Shape{2, 2}), IndexingUpdateOp::Add),
                      DType::I8),
              (std::vector<std::int64_t>{1, 2, -125, 4}));
    EXPECT_PANIC(Dispatch::int_select_add(x, 0, i64({0, 2}), values), "index-out-of-range", "int_select_add got index 2 for dim 0 of size 2.");
    EXPECT_PANIC(Dispatch::int_scatter_add(i64({1, 2}), 0, i64({0}), ints_on(d, {1}, DType::I32)), "dtype-mismatch",
                 "int_scatter_add needs operands of one dtype, got I64 and I32.");
  }
}

TYPED_TEST(IntArithmetic, BoolUpdatesOrAndMaskFillConvertsItsScalar) {
  for (const DispatchDevice& d : devices_of(plain_device<TypeParam>())) {
    const auto bools = [&](std::vector<bool> v) { const Shape s{v.size()}; return Dispatch::bool_from_data(TensorData::from_bool(std::move(v), s), d); };
    const auto truths = [](const DispatchTensor& t) { return Dispatch::bool_into_data(t).to_bool(); };
    const DispatchTensor i64s = ints_on(d, {0, 0, 2}, DType::I64);
    EXPECT_EQ(truths(Dispatch::bool_select_or(bools({false, true, false}), 0, i64s, bools({false, true, false}))),
              (std::vector<bool>{true, true, false}));
    // Position 1 gets true then false: or keeps true (an Assign would not).
    EXPECT_EQ(truths(Dispatch::bool_scatter_or(bools({false, false}), 0, ints_on(d, {1, 1, 0}, DType::I64), bools({true, false, false}))),
              (std::vector<bool>{false, true}));
    const DispatchTensor mask = bools({true, false, true});
    const DispatchTensor u8 = ints_on(d, {1, 2, 3}, DType::U8);
    EXPECT_EQ(ints_of(Dispatch::int_mask_fill(u8, mask, 300), DType::U8), (std::vector<std::int64_t>{44, 2, 44}));
    EXPECT_EQ(ints_of(Dispatch::int_mask_fill(u8, mask, -1), DType::U8), (std::vector<std::int64_t>{255, 2, 255}));
    EXPECT_EQ(ints_of(Dispatch::int_mask_fill(u8, mask, NAN), DType::U8), (std::vector<std::int64_t>{0, 2, 0}));
    const DispatchTensor b = bools({false, false, true});
    EXPECT_EQ(truths(Dispatch::bool_mask_fill(b, mask, 0.5)), (std::vector<bool>{true, false, true}));
    EXPECT_EQ(truths(Dispatch::bool_mask_fill(b, mask, -0.0)), (std::vector<bool>{false, false, false}));
    EXPECT_EQ(truths(Dispatch::bool_mask_fill(b, mask, NAN)), (std::vector<bool>{true, false, true}));
  }
}

TYPED_TEST(IntArithmetic, ArgwhereListsTrueCoordinatesInRowMajorOrder) {
  for (const DispatchDevice& d : devices_of(plain_device<TypeParam>())) {
    const DispatchTensor m = Dispatch::bool_from_data(TensorData::from_bool({false, true, true, true}, Shape{2, 2}), d);
    const TensorData where = Dispatch::int_into_data(Dispatch::bool_argwhere(m));
    EXPECT_EQ(where.shape(), (Shape{3, 2}));
    EXPECT_EQ(where.to_i64(), (std::vector<std::int64_t>{0, 1, 1, 0, 1, 1}));
    const TensorData none = Dispatch::int_into_data(Dispatch::bool_argwhere(Dispatch::bool_from_data(TensorData::from_bool({false, false}, Shape{1, 2}), d)));
    EXPECT_EQ(none.shape(), (Shape{0, 2}));
    EXPECT_EQ(none.dtype(), DType::I64);
    const TensorData scalar = Dispatch::int_into_data(Dispatch::bool_argwhere(Dispatch::bool_from_data(TensorData::from_bool({true}, Shape{}), d)));
    EXPECT_EQ(scalar.shape(), (Shape{1, 0}));
  }
}

}  // namespace
}  // namespace crossgrad
