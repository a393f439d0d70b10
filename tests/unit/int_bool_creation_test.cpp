// Burn's int_ and bool_ creation and device functions (docs/OPS.md "Creation") and the int / bool
// compositions (docs/OPS.md "Composed ops") on every backend, plain and autodiff devices:
// int_full's value conversion (I8 / U8 wrapping), int_random from the seed's counter words
// (recomputed here from SplitMix64's published constants), int_arange near I64's ends and over
// narrow dtypes, empty shapes, device moves, and each panic by its exact catalog message.
// Expected values are written by hand or computed here from the documented rules.
#include "test_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kI64Min = std::numeric_limits<std::int64_t>::min();
constexpr DType kIntDTypes[] = {DType::I64, DType::I32, DType::I8, DType::U8};

std::vector<std::int64_t> ints(const DispatchTensor& t) { return Dispatch::int_into_data(t).to_i64(); }
std::vector<bool> bools(const DispatchTensor& t) { return Dispatch::bool_into_data(t).to_bool(); }

DispatchTensor i64_on(const DispatchDevice& device, std::vector<std::int64_t> v, Shape shape) {
  return Dispatch::int_from_data(TensorData::from_i64(std::move(v), std::move(shape)), device);
}
DispatchTensor bool_on(const DispatchDevice& device, std::vector<bool> v, Shape shape) {
  return Dispatch::bool_from_data(TensorData::from_bool(std::move(v), std::move(shape)), device);
}

// The value v (an integer) as an element of `dtype`, modulo 2^width, widened back to int64.
std::int64_t wrapped(std::int64_t v, DType dtype) {
  const auto bits = static_cast<std::uint64_t>(v);
  if (dtype == DType::I32) return static_cast<std::int32_t>(static_cast<std::uint32_t>(bits));
  if (dtype == DType::I8) return static_cast<std::int8_t>(static_cast<std::uint8_t>(bits));
  if (dtype == DType::U8) return static_cast<std::uint8_t>(bits);
  return v;
}
// The integer x (a double with an integer value) saturated into `dtype`'s range.
std::int64_t saturated(double x, DType dtype) {
  double lo = -0x1p63, hi = 0x1p63;  // I64: 2^63 itself is past the end
  if (dtype == DType::I32) lo = -2147483648.0, hi = 2147483648.0;
  if (dtype == DType::I8) lo = -128, hi = 128;
  if (dtype == DType::U8) lo = 0, hi = 256;
  if (std::isnan(x)) return 0;
  if (x >= hi) return dtype == DType::I64 ? kI64Max : static_cast<std::int64_t>(hi) - 1;
  if (x < lo) return dtype == DType::I64 ? kI64Min : static_cast<std::int64_t>(lo);
  return static_cast<std::int64_t>(x);
}

bool on_autodiff(const DispatchDevice& device) { return std::holds_alternative<AutodiffDevice>(device.value); }

template <class B>
class IntBoolCreation : public OnEachBackend<B> {};
TYPED_TEST_SUITE(IntBoolCreation, AllBackendTypes, BackendTestName);

TYPED_TEST(IntBoolCreation, FullZerosOnesAndEmptyFillEveryElementOfEveryIntDType) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kIntDTypes) {
      SCOPED_TRACE(std::string(dtype_name(dt)));
      const DispatchTensor z = Dispatch::int_zeros(Shape{2, 3}, device, dt);
      EXPECT_EQ(Dispatch::int_dtype(z), dt);
      EXPECT_EQ(Dispatch::int_shape(z), (Shape{2, 3}));
      EXPECT_EQ(Dispatch::int_device(z), device);
      // An int tensor on an autodiff device is Autodiff(B(Int(...))) with a strategy (never a node).
      EXPECT_EQ(z.kind.is_autodiff(), on_autodiff(device));
      EXPECT_EQ(z.checkpointing.has_value(), on_autodiff(device));
      EXPECT_EQ(ints(z), std::vector<std::int64_t>(6, 0));
      EXPECT_EQ(ints(Dispatch::int_ones(Shape{4}, device, dt)), std::vector<std::int64_t>(4, 1));
      EXPECT_EQ(ints(Dispatch::int_empty(Shape{3, 1}, device, dt)), std::vector<std::int64_t>(3, 0));
      EXPECT_EQ(ints(Dispatch::int_full(Shape{2}, 7, device, dt)), (std::vector<std::int64_t>{7, 7}));
      // Toward zero first: -2.9 is -2, which U8 holds as 254.
      const std::int64_t minus_two = dt == DType::U8 ? 254 : -2;
      EXPECT_EQ(ints(Dispatch::int_full(Shape{3}, -2.9, device, dt)), std::vector<std::int64_t>(3, minus_two));
      // Empty shapes and a rank-0 scalar.
      const DispatchTensor empty = Dispatch::int_full(Shape{0, 5}, 3, device, dt);
      EXPECT_EQ(Dispatch::int_shape(empty), (Shape{0, 5}));
      EXPECT_EQ(Dispatch::int_dtype(empty), dt);
      EXPECT_TRUE(ints(empty).empty());
      EXPECT_EQ(Dispatch::int_shape(Dispatch::int_empty(Shape{4, 0}, device, dt)), (Shape{4, 0}));
      const DispatchTensor scalar = Dispatch::int_full(Shape{}, 5, device, dt);
      EXPECT_EQ(Dispatch::int_shape(scalar), Shape{});
      EXPECT_EQ(ints(scalar), (std::vector<std::int64_t>{5}));
    }
    EXPECT_EQ(Dispatch::int_dtype(Dispatch::int_zeros(Shape{1}, device)), DType::I64);  // Burn's default IntElem
  }
}

