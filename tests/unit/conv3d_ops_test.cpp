// conv3d, conv_transpose3d and their backward passes (docs/OPS.md "Module ops") on every backend,
// plain and tracked, against values worked out here from the definitions (conv3d: each output the
// sum of the kernel's taps over the zero-padded volume, then + bias; conv_transpose3d: each input
// cell spread over the output cells its taps reach), the depth's stride, padding and padding_out,
// the gradients of x, weight and bias through Autodiff<B> (Burn's backward entry points), the
// backward passes called directly, the argument panics with 3-D values, and the refusal of the
// backward passes on an autodiff device.
#include "test_support.hpp"

#include <optional>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class Conv3dOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(Conv3dOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

// x [1, 1, 2, 2, 2] holding 1..8 (cell (d, h, w) is 1 + 4 d + 2 h + w); the weight [1, 1, 2, 1, 1]
// [1, 10]: output (d, h, w) is x(d, h, w) + 10 x(d + 1, h, w) of the padded volume.
DispatchTensor volume(const DispatchDevice& device, DType dt) { return tensor_on(device, {1, 2, 3, 4, 5, 6, 7, 8}, dt, {1, 1, 2, 2, 2}); }
DispatchTensor depth_kernel(const DispatchDevice& device, DType dt) { return tensor_on(device, {1, 10}, dt, {1, 1, 2, 1, 1}); }
Conv3dOptions conv_options(Size3 stride = {1, 1, 1}, Size3 padding = {0, 0, 0}) { return Conv3dOptions{stride, padding, {1, 1, 1}, 1}; }
ConvTranspose3dOptions transposed_options(Size3 stride = {1, 1, 1}, Size3 padding = {0, 0, 0}, Size3 padding_out = {0, 0, 0}) {
  return ConvTranspose3dOptions{stride, padding, padding_out, {1, 1, 1}, 1};
}

TYPED_TEST(Conv3dOps, EachOutputSumsItsTapsOverTheDepthThenTheBias) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor x = volume(device, dt), w = depth_kernel(device, dt);
      const DispatchTensor y = Dispatch::conv3d(x, w, std::nullopt, conv_options());
      EXPECT_EQ(Dispatch::float_shape(y), (Shape{1, 1, 1, 2, 2}));
      EXPECT_EQ(values(y), (std::vector<double>{51, 62, 73, 84}));
      EXPECT_EQ(values(Dispatch::conv3d(x, w, tensor_on(device, {100}, dt, {1}), conv_options())),
                (std::vector<double>{151, 162, 173, 184}));
      // Depth padding 1: the first and last planes read a zero plane.
      EXPECT_EQ(values(Dispatch::conv3d(x, w, std::nullopt, conv_options({1, 1, 1}, {1, 0, 0}))),
                (std::vector<double>{10, 20, 30, 40, 51, 62, 73, 84, 5, 6, 7, 8}));
      // Depth stride 2 over that padding: planes 0 and 2.
      EXPECT_EQ(values(Dispatch::conv3d(x, w, std::nullopt, conv_options({2, 1, 1}, {1, 0, 0}))),
                (std::vector<double>{10, 20, 30, 40, 5, 6, 7, 8}));
      // No input channels: the bias alone.
      EXPECT_EQ(values(Dispatch::conv3d(tensor_on(device, {}, dt, {1, 0, 1, 1, 2}), tensor_on(device, {}, dt, {2, 0, 1, 1, 1}),
                                        tensor_on(device, {3, -1}, dt, {2}), conv_options())),
                (std::vector<double>{3, 3, -1, -1}));
    }
  }
}

TYPED_TEST(Conv3dOps, TransposedSpreadsEachCellOverTheDepthThenTheBias) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      // x [1, 1, 1, 1, 2] {1, 2} through the weight [1, 1, 2, 1, 1] [1, 10]: output (t, 0, w) is
      // x(w) * weight(t).
      const DispatchTensor x = tensor_on(device, {1, 2}, dt, {1, 1, 1, 1, 2}), w = depth_kernel(device, dt);
      const DispatchTensor y = Dispatch::conv_transpose3d(x, w, std::nullopt, transposed_options());
      EXPECT_EQ(Dispatch::float_shape(y), (Shape{1, 1, 2, 1, 2}));
      EXPECT_EQ(values(y), (std::vector<double>{1, 2, 10, 20}));
      EXPECT_EQ(values(Dispatch::conv_transpose3d(x, w, tensor_on(device, {100}, dt, {1}), transposed_options())),
                (std::vector<double>{101, 102, 110, 120}));
      // Depth stride 2 with padding_out 1: a third plane that no tap reaches.
      EXPECT_EQ(values(Dispatch::conv_transpose3d(x, w, std::nullopt, transposed_options({2, 1, 1}, {0, 0, 0}, {1, 0, 0}))),
                (std::vector<double>{1, 2, 10, 20, 0, 0}));
      // Width padding 1 crops the first and last cells of the full row {1, 12, 123, 230, 300} that
      // x [1, 1, 1, 1, 3] {1, 2, 3} spreads through a [1, 1, 1, 1, 3] kernel {1, 10, 100}.
      EXPECT_EQ(values(Dispatch::conv_transpose3d(tensor_on(device, {1, 2, 3}, dt, {1, 1, 1, 1, 3}),
                                                  tensor_on(device, {1, 10, 100}, dt, {1, 1, 1, 1, 3}), std::nullopt,
                                                  transposed_options({1, 1, 1}, {0, 0, 1}))),
                (std::vector<double>{12, 123, 230}));
    }
  }
}

