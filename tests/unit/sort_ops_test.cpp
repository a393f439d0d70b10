// The ordering ops of issue 36 (docs/OPS.md "Sorting"): float_argsort, float_sort, float_argtopk and
// float_topk on every backend, plain and tracked, against orders worked out here from the spec
// (NaN after +inf ascending and first descending, -0 equal to +0, ties in index order both ways),
// their argument panics, Burn's two-result forms, and gradients (each element's own place,
// ties never split, +0 outside the top k) worked out by hand.
#include "test_support.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class SortOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(SortOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<std::int64_t> positions(const DispatchTensor& t) { return Dispatch::int_into_data(t).to_i64(); }

// Each value's class for comparison: NaN as one class, and the sign of a zero kept.
std::vector<std::string> shown(const std::vector<double>& v) {
  std::vector<std::string> out;
  for (double x : v) out.push_back(std::isnan(x) ? "NaN" : (x == 0 && std::signbit(x)) ? "-0" : std::to_string(x));
  return out;
}

TYPED_TEST(SortOps, ALaneSortsInTheDocumentedOrder) {
  // Positions: 0:3 1:NaN 2:-0 3:1 4:+0 5:-inf 6:1
  const std::vector<double> lane{3, kNaN, -0.0, 1, 0.0, -kInf, 1};
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor x = tensor_on(device, lane, dt, {7});
      // Ascending: NaN last; -0 (at 2) and +0 (at 4) equal, so in index order; the two 1s too.
      EXPECT_EQ(positions(Dispatch::float_argsort(x, 0, false)), (std::vector<std::int64_t>{5, 2, 4, 3, 6, 0, 1}));
      EXPECT_EQ(shown(values(Dispatch::float_sort(x, 0, false))), shown({-kInf, -0.0, 0.0, 1, 1, 3, kNaN}));
      // Descending: NaN first; equal elements still in index order (stable, not reversed).
      EXPECT_EQ(positions(Dispatch::float_argsort(x, 0, true)), (std::vector<std::int64_t>{1, 0, 3, 6, 2, 4, 5}));
      EXPECT_EQ(shown(values(Dispatch::float_sort(x, 0, true))), shown({kNaN, 3, 1, 1, -0.0, 0.0, -kInf}));
      // The top 4: the first 4 of the descending order.
      EXPECT_EQ(positions(Dispatch::float_argtopk(x, 0, 4)), (std::vector<std::int64_t>{1, 0, 3, 6}));
      EXPECT_EQ(shown(values(Dispatch::float_topk(x, 0, 4))), shown({kNaN, 3, 1, 1}));
    }
  }
}

TYPED_TEST(SortOps, EveryLaneAlongADimSortsOnItsOwn) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      // [3, 2]: column 0 is 2, 1, 0; column 1 is 1, 1, 3.
      const DispatchTensor x = tensor_on(device, {2, 1, 1, 1, 0, 3}, dt, {3, 2});
      EXPECT_EQ(positions(Dispatch::float_argsort(x, 0, false)), (std::vector<std::int64_t>{2, 0, 1, 1, 0, 2}));
      EXPECT_EQ(values(Dispatch::float_sort(x, 0, false)), (std::vector<double>{0, 1, 1, 1, 2, 3}));
      EXPECT_EQ(positions(Dispatch::float_argsort(x, 1, true)), (std::vector<std::int64_t>{0, 1, 0, 1, 1, 0}));
      EXPECT_EQ(values(Dispatch::float_sort(x, 1, true)), (std::vector<double>{2, 1, 1, 1, 3, 0}));
      const DispatchTensor top = Dispatch::float_topk(x, 0, 2);
      EXPECT_EQ(Dispatch::float_shape(top), (Shape{2, 2}));
      EXPECT_EQ(values(top), (std::vector<double>{2, 3, 1, 1}));
      EXPECT_EQ(positions(Dispatch::float_argtopk(x, 0, 2)), (std::vector<std::int64_t>{0, 2, 1, 0}));
      // k = 0 and empty dims: empty results, no panic.
      EXPECT_EQ(Dispatch::float_shape(Dispatch::float_topk(x, 1, 0)), (Shape{3, 0}));
      const DispatchTensor empty = tensor_on(device, {}, dt, {0, 3});
      EXPECT_EQ(Dispatch::float_shape(Dispatch::float_sort(empty, 0, true)), (Shape{0, 3}));
      EXPECT_EQ(Dispatch::int_into_data(Dispatch::float_argtopk(empty, 1, 2)).shape(), (Shape{0, 2}));
    }
  }
}