TYPED_TEST(IntBoolCreation, FullConvertsItsValueAsAnIntOpsScalar) {
  // Rust's `as` into i64 (toward zero, NaN 0, saturating), then modulo 2^width.
  const double inf = std::numeric_limits<double>::infinity();
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    const auto full = [&](double v, DType dt) { return ints(Dispatch::int_full(Shape{2}, v, device, dt))[1]; };
    EXPECT_EQ(full(300, DType::I8), 44);
    EXPECT_EQ(full(128, DType::I8), -128);
    EXPECT_EQ(full(-129, DType::I8), 127);
    EXPECT_EQ(full(255.9, DType::I8), -1);
    EXPECT_EQ(full(NAN, DType::I8), 0);
    EXPECT_EQ(full(inf, DType::I8), -1);  // I64's largest, 0x7f..ff, keeps its low byte 0xff
    EXPECT_EQ(full(-inf, DType::I8), 0);  // I64's smallest, 0x80..00
    EXPECT_EQ(full(-1, DType::U8), 255);
    EXPECT_EQ(full(256, DType::U8), 0);
    EXPECT_EQ(full(300, DType::U8), 44);
    EXPECT_EQ(full(-0.9, DType::U8), 0);
    EXPECT_EQ(full(1e30, DType::I32), -1);
    EXPECT_EQ(full(2147483648.0, DType::I32), -2147483648LL);
    EXPECT_EQ(full(1e30, DType::I64), kI64Max);
    EXPECT_EQ(full(-1e30, DType::I64), kI64Min);
    EXPECT_EQ(full(0x1p62, DType::I64), 4611686018427387904LL);
    EXPECT_EQ(full(-0.5, DType::I64), 0);
  }
}

TYPED_TEST(IntBoolCreation, BoolZerosOnesAndEmpty) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    const DispatchTensor z = Dispatch::bool_zeros(Shape{2, 2}, device);
    EXPECT_EQ(Dispatch::bool_dtype(z), DType::Bool);
    EXPECT_EQ(Dispatch::bool_shape(z), (Shape{2, 2}));
    EXPECT_EQ(Dispatch::bool_device(z), device);
    EXPECT_EQ(z.kind.is_autodiff(), on_autodiff(device));
    EXPECT_EQ(bools(z), std::vector<bool>(4, false));
    EXPECT_EQ(bools(Dispatch::bool_ones(Shape{3}, device)), std::vector<bool>(3, true));
    EXPECT_EQ(bools(Dispatch::bool_empty(Shape{1, 2}, device)), std::vector<bool>(2, false));
    EXPECT_EQ(Dispatch::bool_shape(Dispatch::bool_ones(Shape{0}, device)), (Shape{0}));
    EXPECT_EQ(Dispatch::bool_shape(Dispatch::bool_zeros(Shape{3, 0, 2}, device)), (Shape{3, 0, 2}));
    EXPECT_EQ(bools(Dispatch::bool_ones(Shape{}, device)), std::vector<bool>{true});
  }
}

