// conv_transpose1d and its three backward passes (docs/OPS.md "Module ops") on every backend, plain
// and tracked, against values worked out here from the definition (input cell l adds x[l] * w[k] to
// output cell l * stride + k * dilation - padding, padding_out cells appended, then + bias), the
// gradients of x, weight and bias through Autodiff<B> (Burn's backward entry points), the backward
// passes called directly, empty operands, the argument panics in the documented order with the
// 1-D values, and the refusal of the backward passes on an autodiff device.
#include "test_support.hpp"

#include <optional>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class ConvTranspose1dOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(ConvTranspose1dOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

// x [1, 1, 3] holding 1, 2, 3; the weight [1, 1, 2] [1, 10]: x[l] lands as x[l] on output l and as
// 10 x[l] on output l + dilation.
DispatchTensor row(const DispatchDevice& device, DType dt) { return tensor_on(device, {1, 2, 3}, dt, {1, 1, 3}); }
DispatchTensor kernel(const DispatchDevice& device, DType dt) { return tensor_on(device, {1, 10}, dt, {1, 1, 2}); }
ConvTranspose1dOptions options(std::size_t stride = 1, std::size_t padding = 0, std::size_t padding_out = 0,
                               std::size_t dilation = 1, std::size_t groups = 1) {
  return ConvTranspose1dOptions{{stride}, {padding}, {padding_out}, {dilation}, groups};
}

TYPED_TEST(ConvTranspose1dOps, EachInputCellSpreadsOverItsTapsThenTheBias) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor x = row(device, dt), w = kernel(device, dt);
      const DispatchTensor y = Dispatch::conv_transpose1d(x, w, std::nullopt, options());
      EXPECT_EQ(Dispatch::float_shape(y), (Shape{1, 1, 4}));
      EXPECT_EQ(values(y), (std::vector<double>{1, 12, 23, 30}));
      EXPECT_EQ(values(Dispatch::conv_transpose1d(x, w, tensor_on(device, {100}, dt, {1}), options())),
                (std::vector<double>{101, 112, 123, 130}));
      // Stride 2: the taps no longer overlap; padding_out 1 appends a cell no tap reaches.
      EXPECT_EQ(values(Dispatch::conv_transpose1d(x, w, std::nullopt, options(2))), (std::vector<double>{1, 10, 2, 20, 3, 30}));
      EXPECT_EQ(values(Dispatch::conv_transpose1d(x, w, std::nullopt, options(2, 0, 1))),
                (std::vector<double>{1, 10, 2, 20, 3, 30, 0}));
      // Padding 1 crops a cell from each end.
      EXPECT_EQ(values(Dispatch::conv_transpose1d(x, w, std::nullopt, options(1, 1))), (std::vector<double>{12, 23}));
      // Dilation 2: x[l] on l, 10 x[l] on l + 2.
      EXPECT_EQ(values(Dispatch::conv_transpose1d(x, w, std::nullopt, options(1, 0, 0, 2))), (std::vector<double>{1, 2, 13, 20, 30}));
      // Groups 2: each input channel spreads over its own output channel.
      EXPECT_EQ(values(Dispatch::conv_transpose1d(tensor_on(device, {1, 2, 3, 4}, dt, {1, 2, 2}), tensor_on(device, {2, 3}, dt, {2, 1, 1}),
                                                  std::nullopt, options(1, 0, 0, 1, 2))),
                (std::vector<double>{2, 4, 9, 12}));
      // No input channels: the bias alone; no batch: an empty result.
      EXPECT_EQ(values(Dispatch::conv_transpose1d(tensor_on(device, {}, dt, {1, 0, 3}), tensor_on(device, {}, dt, {0, 2, 1}),
                                                  tensor_on(device, {3, -1}, dt, {2}), options())),
                (std::vector<double>{3, 3, 3, -1, -1, -1}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::conv_transpose1d(tensor_on(device, {}, dt, {0, 1, 3}), w, std::nullopt, options())),
                (Shape{0, 1, 4}));
    }
  }
}

