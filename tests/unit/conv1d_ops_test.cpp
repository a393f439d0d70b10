// conv1d and its three backward passes (docs/OPS.md "Module ops") on every backend, plain and
// tracked, against values worked out here from the definition (each output the sum of the kernel's
// taps over the zero-padded row, then + bias), stride, padding, dilation and groups, the gradients of
// x, weight and bias through Autodiff<B> (Burn's backward entry points), the backward passes called
// directly, empty operands, the argument panics in the documented order with conv1d's 1-D values,
// and the refusal of the backward passes on an autodiff device.
#include "test_support.hpp"

#include <optional>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class Conv1dOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(Conv1dOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

// x [1, 1, 5] holding 1..5; the weight [1, 1, 2] [1, 10]: output l is x[l] + 10 x[l + 1] of the
// padded row.
DispatchTensor row(const DispatchDevice& device, DType dt) { return tensor_on(device, {1, 2, 3, 4, 5}, dt, {1, 1, 5}); }
DispatchTensor kernel(const DispatchDevice& device, DType dt) { return tensor_on(device, {1, 10}, dt, {1, 1, 2}); }
Conv1dOptions options(std::size_t stride = 1, std::size_t padding = 0, std::size_t dilation = 1, std::size_t groups = 1) {
  return Conv1dOptions{{stride}, {padding}, {dilation}, groups};
}

TYPED_TEST(Conv1dOps, EachOutputSumsItsTapsThenTheBias) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor x = row(device, dt), w = kernel(device, dt);
      const DispatchTensor y = Dispatch::conv1d(x, w, std::nullopt, options());
      EXPECT_EQ(Dispatch::float_shape(y), (Shape{1, 1, 4}));
      EXPECT_EQ(values(y), (std::vector<double>{21, 32, 43, 54}));
      EXPECT_EQ(values(Dispatch::conv1d(x, w, tensor_on(device, {100}, dt, {1}), options())), (std::vector<double>{121, 132, 143, 154}));
      // Padding 1: the end windows read a zero.
      EXPECT_EQ(values(Dispatch::conv1d(x, w, std::nullopt, options(1, 1))), (std::vector<double>{10, 21, 32, 43, 54, 5}));
      EXPECT_EQ(values(Dispatch::conv1d(x, w, std::nullopt, options(2))), (std::vector<double>{21, 43}));
      // Dilation 2: x[l] + 10 x[l + 2].
      EXPECT_EQ(values(Dispatch::conv1d(x, w, std::nullopt, options(1, 0, 2))), (std::vector<double>{31, 42, 53}));
      // Groups 2: each output channel reads its own input channel.
      EXPECT_EQ(values(Dispatch::conv1d(tensor_on(device, {1, 2, 3, 4}, dt, {1, 2, 2}), tensor_on(device, {2, 3}, dt, {2, 1, 1}),
                                        std::nullopt, options(1, 0, 1, 2))),
                (std::vector<double>{2, 4, 9, 12}));
      // No input channels: the bias alone; no batch: an empty result.
      EXPECT_EQ(values(Dispatch::conv1d(tensor_on(device, {}, dt, {1, 0, 3}), tensor_on(device, {}, dt, {2, 0, 1}),
                                        tensor_on(device, {3, -1}, dt, {2}), options())),
                (std::vector<double>{3, 3, 3, -1, -1, -1}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::conv1d(tensor_on(device, {}, dt, {0, 1, 5}), w, std::nullopt, options())),
                (Shape{0, 1, 4}));
    }
  }
}

TYPED_TEST(Conv1dOps, GradientsOfInputWeightAndBias) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor x = row(device, dt), w = kernel(device, dt), b = tensor_on(device, {100}, dt, {1});
    const DispatchTensor y = Dispatch::conv1d(x, w, b, options());
    const DispatchTensor c = tensor_on(device, {1, 2, 4, 8}, dt, {1, 1, 4});
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(y, c)));
    // x[l] is read by output l (tap 1) and output l - 1 (tap 10).
    EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{1, 12, 24, 48, 80}));
    EXPECT_EQ(values(*Dispatch::grad(w, g)), (std::vector<double>{49, 64}));
    EXPECT_EQ(values(*Dispatch::grad(b, g)), (std::vector<double>{15}));
  }
}

