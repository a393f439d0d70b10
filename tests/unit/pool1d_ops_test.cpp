// The 1-D poolings (docs/OPS.md "Module ops"): avg_pool1d, adaptive_avg_pool1d and max_pool1d on
// every backend, plain and tracked, against values worked out here from the definition (windows
// over the zero-padded row, the two divisors, ceil_mode's last window, the first of equal maxima),
// their gradients through Autodiff<B> (Burn's backward entry points), the backward passes called
// directly, the argument panics in the documented order with the 1-D values, and the refusal of
// the backward passes on an autodiff device.
#include "test_support.hpp"

#include <cstdint>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class Pool1dOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(Pool1dOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

// x [1, 1, 5] holding 3 0 6 3 9.
DispatchTensor row(const DispatchDevice& device, DType dt) { return tensor_on(device, {3, 0, 6, 3, 9}, dt, {1, 1, 5}); }
AvgPool1dOptions avg(std::size_t kernel, std::size_t stride, std::size_t padding, bool count_include_pad = true,
                     bool ceil_mode = false) {
  return AvgPool1dOptions{{kernel}, {stride}, {padding}, count_include_pad, ceil_mode};
}
MaxPool1dOptions max(std::size_t kernel, std::size_t stride, std::size_t padding, std::size_t dilation = 1, bool ceil_mode = false) {
  return MaxPool1dOptions{{kernel}, {stride}, {padding}, {dilation}, ceil_mode};
}
std::vector<std::int64_t> cells(const DispatchTensor& indices) { return Dispatch::int_into_data(indices).to_i64(); }

TYPED_TEST(Pool1dOps, AvgPool1dAveragesEachWindow) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor x = row(device, dt);
      EXPECT_EQ(values(Dispatch::avg_pool1d(x, avg(2, 1, 0))), (std::vector<double>{1.5, 3, 4.5, 6}));
      // Padding 1 on each side: windows [pad 3 0], [0 6 3], [3 9 pad]; the padding counts as a
      // cell, or not.
      const DispatchTensor included = Dispatch::avg_pool1d(x, avg(3, 2, 1));
      EXPECT_EQ(Dispatch::float_shape(included), (Shape{1, 1, 3}));
      EXPECT_EQ(values(included), (std::vector<double>{1, 3, 4}));
      EXPECT_EQ(values(Dispatch::avg_pool1d(x, avg(3, 2, 1, false))), (std::vector<double>{1.5, 3, 6}));
      // ceil_mode keeps a last window that starts inside the row: [9] alone.
      EXPECT_EQ(values(Dispatch::avg_pool1d(x, avg(2, 2, 0))), (std::vector<double>{1.5, 4.5}));
      EXPECT_EQ(values(Dispatch::avg_pool1d(x, avg(2, 2, 0, true, true))), (std::vector<double>{1.5, 4.5, 9}));
      // Adaptive to 2: cells 0..2 and 2..4.
      EXPECT_EQ(values(Dispatch::adaptive_avg_pool1d(x, Size1{2})), (std::vector<double>{3, 6}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::adaptive_avg_pool1d(tensor_on(device, {}, dt, {0, 2, 5}), Size1{3})),
                (Shape{0, 2, 3}));
    }
  }
}

TYPED_TEST(Pool1dOps, MaxPool1dKeepsTheFirstGreatestCell) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor x = row(device, dt);
      EXPECT_EQ(values(Dispatch::max_pool1d(x, max(2, 1, 0))), (std::vector<double>{3, 6, 6, 9}));
      EXPECT_EQ(cells(Dispatch::max_pool1d_indices(x, max(2, 1, 0))), (std::vector<std::int64_t>{0, 2, 2, 4}));
      // Padding is never a maximum; dilation 2 reads cells l and l + 2.
      EXPECT_EQ(values(Dispatch::max_pool1d(x, max(3, 2, 1))), (std::vector<double>{3, 6, 9}));
      EXPECT_EQ(values(Dispatch::max_pool1d(x, max(2, 1, 0, 2))), (std::vector<double>{6, 3, 9}));
      EXPECT_EQ(cells(Dispatch::max_pool1d_indices(x, max(2, 1, 0, 2))), (std::vector<std::int64_t>{2, 3, 4}));
      // Equal maxima: the first.
      const auto [tied, at] = Dispatch::max_pool1d_with_indices(tensor_on(device, {1, 1, 2}, dt, {1, 1, 3}), max(2, 1, 0));
      EXPECT_EQ(values(tied), (std::vector<double>{1, 2}));
      EXPECT_EQ(cells(at), (std::vector<std::int64_t>{0, 2}));
    }
  }
}