TYPED_TEST(ConvTranspose1dOps, GradientsOfInputWeightAndBias) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor x = row(device, dt), w = kernel(device, dt), b = tensor_on(device, {100}, dt, {1});
    const DispatchTensor y = Dispatch::conv_transpose1d(x, w, b, options());
    const DispatchTensor c = tensor_on(device, {1, 2, 4, 8}, dt, {1, 1, 4});
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(y, c)));
    // x[l] reaches output l (tap 1) and output l + 1 (tap 10): c[l] + 10 c[l + 1].
    EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{21, 42, 84}));
    // Tap k collects x[l] c[l + k].
    EXPECT_EQ(values(*Dispatch::grad(w, g)), (std::vector<double>{17, 34}));
    EXPECT_EQ(values(*Dispatch::grad(b, g)), (std::vector<double>{15}));
  }
}

TYPED_TEST(ConvTranspose1dOps, BackwardPassesCalledDirectly) {
  const DispatchDevice device = plain_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor x = row(device, dt), w = kernel(device, dt);
    const DispatchTensor c = tensor_on(device, {1, 2, 4, 8}, dt, {1, 1, 4});
    EXPECT_EQ(values(Dispatch::conv_transpose1d_x_backward(x, w, c, options())), (std::vector<double>{21, 42, 84}));
    EXPECT_EQ(values(Dispatch::conv_transpose1d_weight_backward(x, w, c, options())), (std::vector<double>{17, 34}));
    EXPECT_EQ(values(Dispatch::conv_transpose1d_bias_backward(x, tensor_on(device, {0}, dt, {1}), c)), (std::vector<double>{15}));
    // Padding 1, two outputs with cotangent 1: a tap cropped away carries no gradient (x[0]'s tap 1
    // and x[2]'s tap 10 land in the padding).
    const DispatchTensor ones = tensor_on(device, {1, 1}, dt, {1, 1, 2});
    EXPECT_EQ(values(Dispatch::conv_transpose1d_x_backward(x, w, ones, options(1, 1))), (std::vector<double>{10, 11, 1}));
    EXPECT_EQ(values(Dispatch::conv_transpose1d_weight_backward(x, w, ones, options(1, 1))), (std::vector<double>{5, 3}));
    // No batch: zero gradients for the weight and the bias.
    const DispatchTensor none = tensor_on(device, {}, dt, {0, 1, 3});
    const DispatchTensor no_grad = tensor_on(device, {}, dt, {0, 1, 4});
    EXPECT_EQ(values(Dispatch::conv_transpose1d_weight_backward(none, w, no_grad, options())), (std::vector<double>(2, 0.0)));
    EXPECT_EQ(values(Dispatch::conv_transpose1d_bias_backward(none, tensor_on(device, {0}, dt, {1}), no_grad)),
              (std::vector<double>{0}));
  }
}