TYPED_TEST(Conv1dOps, BackwardPassesCalledDirectly) {
  const DispatchDevice device = plain_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor x = row(device, dt), w = kernel(device, dt);
    const DispatchTensor c = tensor_on(device, {1, 2, 4, 8}, dt, {1, 1, 4});
    EXPECT_EQ(values(Dispatch::conv1d_x_backward(x, w, c, options())), (std::vector<double>{1, 12, 24, 48, 80}));
    EXPECT_EQ(values(Dispatch::conv1d_weight_backward(x, w, c, options())), (std::vector<double>{49, 64}));
    EXPECT_EQ(values(Dispatch::conv1d_bias_backward(x, tensor_on(device, {0}, dt, {1}), c)), (std::vector<double>{15}));
    // Padding 1, six outputs with cotangent 1: every cell is read by both taps (1 + 10); each tap
    // sums the padded row's cells it read, 0 + 1 + ... + 5.
    const DispatchTensor ones = tensor_on(device, std::vector<double>(6, 1.0), dt, {1, 1, 6});
    EXPECT_EQ(values(Dispatch::conv1d_x_backward(x, w, ones, options(1, 1))), (std::vector<double>(5, 11.0)));
    EXPECT_EQ(values(Dispatch::conv1d_weight_backward(x, w, ones, options(1, 1))), (std::vector<double>{15, 15}));
    // No batch: zero gradients for the weight and the bias.
    const DispatchTensor none = tensor_on(device, {}, dt, {0, 1, 5});
    const DispatchTensor no_grad = tensor_on(device, {}, dt, {0, 1, 4});
    EXPECT_EQ(values(Dispatch::conv1d_weight_backward(none, w, no_grad, options())), (std::vector<double>(2, 0.0)));
    EXPECT_EQ(values(Dispatch::conv1d_bias_backward(none, tensor_on(device, {0}, dt, {1}), no_grad)), (std::vector<double>{0}));
  }
}

TYPED_TEST(Conv1dOps, BadArgumentsPanicInOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = row(device, DType::F32), w = kernel(device, DType::F32);
  EXPECT_PANIC(Dispatch::conv1d(x, kernel(device, DType::F64), std::nullopt, options()), "dtype-mismatch",
               "conv1d needs operands of one dtype, got F32 and F64.");
  EXPECT_PANIC(Dispatch::conv1d(tensor_on(device, std::vector<double>(5), DType::F32, {1, 5}), w, std::nullopt, options()),
               "module-input-rank", "conv1d needs a 3-D input [batch, channels_in, length], got shape [1, 5].");
  EXPECT_PANIC(Dispatch::conv1d(x, w, std::nullopt, options(0)), "module-option-zero",
               "conv1d needs stride of at least 1 in every dim, got [0].");
  EXPECT_PANIC(Dispatch::conv1d(tensor_on(device, std::vector<double>(10), DType::F32, {1, 2, 5}),
                                tensor_on(device, std::vector<double>(6), DType::F32, {3, 1, 2}), std::nullopt, options(1, 0, 1, 2)),
               "conv-groups", "conv1d needs groups of at least 1 dividing the input channels 2 and the output channels 3, got groups 2.");
  EXPECT_PANIC(Dispatch::conv1d(x, tensor_on(device, std::vector<double>(4), DType::F32, {1, 2, 2}), std::nullopt, options()),
               "conv-channels", "conv1d needs the weight's dim 1 to be the input channels 1 / groups 1 = 1, got weight shape [1, 2, 2].");
  EXPECT_PANIC(Dispatch::conv1d(x, w, tensor_on(device, {1, 2}, DType::F32, {2}), options()), "module-dim-mismatch",
               "conv1d needs the bias [2] and the weight [1, 1, 2] to agree: dim 0 of the bias is 2, dim 0 of the weight is 1.");
  EXPECT_PANIC(Dispatch::conv1d(x, tensor_on(device, std::vector<double>(6), DType::F32, {1, 1, 6}), std::nullopt, options()),
               "pool-kernel-too-large", "conv1d needs kernel_size of at most the padded input's size [5], got [6].");
  EXPECT_PANIC(Dispatch::conv1d_x_backward(x, w, x, options()), "pool-grad-shape",
               "conv1d_x_backward needs a gradient of the output's shape [1, 1, 4], got [1, 1, 5].");
  EXPECT_PANIC(Dispatch::conv1d_bias_backward(x, tensor_on(device, {1, 2}, DType::F32, {2}), tensor_on(device, {1, 2, 3, 4}, DType::F32, {1, 1, 4})),
               "pool-grad-shape", "conv1d_bias_backward needs a gradient of the output's shape [1, 2, 4], got [1, 1, 4].");
}

TYPED_TEST(Conv1dOps, BackwardPassesRefuseAnAutodiffDevice) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  const DispatchTensor x = row(device, DType::F32), w = kernel(device, DType::F32);
  const DispatchTensor g = tensor_on(device, {1, 2, 4, 8}, DType::F32, {1, 1, 4});
  EXPECT_PANIC(Dispatch::conv1d_x_backward(x, w, g, options()), "not-differentiable", "Can't differentiate conv1d_x_backward.");
  EXPECT_PANIC(Dispatch::conv1d_weight_backward(x, w, g, options()), "not-differentiable", "Can't differentiate conv1d_weight_backward.");
  EXPECT_PANIC(Dispatch::conv1d_bias_backward(x, tensor_on(device, {0}, DType::F32, {1}), g), "not-differentiable",
               "Can't differentiate conv1d_bias_backward.");
}

}  // namespace
}  // namespace crossgrad
