// conv2d and its three backward passes (docs/OPS.md "Module ops") on every backend, plain and
// tracked, against values worked out here from the definition (each output the sum of the kernel's
// taps over the zero-padded input, then + bias), stride, padding, dilation and groups, the gradients
// of x, weight and bias through Autodiff<B> (Burn's backward entry points), the backward passes
// called directly, empty operands, the argument panics in the documented order, and the refusal of
// the backward passes on an autodiff device.
#include "test_support.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class Conv2dOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(Conv2dOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

// x [1, 1, 3, 3] holding 1..9; the weight [1, 1, 2, 2] [[1, 0], [0, 1]]: each output is
// x[oy][ox] + x[oy + 1][ox + 1] of the padded input.
DispatchTensor image(const DispatchDevice& device, DType dt) { return tensor_on(device, {1, 2, 3, 4, 5, 6, 7, 8, 9}, dt, {1, 1, 3, 3}); }
DispatchTensor diagonal(const DispatchDevice& device, DType dt) { return tensor_on(device, {1, 0, 0, 1}, dt, {1, 1, 2, 2}); }
Conv2dOptions options(Size2 stride = {1, 1}, Size2 padding = {0, 0}, Size2 dilation = {1, 1}, std::size_t groups = 1) {
  return Conv2dOptions{stride, padding, dilation, groups};
}

TYPED_TEST(Conv2dOps, EachOutputSumsItsTapsThenTheBias) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor x = image(device, dt), w = diagonal(device, dt);
      const DispatchTensor y = Dispatch::conv2d(x, w, std::nullopt, options());
      EXPECT_EQ(Dispatch::float_shape(y), (Shape{1, 1, 2, 2}));
      EXPECT_EQ(values(y), (std::vector<double>{6, 8, 12, 14}));
      EXPECT_EQ(values(Dispatch::conv2d(x, w, tensor_on(device, {10}, dt, {1}), options())), (std::vector<double>{16, 18, 22, 24}));
      // Padding 1: the border windows read zeros.
      EXPECT_EQ(values(Dispatch::conv2d(x, w, std::nullopt, options({1, 1}, {1, 1}))),
                (std::vector<double>{1, 2, 3, 0, 4, 6, 8, 3, 7, 12, 14, 6, 0, 7, 8, 9}));
      EXPECT_EQ(values(Dispatch::conv2d(x, w, std::nullopt, options({2, 2}))), (std::vector<double>{6}));
      // Dilation 2: the taps are two cells apart, x[0][0] + x[2][2].
      EXPECT_EQ(values(Dispatch::conv2d(x, w, std::nullopt, options({1, 1}, {0, 0}, {2, 2}))), (std::vector<double>{10}));
      // Dilation [2, 1]: rows two apart, columns adjacent: x[0][ox] + x[2][ox + 1].
      EXPECT_EQ(values(Dispatch::conv2d(x, w, std::nullopt, options({1, 1}, {0, 0}, {2, 1}))), (std::vector<double>{9, 11}));
      // Groups 2: each output channel reads its own input channel.
      const DispatchTensor two = tensor_on(device, {1, 2, 3, 4}, dt, {1, 2, 1, 2});
      EXPECT_EQ(values(Dispatch::conv2d(two, tensor_on(device, {2, 3}, dt, {2, 1, 1, 1}), std::nullopt, options({1, 1}, {0, 0}, {1, 1}, 2))),
                (std::vector<double>{2, 4, 9, 12}));
      // No input channels: the bias alone; no batch: an empty result.
      EXPECT_EQ(values(Dispatch::conv2d(tensor_on(device, {}, dt, {1, 0, 2, 2}), tensor_on(device, {}, dt, {2, 0, 1, 1}),
                                        tensor_on(device, {3, -1}, dt, {2}), options())),
                (std::vector<double>{3, 3, 3, 3, -1, -1, -1, -1}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::conv2d(tensor_on(device, {}, dt, {0, 1, 3, 3}), w, std::nullopt, options())),
                (Shape{0, 1, 2, 2}));
    }
  }
}

