// NdArray, the reference backend: the ops added with the op registry (docs/OPS.md), each against
// values worked out by hand from the spec, plus the tie/NaN/-0 cases that fix the result bits and
// every panic the spec names (checked by catalog id; index-out-of-range also by message, since
// which index it reports is part of the spec).
#include <crossgrad/backends/ndarray.hpp>
#include <crossgrad/core/panic.hpp>

#include <gtest/gtest.h>

#include <bit>
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
using crossgrad::Range;
using crossgrad::Shape;
using crossgrad::TensorData;
using crossgrad::backends::NdArray;
using T = NdArray::Tensor;

constexpr float kNaN32 = std::numeric_limits<float>::quiet_NaN();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

T f32(std::vector<float> v, Shape s) {
  return NdArray::from_data(TensorData::from_f32(std::move(v), std::move(s)), Device::cpu());
}
T f64(std::vector<double> v, Shape s) {
  return NdArray::from_data(TensorData::from_f64(std::move(v), std::move(s)), Device::cpu());
}
T i64(std::vector<std::int64_t> v, Shape s) {
  return NdArray::from_data(TensorData::from_i64(std::move(v), std::move(s)), Device::cpu());
}
T i32(std::vector<std::int32_t> v, Shape s) {
  return NdArray::from_data(TensorData::from_i32(std::move(v), std::move(s)), Device::cpu());
}
std::vector<float> vals32(const T& t) { return NdArray::into_data(t).to_f32(); }
std::vector<double> vals64(const T& t) { return NdArray::into_data(t).to_f64(); }
std::vector<std::int64_t> ints(const T& t) { return NdArray::into_data(t).to_i64(); }
std::vector<bool> bools(const T& t) { return NdArray::into_data(t).to_bool(); }

// Runs fn, which must panic with this catalog id; returns the message ("" when it did not panic).
std::string expect_panic_id(const std::function<void()>& fn, PanicId id) {
  try {
    fn();
  } catch (const Panic& p) {
    EXPECT_EQ(p.id(), id) << p.message();
    return p.message();
  }
  ADD_FAILURE() << "expected a panic";
  return {};
}

// ---- abs, clamp -------------------------------------------------------------------------------

