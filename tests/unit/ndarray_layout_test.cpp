// NdArray, the reference backend: reshape, swap_dims, to_device, cast, cat, slice, select,
// select_assign, permute and expand against values worked out by hand, and their panics.
#include "ndarray_test_support.hpp"

#include <cfloat>

namespace crossgrad {
namespace {
using namespace ndarray_test;

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

// ---- cat --------------------------------------------------------------------------------------

TEST(NdArrayCat, AlongEachDimWithEmptyPieces) {
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

TEST(NdArrayCat, Panics) {
  expect_panic_id([] { NdArray::float_cat({}, 0); }, PanicId::CatEmpty);
  expect_panic_id([] { NdArray::float_cat({f32({1, 2}, {2, 1}), f32({1, 2, 3}, {3, 1})}, 1); },
                  PanicId::CatMismatch);
  expect_panic_id([] { NdArray::float_cat({f32({1, 2}, {2, 1}), f32({1, 2}, {2})}, 0); },
                  PanicId::CatMismatch);
  expect_panic_id([] { NdArray::float_cat({f32({1, 2}, {2, 1})}, 2); }, PanicId::DimOutOfRange);
  expect_panic_id([] { NdArray::float_cat({f32({1}, {1}), f64({1}, {1})}, 0); }, PanicId::DtypeMismatch);
}

// ---- slice ------------------------------------------------------------------------------------

TEST(NdArraySlice, Values) {
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

TEST(NdArraySlice, Panics) {
  const T x = f32({0, 1, 2, 3, 4, 5}, {3, 2});
  expect_panic_id([&] { NdArray::float_slice(x, {Range{2, 1}}); }, PanicId::SliceOutOfRange);
  expect_panic_id([&] { NdArray::float_slice(x, {Range{0, 4}}); }, PanicId::SliceOutOfRange);
  expect_panic_id([&] { NdArray::float_slice(x, {Range{0, 3}, Range{1, 3}}); }, PanicId::SliceOutOfRange);
  expect_panic_id([&] { NdArray::float_slice(x, {Range{0, 1}, Range{0, 1}, Range{0, 1}}); },
                  PanicId::DimOutOfRange);
}

// ---- select, select_assign --------------------------------------------------------------------

TEST(NdArraySelect, Values) {
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

TEST(NdArraySelect, Panics) {
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

TEST(NdArraySelectAssign, DuplicatesAccumulate) {
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

TEST(NdArraySelectAssign, DuplicatesAddInIndexOrder) {
  // In F32, 0 + 1e8 - 1e8 + 1 = 1 in j order; any other order (e.g. 1 first: 0 + 1 - 1e8 rounds
  // to -1e8, + 1e8 = 0) gives 0. The order is part of the contract.
  const T r = NdArray::float_select_assign(f32({0}, {1}), 0, i64({0, 0, 0}, {3}),
                                           f32({1e8f, -1e8f, 1}, {3}));
  EXPECT_EQ(vals32(r), std::vector<float>{1});
}

TEST(NdArraySelectAssign, Panics) {
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

TEST(NdArrayPermute, Values) {
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

TEST(NdArrayPermute, Panics) {
  const T x = f32({0, 1, 2, 3, 4, 5}, {2, 3});
  expect_panic_id([&] { NdArray::float_permute(x, {0, 0}); }, PanicId::PermuteInvalid);
  expect_panic_id([&] { NdArray::float_permute(x, {0}); }, PanicId::PermuteInvalid);
  expect_panic_id([&] { NdArray::float_permute(x, {0, 2}); }, PanicId::PermuteInvalid);
  expect_panic_id([&] { NdArray::float_permute(x, {0, 1, 2}); }, PanicId::PermuteInvalid);
}

TEST(NdArrayExpand, Values) {
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

TEST(NdArrayExpand, Panics) {
  expect_panic_id([] { NdArray::float_expand(f32({1, 2, 3}, {3}), Shape{2}); }, PanicId::ExpandMismatch);
  expect_panic_id([] { NdArray::float_expand(f32({1, 2, 3, 4, 5, 6}, {2, 3}), Shape{3}); },
                  PanicId::ExpandMismatch);
  expect_panic_id([] { NdArray::float_expand(f32({1, 2}, {2, 1}), Shape{3, 1}); }, PanicId::ExpandMismatch);
}

}  // namespace
}  // namespace crossgrad
