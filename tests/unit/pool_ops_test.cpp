// The 2-D poolings (docs/OPS.md "Module ops"): avg_pool2d, adaptive_avg_pool2d and max_pool2d on every
// backend, plain and tracked, against values worked out here from the definition (windows over the
// padded grid, the two divisors, ceil_mode's last window), their gradients through Autodiff<B>
// (Burn's backward entry points), the backward passes called directly, their argument panics in
// the documented order, and the refusal of the backward passes on an autodiff device.
#include "test_support.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class PoolOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(PoolOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

AvgPool2dOptions pool(Size2 kernel, Size2 stride, Size2 padding, bool count_include_pad, bool ceil_mode) {
  return AvgPool2dOptions{kernel, stride, padding, count_include_pad, ceil_mode};
}

// 1..n in a [1, 1, h, w] plane.
DispatchTensor counting(const DispatchDevice& device, DType dt, std::size_t h, std::size_t w) {
  std::vector<double> v(h * w);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i + 1);
  return tensor_on(device, v, dt, {1, 1, h, w});
}

TYPED_TEST(PoolOps, AvgPool2dAveragesEachWindow) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      // 1 2 3 / 4 5 6 / 7 8 9, windows of 2 every 2 with one cell of padding: rows {pad, 0},
      // {1, 2}, the same for columns.
      const DispatchTensor x = counting(device, dt, 3, 3);
      const DispatchTensor excluded = Dispatch::avg_pool2d(x, pool({2, 2}, {2, 2}, {1, 1}, false, false));
      EXPECT_EQ(Dispatch::float_shape(excluded), (Shape{1, 1, 2, 2}));
      EXPECT_EQ(values(excluded), (std::vector<double>{1, 2.5, 5.5, 7}));
      // count_include_pad: every window divides by its 4 grid cells.
      EXPECT_EQ(values(Dispatch::avg_pool2d(x, pool({2, 2}, {2, 2}, {1, 1}, true, false))),
                (std::vector<double>{0.25, 1.25, 2.75, 7}));
      // 1..16 in 4x4, windows of 2 every 3: floor mode keeps one window per dim; ceil_mode adds
      // the window at 3 that overhangs the grid, and its overhang is no cell, not even padding.
      const DispatchTensor y = counting(device, dt, 4, 4);
      EXPECT_EQ(values(Dispatch::avg_pool2d(y, pool({2, 2}, {3, 3}, {0, 0}, true, false))), (std::vector<double>{3.5}));
      const DispatchTensor ceil = Dispatch::avg_pool2d(y, pool({2, 2}, {3, 3}, {0, 0}, true, true));
      EXPECT_EQ(Dispatch::float_shape(ceil), (Shape{1, 1, 2, 2}));
      EXPECT_EQ(values(ceil), (std::vector<double>{3.5, 6, 13.5, 16}));
      // ... but not a window that would start in the right padding: (4 + 2 - 2) / 2 rounded up
      // is 2 windows after the first, and the third would start at grid cell 4 = in + padding.
      EXPECT_EQ(Dispatch::float_shape(Dispatch::avg_pool2d(y, pool({2, 2}, {2, 2}, {1, 1}, true, true))), (Shape{1, 1, 3, 3}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::avg_pool2d(y, pool({3, 1}, {2, 1}, {1, 0}, true, true))), (Shape{1, 1, 3, 4}));
      // Planes are pooled on their own; an empty batch gives an empty result.
      const DispatchTensor planes = tensor_on(device, {1, 3, 5, 7, 10, 20, 30, 40}, dt, {2, 1, 2, 2});
      EXPECT_EQ(values(Dispatch::avg_pool2d(planes, pool({2, 2}, {1, 1}, {0, 0}, true, false))), (std::vector<double>{4, 25}));
      const DispatchTensor empty = tensor_on(device, {}, dt, {0, 3, 4, 4});
      EXPECT_EQ(Dispatch::float_shape(Dispatch::avg_pool2d(empty, pool({2, 2}, {2, 2}, {0, 0}, true, false))),
                (Shape{0, 3, 2, 2}));
    }
  }
}