TYPED_TEST(Pool1dOps, GradientsThroughEachPooling) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor c = tensor_on(device, {1, 2, 4, 8}, dt, {1, 1, 4});
    const DispatchTensor x = row(device, dt);
    // Each window hands half its cotangent to each of its two cells.
    const Gradients ga = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(Dispatch::avg_pool1d(x, avg(2, 1, 0)), c)));
    EXPECT_EQ(values(*Dispatch::grad(x, ga)), (std::vector<double>{0.5, 1.5, 3, 6, 4}));
    // Each window's cotangent to its maximum (cells 0, 2, 2, 4).
    const DispatchTensor x2 = row(device, dt);
    const Gradients gm = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(Dispatch::max_pool1d(x2, max(2, 1, 0)), c)));
    EXPECT_EQ(values(*Dispatch::grad(x2, gm)), (std::vector<double>{1, 0, 6, 0, 8}));
    // Adaptive to 2: a third of 3 to cells 0..2, a third of 6 to cells 2..4.
    const DispatchTensor x3 = row(device, dt);
    const Gradients gp = Dispatch::backward(
        Dispatch::float_sum(Dispatch::float_mul(Dispatch::adaptive_avg_pool1d(x3, Size1{2}), tensor_on(device, {3, 6}, dt, {1, 1, 2}))));
    EXPECT_EQ(values(*Dispatch::grad(x3, gp)), (std::vector<double>{1, 1, 3, 2, 2}));
  }
}

TYPED_TEST(Pool1dOps, BackwardPassesCalledDirectly) {
  const DispatchDevice device = plain_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor x = row(device, dt), c = tensor_on(device, {1, 2, 4, 8}, dt, {1, 1, 4});
    EXPECT_EQ(values(Dispatch::avg_pool1d_backward(x, c, avg(2, 1, 0))), (std::vector<double>{0.5, 1.5, 3, 6, 4}));
    EXPECT_EQ(values(Dispatch::adaptive_avg_pool1d_backward(x, tensor_on(device, {3, 6}, dt, {1, 1, 2}))),
              (std::vector<double>{1, 1, 3, 2, 2}));
    // Any cell of the row may be named, in any order; repeats add up.
    const DispatchTensor at = Dispatch::int_from_data(TensorData::from_i32({4, 4, 0, 1}, Shape{1, 1, 4}), device);
    EXPECT_EQ(values(Dispatch::max_pool1d_with_indices_backward(x, c, at, max(2, 1, 0))), (std::vector<double>{4, 8, 0, 0, 3}));
  }
}

TYPED_TEST(Pool1dOps, BadArgumentsPanicInOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = row(device, DType::F32);
  EXPECT_PANIC(Dispatch::avg_pool1d(tensor_on(device, {1, 2}, DType::F32, {1, 2}), avg(1, 1, 0)), "module-input-rank",
               "avg_pool1d needs a 3-D input [batch, channels, length], got shape [1, 2].");
  EXPECT_PANIC(Dispatch::avg_pool1d(x, avg(0, 1, 0)), "module-option-zero", "avg_pool1d needs kernel_size of at least 1 in every dim, got [0].");
  EXPECT_PANIC(Dispatch::avg_pool1d(x, avg(2, 0, 0)), "module-option-zero", "avg_pool1d needs stride of at least 1 in every dim, got [0].");
  EXPECT_PANIC(Dispatch::avg_pool1d(tensor_on(device, {}, DType::F32, {1, 1, 0}), avg(2, 2, 1)), "pool-empty-input",
               "avg_pool1d needs an input with at least 1 element in each pooled dim, got shape [1, 1, 0].");
  EXPECT_PANIC(Dispatch::avg_pool1d(x, avg(3, 1, 2)), "pool-padding",
               "avg_pool1d needs padding of at most half the kernel size, got padding [2] for kernel_size [3].");
  EXPECT_PANIC(Dispatch::avg_pool1d(x, avg(6, 1, 0)), "pool-kernel-too-large",
               "avg_pool1d needs kernel_size of at most the padded input's size [5], got [6].");
  EXPECT_PANIC(Dispatch::avg_pool1d_backward(x, x, avg(2, 1, 0)), "pool-grad-shape",
               "avg_pool1d_backward needs a gradient of the output's shape [1, 1, 4], got [1, 1, 5].");
  EXPECT_PANIC(Dispatch::adaptive_avg_pool1d(x, Size1{0}), "module-option-zero",
               "adaptive_avg_pool1d needs output_size of at least 1 in every dim, got [0].");
  EXPECT_PANIC(Dispatch::adaptive_avg_pool1d_backward(x, tensor_on(device, {1, 2}, DType::F32, {2, 1, 1})), "pool-grad-shape",
               "adaptive_avg_pool1d_backward needs a gradient of the output's shape [1, 1, 1], got [2, 1, 1].");
  EXPECT_PANIC(Dispatch::adaptive_avg_pool1d_backward(x, tensor_on(device, {1, 2}, DType::F32, {1, 2})), "module-input-rank",
               "adaptive_avg_pool1d_backward needs a 3-D gradient [batch, channels, length], got shape [1, 2].");
  EXPECT_PANIC(Dispatch::max_pool1d(x, max(2, 1, 0, 0)), "module-option-zero", "max_pool1d needs dilation of at least 1 in every dim, got [0].");
  // The span dilation (k - 1) + 1 = 7 is what the padded input is held to.
  EXPECT_PANIC(Dispatch::max_pool1d_indices(x, max(3, 1, 0, 3)), "pool-kernel-too-large",
               "max_pool1d_indices needs kernel_size of at most the padded input's size [5], got [7].");
  EXPECT_PANIC(Dispatch::max_pool1d(tensor_on(device, {1}, DType::F32, {1, 1, 1}), max(2, 1, 1, 2)), "pool-empty-window",
               "max_pool1d has a window with no input cell along dim 2: kernel_size [2], dilation [2] and padding [1] step over its 1 "
               "cells.");
  const DispatchTensor g = tensor_on(device, {1, 2, 4, 8}, DType::F32, {1, 1, 4});
  const DispatchTensor far = Dispatch::int_from_data(TensorData::from_i64({0, 5, -1, 0}, Shape{1, 1, 4}), device);
  EXPECT_PANIC(Dispatch::max_pool1d_with_indices_backward(x, g, far, max(2, 1, 0)), "index-out-of-range",
               "max_pool1d_with_indices_backward got index 5 for dim 2 of size 5.");
  const DispatchTensor short_row = Dispatch::int_from_data(TensorData::from_i64({0, 1}, Shape{1, 1, 2}), device);
  EXPECT_PANIC(Dispatch::max_pool1d_with_indices_backward(x, g, short_row, max(2, 1, 0)), "pool-indices-shape",
               "max_pool1d_with_indices_backward needs indices of the gradient's shape [1, 1, 4], got [1, 1, 2].");
}

