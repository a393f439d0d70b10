// conv_transpose2d and its three backward passes (docs/OPS.md "Module ops") on every backend, plain
// and tracked, against values worked out here from the definition (each input cell spreads x times
// the kernel over the output, padding crops the full output, padding_out appends zero rows and
// columns), stride, padding, padding_out, dilation and groups, its agreement with conv2d's x
// gradient, the gradients of x, weight and bias through Autodiff<B> (Burn's backward entry points),
// the backward passes called directly, empty operands, the argument panics in the documented order,
// and the refusal of the backward passes on an autodiff device.
#include "test_support.hpp"

#include <optional>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class ConvTranspose2dOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(ConvTranspose2dOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

// x [1, 1, 2, 2] holding [[1, 2], [3, 4]]; the weight [1, 1, 2, 2] [[1, 0], [0, 1]]: output cell
// (y, x) of the full output is x[y][x] + x[y - 1][x - 1].
DispatchTensor square(const DispatchDevice& device, DType dt) { return tensor_on(device, {1, 2, 3, 4}, dt, {1, 1, 2, 2}); }
DispatchTensor diagonal(const DispatchDevice& device, DType dt) { return tensor_on(device, {1, 0, 0, 1}, dt, {1, 1, 2, 2}); }
ConvTranspose2dOptions options(Size2 stride = {1, 1}, Size2 padding = {0, 0}, Size2 padding_out = {0, 0}, Size2 dilation = {1, 1},
                               std::size_t groups = 1) {
  return ConvTranspose2dOptions{stride, padding, padding_out, dilation, groups};
}

TYPED_TEST(ConvTranspose2dOps, EachInputCellSpreadsTheKernelThenTheBias) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor x = square(device, dt), w = diagonal(device, dt);
      const DispatchTensor y = Dispatch::conv_transpose2d(x, w, std::nullopt, options());
      EXPECT_EQ(Dispatch::float_shape(y), (Shape{1, 1, 3, 3}));
      EXPECT_EQ(values(y), (std::vector<double>{1, 2, 0, 3, 5, 2, 0, 3, 4}));
      EXPECT_EQ(values(Dispatch::conv_transpose2d(x, w, tensor_on(device, {10}, dt, {1}), options())),
                (std::vector<double>{11, 12, 10, 13, 15, 12, 10, 13, 14}));
      // Padding 1 crops one cell from each side of the full output: its centre.
      EXPECT_EQ(values(Dispatch::conv_transpose2d(x, w, std::nullopt, options({1, 1}, {1, 1}))), (std::vector<double>{5}));
      // Stride 2: input cell (iy, ix) lands at (2 iy, 2 ix) and (2 iy + 1, 2 ix + 1).
      EXPECT_EQ(values(Dispatch::conv_transpose2d(x, w, std::nullopt, options({2, 2}))),
                (std::vector<double>{1, 0, 2, 0, 0, 1, 0, 2, 3, 0, 4, 0, 0, 3, 0, 4}));
      // padding_out [1, 0] at stride 2: one more row, of zeros, at the bottom.
      EXPECT_EQ(values(Dispatch::conv_transpose2d(x, w, std::nullopt, options({2, 2}, {0, 0}, {1, 0}))),
                (std::vector<double>{1, 0, 2, 0, 0, 1, 0, 2, 3, 0, 4, 0, 0, 3, 0, 4, 0, 0, 0, 0}));
      // Dilation [2, 1]: the second tap two rows down and one column right.
      EXPECT_EQ(values(Dispatch::conv_transpose2d(x, w, std::nullopt, options({1, 1}, {0, 0}, {0, 0}, {2, 1}))),
                (std::vector<double>{1, 2, 0, 3, 4, 0, 0, 1, 2, 0, 3, 4}));
      // Groups 2: each input channel spreads into its own output channel.
      const DispatchTensor two = tensor_on(device, {1, 2, 3, 4}, dt, {1, 2, 1, 2});
      EXPECT_EQ(values(Dispatch::conv_transpose2d(two, tensor_on(device, {2, 3}, dt, {2, 1, 1, 1}), std::nullopt,
                                                  options({1, 1}, {0, 0}, {0, 0}, {1, 1}, 2))),
                (std::vector<double>{2, 4, 9, 12}));
      // Groups 1: every output channel sums every input channel's spread.
      EXPECT_EQ(values(Dispatch::conv_transpose2d(tensor_on(device, {1, 2}, dt, {1, 2, 1, 1}),
                                                  tensor_on(device, {1, 2, 3, 4, 5, 6}, dt, {2, 3, 1, 1}), std::nullopt, options())),
                (std::vector<double>{9, 12, 15}));
      // No input channels: the bias alone; no batch: an empty result.
      EXPECT_EQ(values(Dispatch::conv_transpose2d(tensor_on(device, {}, dt, {1, 0, 2, 2}), tensor_on(device, {}, dt, {0, 2, 1, 1}),
                                                  tensor_on(device, {3, -1}, dt, {2}), options())),
                (std::vector<double>{3, 3, 3, 3, -1, -1, -1, -1}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::conv_transpose2d(tensor_on(device, {}, dt, {0, 1, 2, 2}), w, std::nullopt, options())),
                (Shape{0, 1, 3, 3}));
    }
  }
}