TYPED_TEST(PoolOps, AvgPool2dGradientSharesEachOutputAmongItsWindow) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const auto grad_of = [&](std::size_t h, std::size_t w, const AvgPool2dOptions& o, const std::vector<double>& c) {
      const DispatchTensor x = counting(device, dt, h, w);
      const DispatchTensor y = Dispatch::avg_pool2d(x, o);
      const DispatchTensor weights = tensor_on(device, c, dt, Dispatch::float_shape(y));
      return values(*Dispatch::grad(x, Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(y, weights)))));
    };
    // Overlapping windows of 2 every 1 over 3x3, divisor 4: each cell sums the shares c / 4 of the
    // windows that contain it.
    EXPECT_EQ(grad_of(3, 3, pool({2, 2}, {1, 1}, {0, 0}, true, false), {4, 8, 16, 32}),
              (std::vector<double>{1, 3, 2, 5, 15, 10, 4, 12, 8}));
    // With padding, the divisor is the window's input cells (1, 2, 2, 4) or its grid cells (4).
    EXPECT_EQ(grad_of(3, 3, pool({2, 2}, {2, 2}, {1, 1}, false, false), {1, 2, 2, 4}), (std::vector<double>(9, 1.0)));
    EXPECT_EQ(grad_of(3, 3, pool({2, 2}, {2, 2}, {1, 1}, true, false), {1, 2, 2, 4}),
              (std::vector<double>{0.25, 0.5, 0.5, 0.5, 1, 1, 0.5, 1, 1}));
    // Cells in no window (stride past the kernel) get +0.
    EXPECT_EQ(grad_of(3, 3, pool({1, 1}, {2, 2}, {0, 0}, true, false), {1, 2, 3, 4}),
              (std::vector<double>{1, 0, 2, 0, 0, 0, 3, 0, 4}));
  }
}

TYPED_TEST(PoolOps, AdaptiveAvgPool2dAveragesOverlappingWindows) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      // 1 2 3 / 4 5 6 to 1x2: columns [0, 2) and [1, 3) overlap at column 1.
      const DispatchTensor x = counting(device, dt, 2, 3);
      EXPECT_EQ(values(Dispatch::adaptive_avg_pool2d(x, {1, 2})), (std::vector<double>{3, 4}));
      // To 3x3: rows {0}, {0, 1}, {1}; columns one each.
      EXPECT_EQ(values(Dispatch::adaptive_avg_pool2d(x, {3, 3})), (std::vector<double>{1, 2, 3, 2.5, 3.5, 4.5, 4, 5, 6}));
      EXPECT_EQ(values(Dispatch::adaptive_avg_pool2d(x, {1, 1})), (std::vector<double>{3.5}));
    }
  }
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor x = counting(device, dt, 2, 3);
    const DispatchTensor y = Dispatch::adaptive_avg_pool2d(x, {1, 2});
    const DispatchTensor c = tensor_on(device, {4, 8}, dt, {1, 1, 1, 2});
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(y, c)));
    EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{1, 3, 2, 1, 3, 2}));
  }
}

MaxPool2dOptions max_pool(Size2 kernel, Size2 stride, Size2 padding, Size2 dilation, bool ceil_mode) {
  return MaxPool2dOptions{kernel, stride, padding, dilation, ceil_mode};
}

std::vector<std::int64_t> cells(const DispatchTensor& indices) { return Dispatch::int_into_data(indices).to_i64(); }