// An empty tensor can have a dim of 2^40: its output shape comes from the sizes alone, without a
// look at each of its 2^40 windows (the empty-window check once visited each one: a hang).
TYPED_TEST(Pool1dOps, MaxPool1dOfAnEmptyBatchWithAVeryLongRow) {
  const std::size_t length = std::size_t{1} << 40;
  const DispatchTensor x = tensor_on(plain_device<TypeParam>(), {}, DType::F32, {0, 1, length});
  EXPECT_EQ(Dispatch::float_shape(Dispatch::max_pool1d(x, max(2, 1, 1))), (Shape{0, 1, length + 1}));
  EXPECT_EQ(Dispatch::float_shape(Dispatch::max_pool1d(x, max(2, 1, 1, 3))), (Shape{0, 1, length - 1}));
}

// The span dilation (k - 1) + 1 is compared without wrapping: with dilation 2^63 and kernel_size 3
// it is 2^64 + 1, which wrapped to 1 and passed for a row of 5.
TYPED_TEST(Pool1dOps, MaxPool1dSpanPastTwoToThe64IsTooLarge) {
  const DispatchTensor x = row(plain_device<TypeParam>(), DType::F32);
  EXPECT_PANIC(Dispatch::max_pool1d(x, max(3, 1, 1, std::size_t{1} << 63)), "pool-kernel-too-large",
               "max_pool1d needs kernel_size of at most the padded input's size [7], got [18446744073709551615].");
}

TYPED_TEST(Pool1dOps, BackwardPassesRefuseAnAutodiffDevice) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  const DispatchTensor x = row(device, DType::F32), g = tensor_on(device, {1, 2, 4, 8}, DType::F32, {1, 1, 4});
  EXPECT_PANIC(Dispatch::avg_pool1d_backward(x, g, avg(2, 1, 0)), "not-differentiable", "Can't differentiate avg_pool1d_backward.");
  EXPECT_PANIC(Dispatch::adaptive_avg_pool1d_backward(x, g), "not-differentiable", "Can't differentiate adaptive_avg_pool1d_backward.");
  const DispatchTensor at = Dispatch::int_from_data(TensorData::from_i64({0, 2, 2, 4}, Shape{1, 1, 4}), device);
  EXPECT_PANIC(Dispatch::max_pool1d_with_indices_backward(x, g, at, max(2, 1, 0)), "not-differentiable",
               "Can't differentiate max_pool1d_with_indices_backward.");
}

}  // namespace
}  // namespace crossgrad