// conv_transpose2d is conv2d's x gradient: conv2d of a 3x3 image through the diagonal gives 2x2,
// and spreading a 2x2 cotangent back is conv2d_x_backward's result.
TYPED_TEST(ConvTranspose2dOps, IsTheGradientOfConv2dWithRespectToItsInput) {
  const DispatchDevice device = plain_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor image = tensor_on(device, {1, 2, 3, 4, 5, 6, 7, 8, 9}, dt, {1, 1, 3, 3}), w = diagonal(device, dt);
    const DispatchTensor c = tensor_on(device, {1, 2, 4, 8}, dt, {1, 1, 2, 2});
    const std::vector<double> expected{1, 2, 0, 4, 9, 2, 0, 4, 8};
    EXPECT_EQ(values(Dispatch::conv_transpose2d(c, w, std::nullopt, options())), expected);
    EXPECT_EQ(values(Dispatch::conv2d_x_backward(image, w, c, Conv2dOptions{})), expected);
    // A 3x3 kernel at stride 2 and padding 1 maps 3x3 and 4x4 images to 2x2; padding_out 1 gives
    // back the 4x4 one.
    const DispatchTensor four = tensor_on(device, std::vector<double>(16, 1.0), dt, {1, 1, 4, 4});
    const DispatchTensor k3 = tensor_on(device, {1, 2, 3, 4, 5, 6, 7, 8, 9}, dt, {1, 1, 3, 3});
    const DispatchTensor spread = Dispatch::conv_transpose2d(c, k3, std::nullopt, options({2, 2}, {1, 1}, {1, 1}));
    EXPECT_EQ(Dispatch::float_shape(spread), (Shape{1, 1, 4, 4}));
    EXPECT_EQ(values(spread), values(Dispatch::conv2d_x_backward(four, k3, c, Conv2dOptions{{2, 2}, {1, 1}, {1, 1}, 1})));
  }
}

TYPED_TEST(ConvTranspose2dOps, GradientsOfInputWeightAndBias) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor x = square(device, dt), w = diagonal(device, dt), b = tensor_on(device, {10}, dt, {1});
    const DispatchTensor y = Dispatch::conv_transpose2d(x, w, b, options());
    const DispatchTensor c = tensor_on(device, {1, 2, 3, 4, 5, 6, 7, 8, 9}, dt, {1, 1, 3, 3});
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(y, c)));
    // x[iy][ix] reaches (iy, ix) and (iy + 1, ix + 1): c there summed; w[i][j] sums x times the
    // cotangent of the cell each input cell reaches through it; the bias every cotangent.
    EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{6, 8, 12, 14}));
    EXPECT_EQ(values(*Dispatch::grad(w, g)), (std::vector<double>{37, 47, 67, 77}));
    EXPECT_EQ(values(*Dispatch::grad(b, g)), (std::vector<double>{45}));
  }
}