TYPED_TEST(PoolOps, MaxPool2dKeepsTheFirstMaximumAndTheLastNan) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      // 1..16 in 4x4, windows of 2 every 2: the bottom-right cell of each.
      const DispatchTensor y = counting(device, dt, 4, 4);
      const MaxPool2dOptions k2 = max_pool({2, 2}, {2, 2}, {0, 0}, {1, 1}, false);
      EXPECT_EQ(values(Dispatch::max_pool2d(y, k2)), (std::vector<double>{6, 8, 14, 16}));
      EXPECT_EQ(cells(Dispatch::max_pool2d_indices(y, k2)), (std::vector<std::int64_t>{5, 7, 13, 15}));
      const auto [kept, at] = Dispatch::max_pool2d_with_indices(y, k2);
      EXPECT_EQ(values(kept), (std::vector<double>{6, 8, 14, 16}));
      EXPECT_EQ(cells(at), (std::vector<std::int64_t>{5, 7, 13, 15}));
      // Dilation 2: a window of 2x2 cells spanning 3x3; padding 1 skips the padded cells.
      const MaxPool2dOptions dilated = max_pool({2, 2}, {1, 1}, {1, 1}, {2, 2}, false);
      EXPECT_EQ(Dispatch::float_shape(Dispatch::max_pool2d(y, dilated)), (Shape{1, 1, 4, 4}));
      EXPECT_EQ(cells(Dispatch::max_pool2d_indices(y, dilated))[0], 5);  // cells 0, 2, 8, 10 of the grid: (1, 1) wins
      // Ties: the first of equal values in row-major order (-0 then +0: the -0 is kept); NaNs: the
      // last one (PyTorch's scan: a NaN replaces whatever was kept).
      const DispatchTensor t = tensor_on(device, {-0.0, 0.0, 3, 3, NAN, 1, NAN, 2}, dt, {1, 2, 2, 2});
      const MaxPool2dOptions whole = max_pool({2, 2}, {1, 1}, {0, 0}, {1, 1}, false);
      EXPECT_EQ(cells(Dispatch::max_pool2d_indices(t, whole)), (std::vector<std::int64_t>{2, 2}));
      const DispatchTensor zeros = tensor_on(device, {-0.0, 0.0, -1, -1}, dt, {1, 1, 2, 2});
      const std::vector<double> z = values(Dispatch::max_pool2d(zeros, whole));
      EXPECT_TRUE(z[0] == 0 && std::signbit(z[0]));
      const DispatchTensor nans = tensor_on(device, {1, NAN, 5, NAN}, dt, {1, 1, 2, 2});
      EXPECT_EQ(cells(Dispatch::max_pool2d_indices(nans, whole)), (std::vector<std::int64_t>{3}));
      EXPECT_TRUE(std::isnan(values(Dispatch::max_pool2d(nans, whole))[0]));
      // All -inf: the window's first input cell.
      const DispatchTensor low = tensor_on(device, {-INFINITY, -INFINITY, -INFINITY, -INFINITY}, dt, {1, 1, 2, 2});
      EXPECT_EQ(cells(Dispatch::max_pool2d_indices(low, max_pool({2, 2}, {1, 1}, {1, 1}, {1, 1}, false))),
                (std::vector<std::int64_t>{0, 0, 1, 0, 0, 1, 2, 2, 3}));
    }
  }
}

TYPED_TEST(PoolOps, MaxPool2dGradientGoesToEachWindowsMaximum) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    // 3x3, windows of 2 every 1: the 9 in the centre is every window's maximum and gets all four.
    const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 9, 5, 6, 7, 8}, dt, {1, 1, 3, 3});
    const DispatchTensor y = Dispatch::max_pool2d(x, max_pool({2, 2}, {1, 1}, {0, 0}, {1, 1}, false));
    EXPECT_EQ(values(y), (std::vector<double>{9, 9, 9, 9}));
    const DispatchTensor c = tensor_on(device, {1, 2, 4, 8}, dt, {1, 1, 2, 2});
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(y, c)));
    EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{0, 0, 0, 0, 15, 0, 0, 0, 0}));
  }
  // Called directly, any cells of the plane: each output's gradient goes where its index says.
  const DispatchDevice plain = plain_device<TypeParam>();
  const DispatchTensor x = counting(plain, DType::F32, 2, 2);
  const DispatchTensor g = tensor_on(plain, {1, 2, 4, 8}, DType::F32, {1, 1, 2, 2});
  const DispatchTensor at = Dispatch::int_from_data(TensorData::from_i32({3, 3, 0, 1}, Shape{1, 1, 2, 2}), plain);
  EXPECT_EQ(values(Dispatch::max_pool2d_with_indices_backward(x, g, at, max_pool({1, 1}, {1, 1}, {0, 0}, {1, 1}, false))),
            (std::vector<double>{4, 8, 0, 3}));
  const DispatchTensor far = Dispatch::int_from_data(TensorData::from_i64({0, 4, -1, 0}, Shape{1, 1, 2, 2}), plain);
  EXPECT_PANIC(Dispatch::max_pool2d_with_indices_backward(x, g, far, max_pool({1, 1}, {1, 1}, {0, 0}, {1, 1}, false)),
               "index-out-of-range", "max_pool2d_with_indices_backward got index 4 for dim 2 of size 4.");
  EXPECT_PANIC(Dispatch::max_pool2d_with_indices_backward(x, tensor_on(plain, {1, 2, 4, 8}, DType::F64, {1, 1, 2, 2}), at,
                                                         max_pool({1, 1}, {1, 1}, {0, 0}, {1, 1}, false)),
               "dtype-mismatch", "max_pool2d_with_indices_backward needs operands of one dtype, got F32 and F64.");
  const DispatchTensor row = Dispatch::int_from_data(TensorData::from_i64({0, 1}, Shape{1, 1, 1, 2}), plain);
  EXPECT_PANIC(Dispatch::max_pool2d_with_indices_backward(x, g, row, max_pool({1, 1}, {1, 1}, {0, 0}, {1, 1}, false)),
               "pool-indices-shape", "max_pool2d_with_indices_backward needs indices of the gradient's shape [1, 1, 2, 2], got [1, 1, 1, 2].");
  EXPECT_PANIC(Dispatch::max_pool2d(x, max_pool({2, 2}, {1, 1}, {0, 0}, {0, 1}, false)), "module-option-zero",
               "max_pool2d needs dilation of at least 1 in every dim, got [0, 1].");
  // The span dilation (k - 1) + 1 = 3 is what the padded input is held to; padding, PyTorch's rule,
  // to half the kernel_size; every window must reach the input.
  EXPECT_PANIC(Dispatch::max_pool2d(x, max_pool({2, 2}, {1, 1}, {0, 0}, {2, 1}, false)), "pool-kernel-too-large",
               "max_pool2d needs kernel_size of at most the padded input's size [2, 2], got [3, 2].");
  EXPECT_PANIC(Dispatch::max_pool2d(x, max_pool({2, 2}, {1, 1}, {2, 0}, {3, 1}, false)), "pool-padding",
               "max_pool2d needs padding of at most half the kernel size, got padding [2, 0] for kernel_size [2, 2].");
  EXPECT_PANIC(Dispatch::max_pool2d(counting(plain, DType::F32, 1, 2), max_pool({2, 1}, {1, 1}, {1, 0}, {2, 1}, false)),
               "pool-empty-window",
               "max_pool2d has a window with no input cell along dim 2: kernel_size [2, 1], dilation [2, 1] and padding [1, 0] "
               "step over its 1 cells.");
  EXPECT_PANIC(Dispatch::max_pool2d_with_indices_backward(Dispatch::float_detach(counting(autodiff_device<TypeParam>(), DType::F32, 2, 2)),
                                                          Dispatch::float_detach(tensor_on(autodiff_device<TypeParam>(), {1, 2, 4, 8}, DType::F32, {1, 1, 2, 2})),
                                                          Dispatch::int_from_data(TensorData::from_i64({0, 1, 2, 3}, Shape{1, 1, 2, 2}), autodiff_device<TypeParam>()),
                                                          max_pool({1, 1}, {1, 1}, {0, 0}, {1, 1}, false)),
               "not-differentiable", "Can't differentiate max_pool2d_with_indices_backward.");
}