TYPED_TEST(ConvTranspose1dOps, BadArgumentsPanicInOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = row(device, DType::F32), w = kernel(device, DType::F32);
  EXPECT_PANIC(Dispatch::conv_transpose1d(x, kernel(device, DType::F64), std::nullopt, options()), "dtype-mismatch",
               "conv_transpose1d needs operands of one dtype, got F32 and F64.");
  EXPECT_PANIC(Dispatch::conv_transpose1d(tensor_on(device, std::vector<double>(3), DType::F32, {1, 3}), w, std::nullopt, options()),
               "module-input-rank", "conv_transpose1d needs a 3-D input [batch, channels_in, length], got shape [1, 3].");
  EXPECT_PANIC(Dispatch::conv_transpose1d(x, tensor_on(device, {1, 10}, DType::F32, {1, 2}), std::nullopt, options()),
               "module-input-rank",
               "conv_transpose1d needs a 3-D weight [channels_in, channels_out_per_group, kernel_size], got shape [1, 2].");
  EXPECT_PANIC(Dispatch::conv_transpose1d(x, w, std::nullopt, options(0)), "module-option-zero",
               "conv_transpose1d needs stride of at least 1 in every dim, got [0].");
  EXPECT_PANIC(Dispatch::conv_transpose1d(tensor_on(device, std::vector<double>(9), DType::F32, {1, 3, 3}),
                                          tensor_on(device, std::vector<double>(3), DType::F32, {3, 1, 1}), std::nullopt,
                                          options(1, 0, 0, 1, 2)),
               "conv-groups", "conv_transpose1d needs groups of at least 1 dividing the input channels 3 and the output channels 2, got groups 2.");
  EXPECT_PANIC(Dispatch::conv_transpose1d(x, tensor_on(device, std::vector<double>(4), DType::F32, {2, 1, 2}), std::nullopt, options()),
               "conv-transpose-weight", "conv_transpose1d needs the weight's dim 0 to be the input channels 1, got weight shape [2, 1, 2].");
  EXPECT_PANIC(Dispatch::conv_transpose1d(x, w, tensor_on(device, {1, 2}, DType::F32, {2}), options()), "conv-bias-channels",
               "conv_transpose1d needs a bias of the output channels 1 = weight dim 1 (1) * groups (1), got bias shape [2].");
  EXPECT_PANIC(Dispatch::conv_transpose1d(x, w, std::nullopt, options(2, 0, 2)), "conv-padding-out",
               "conv_transpose1d needs padding_out smaller than stride or dilation in every dim, got padding_out [2], stride [2], "
               "dilation [1].");
  EXPECT_PANIC(Dispatch::conv_transpose1d(x, w, std::nullopt, options(1, 3)), "conv-transpose-size",
               "conv_transpose1d needs an input of at least 1 cell and an output of 1 to 2^64 - 1 cells in each dim, got input [3] and "
               "output (input - 1) * stride + dilation * (kernel - 1) + 1 + padding_out - 2 * padding = [-2].");
  EXPECT_PANIC(Dispatch::conv_transpose1d(tensor_on(device, {}, DType::F32, {1, 1, 0}), w, std::nullopt, options()), "conv-transpose-size",
               "conv_transpose1d needs an input of at least 1 cell and an output of 1 to 2^64 - 1 cells in each dim, got input [0] and "
               "output (input - 1) * stride + dilation * (kernel - 1) + 1 + padding_out - 2 * padding = [1].");
  EXPECT_PANIC(Dispatch::conv_transpose1d_x_backward(x, w, x, options()), "pool-grad-shape",
               "conv_transpose1d_x_backward needs a gradient of the output's shape [1, 1, 4], got [1, 1, 3].");
  EXPECT_PANIC(Dispatch::conv_transpose1d_bias_backward(x, tensor_on(device, {1, 2}, DType::F32, {2}), x), "pool-grad-shape",
               "conv_transpose1d_bias_backward needs a gradient of the output's shape [1, 2, 3], got [1, 1, 3].");
}

TYPED_TEST(ConvTranspose1dOps, BackwardPassesRefuseAnAutodiffDevice) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  const DispatchTensor x = row(device, DType::F32), w = kernel(device, DType::F32);
  const DispatchTensor g = tensor_on(device, {1, 2, 4, 8}, DType::F32, {1, 1, 4});
  EXPECT_PANIC(Dispatch::conv_transpose1d_x_backward(x, w, g, options()), "not-differentiable",
               "Can't differentiate conv_transpose1d_x_backward.");
  EXPECT_PANIC(Dispatch::conv_transpose1d_weight_backward(x, w, g, options()), "not-differentiable",
               "Can't differentiate conv_transpose1d_weight_backward.");
  EXPECT_PANIC(Dispatch::conv_transpose1d_bias_backward(x, tensor_on(device, {0}, DType::F32, {1}), g), "not-differentiable",
               "Can't differentiate conv_transpose1d_bias_backward.");
}

}  // namespace
}  // namespace crossgrad