TYPED_TEST(ConvTranspose2dOps, BackwardPassesCalledDirectly) {
  const DispatchDevice device = plain_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor x = square(device, dt), w = diagonal(device, dt);
    const DispatchTensor c = tensor_on(device, {1, 2, 3, 4, 5, 6, 7, 8, 9}, dt, {1, 1, 3, 3});
    EXPECT_EQ(values(Dispatch::conv_transpose2d_x_backward(x, w, c, options())), (std::vector<double>{6, 8, 12, 14}));
    EXPECT_EQ(values(Dispatch::conv_transpose2d_weight_backward(x, w, c, options())), (std::vector<double>{37, 47, 67, 77}));
    EXPECT_EQ(values(Dispatch::conv_transpose2d_bias_backward(x, tensor_on(device, {0}, dt, {1}), c)), (std::vector<double>{45}));
    // Padding 1: only the centre (1, 1) of the full output is kept, reached by x[0][0] through tap
    // (1, 1) and x[1][1] through tap (0, 0); the cropped cells pass no gradient.
    const DispatchTensor one = tensor_on(device, {1}, dt, {1, 1, 1, 1});
    EXPECT_EQ(values(Dispatch::conv_transpose2d_x_backward(x, w, one, options({1, 1}, {1, 1}))), (std::vector<double>{1, 0, 0, 1}));
    EXPECT_EQ(values(Dispatch::conv_transpose2d_weight_backward(x, w, one, options({1, 1}, {1, 1}))),
              (std::vector<double>{4, 3, 2, 1}));
    // No batch: zero gradients for the weight and the bias.
    const DispatchTensor none = tensor_on(device, {}, dt, {0, 1, 2, 2});
    const DispatchTensor no_grad = tensor_on(device, {}, dt, {0, 1, 3, 3});
    EXPECT_EQ(values(Dispatch::conv_transpose2d_weight_backward(none, w, no_grad, options())), (std::vector<double>(4, 0.0)));
    EXPECT_EQ(values(Dispatch::conv_transpose2d_bias_backward(none, tensor_on(device, {0}, dt, {1}), no_grad)),
              (std::vector<double>{0}));
  }
}

// A 2-tap kernel 2^62 rows apart, padding_out 2^62 - 1 and padding 2^62 - 1: a full output of 2^63
// rows cropped to 2 (the dilation allows that padding_out), of which the second is tap 1's. The
// output is built without a plane for the cropped rows (Note [Transposed convolution as a
// scattered product]), so this is two cells, not a tensor-too-large panic.
TYPED_TEST(ConvTranspose2dOps, ACropOfAHugeFullOutputBuildsOnlyTheKeptCells) {
  const DispatchDevice device = plain_device<TypeParam>();
  const std::size_t far = std::size_t{1} << 62;
  for (const DType dt : kDtypes) {
    const DispatchTensor y = Dispatch::conv_transpose2d(tensor_on(device, {5}, dt, {1, 1, 1, 1}), tensor_on(device, {1, 3}, dt, {1, 1, 2, 1}),
                                                        std::nullopt, options({1, 1}, {far - 1, 0}, {far - 1, 0}, {far, 1}));
    EXPECT_EQ(Dispatch::float_shape(y), (Shape{1, 1, 2, 1}));
    EXPECT_EQ(values(y), (std::vector<double>{0, 15}));
  }
}