TYPED_TEST(PoolOps, BackwardPassesAreCallableOnPlainTensors) {
  const DispatchDevice device = plain_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor x = counting(device, dt, 3, 3);
    const DispatchTensor g = tensor_on(device, {4, 8, 16, 32}, dt, {1, 1, 2, 2});
    EXPECT_EQ(values(Dispatch::avg_pool2d_backward(x, g, pool({2, 2}, {1, 1}, {0, 0}, true, false))),
              (std::vector<double>{1, 3, 2, 5, 15, 10, 4, 12, 8}));
    const DispatchTensor x23 = counting(device, dt, 2, 3);
    EXPECT_EQ(values(Dispatch::adaptive_avg_pool2d_backward(x23, tensor_on(device, {4, 8}, dt, {1, 1, 1, 2}))),
              (std::vector<double>{1, 3, 2, 1, 3, 2}));
  }
}

TYPED_TEST(PoolOps, BadArgumentsPanicInOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = counting(device, DType::F32, 4, 4);
  const DispatchTensor flat = tensor_on(device, {1, 2, 3, 4}, DType::F32, {2, 2});
  // The rank before the options, kernel_size before stride, padding before the kernel's fit.
  EXPECT_PANIC(Dispatch::avg_pool2d(flat, pool({0, 0}, {0, 0}, {9, 9}, true, false)), "module-input-rank",
               "avg_pool2d needs a 4-D input [batch, channels, height, width], got shape [2, 2].");
  EXPECT_PANIC(Dispatch::avg_pool2d(x, pool({0, 2}, {0, 1}, {0, 0}, true, false)), "module-option-zero",
               "avg_pool2d needs kernel_size of at least 1 in every dim, got [0, 2].");
  EXPECT_PANIC(Dispatch::avg_pool2d(x, pool({2, 2}, {1, 0}, {2, 2}, true, false)), "module-option-zero",
               "avg_pool2d needs stride of at least 1 in every dim, got [1, 0].");
  EXPECT_PANIC(Dispatch::avg_pool2d(x, pool({3, 9}, {1, 1}, {1, 5}, true, false)), "pool-padding",
               "avg_pool2d needs padding of at most half the kernel size, got padding [1, 5] for kernel_size [3, 9].");
  EXPECT_PANIC(Dispatch::avg_pool2d(x, pool({3, 7}, {1, 1}, {1, 1}, true, false)), "pool-kernel-too-large",
               "avg_pool2d needs kernel_size of at most the padded input's size [6, 6], got [3, 7].");
  EXPECT_PANIC(Dispatch::adaptive_avg_pool2d(x, {0, 1}), "module-option-zero",
               "adaptive_avg_pool2d needs output_size of at least 1 in every dim, got [0, 1].");
  // An empty height or width, even where padding would make windows (of padding only).
  const DispatchTensor no_rows = tensor_on(device, {}, DType::F32, {1, 1, 0, 4});
  EXPECT_PANIC(Dispatch::avg_pool2d(no_rows, pool({2, 3}, {2, 2}, {1, 1}, true, false)), "pool-empty-input",
               "avg_pool2d needs an input with at least 1 element in each pooled dim, got shape [1, 1, 0, 4].");
  EXPECT_PANIC(Dispatch::max_pool2d_indices(no_rows, MaxPool2dOptions{{2, 3}, {2, 2}, {1, 1}, {1, 1}, false}),
               "pool-empty-input", "max_pool2d_indices needs an input with at least 1 element in each pooled dim, got shape [1, 1, 0, 4].");
  EXPECT_PANIC(Dispatch::adaptive_avg_pool2d(tensor_on(device, {}, DType::F32, {1, 1, 3, 0}), {1, 1}), "pool-empty-input",
               "adaptive_avg_pool2d needs an input with at least 1 element in each pooled dim, got shape [1, 1, 3, 0].");
  // The backward passes: the gradient's dtype, then the forward's checks, then its shape.
  const DispatchTensor g64 = tensor_on(device, {1, 2, 3, 4}, DType::F64, {1, 1, 2, 2});
  EXPECT_PANIC(Dispatch::avg_pool2d_backward(x, g64, pool({0, 0}, {2, 2}, {0, 0}, true, false)), "dtype-mismatch",
               "avg_pool2d_backward needs operands of one dtype, got F32 and F64.");
  const DispatchTensor g = tensor_on(device, {1, 2, 3, 4}, DType::F32, {1, 1, 2, 2});
  // The forward's checks name the backward pass that was called.
  EXPECT_PANIC(Dispatch::avg_pool2d_backward(x, g, pool({2, 0}, {1, 1}, {0, 0}, true, false)), "module-option-zero",
               "avg_pool2d_backward needs kernel_size of at least 1 in every dim, got [2, 0].");
  EXPECT_PANIC(Dispatch::avg_pool2d_backward(flat, g, pool({2, 2}, {1, 1}, {0, 0}, true, false)), "module-input-rank",
               "avg_pool2d_backward needs a 4-D input [batch, channels, height, width], got shape [2, 2].");
  EXPECT_PANIC(Dispatch::avg_pool2d_backward(x, g, pool({2, 2}, {1, 1}, {0, 0}, true, false)), "pool-grad-shape",
               "avg_pool2d_backward needs a gradient of the output's shape [1, 1, 3, 3], got [1, 1, 2, 2].");
  EXPECT_PANIC(Dispatch::adaptive_avg_pool2d_backward(x, tensor_on(device, {1, 2}, DType::F32, {2, 1, 1, 1})),
               "pool-grad-shape", "adaptive_avg_pool2d_backward needs a gradient of the output's shape [1, 1, 1, 1], got [2, 1, 1, 1].");
  EXPECT_PANIC(Dispatch::adaptive_avg_pool2d_backward(x, flat), "module-input-rank",
               "adaptive_avg_pool2d_backward needs a 4-D gradient [batch, channels, height, width], got shape [2, 2].");
}

TYPED_TEST(PoolOps, BackwardPassesRefuseAnAutodiffDevice) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  const DispatchTensor x = counting(device, DType::F32, 3, 3);
  const DispatchTensor g = tensor_on(device, {4, 8, 16, 32}, DType::F32, {1, 1, 2, 2});
  // Before any argument check: these options are invalid too.
  EXPECT_PANIC(Dispatch::avg_pool2d_backward(x, g, pool({0, 0}, {0, 0}, {0, 0}, true, false)), "not-differentiable",
               "Can't differentiate avg_pool2d_backward.");
  EXPECT_PANIC(Dispatch::adaptive_avg_pool2d_backward(x, g), "not-differentiable",
               "Can't differentiate adaptive_avg_pool2d_backward.");
}

}  // namespace
}  // namespace crossgrad
