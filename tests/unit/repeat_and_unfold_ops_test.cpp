// The copying layout ops of issue 36 (docs/OPS.md "Layout and indexing"): float_repeat_dim and
// float_unfold on every backend, plain and tracked, against values worked out here from the spec
// (empty repeats, windows longer than the dim, steps that skip elements), their argument panics,
// and their gradients (repeats summed, overlapping windows added) worked out by hand.
#include "test_support.hpp"

#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class RepeatAndUnfoldOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(RepeatAndUnfoldOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

TYPED_TEST(RepeatAndUnfoldOps, RepeatDimTilesTheWholeDim) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, dt, {2, 3});
      const DispatchTensor r1 = Dispatch::float_repeat_dim(x, 1, 2);
      EXPECT_EQ(Dispatch::float_shape(r1), (Shape{2, 6}));
      EXPECT_EQ(values(r1), (std::vector<double>{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
      const DispatchTensor r0 = Dispatch::float_repeat_dim(x, 0, 3);
      EXPECT_EQ(Dispatch::float_shape(r0), (Shape{6, 3}));
      EXPECT_EQ(values(r0), (std::vector<double>{1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6}));
      EXPECT_EQ(values(Dispatch::float_repeat_dim(x, 1, 1)), (std::vector<double>{1, 2, 3, 4, 5, 6}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::float_repeat_dim(x, 0, 0)), (Shape{0, 3}));
    }
  }
  const DispatchTensor x = tensor_on(plain_device<TypeParam>(), {1, 2}, DType::F32, {2});
  EXPECT_PANIC(Dispatch::float_repeat_dim(x, 1, 2), "dim-out-of-range", "float_repeat_dim got dim 1 for a tensor of rank 1.");
  const auto huge = panic_of([&] { (void)Dispatch::float_repeat_dim(x, 0, std::size_t{1} << 62); });
  ASSERT_TRUE(huge.has_value());
  EXPECT_EQ(huge->id, "tensor-too-large");
}

TYPED_TEST(RepeatAndUnfoldOps, UnfoldTakesCompleteWindows) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor x = tensor_on(device, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, dt, {2, 5});
      // Windows of 2 every 1 along dim 1: 4 windows, the size dim last.
      const DispatchTensor w = Dispatch::float_unfold(x, 1, 2, 1);
      EXPECT_EQ(Dispatch::float_shape(w), (Shape{2, 4, 2}));
      EXPECT_EQ(values(w), (std::vector<double>{0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 6, 7, 7, 8, 8, 9}));
      // Windows of 2 every 3: 0-1 and 3-4 (element 2 skipped).
      EXPECT_EQ(values(Dispatch::float_unfold(x, 1, 2, 3)), (std::vector<double>{0, 1, 3, 4, 5, 6, 8, 9}));
      // Along dim 0 the window dim comes last: [1, 5, 2].
      const DispatchTensor c = Dispatch::float_unfold(x, 0, 2, 1);
      EXPECT_EQ(Dispatch::float_shape(c), (Shape{1, 5, 2}));
      EXPECT_EQ(values(c), (std::vector<double>{0, 5, 1, 6, 2, 7, 3, 8, 4, 9}));
      // A window longer than the dim: none. A window of 0: one per step.
      EXPECT_EQ(Dispatch::float_shape(Dispatch::float_unfold(x, 1, 6, 1)), (Shape{2, 0, 6}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::float_unfold(x, 1, 0, 2)), (Shape{2, 3, 0}));
    }
  }
  const DispatchTensor x = tensor_on(plain_device<TypeParam>(), {1, 2, 3}, DType::F32, {3});
  EXPECT_PANIC(Dispatch::float_unfold(x, 0, 2, 0), "unfold-step", "float_unfold needs a step of at least 1, got 0.");
  EXPECT_PANIC(Dispatch::float_unfold(x, 1, 2, 1), "dim-out-of-range", "float_unfold got dim 1 for a tensor of rank 1.");
}

TYPED_TEST(RepeatAndUnfoldOps, GradientsSumRepeatsAndOverlappingWindows) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor x = tensor_on(device, {1, 2, 3}, dt, {3});
    const DispatchTensor c = tensor_on(device, {1, 2, 4, 8, 16, 32}, dt, {6});
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(Dispatch::float_repeat_dim(x, 0, 2), c)));
    EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{9, 18, 36}));
    // Windows of 2 every 1 over 4 elements: [x0 x1], [x1 x2], [x2 x3].
    const DispatchTensor y = tensor_on(device, {1, 2, 3, 4}, dt, {4});
    const DispatchTensor cw = tensor_on(device, {1, 2, 4, 8, 16, 32}, dt, {3, 2});
    const Gradients gw = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(Dispatch::float_unfold(y, 0, 2, 1), cw)));
    EXPECT_EQ(values(*Dispatch::grad(y, gw)), (std::vector<double>{1, 6, 24, 32}));
    // Every 3: element 2 in no window gets +0.
    const DispatchTensor cs = tensor_on(device, {1, 2}, dt, {1, 2});
    const DispatchTensor z = tensor_on(device, {1, 2, 3}, dt, {3});
    const Gradients gs = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(Dispatch::float_unfold(z, 0, 2, 3), cs)));
    EXPECT_EQ(values(*Dispatch::grad(z, gs)), (std::vector<double>{1, 2, 0}));
  }
}

}  // namespace
}  // namespace crossgrad