TYPED_TEST(Conv3dOps, GradientsOfInputWeightAndBias) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor w = depth_kernel(device, dt), b = tensor_on(device, {100}, dt, {1});
    const DispatchTensor x = volume(device, dt);
    const DispatchTensor c = tensor_on(device, {1, 2, 4, 8}, dt, {1, 1, 1, 2, 2});
    Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(Dispatch::conv3d(x, w, b, conv_options()), c)));
    // Plane 0 is read by tap 1, plane 1 by tap 10.
    EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{1, 2, 4, 8, 10, 20, 40, 80}));
    EXPECT_EQ(values(*Dispatch::grad(w, g)), (std::vector<double>{49, 109}));
    EXPECT_EQ(values(*Dispatch::grad(b, g)), (std::vector<double>{15}));

    const DispatchTensor xt = tensor_on(device, {1, 2}, dt, {1, 1, 1, 1, 2});
    const DispatchTensor ct = tensor_on(device, {1, 2, 4, 8}, dt, {1, 1, 2, 1, 2});
    g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(Dispatch::conv_transpose3d(xt, w, b, transposed_options()), ct)));
    // x(w) reaches output (t, 0, w) through tap t.
    EXPECT_EQ(values(*Dispatch::grad(xt, g)), (std::vector<double>{41, 82}));
    EXPECT_EQ(values(*Dispatch::grad(w, g)), (std::vector<double>{5, 20}));
    EXPECT_EQ(values(*Dispatch::grad(b, g)), (std::vector<double>{15}));
  }
}

TYPED_TEST(Conv3dOps, BackwardPassesCalledDirectly) {
  const DispatchDevice device = plain_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor x = volume(device, dt), w = depth_kernel(device, dt);
    const DispatchTensor c = tensor_on(device, {1, 2, 4, 8}, dt, {1, 1, 1, 2, 2});
    EXPECT_EQ(values(Dispatch::conv3d_x_backward(x, w, c, conv_options())), (std::vector<double>{1, 2, 4, 8, 10, 20, 40, 80}));
    EXPECT_EQ(values(Dispatch::conv3d_weight_backward(x, w, c, conv_options())), (std::vector<double>{49, 109}));
    EXPECT_EQ(values(Dispatch::conv3d_bias_backward(x, tensor_on(device, {0}, dt, {1}), c)), (std::vector<double>{15}));
    const DispatchTensor xt = tensor_on(device, {1, 2}, dt, {1, 1, 1, 1, 2});
    const DispatchTensor ct = tensor_on(device, {1, 2, 4, 8}, dt, {1, 1, 2, 1, 2});
    EXPECT_EQ(values(Dispatch::conv_transpose3d_x_backward(xt, w, ct, transposed_options())), (std::vector<double>{41, 82}));
    EXPECT_EQ(values(Dispatch::conv_transpose3d_weight_backward(xt, w, ct, transposed_options())), (std::vector<double>{5, 20}));
    EXPECT_EQ(values(Dispatch::conv_transpose3d_bias_backward(xt, tensor_on(device, {0}, dt, {1}), ct)), (std::vector<double>{15}));
    // No batch: zero gradients for the weight.
    EXPECT_EQ(values(Dispatch::conv3d_weight_backward(tensor_on(device, {}, dt, {0, 1, 2, 2, 2}), w,
                                                      tensor_on(device, {}, dt, {0, 1, 1, 2, 2}), conv_options())),
              (std::vector<double>(2, 0.0)));
  }
}