TYPED_TEST(Conv2dOps, GradientsOfInputWeightAndBias) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor x = image(device, dt), w = diagonal(device, dt), b = tensor_on(device, {10}, dt, {1});
    const DispatchTensor y = Dispatch::conv2d(x, w, b, options());
    const DispatchTensor c = tensor_on(device, {1, 2, 4, 8}, dt, {1, 1, 2, 2});
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(y, c)));
    // Each input cell gathers the cotangents of the outputs whose taps read it, times the tap.
    EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{1, 2, 0, 4, 9, 2, 0, 4, 8}));
    EXPECT_EQ(values(*Dispatch::grad(w, g)), (std::vector<double>{61, 76, 106, 121}));
    EXPECT_EQ(values(*Dispatch::grad(b, g)), (std::vector<double>{15}));
  }
}

TYPED_TEST(Conv2dOps, BackwardPassesCalledDirectly) {
  const DispatchDevice device = plain_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor x = image(device, dt), w = diagonal(device, dt);
    const DispatchTensor c = tensor_on(device, {1, 2, 4, 8}, dt, {1, 1, 2, 2});
    EXPECT_EQ(values(Dispatch::conv2d_x_backward(x, w, c, options())), (std::vector<double>{1, 2, 0, 4, 9, 2, 0, 4, 8}));
    EXPECT_EQ(values(Dispatch::conv2d_weight_backward(x, w, c, options())), (std::vector<double>{61, 76, 106, 121}));
    EXPECT_EQ(values(Dispatch::conv2d_bias_backward(x, tensor_on(device, {0}, dt, {1}), c)), (std::vector<double>{15}));
    // Padding 1: the gradient that reaches the padding is dropped; the weight's gradient sees the
    // padding's zeros. Outputs 4x4, all cotangents 1: each input cell is read by both taps once
    // (the diagonal's), so 2 everywhere; dw[i][j] sums the 16 windows' cells: 45 per tap.
    const DispatchTensor ones = tensor_on(device, std::vector<double>(16, 1.0), dt, {1, 1, 4, 4});
    EXPECT_EQ(values(Dispatch::conv2d_x_backward(x, w, ones, options({1, 1}, {1, 1}))), (std::vector<double>(9, 2.0)));
    EXPECT_EQ(values(Dispatch::conv2d_weight_backward(x, w, ones, options({1, 1}, {1, 1}))), (std::vector<double>(4, 45.0)));
    // No batch: zero gradients for the weight and the bias.
    const DispatchTensor none = tensor_on(device, {}, dt, {0, 1, 3, 3});
    const DispatchTensor no_grad = tensor_on(device, {}, dt, {0, 1, 2, 2});
    EXPECT_EQ(values(Dispatch::conv2d_weight_backward(none, w, no_grad, options())), (std::vector<double>(4, 0.0)));
    EXPECT_EQ(values(Dispatch::conv2d_bias_backward(none, tensor_on(device, {0}, dt, {1}), no_grad)), (std::vector<double>{0}));
  }
}