std::uint64_t splitmix_word(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
double unit(std::uint64_t seed, std::uint64_t i) { return static_cast<double>(splitmix_word(seed, i) >> 11) * 0x1p-53; }
// float_random's documented Uniform sample in F64: low + (high - low) u, kept below high.
double uniform_sample(double low, double high, std::uint64_t seed, std::uint64_t i) {
  const double x = low + (high - low) * unit(seed, i);
  return x < high ? x : std::nextafter(high, low);
}

TYPED_TEST(IntBoolCreation, RandomIsTheFloorOfTheUniformSamplesAndDefaultIsUniformZeroTo255) {
  const std::uint64_t seed = 20261206;
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kIntDTypes) {
      SCOPED_TRACE(std::string(dtype_name(dt)));
      const DispatchTensor d = Dispatch::int_random(Shape{4, 5}, Distribution::standard(), seed, device, dt);
      EXPECT_EQ(Dispatch::int_dtype(d), dt);
      EXPECT_EQ(Dispatch::int_shape(d), (Shape{4, 5}));
      EXPECT_EQ(d.kind.is_autodiff(), on_autodiff(device));
      const std::vector<std::int64_t> got = ints(d);
      ASSERT_EQ(got.size(), 20u);
      for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i], saturated(std::floor(uniform_sample(0, 255, seed, i)), dt)) << "element " << i;
      }
      // Negative bounds: floor, not toward zero, and saturated into narrow dtypes.
      const std::vector<std::int64_t> u = ints(Dispatch::int_random(Shape{64}, Distribution::uniform(-1000, 1000.5), seed, device, dt));
      for (std::size_t i = 0; i < u.size(); ++i) {
        EXPECT_EQ(u[i], saturated(std::floor(uniform_sample(-1000, 1000.5, seed, i)), dt)) << "element " << i;
      }
      const std::vector<std::int64_t> b = ints(Dispatch::int_random(Shape{32}, Distribution::bernoulli(0.25), seed, device, dt));
      for (std::size_t i = 0; i < b.size(); ++i) EXPECT_EQ(b[i], unit(seed, i) < 0.25 ? 1 : 0) << "element " << i;
    }
    EXPECT_EQ(Dispatch::int_dtype(Dispatch::int_random(Shape{1}, Distribution::standard(), 1, device)), DType::I64);
    EXPECT_TRUE(ints(Dispatch::int_random(Shape{0, 3}, Distribution::standard(), 1, device)).empty());
  }
}

TYPED_TEST(IntBoolCreation, RandomNormalTruncatesTheF64SamplesTowardZero) {
  const std::uint64_t seed = 77;
  // Normal is float_random's F64 sample (checked against the formula in creation_ops_test.cpp)
  // converted as Rust's `as`: toward zero, saturating.
  const std::vector<double> samples =
      Dispatch::float_into_data(Dispatch::float_random(Shape{200}, Distribution::normal(-3, 100), seed, DispatchDevice::NdArray(), DType::F64))
          .to_f64();
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kIntDTypes) {
      SCOPED_TRACE(std::string(dtype_name(dt)));
      const std::vector<std::int64_t> got = ints(Dispatch::int_random(Shape{200}, Distribution::normal(-3, 100), seed, device, dt));
      ASSERT_EQ(got.size(), samples.size());
      for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], saturated(std::trunc(samples[i]), dt)) << "element " << i;
    }
  }
}

TYPED_TEST(IntBoolCreation, RandomUniformGivesEveryIntegerOfTheRangeAlike) {
  // Uniform(-4, 4): the floor makes each of -4 .. 3 about an eighth; truncation toward zero would
  // give 0 a quarter.
  const std::size_t n = 16000;
  const std::vector<std::int64_t> v = ints(Dispatch::int_random(Shape{n}, Distribution::uniform(-4, 4), 5, plain_device<TypeParam>()));
  for (std::int64_t k = -4; k < 4; ++k) {
    const auto count = std::count(v.begin(), v.end(), k);
    EXPECT_NEAR(static_cast<double>(count), n / 8.0, 200) << "value " << k;  // sd is about 42
  }
  EXPECT_EQ(*std::min_element(v.begin(), v.end()), -4);
  EXPECT_EQ(*std::max_element(v.begin(), v.end()), 3);
  // The same seed, the same tensor on every backend.
  EXPECT_EQ(Dispatch::int_into_data(Dispatch::int_random(Shape{50}, Distribution::normal(0, 9), 3, plain_device<TypeParam>(), DType::I32)),
            Dispatch::int_into_data(Dispatch::int_random(Shape{50}, Distribution::normal(0, 9), 3, DispatchDevice::NdArray(), DType::I32)));
}