TYPED_TEST(Conv3dOps, BadArgumentsPanicWithThreeDValues) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = volume(device, DType::F32), w = depth_kernel(device, DType::F32);
  EXPECT_PANIC(Dispatch::conv3d(tensor_on(device, std::vector<double>(8), DType::F32, {1, 1, 2, 4}), w, std::nullopt, conv_options()),
               "module-input-rank", "conv3d needs a 5-D input [batch, channels_in, depth, height, width], got shape [1, 1, 2, 4].");
  EXPECT_PANIC(Dispatch::conv3d(x, w, std::nullopt, conv_options({1, 0, 1})), "module-option-zero",
               "conv3d needs stride of at least 1 in every dim, got [1, 0, 1].");
  EXPECT_PANIC(Dispatch::conv3d(x, tensor_on(device, {1, 2, 3}, DType::F32, {1, 1, 3, 1, 1}), std::nullopt, conv_options()),
               "pool-kernel-too-large", "conv3d needs kernel_size of at most the padded input's size [2, 2, 2], got [3, 1, 1].");
  EXPECT_PANIC(Dispatch::conv3d_x_backward(x, w, x, conv_options()), "pool-grad-shape",
               "conv3d_x_backward needs a gradient of the output's shape [1, 1, 1, 2, 2], got [1, 1, 2, 2, 2].");
  EXPECT_PANIC(Dispatch::conv3d_bias_backward(x, tensor_on(device, {1, 2}, DType::F32, {2}),
                                              tensor_on(device, {1, 2, 3, 4}, DType::F32, {1, 1, 1, 2, 2})),
               "pool-grad-shape", "conv3d_bias_backward needs a gradient of the output's shape [1, 2, 1, 2, 2], got [1, 1, 1, 2, 2].");
  EXPECT_PANIC(Dispatch::conv3d(x, w, tensor_on(device, {0}, DType::F64, {1}), conv_options()), "dtype-mismatch",
               "conv3d needs operands of one dtype, got F32 and F64.");
  const DispatchTensor xt = tensor_on(device, {1, 2}, DType::F32, {1, 1, 1, 1, 2});
  EXPECT_PANIC(Dispatch::conv_transpose3d(xt, tensor_on(device, {1}, DType::F32, {1, 1, 1}), std::nullopt, transposed_options()),
               "module-input-rank",
               "conv_transpose3d needs a 5-D weight [channels_in, channels_out_per_group, kernel_depth, kernel_height, kernel_width], "
               "got shape [1, 1, 1].");
  EXPECT_PANIC(Dispatch::conv_transpose3d(xt, w, tensor_on(device, {0}, DType::F64, {1}), transposed_options()), "dtype-mismatch",
               "conv_transpose3d needs operands of one dtype, got F32 and F64.");
  EXPECT_PANIC(Dispatch::conv_transpose3d(xt, w, std::nullopt, transposed_options({1, 1, 1}, {0, 0, 0}, {1, 0, 0})), "conv-padding-out",
               "conv_transpose3d needs padding_out smaller than stride or dilation in every dim, got padding_out [1, 0, 0], "
               "stride [1, 1, 1], dilation [1, 1, 1].");
  EXPECT_PANIC(Dispatch::conv_transpose3d(xt, tensor_on(device, {1}, DType::F32, {1, 1, 1, 1, 1}), std::nullopt,
                                          transposed_options({1, 1, 1}, {1, 0, 0})),
               "conv-transpose-size",
               "conv_transpose3d needs an input of at least 1 cell and an output of 1 to 2^64 - 1 cells in each dim, got input "
               "[1, 1, 2] and output (input - 1) * stride + dilation * (kernel - 1) + 1 + padding_out - 2 * padding = [-1, 1, 2].");
  EXPECT_PANIC(Dispatch::conv_transpose3d(xt, tensor_on(device, {1, 2}, DType::F32, {2, 1, 1, 1, 1}), std::nullopt, transposed_options()),
               "conv-transpose-weight", "conv_transpose3d needs the weight's dim 0 to be the input channels 1, got weight shape [2, 1, 1, 1, 1].");
}

TYPED_TEST(Conv3dOps, BackwardPassesRefuseAnAutodiffDevice) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  const DispatchTensor x = volume(device, DType::F32), w = depth_kernel(device, DType::F32);
  const DispatchTensor g = tensor_on(device, {1, 2, 4, 8}, DType::F32, {1, 1, 1, 2, 2});
  EXPECT_PANIC(Dispatch::conv3d_x_backward(x, w, g, conv_options()), "not-differentiable", "Can't differentiate conv3d_x_backward.");
  EXPECT_PANIC(Dispatch::conv_transpose3d_weight_backward(x, w, g, transposed_options()), "not-differentiable",
               "Can't differentiate conv_transpose3d_weight_backward.");
  EXPECT_PANIC(Dispatch::conv3d_bias_backward(x, tensor_on(device, {0}, DType::F32, {1}), g), "not-differentiable",
               "Can't differentiate conv3d_bias_backward.");
}

}  // namespace
}  // namespace crossgrad