TYPED_TEST(Conv2dOps, BadArgumentsPanicInOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = image(device, DType::F32), w = diagonal(device, DType::F32);
  EXPECT_PANIC(Dispatch::conv2d(x, diagonal(device, DType::F64), std::nullopt, options()), "dtype-mismatch",
               "conv2d needs operands of one dtype, got F32 and F64.");
  EXPECT_PANIC(Dispatch::conv2d(x, w, tensor_on(device, {0}, DType::F64, {1}), options()), "dtype-mismatch",
               "conv2d needs operands of one dtype, got F32 and F64.");
  EXPECT_PANIC(Dispatch::conv2d(tensor_on(device, std::vector<double>(9), DType::F32, {1, 3, 3}), w, std::nullopt, options()),
               "module-input-rank", "conv2d needs a 4-D input [batch, channels_in, height, width], got shape [1, 3, 3].");
  EXPECT_PANIC(Dispatch::conv2d(x, w, std::nullopt, options({0, 1})), "module-option-zero",
               "conv2d needs stride of at least 1 in every dim, got [0, 1].");
  EXPECT_PANIC(Dispatch::conv2d(tensor_on(device, std::vector<double>(18), DType::F32, {1, 2, 3, 3}),
                                tensor_on(device, std::vector<double>(12), DType::F32, {3, 1, 2, 2}), std::nullopt,
                                options({1, 1}, {0, 0}, {1, 1}, 2)),
               "conv-groups", "conv2d needs groups of at least 1 dividing the input channels 2 and the output channels 3, got groups 2.");
  EXPECT_PANIC(Dispatch::conv2d(x, tensor_on(device, std::vector<double>(8), DType::F32, {1, 2, 2, 2}), std::nullopt, options()),
               "conv-channels", "conv2d needs the weight's dim 1 to be the input channels 1 / groups 1 = 1, got weight shape [1, 2, 2, 2].");
  EXPECT_PANIC(Dispatch::conv2d(x, w, tensor_on(device, {1, 2}, DType::F32, {2}), options()), "module-dim-mismatch",
               "conv2d needs the bias [2] and the weight [1, 1, 2, 2] to agree: dim 0 of the bias is 2, dim 0 of the weight is 1.");
  EXPECT_PANIC(Dispatch::conv2d(x, tensor_on(device, std::vector<double>(16), DType::F32, {1, 1, 4, 4}), std::nullopt, options()),
               "pool-kernel-too-large", "conv2d needs kernel_size of at most the padded input's size [3, 3], got [4, 4].");
  EXPECT_PANIC(Dispatch::conv2d_x_backward(x, w, x, options()), "pool-grad-shape",
               "conv2d_x_backward needs a gradient of the output's shape [1, 1, 2, 2], got [1, 1, 3, 3].");
  EXPECT_PANIC(Dispatch::conv2d_bias_backward(x, tensor_on(device, {1, 2}, DType::F32, {2}), tensor_on(device, {1, 2, 3, 4}, DType::F32, {1, 1, 2, 2})),
               "pool-grad-shape", "conv2d_bias_backward needs a gradient of the output's shape [1, 2, 2, 2], got [1, 1, 2, 2].");
}

// A kernel of 2^17 taps over 2^17 + 1 positions: the gathered matrix would hold 2^34 elements
// (the output only 2^17 + 1), so the backends refuse it before allocating.
TYPED_TEST(Conv2dOps, AGatheredMatrixPastTheSizeLimitPanicsBeforeAllocating) {
  if (TypeParam::name == std::string_view("LibTorch")) {
    GTEST_SKIP() << "LibTorch calls ATen's convolution, which gathers no matrix (and would run 2^34 products)";
  }
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = Dispatch::float_full(Shape{1, 1, 1, std::size_t{1} << 18}, 0.5, device, DType::F32);
  const DispatchTensor w = Dispatch::float_full(Shape{1, 1, 1, std::size_t{1} << 17}, 0.25, device, DType::F32);
  try {
    (void)Dispatch::conv2d(x, w, std::nullopt, options());
    ADD_FAILURE() << "a 2^34-element im2col matrix did not panic";
  } catch (const Panic& p) {
    EXPECT_EQ(p.id(), PanicId::TensorTooLarge) << p.what();
  }
}

TYPED_TEST(Conv2dOps, BackwardPassesRefuseAnAutodiffDevice) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  const DispatchTensor x = image(device, DType::F32), w = diagonal(device, DType::F32);
  const DispatchTensor g = tensor_on(device, {1, 2, 4, 8}, DType::F32, {1, 1, 2, 2});
  EXPECT_PANIC(Dispatch::conv2d_x_backward(x, w, g, options()), "not-differentiable", "Can't differentiate conv2d_x_backward.");
  EXPECT_PANIC(Dispatch::conv2d_weight_backward(x, w, g, options()), "not-differentiable",
               "Can't differentiate conv2d_weight_backward.");
  EXPECT_PANIC(Dispatch::conv2d_bias_backward(x, tensor_on(device, {0}, DType::F32, {1}), g), "not-differentiable",
               "Can't differentiate conv2d_bias_backward.");
}

}  // namespace
}  // namespace crossgrad