TYPED_TEST(IntBoolCreation, ArangeIsRustsRangeStepBy) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    const DispatchTensor a = Dispatch::int_arange(2, 7, device);
    EXPECT_EQ(Dispatch::int_dtype(a), DType::I64);
    EXPECT_EQ(Dispatch::int_shape(a), (Shape{5}));
    EXPECT_EQ(Dispatch::int_device(a), device);
    EXPECT_EQ(ints(a), (std::vector<std::int64_t>{2, 3, 4, 5, 6}));
    EXPECT_EQ(ints(Dispatch::int_arange_step(-5, 6, 3, device)), (std::vector<std::int64_t>{-5, -2, 1, 4}));
    EXPECT_EQ(ints(Dispatch::int_arange_step(-5, 4, 3, device)), (std::vector<std::int64_t>{-5, -2, 1}));
    EXPECT_EQ(ints(Dispatch::int_arange_step(0, 3, 100, device)), (std::vector<std::int64_t>{0}));
    // start >= end: Rust's empty range, shape [0].
    for (const DispatchTensor& e : {Dispatch::int_arange(4, 4, device), Dispatch::int_arange(5, -5, device),
                                    Dispatch::int_arange_step(kI64Max, kI64Min, 7, device)}) {
      EXPECT_EQ(Dispatch::int_shape(e), (Shape{0}));
      EXPECT_TRUE(ints(e).empty());
    }
    // Near I64's ends: no overflow in the count or the elements.
    EXPECT_EQ(ints(Dispatch::int_arange(kI64Max - 3, kI64Max, device)),
              (std::vector<std::int64_t>{kI64Max - 3, kI64Max - 2, kI64Max - 1}));
    EXPECT_EQ(ints(Dispatch::int_arange(kI64Min, kI64Min + 2, device)), (std::vector<std::int64_t>{kI64Min, kI64Min + 1}));
    EXPECT_EQ(ints(Dispatch::int_arange_step(kI64Min, kI64Max, std::size_t{1} << 63, device)),
              (std::vector<std::int64_t>{kI64Min, 0}));
    EXPECT_EQ(ints(Dispatch::int_arange_step(kI64Min, kI64Max, std::numeric_limits<std::size_t>::max(), device)),
              (std::vector<std::int64_t>{kI64Min}));
    EXPECT_EQ(ints(Dispatch::int_arange_step(kI64Max - 10, kI64Max, 4, device)),
              (std::vector<std::int64_t>{kI64Max - 10, kI64Max - 6, kI64Max - 2}));
    // Over a narrow dtype each element wraps as int_cast does.
    for (const DType dt : kIntDTypes) {
      SCOPED_TRACE(std::string(dtype_name(dt)));
      const DispatchTensor w = Dispatch::int_arange_step(-300, 300, 37, device, dt);
      EXPECT_EQ(Dispatch::int_dtype(w), dt);
      std::vector<std::int64_t> expected;
      for (std::int64_t v = -300; v < 300; v += 37) expected.push_back(wrapped(v, dt));
      EXPECT_EQ(ints(w), expected);
    }
    EXPECT_EQ(ints(Dispatch::int_arange(125, 131, device, DType::I8)), (std::vector<std::int64_t>{125, 126, 127, -128, -127, -126}));
    EXPECT_EQ(ints(Dispatch::int_arange(-2, 2, device, DType::U8)), (std::vector<std::int64_t>{254, 255, 0, 1}));
    EXPECT_EQ(ints(Dispatch::int_arange(2147483646, 2147483650, device, DType::I32)),
              (std::vector<std::int64_t>{2147483646, 2147483647, -2147483648LL, -2147483647}));
  }
}

TYPED_TEST(IntBoolCreation, DeviceShapeAndDTypeOfIntAndBoolTensors) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    const DispatchTensor i = Dispatch::int_from_data(TensorData::from_i8({1, -2, 3, 4, 5, 6}, {3, 2}), device);
    EXPECT_EQ(Dispatch::int_device(i), device);
    EXPECT_EQ(Dispatch::int_shape(i), (Shape{3, 2}));
    EXPECT_EQ(Dispatch::int_dtype(i), DType::I8);
    const DispatchTensor b = bool_on(device, {true, false}, {1, 2});
    EXPECT_EQ(Dispatch::bool_device(b), device);
    EXPECT_EQ(Dispatch::bool_shape(b), (Shape{1, 2}));
    EXPECT_EQ(Dispatch::bool_dtype(b), DType::Bool);
    // An op's int result on a tracked receiver (Autodiff(B(Int(...))) there) answers too.
    const DispatchTensor am = Dispatch::float_argmax(tensor_on(device, {1, 5, 2}, DType::F32, {3}), 0);
    EXPECT_EQ(Dispatch::int_device(am), device);
    EXPECT_EQ(Dispatch::int_shape(am), (Shape{1}));
    EXPECT_EQ(Dispatch::int_dtype(am), DType::I64);
  }
}