TYPED_TEST(ConvTranspose2dOps, BadArgumentsPanicInOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = square(device, DType::F32), w = diagonal(device, DType::F32);
  EXPECT_PANIC(Dispatch::conv_transpose2d(x, diagonal(device, DType::F64), std::nullopt, options()), "dtype-mismatch",
               "conv_transpose2d needs operands of one dtype, got F32 and F64.");
  EXPECT_PANIC(Dispatch::conv_transpose2d(tensor_on(device, std::vector<double>(4), DType::F32, {1, 2, 2}), w, std::nullopt, options()),
               "module-input-rank", "conv_transpose2d needs a 4-D input [batch, channels_in, height, width], got shape [1, 2, 2].");
  EXPECT_PANIC(Dispatch::conv_transpose2d(x, w, std::nullopt, options({0, 1})), "module-option-zero",
               "conv_transpose2d needs stride of at least 1 in every dim, got [0, 1].");
  EXPECT_PANIC(Dispatch::conv_transpose2d(tensor_on(device, std::vector<double>(12), DType::F32, {1, 3, 2, 2}),
                                          tensor_on(device, std::vector<double>(3), DType::F32, {3, 1, 1, 1}), std::nullopt,
                                          options({1, 1}, {0, 0}, {0, 0}, {1, 1}, 2)),
               "conv-groups",
               "conv_transpose2d needs groups of at least 1 dividing the input channels 3 and the output channels 2, got groups 2.");
  EXPECT_PANIC(Dispatch::conv_transpose2d(x, tensor_on(device, std::vector<double>(8), DType::F32, {2, 1, 2, 2}), std::nullopt, options()),
               "conv-transpose-weight", "conv_transpose2d needs the weight's dim 0 to be the input channels 1, got weight shape [2, 1, 2, 2].");
  EXPECT_PANIC(Dispatch::conv_transpose2d(x, w, tensor_on(device, {1, 2}, DType::F32, {2}), options()), "conv-bias-channels",
               "conv_transpose2d needs a bias of the output channels 1 = weight dim 1 (1) * groups (1), got bias shape [2].");
  EXPECT_PANIC(Dispatch::conv_transpose2d(x, w, std::nullopt, options({1, 1}, {0, 0}, {1, 0})), "conv-padding-out",
               "conv_transpose2d needs padding_out smaller than stride or dilation in every dim, got padding_out [1, 0], stride [1, 1], "
               "dilation [1, 1].");
  EXPECT_PANIC(Dispatch::conv_transpose2d(x, w, std::nullopt, options({1, 1}, {2, 2})), "conv-transpose-size",
               "conv_transpose2d needs an input of at least 1 cell and an output of 1 to 2^64 - 1 cells in each dim, got input [2, 2] and "
               "output (input - 1) * stride + dilation * (kernel - 1) + 1 + padding_out - 2 * padding = [-1, -1].");
  EXPECT_PANIC(Dispatch::conv_transpose2d_x_backward(x, w, x, options()), "pool-grad-shape",
               "conv_transpose2d_x_backward needs a gradient of the output's shape [1, 1, 3, 3], got [1, 1, 2, 2].");
  EXPECT_PANIC(Dispatch::conv_transpose2d_bias_backward(x, tensor_on(device, {1, 2}, DType::F32, {2}), x), "pool-grad-shape",
               "conv_transpose2d_bias_backward needs a gradient of the output's shape [1, 2, 2, 2], got [1, 1, 2, 2].");
}

TYPED_TEST(ConvTranspose2dOps, BackwardPassesRefuseAnAutodiffDevice) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  const DispatchTensor x = square(device, DType::F32), w = diagonal(device, DType::F32);
  const DispatchTensor g = tensor_on(device, std::vector<double>(9, 1.0), DType::F32, {1, 1, 3, 3});
  EXPECT_PANIC(Dispatch::conv_transpose2d_x_backward(x, w, g, options()), "not-differentiable",
               "Can't differentiate conv_transpose2d_x_backward.");
  EXPECT_PANIC(Dispatch::conv_transpose2d_weight_backward(x, w, g, options()), "not-differentiable",
               "Can't differentiate conv_transpose2d_weight_backward.");
  EXPECT_PANIC(Dispatch::conv_transpose2d_bias_backward(x, tensor_on(device, {0}, DType::F32, {1}), g), "not-differentiable",
               "Can't differentiate conv_transpose2d_bias_backward.");
}

}  // namespace
}  // namespace crossgrad