TYPED_TEST(SortOps, BadArgumentsPanicInOrder) {
  const DispatchTensor x = tensor_on(plain_device<TypeParam>(), {1, 2, 3, 4, 5, 6}, DType::F32, {3, 2});
  EXPECT_PANIC(Dispatch::float_topk(x, 0, 4), "topk-k", "float_topk needs k of at most 3, the size of dim 0, got 4.");
  EXPECT_PANIC(Dispatch::float_argtopk(x, 1, 3), "topk-k", "float_argtopk needs k of at most 2, the size of dim 1, got 3.");
  // The dim first, then k.
  EXPECT_PANIC(Dispatch::float_topk(x, 2, 9), "dim-out-of-range", "float_topk got dim 2 for a tensor of rank 2.");
  EXPECT_PANIC(Dispatch::float_sort(x, 2, false), "dim-out-of-range", "float_sort got dim 2 for a tensor of rank 2.");
  EXPECT_PANIC(Dispatch::float_argsort(x, 5, true), "dim-out-of-range", "float_argsort got dim 5 for a tensor of rank 2.");
}

TYPED_TEST(SortOps, TwoResultFormsPairTheirOps) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    const DispatchTensor x = tensor_on(device, {2, -0.0, 5, 0.0, 5, 1}, DType::F64, {2, 3});
    const auto [sorted, order] = Dispatch::float_sort_with_indices(x, 1, true);
    EXPECT_EQ(values(sorted), (std::vector<double>{5, 2, -0.0, 5, 1, 0}));
    EXPECT_EQ(positions(order), (std::vector<std::int64_t>{2, 0, 1, 1, 2, 0}));
    const auto [top, at] = Dispatch::float_topk_with_indices(x, 0, 1);
    EXPECT_EQ(values(top), (std::vector<double>{2, 5, 5}));
    EXPECT_EQ(positions(at), (std::vector<std::int64_t>{0, 1, 0}));
    // The max scan's element (the first of equal maxima) and its index.
    const auto [mx, imx] = Dispatch::float_max_dim_with_indices(x, 0);
    EXPECT_EQ(values(mx), (std::vector<double>{2, 5, 5}));
    EXPECT_EQ(positions(imx), (std::vector<std::int64_t>{0, 1, 0}));
    const auto [mn, imn] = Dispatch::float_min_dim_with_indices(x, 1);
    EXPECT_EQ(shown(values(mn)), shown({-0.0, 0.0}));
    EXPECT_EQ(positions(imn), (std::vector<std::int64_t>{1, 0}));
    const Tensor t(x);
    const auto [tv, ti] = t.sort_with_indices(1, false);
    EXPECT_EQ(values(tv.dispatch()), (std::vector<double>{-0.0, 2, 5, 0, 1, 5}));
    EXPECT_EQ(positions(ti), (std::vector<std::int64_t>{1, 0, 2, 0, 2, 1}));
  }
}

TYPED_TEST(SortOps, GradientsGoBackToEachElementsPlace) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor c = tensor_on(device, {1, 10, 100}, dt, {3});
    const auto grad_of = [&](const std::vector<double>& v, auto op) {
      const DispatchTensor x = tensor_on(device, v, dt, {3});
      const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(op(x), c)));
      return values(*Dispatch::grad(x, g));
    };
    // [3, 1, 2] ascending is [1, 2, 3]: x0 went to place 2, x1 to 0, x2 to 1.
    EXPECT_EQ(grad_of({3, 1, 2}, [](const DispatchTensor& x) { return Dispatch::float_sort(x, 0, false); }),
              (std::vector<double>{100, 1, 10}));
    // A tie: the stable order puts x0 before x1, each gets its own place's gradient, never a share.
    EXPECT_EQ(grad_of({2, 2, 1}, [](const DispatchTensor& x) { return Dispatch::float_sort(x, 0, false); }),
              (std::vector<double>{10, 100, 1}));
    EXPECT_EQ(grad_of({2, 2, 1}, [](const DispatchTensor& x) { return Dispatch::float_sort(x, 0, true); }),
              (std::vector<double>{1, 10, 100}));
    // topk 2 of [1, 3, 2] is [3, 2]: x0 was not kept and gets +0.
    const DispatchTensor x = tensor_on(device, {1, 3, 2}, dt, {3});
    const DispatchTensor ck = tensor_on(device, {10, 100}, dt, {2});
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(Dispatch::float_topk(x, 0, 2), ck)));
    const std::vector<double> gx = values(*Dispatch::grad(x, g));
    EXPECT_EQ(gx, (std::vector<double>{0, 10, 100}));
    EXPECT_FALSE(std::signbit(gx[0]));
  }
}

}  // namespace
}  // namespace crossgrad