TYPED_TEST(IntBoolCreation, ToDeviceMovesValuesAcrossBackendsAndKeepsTheKind) {
  const DispatchDevice nd = DispatchDevice::NdArray();
  const DispatchDevice nd_ad = DispatchDevice::Autodiff(DispatchDevice::NdArray());
  const std::vector<std::int64_t> v{kI64Min, -1, 0, kI64Max};
  for (const DispatchDevice& from : {nd, plain_device<TypeParam>()}) {
    const DispatchTensor x = i64_on(from, v, {2, 2});
    const DispatchTensor there = Dispatch::int_to_device(x, plain_device<TypeParam>());
    EXPECT_EQ(Dispatch::int_device(there), plain_device<TypeParam>());
    EXPECT_FALSE(there.kind.is_autodiff());
    EXPECT_FALSE(there.checkpointing.has_value());
    EXPECT_EQ(Dispatch::int_shape(there), (Shape{2, 2}));
    EXPECT_EQ(ints(there), v);
    EXPECT_EQ(ints(Dispatch::int_to_device(there, nd)), v);
    const DispatchTensor u8 = Dispatch::int_from_data(TensorData::from_u8({0, 255, 7}, {3}), from);
    EXPECT_EQ(Dispatch::int_into_data(Dispatch::int_to_device(u8, plain_device<TypeParam>())),
              TensorData::from_u8({0, 255, 7}, {3}));
    const DispatchTensor b = bool_on(from, {true, false, true}, {3});
    const DispatchTensor b_there = Dispatch::bool_to_device(b, plain_device<TypeParam>());
    EXPECT_EQ(Dispatch::bool_device(b_there), plain_device<TypeParam>());
    EXPECT_EQ(bools(b_there), (std::vector<bool>{true, false, true}));
    EXPECT_EQ(bools(Dispatch::bool_to_device(b_there, nd)), (std::vector<bool>{true, false, true}));
  }
  // Autodiff(B(Int(...))) moves to an autodiff device and stays of that kind, with a strategy.
  for (const DispatchDevice& from : {nd_ad, autodiff_device<TypeParam>()}) {
    const DispatchTensor x = i64_on(from, v, {4});
    const DispatchTensor there = Dispatch::int_to_device(x, autodiff_device<TypeParam>());
    EXPECT_TRUE(there.kind.is_autodiff());
    EXPECT_TRUE(there.checkpointing.has_value());
    EXPECT_EQ(Dispatch::int_device(there), autodiff_device<TypeParam>());
    EXPECT_EQ(ints(there), v);
    EXPECT_EQ(Dispatch::int_device(Dispatch::int_to_device(there, nd_ad)), nd_ad);
    const DispatchTensor b = bool_on(from, {false, true}, {2});
    const DispatchTensor b_there = Dispatch::bool_to_device(b, autodiff_device<TypeParam>());
    EXPECT_TRUE(b_there.kind.is_autodiff());
    EXPECT_EQ(Dispatch::bool_device(b_there), autodiff_device<TypeParam>());
    EXPECT_EQ(bools(b_there), (std::vector<bool>{false, true}));
  }
  // Empty tensors move too.
  EXPECT_EQ(Dispatch::int_shape(Dispatch::int_to_device(Dispatch::int_zeros(Shape{0, 3}, nd), plain_device<TypeParam>())),
            (Shape{0, 3}));
  EXPECT_EQ(Dispatch::bool_shape(Dispatch::bool_to_device(Dispatch::bool_ones(Shape{2, 0}, nd), plain_device<TypeParam>())),
            (Shape{2, 0}));
}