TEST(NdArrayNewOpsAbs, Values) {
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

TEST(NdArrayNewOpsClamp, Values) {
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

TEST(NdArrayNewOpsClamp, Panics) {
  const T x = f32({1}, {1});
  expect_panic_id([&] { NdArray::float_clamp(x, 2, 1); }, PanicId::ClampBounds);
  expect_panic_id([&] { NdArray::float_clamp(x, kNaN, 1); }, PanicId::ClampBounds);
  expect_panic_id([&] { NdArray::float_clamp(x, 0, kNaN); }, PanicId::ClampBounds);
  expect_panic_id([] { NdArray::float_clamp(i32({1}, {1}), 0, 1); }, PanicId::UnsupportedDtype);
}

// ---- max_dim, argmax --------------------------------------------------------------------------

TEST(NdArrayNewOpsMax, Values) {
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

TEST(NdArrayNewOpsMax, TiesKeepTheFirst) {
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

TEST(NdArrayNewOpsMax, NaNWinsAndTheFirstNaNIsKept) {
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

TEST(NdArrayNewOpsMax, Panics) {
  expect_panic_id([] { NdArray::float_max_dim(f32({}, {2, 0}), 1); }, PanicId::EmptyReduction);
  expect_panic_id([] { NdArray::float_argmax(f32({}, {0}), 0); }, PanicId::EmptyReduction);
  expect_panic_id([] { NdArray::float_max_dim(f32({1, 2}, {2}), 1); }, PanicId::DimOutOfRange);
  expect_panic_id([] { NdArray::float_argmax(f32({1}, {}), 0); }, PanicId::DimOutOfRange);
  expect_panic_id([] { NdArray::float_argmax(i64({1}, {1}), 0); }, PanicId::UnsupportedDtype);
}

// ---- greater, lower, equal --------------------------------------------------------------------

TEST(NdArrayNewOpsCompare, BroadcastAndNaN) {
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

TEST(NdArrayNewOpsCompare, SignedZeroAndInfinity) {
  const T a = f64({-0.0, kNaN, kInf, -kInf}, {4});
  const T b = f64({0.0, kNaN, kInf, 1}, {4});
  EXPECT_EQ(bools(NdArray::float_equal(a, b)), (std::vector<bool>{true, false, true, false}));
  EXPECT_EQ(bools(NdArray::float_greater(a, b)), (std::vector<bool>{false, false, false, false}));
  EXPECT_EQ(bools(NdArray::float_lower(a, b)), (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(NdArray::shape(NdArray::float_greater(f32({}, {0, 1}), f32({1, 2}, {2}))), (Shape{0, 2}));
}

TEST(NdArrayNewOpsCompare, Panics) {
  expect_panic_id([] { NdArray::float_greater(f32({1}, {1}), f64({1}, {1})); }, PanicId::DtypeMismatch);
  expect_panic_id([] { NdArray::float_lower(f32({1, 2}, {2}), f32({1, 2, 3}, {3})); },
                  PanicId::BroadcastMismatch);
  expect_panic_id([] { NdArray::float_equal(i64({1}, {1}), f32({1}, {1})); }, PanicId::UnsupportedDtype);
}

// ---- cat --------------------------------------------------------------------------------------

TEST(NdArrayNewOpsCat, AlongEachDimWithEmptyPieces) {
  // [[1],[2]] ++ [[3,4],[5,6]] along dim 1, with an empty [2,0] piece in between.
  const T a = f32({1, 2}, {2, 1});
  const T e = f32({}, {2, 0});
  const T b = f32({3, 4, 5, 6}, {2, 2});
  const T c = NdArray::float_cat({a, e, b}, 1);
  EXPECT_EQ(NdArray::shape(c), (Shape{2, 3}));
  EXPECT_EQ(vals32(c), (std::vector<float>{1, 3, 4, 2, 5, 6}));
  // Along dim 0: [1,2] ++ [0,2] ++ [2,2].
  const T d = NdArray::float_cat({f64({1, 2}, {1, 2}), f64({}, {0, 2}), f64({3, 4, 5, 6}, {2, 2})}, 0);
  EXPECT_EQ(NdArray::shape(d), (Shape{3, 2}));
  EXPECT_EQ(vals64(d), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  // Only empty pieces, and a single piece.
  EXPECT_EQ(NdArray::shape(NdArray::float_cat({f32({}, {0, 2}), f32({}, {0, 2})}, 0)), (Shape{0, 2}));
  EXPECT_EQ(vals32(NdArray::float_cat({b}, 0)), (std::vector<float>{3, 4, 5, 6}));
  // An empty other dim: [0,1] ++ [0,2] along 1 is [0,3].
  EXPECT_EQ(NdArray::shape(NdArray::float_cat({f32({}, {0, 1}), f32({}, {0, 2})}, 1)), (Shape{0, 3}));
}

TEST(NdArrayNewOpsCat, Panics) {
  expect_panic_id([] { NdArray::float_cat({}, 0); }, PanicId::CatEmpty);
  expect_panic_id([] { NdArray::float_cat({f32({1, 2}, {2, 1}), f32({1, 2, 3}, {3, 1})}, 1); },
                  PanicId::CatMismatch);
  expect_panic_id([] { NdArray::float_cat({f32({1, 2}, {2, 1}), f32({1, 2}, {2})}, 0); },
                  PanicId::CatMismatch);
  expect_panic_id([] { NdArray::float_cat({f32({1, 2}, {2, 1})}, 2); }, PanicId::DimOutOfRange);
  expect_panic_id([] { NdArray::float_cat({f32({1}, {1}), f64({1}, {1})}, 0); }, PanicId::DtypeMismatch);
}

// ---- slice ------------------------------------------------------------------------------------

TEST(NdArrayNewOpsSlice, Values) {
  // [3,4] of 0..11.
  const T x = f32({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {3, 4});
  const T s = NdArray::float_slice(x, {Range{1, 3}, Range{1, 3}});
  EXPECT_EQ(NdArray::shape(s), (Shape{2, 2}));
  EXPECT_EQ(vals32(s), (std::vector<float>{5, 6, 9, 10}));
  // Dims without a range are kept whole.
  const T row = NdArray::float_slice(x, {Range{2, 3}});
  EXPECT_EQ(NdArray::shape(row), (Shape{1, 4}));
  EXPECT_EQ(vals32(row), (std::vector<float>{8, 9, 10, 11}));
  EXPECT_EQ(vals32(NdArray::float_slice(x, {})), vals32(x));
  EXPECT_EQ(vals32(NdArray::float_slice(x, {Range{0, 3}, Range{3, 4}})), (std::vector<float>{3, 7, 11}));
  // Empty ranges, including one at the very end.
  EXPECT_EQ(NdArray::shape(NdArray::float_slice(x, {Range{1, 1}})), (Shape{0, 4}));
  EXPECT_EQ(NdArray::shape(NdArray::float_slice(x, {Range{3, 3}, Range{4, 4}})), (Shape{0, 0}));
}

TEST(NdArrayNewOpsSlice, Panics) {
  const T x = f32({0, 1, 2, 3, 4, 5}, {3, 2});
  expect_panic_id([&] { NdArray::float_slice(x, {Range{2, 1}}); }, PanicId::SliceOutOfRange);
  expect_panic_id([&] { NdArray::float_slice(x, {Range{0, 4}}); }, PanicId::SliceOutOfRange);
  expect_panic_id([&] { NdArray::float_slice(x, {Range{0, 3}, Range{1, 3}}); }, PanicId::SliceOutOfRange);
  expect_panic_id([&] { NdArray::float_slice(x, {Range{0, 1}, Range{0, 1}, Range{0, 1}}); },
                  PanicId::DimOutOfRange);
}

// ---- select, select_assign --------------------------------------------------------------------

TEST(NdArrayNewOpsSelect, Values) {
  // [[0,1],[2,3],[4,5]]
  const T x = f32({0, 1, 2, 3, 4, 5}, {3, 2});
  const T s = NdArray::float_select(x, 0, i64({2, 0, 2}, {3}));
  EXPECT_EQ(NdArray::shape(s), (Shape{3, 2}));
  EXPECT_EQ(vals32(s), (std::vector<float>{4, 5, 0, 1, 4, 5}));
  const T c = NdArray::float_select(x, 1, i32({1}, {1}));
  EXPECT_EQ(NdArray::shape(c), (Shape{3, 1}));
  EXPECT_EQ(vals32(c), (std::vector<float>{1, 3, 5}));
  EXPECT_EQ(NdArray::shape(NdArray::float_select(x, 0, i64({}, {0}))), (Shape{0, 2}));
  // An empty other dim still checks nothing but the index values, and selects nothing.
  EXPECT_EQ(NdArray::shape(NdArray::float_select(f64({}, {0, 2}), 1, i32({1, 1, 0}, {3}))), (Shape{0, 3}));
}

TEST(NdArrayNewOpsSelect, Panics) {
  const T x = f32({0, 1, 2, 3, 4, 5}, {3, 2});
  expect_panic_id([&] { NdArray::float_select(x, 0, i64({0, 1}, {1, 2})); }, PanicId::SelectIndexRank);
  expect_panic_id([&] { NdArray::float_select(x, 0, i64({0}, {})); }, PanicId::SelectIndexRank);
  expect_panic_id([&] { NdArray::float_select(x, 0, f32({0}, {1})); }, PanicId::UnsupportedDtype);
  expect_panic_id([&] { NdArray::float_select(x, 2, i64({0}, {1})); }, PanicId::DimOutOfRange);
  EXPECT_EQ(expect_panic_id([&] { NdArray::float_select(x, 0, i64({0, 3}, {2})); }, PanicId::IndexOutOfRange),
            "float_select got index 3 for dim 0 of size 3.");
  // Negative indices are not wrapped.
  EXPECT_EQ(expect_panic_id([&] { NdArray::float_select(x, 1, i64({-1}, {1})); }, PanicId::IndexOutOfRange),
            "float_select got index -1 for dim 1 of size 2.");
  EXPECT_EQ(expect_panic_id([&] { NdArray::float_select(x, 0, i32({1, -7}, {2})); }, PanicId::IndexOutOfRange),
            "float_select got index -7 for dim 0 of size 3.");
  // The first bad index in order is the one reported.
  EXPECT_EQ(expect_panic_id([&] { NdArray::float_select(x, 0, i64({5, -1}, {2})); }, PanicId::IndexOutOfRange),
            "float_select got index 5 for dim 0 of size 3.");
  // Any index into a dim of size 0 is out of range.
  expect_panic_id([] { NdArray::float_select(f32({}, {0, 2}), 0, i64({0}, {1})); }, PanicId::IndexOutOfRange);
}

TEST(NdArrayNewOpsSelectAssign, DuplicatesAccumulate) {
  const T x = f64({0, 1, 2, 3, 4, 5}, {3, 2});
  const T v = f64({10, 20, 30, 40, 50, 60}, {3, 2});
  const T r = NdArray::float_select_assign(x, 0, i64({2, 0, 2}, {3}), v);
  EXPECT_EQ(NdArray::shape(r), (Shape{3, 2}));
  // row 0 += values row 1; row 2 += values rows 0 and 2; row 1 unchanged.
  EXPECT_EQ(vals64(r), (std::vector<double>{30, 41, 2, 3, 64, 85}));
  // The input is not modified.
  EXPECT_EQ(vals64(x), (std::vector<double>{0, 1, 2, 3, 4, 5}));
  // Along dim 1 with I32 indices: [2,3] zeros, column 2 twice.
  const T z = NdArray::float_select_assign(f32({0, 0, 0, 0, 0, 0}, {2, 3}), 1, i32({2, 2}, {2}),
                                           f32({1, 2, 3, 4}, {2, 2}));
  EXPECT_EQ(vals32(z), (std::vector<float>{0, 0, 3, 0, 0, 7}));
  // No indices: a copy.
  EXPECT_EQ(vals32(NdArray::float_select_assign(f32({1, 2}, {2}), 0, i64({}, {0}), f32({}, {0}))),
            (std::vector<float>{1, 2}));
}

TEST(NdArrayNewOpsSelectAssign, DuplicatesAddInIndexOrder) {
  // In F32, 0 + 1e8 - 1e8 + 1 = 1 in j order; any other order (e.g. 1 first: 0 + 1 - 1e8 rounds
  // to -1e8, + 1e8 = 0) gives 0. The order is part of the contract.
  const T r = NdArray::float_select_assign(f32({0}, {1}), 0, i64({0, 0, 0}, {3}),
                                           f32({1e8f, -1e8f, 1}, {3}));
  EXPECT_EQ(vals32(r), std::vector<float>{1});
}

TEST(NdArrayNewOpsSelectAssign, Panics) {
  const T x = f32({0, 1, 2, 3, 4, 5}, {3, 2});
  const T v2 = f32({1, 2, 3, 4}, {2, 2});
  expect_panic_id([&] { NdArray::float_select_assign(x, 0, i64({0, 1, 2}, {3}), v2); },
                  PanicId::AssignShapeMismatch);
  expect_panic_id([&] { NdArray::float_select_assign(x, 1, i64({0, 1}, {2}), v2); },
                  PanicId::AssignShapeMismatch);
  expect_panic_id([&] { NdArray::float_select_assign(x, 0, i64({0, 1}, {2}), f64({1, 2, 3, 4}, {2, 2})); },
                  PanicId::DtypeMismatch);
  expect_panic_id([&] { NdArray::float_select_assign(x, 0, i64({0, 1}, {2, 1}), v2); },
                  PanicId::SelectIndexRank);
  EXPECT_EQ(expect_panic_id([&] { NdArray::float_select_assign(x, 0, i64({0, 3}, {2}), v2); },
                            PanicId::IndexOutOfRange),
            "float_select_assign got index 3 for dim 0 of size 3.");
  EXPECT_EQ(expect_panic_id([&] { NdArray::float_select_assign(x, 0, i64({-2, 0}, {2}), v2); },
                            PanicId::IndexOutOfRange),
            "float_select_assign got index -2 for dim 0 of size 3.");
  expect_panic_id([&] { NdArray::float_select_assign(x, 0, i32({0, 1}, {2}), i64({1, 2, 3, 4}, {2, 2})); },
                  PanicId::UnsupportedDtype);
}

// ---- permute, expand --------------------------------------------------------------------------

TEST(NdArrayNewOpsPermute, Values) {
  const T x = f32({0, 1, 2, 3, 4, 5}, {2, 3});
  const T t = NdArray::float_permute(x, {1, 0});
  EXPECT_EQ(NdArray::shape(t), (Shape{3, 2}));
  EXPECT_EQ(vals32(t), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(vals32(NdArray::float_permute(x, {0, 1})), vals32(x));
  // [2,3,4] of 0..23 with axes {2,0,1}: out[a,b,c] = in[b,c,a] = 12b + 4c + a, shape [4,2,3].
  std::vector<double> v(24);
  for (std::size_t i = 0; i < 24; ++i) v[i] = static_cast<double>(i);
  const T p = NdArray::float_permute(f64(v, {2, 3, 4}), {2, 0, 1});
  EXPECT_EQ(NdArray::shape(p), (Shape{4, 2, 3}));
  EXPECT_EQ(vals64(p), (std::vector<double>{0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21,
                                            2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23}));
  // Rank 0 with no axes, and an empty tensor.
  EXPECT_EQ(vals32(NdArray::float_permute(f32({7}, {}), {})), std::vector<float>{7});
  EXPECT_EQ(NdArray::shape(NdArray::float_permute(f32({}, {0, 2}), {1, 0})), (Shape{2, 0}));
}

TEST(NdArrayNewOpsPermute, Panics) {
  const T x = f32({0, 1, 2, 3, 4, 5}, {2, 3});
  expect_panic_id([&] { NdArray::float_permute(x, {0, 0}); }, PanicId::PermuteInvalid);
  expect_panic_id([&] { NdArray::float_permute(x, {0}); }, PanicId::PermuteInvalid);
  expect_panic_id([&] { NdArray::float_permute(x, {0, 2}); }, PanicId::PermuteInvalid);
  expect_panic_id([&] { NdArray::float_permute(x, {0, 1, 2}); }, PanicId::PermuteInvalid);
}

TEST(NdArrayNewOpsExpand, Values) {
  // [3,1] -> [2,3,2]: each value repeated along the last dim, the whole repeated along the first.
  const T e = NdArray::float_expand(f32({1, 2, 3}, {3, 1}), Shape{2, 3, 2});
  EXPECT_EQ(NdArray::shape(e), (Shape{2, 3, 2}));
  EXPECT_EQ(vals32(e), (std::vector<float>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(vals64(NdArray::float_expand(f64({7}, {}), Shape{2})), (std::vector<double>{7, 7}));
  EXPECT_EQ(vals32(NdArray::float_expand(f32({1, 2}, {2}), Shape{2, 2})), (std::vector<float>{1, 2, 1, 2}));
  EXPECT_EQ(vals32(NdArray::float_expand(f32({1, 2}, {2}), Shape{2})), (std::vector<float>{1, 2}));
  // A 1 may expand to 0.
  EXPECT_EQ(NdArray::shape(NdArray::float_expand(f32({1, 2, 3}, {1, 3}), Shape{0, 3})), (Shape{0, 3}));
}

TEST(NdArrayNewOpsExpand, Panics) {
  expect_panic_id([] { NdArray::float_expand(f32({1, 2, 3}, {3}), Shape{2}); }, PanicId::ExpandMismatch);
  expect_panic_id([] { NdArray::float_expand(f32({1, 2, 3, 4, 5, 6}, {2, 3}), Shape{3}); },
                  PanicId::ExpandMismatch);
  expect_panic_id([] { NdArray::float_expand(f32({1, 2}, {2, 1}), Shape{3, 1}); }, PanicId::ExpandMismatch);
}

// ---- softmax, log_softmax ---------------------------------------------------------------------

TEST(NdArrayNewOpsSoftmax, Values) {
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

TEST(NdArrayNewOpsSoftmax, LogSoftmaxValues) {
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

TEST(NdArrayNewOpsSoftmax, Panics) {
  expect_panic_id([] { NdArray::softmax(f32({1, 2}, {2}), 1); }, PanicId::DimOutOfRange);
  expect_panic_id([] { NdArray::log_softmax(f32({1}, {}), 0); }, PanicId::DimOutOfRange);
  expect_panic_id([] { NdArray::softmax(i64({1}, {1}), 0); }, PanicId::UnsupportedDtype);
}

// ---- int_into_float ---------------------------------------------------------------------------

TEST(NdArrayNewOpsIntIntoFloat, Values) {
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

TEST(NdArrayNewOpsIntIntoFloat, Panics) {
  expect_panic_id([] { NdArray::int_into_float(f32({1}, {1}), DType::F64); }, PanicId::UnsupportedDtype);
  const T b = NdArray::from_data(TensorData::from_bool({true}, {1}), Device::cpu());
  expect_panic_id([&] { NdArray::int_into_float(b, DType::F32); }, PanicId::UnsupportedDtype);
  expect_panic_id([] { NdArray::int_into_float(i64({1}, {1}), DType::I32); }, PanicId::UnsupportedDtype);
}

}  // namespace