TYPED_TEST(IntBoolCreation, BoolEqualElemIsTheTensorOrItsNegation) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    const DispatchTensor t = bool_on(device, {true, false, false, true}, {2, 2});
    const std::vector<bool> same{true, false, false, true}, negated{false, true, true, false};
    for (const DispatchTensor& r : {Dispatch::bool_equal_elem(t, true), Dispatch::bool_not_equal_elem(t, false)}) {
      EXPECT_EQ(bools(r), same);
      EXPECT_EQ(Dispatch::bool_shape(r), (Shape{2, 2}));
      EXPECT_EQ(Dispatch::bool_device(r), device);
    }
    for (const DispatchTensor& r : {Dispatch::bool_equal_elem(t, false), Dispatch::bool_not_equal_elem(t, true)}) {
      EXPECT_EQ(bools(r), negated);
      EXPECT_EQ(Dispatch::bool_shape(r), (Shape{2, 2}));
      EXPECT_EQ(Dispatch::bool_device(r), device);
      EXPECT_EQ(r.kind.is_autodiff(), on_autodiff(device));
    }
    EXPECT_TRUE(bools(Dispatch::bool_equal_elem(Dispatch::bool_ones(Shape{0}, device), false)).empty());
  }
}

TYPED_TEST(IntBoolCreation, IntMaxAndMinDimWithIndicesNameTheSameElement) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    // Ties take the first in index order, in the values and the indices alike.
    const DispatchTensor x = i64_on(device, {3, 9, 9, -5, -5, 2}, {2, 3});
    const auto [max_v, max_i] = Dispatch::int_max_dim_with_indices(x, 1);
    EXPECT_EQ(Dispatch::int_shape(max_v), (Shape{2, 1}));
    EXPECT_EQ(ints(max_v), (std::vector<std::int64_t>{9, 2}));
    EXPECT_EQ(ints(max_i), (std::vector<std::int64_t>{1, 2}));
    EXPECT_EQ(Dispatch::int_dtype(max_i), DType::I64);
    const auto [min_v, min_i] = Dispatch::int_min_dim_with_indices(x, 1);
    EXPECT_EQ(ints(min_v), (std::vector<std::int64_t>{3, -5}));
    EXPECT_EQ(ints(min_i), (std::vector<std::int64_t>{0, 0}));
    const auto [col_v, col_i] = Dispatch::int_max_dim_with_indices(x, 0);
    EXPECT_EQ(ints(col_v), (std::vector<std::int64_t>{3, 9, 9}));
    EXPECT_EQ(ints(col_i), (std::vector<std::int64_t>{0, 0, 0}));
    // The values keep the receiver's dtype; the indices are I64.
    const DispatchTensor u = Dispatch::int_from_data(TensorData::from_u8({200, 7, 255, 0}, {4}), device);
    const auto [u_max, u_arg] = Dispatch::int_max_dim_with_indices(u, 0);
    EXPECT_EQ(Dispatch::int_into_data(u_max), TensorData::from_u8({255}, {1}));
    EXPECT_EQ(Dispatch::int_into_data(u_arg), TensorData::from_i64({2}, {1}));
    const auto [u_min, u_argmin] = Dispatch::int_min_dim_with_indices(u, 0);
    EXPECT_EQ(Dispatch::int_into_data(u_min), TensorData::from_u8({0}, {1}));
    EXPECT_EQ(Dispatch::int_into_data(u_argmin), TensorData::from_i64({3}, {1}));
    EXPECT_EQ(max_v.kind.is_autodiff(), on_autodiff(device));
    EXPECT_EQ(max_i.kind.is_autodiff(), on_autodiff(device));
  }
}

// The panics, by their exact catalog messages (on the CPU backends, whose renderings are fixed).
TEST(IntBoolCreationPanics, DTypesOutsideTheKind) {
  const DispatchDevice nd = DispatchDevice::NdArray();
  EXPECT_PANIC(Dispatch::int_full(Shape{2}, 1, nd, DType::F32), "unsupported-dtype", "DType F32 is not supported by int_full.");
  EXPECT_PANIC(Dispatch::int_zeros(Shape{2}, nd, DType::Bool), "unsupported-dtype", "DType Bool is not supported by int_zeros.");
  EXPECT_PANIC(Dispatch::int_ones(Shape{2}, nd, DType::F64), "unsupported-dtype", "DType F64 is not supported by int_ones.");
  EXPECT_PANIC(Dispatch::int_empty(Shape{2}, nd, DType::QInt8), "unsupported-dtype", "DType QInt8 is not supported by int_empty.");
  EXPECT_PANIC(Dispatch::int_random(Shape{2}, Distribution::standard(), 1, nd, DType::F64), "unsupported-dtype",
               "DType F64 is not supported by int_random.");
  EXPECT_PANIC(Dispatch::int_arange(0, 3, nd, DType::F32), "unsupported-dtype", "DType F32 is not supported by int_arange.");
  // The dtype is checked before the step.
  EXPECT_PANIC(Dispatch::int_arange_step(0, 3, 0, nd, DType::Bool), "unsupported-dtype",
               "DType Bool is not supported by int_arange_step.");
}

TEST(IntBoolCreationPanics, ArangeStepZeroAndRangesPastMemory) {
  const DispatchDevice nd = DispatchDevice::NdArray();
  EXPECT_PANIC(Dispatch::int_arange_step(0, 5, 0, nd), "unfold-step", "int_arange_step needs a step of at least 1, got 0.");
  // Rust's step_by(0) panics whether or not the range is empty.
  EXPECT_PANIC(Dispatch::int_arange_step(5, 0, 0, DispatchDevice::Flex()), "unfold-step",
               "int_arange_step needs a step of at least 1, got 0.");
  // 2^64 - 1 elements: refused before anything is allocated.
  EXPECT_PANIC(Dispatch::int_arange(kI64Min, kI64Max, nd), "tensor-too-large",
               "A tensor of shape [18446744073709551615] and dtype I64 needs more than 2^64 bytes, over the limit of "
               "17179869184 bytes.");
  EXPECT_PANIC(Dispatch::int_arange(kI64Min, kI64Max, nd, DType::U8), "tensor-too-large",
               "A tensor of shape [18446744073709551615] and dtype U8 needs 18446744073709551615 bytes, over the limit "
               "of 17179869184 bytes.");
  EXPECT_PANIC(Dispatch::int_arange_step(0, kI64Max, 2, nd, DType::I8), "tensor-too-large",
               "A tensor of shape [4611686018427387904] and dtype I8 needs 4611686018427387904 bytes, over the limit "
               "of 17179869184 bytes.");
  EXPECT_PANIC(Dispatch::int_random(Shape{std::size_t{1} << 40}, Distribution::standard(), 1, nd, DType::I8), "tensor-too-large",
               "A tensor of shape [1099511627776] and dtype I8 needs 1099511627776 bytes, over the limit of 17179869184 "
               "bytes.");
  EXPECT_PANIC(Dispatch::int_full(Shape{std::size_t{1} << 40}, 1, nd, DType::I8), "tensor-too-large",
               "A tensor of shape [1099511627776] and dtype I8 needs 1099511627776 bytes, over the limit of 17179869184 "
               "bytes.");
}

TEST(IntBoolCreationPanics, RandomRefusesADistributionWithoutValues) {
  const DispatchDevice nd = DispatchDevice::NdArray();
  EXPECT_PANIC(Dispatch::int_random(Shape{2}, Distribution::uniform(1, 0), 7, nd), "random-distribution",
               "int_random cannot sample Uniform(1, 0).");
  EXPECT_PANIC(Dispatch::int_random(Shape{2}, Distribution::bernoulli(1.5), 7, nd), "random-distribution",
               "int_random cannot sample Bernoulli(1.5).");
  EXPECT_PANIC(Dispatch::int_random(Shape{2}, Distribution::normal(0, -1), 7, nd), "random-distribution",
               "int_random cannot sample Normal(0, -1).");
  // The distribution is checked before the size.
  EXPECT_PANIC(Dispatch::int_random(Shape{std::size_t{1} << 40}, Distribution::uniform(0, NAN), 7, nd), "random-distribution",
               "int_random cannot sample Uniform(0, nan).");
}

TEST(IntBoolCreationPanics, WrongKinds) {
  const DispatchDevice flex = DispatchDevice::Flex();
  const DispatchTensor f = Dispatch::float_from_data(TensorData::from_f32({1, 2}, {2}), flex);
  const std::string float_kind = "Flex(Float(FlexTensor { shape: [2], dtype: F32, device: Cpu }))";
  EXPECT_PANIC(Dispatch::int_device(f), "op-kind-mismatch", "int_device needs a tensor of kind Int, got " + float_kind + ".");
  EXPECT_PANIC(Dispatch::int_shape(f), "op-kind-mismatch", "int_shape needs a tensor of kind Int, got " + float_kind + ".");
  EXPECT_PANIC(Dispatch::int_dtype(f), "op-kind-mismatch", "int_dtype needs a tensor of kind Int, got " + float_kind + ".");
  EXPECT_PANIC(Dispatch::int_to_device(f, flex), "op-kind-mismatch", "int_to_device needs a tensor of kind Int, got " + float_kind + ".");
  EXPECT_PANIC(Dispatch::bool_device(f), "op-kind-mismatch", "bool_device needs a tensor of kind Bool, got " + float_kind + ".");
  EXPECT_PANIC(Dispatch::bool_shape(f), "op-kind-mismatch", "bool_shape needs a tensor of kind Bool, got " + float_kind + ".");
  EXPECT_PANIC(Dispatch::bool_dtype(f), "op-kind-mismatch", "bool_dtype needs a tensor of kind Bool, got " + float_kind + ".");
  EXPECT_PANIC(Dispatch::bool_to_device(f, flex), "op-kind-mismatch", "bool_to_device needs a tensor of kind Bool, got " + float_kind + ".");
  // An int tensor on an autodiff device is Autodiff(Flex(Int(...))), not a Bool one.
  const DispatchTensor i = i64_on(DispatchDevice::Autodiff(flex), {1, 2}, {2});
  const std::string int_kind = "Autodiff(Flex(Int(FlexTensor { shape: [2], dtype: I64, device: Cpu })))";
  EXPECT_PANIC(Dispatch::bool_device(i), "op-kind-mismatch", "bool_device needs a tensor of kind Bool, got " + int_kind + ".");
  EXPECT_PANIC(Dispatch::bool_equal_elem(i, true), "op-kind-mismatch",
               "bool_equal_elem needs a tensor of kind Bool, got " + int_kind + ".");
  EXPECT_PANIC(Dispatch::bool_not_equal_elem(i, false), "op-kind-mismatch",
               "bool_not_equal_elem needs a tensor of kind Bool, got " + int_kind + ".");
  const DispatchTensor b = bool_on(DispatchDevice::NdArray(), {true}, {1});
  const std::string bool_kind = "NdArray(Bool(NdArrayTensor { shape: [1], dtype: Bool, device: Cpu }))";
  EXPECT_PANIC(Dispatch::int_dtype(b), "op-kind-mismatch", "int_dtype needs a tensor of kind Int, got " + bool_kind + ".");
  EXPECT_PANIC(Dispatch::int_max_dim_with_indices(b, 0), "op-kind-mismatch",
               "int_max_dim needs a tensor of kind Int, got " + bool_kind + ".");
  EXPECT_PANIC(Dispatch::int_min_dim_with_indices(i64_on(flex, {}, {2, 0}), 1), "empty-reduction",
               "int_min_dim over dim 1 of size 0 has no result.");
}

TEST(IntBoolCreationPanics, ToDeviceKeepsPlainAndAutodiffApart) {
  const DispatchDevice flex_ad = DispatchDevice::Autodiff(DispatchDevice::Flex());
  const DispatchTensor plain = i64_on(DispatchDevice::NdArray(), {1}, {1});
  EXPECT_PANIC(Dispatch::int_to_device(plain, flex_ad), "device-kind-mismatch",
               "int_to_device needs a device of the tensor's kind, got a plain tensor and device Autodiff(Flex(Cpu)).");
  const DispatchTensor tracked = bool_on(DispatchDevice::Autodiff(DispatchDevice::NdArray()), {true}, {1});
  EXPECT_PANIC(Dispatch::bool_to_device(tracked, DispatchDevice::NdArray()), "device-kind-mismatch",
               "bool_to_device needs a device of the tensor's kind, got an autodiff tensor and device NdArray(Cpu).");
  EXPECT_PANIC(Dispatch::int_to_device(i64_on(flex_ad, {1}, {1}), DispatchDevice::Autodiff(flex_ad)), "autodiff-wraps-autodiff",
               "Autodiff should not wrap an autodiff tensor.");
  // float_to_device's message names it, as before.
  EXPECT_PANIC(Dispatch::float_to_device(Dispatch::float_from_data(TensorData::from_f32({1}, {1}), DispatchDevice::Flex()), flex_ad),
               "device-kind-mismatch",
               "float_to_device needs a device of the tensor's kind, got a plain tensor and device Autodiff(Flex(Cpu)).");
  EXPECT_PANIC(Dispatch::int_zeros(Shape{1}, DispatchDevice::Autodiff(flex_ad)), "autodiff-wraps-autodiff",
               "Autodiff should not wrap an autodiff tensor.");
  EXPECT_PANIC(Dispatch::bool_ones(Shape{1}, DispatchDevice::Autodiff(flex_ad)), "autodiff-wraps-autodiff",
               "Autodiff should not wrap an autodiff tensor.");
}

}  // namespace
}  // namespace crossgrad
