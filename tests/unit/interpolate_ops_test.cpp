// interpolate and interpolate_backward (docs/OPS.md "Module ops") on every backend, plain and
// tracked, against values worked out here from the documented taps and weights (chosen where they
// are exact binary fractions), the gradient through Autodiff<B> and the explicit backward pass, and
// the argument panics in the documented order.
#include "test_support.hpp"

#include <limits>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class InterpolateOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(InterpolateOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

InterpolateOptions mode(InterpolateMode m, bool align_corners = false) { return InterpolateOptions{m, align_corners}; }

TYPED_TEST(InterpolateOps, NearestRepeatsAndSkipsCells) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor x = tensor_on(device, {1, 2, 3, 4}, dt, {1, 1, 2, 2});
      // 2x2 to 4x4: source floor(0.5 o): each cell twice along each axis.
      const DispatchTensor up = Dispatch::interpolate(x, Size2{4, 4}, mode(InterpolateMode::Nearest));
      EXPECT_EQ(Dispatch::float_shape(up), (Shape{1, 1, 4, 4}));
      EXPECT_EQ(values(up), (std::vector<double>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
      // 4 to 3 cells: s = 4/3, floor(s o) = 0, 1, 2; nearest_exact floor(s (o + 0.5)) = 0, 2, 3.
      const DispatchTensor row = tensor_on(device, {1, 2, 3, 4}, dt, {1, 1, 1, 4});
      EXPECT_EQ(values(Dispatch::interpolate(row, Size2{1, 3}, mode(InterpolateMode::Nearest, true))), (std::vector<double>{1, 2, 3}));
      EXPECT_EQ(values(Dispatch::interpolate(row, Size2{1, 3}, mode(InterpolateMode::NearestExact))), (std::vector<double>{1, 3, 4}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::interpolate(tensor_on(device, {}, dt, {0, 2, 3, 3}), Size2{5, 1}, mode(InterpolateMode::Bicubic))),
                (Shape{0, 2, 5, 1}));
    }
  }
}

TYPED_TEST(InterpolateOps, BilinearWeighsTheTwoNearestCells) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor x = tensor_on(device, {0, 1}, dt, {1, 1, 1, 2});
      // Corners aligned: sources 0, 0.5, 1.
      EXPECT_EQ(values(Dispatch::interpolate(x, Size2{1, 3}, mode(InterpolateMode::Bilinear, true))), (std::vector<double>{0, 0.5, 1}));
      // Half-pixel: sources 0.5 o - 0.25 held at 0: 0, 0.25, 0.75, 1.25 (the last cell twice).
      EXPECT_EQ(values(Dispatch::interpolate(x, Size2{1, 4}, mode(InterpolateMode::Bilinear))),
                (std::vector<double>{0, 0.25, 0.75, 1}));
      // Two axes: 2x2 to 3x3 with corners aligned, the centre the mean of the four.
      const DispatchTensor square = tensor_on(device, {0, 2, 4, 6}, dt, {1, 1, 2, 2});
      EXPECT_EQ(values(Dispatch::interpolate(square, Size2{3, 3}, mode(InterpolateMode::Bilinear, true))),
                (std::vector<double>{0, 1, 2, 2, 3, 4, 4, 5, 6}));
    }
  }
}

TYPED_TEST(InterpolateOps, BicubicUsesKeysWeightsWithClampedTaps) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      // 4 to 7 cells, corners aligned: even outputs copy a cell (t = 0: weights 0, 1, 0, 0); odd ones
      // (t = 0.5) weigh -0.09375, 0.59375, 0.59375, -0.09375, the taps held to [0, 3] at the edges.
      const DispatchTensor x = tensor_on(device, {0, 1, 2, 3}, dt, {1, 1, 1, 4});
      EXPECT_EQ(values(Dispatch::interpolate(x, Size2{1, 7}, mode(InterpolateMode::Bicubic, true))),
                (std::vector<double>{0, 0.40625, 1, 1.5, 2, 2.59375, 3}));
    }
  }
}

TYPED_TEST(InterpolateOps, GradientIsTheAdjoint) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    // Half-pixel bilinear, 2 to 4 cells: x0 gets 1 * 1 + 0.75 * 2 + 0.25 * 3, x1 the rest.
    const DispatchTensor x = tensor_on(device, {0, 1}, dt, {1, 1, 1, 2});
    const DispatchTensor c = tensor_on(device, {1, 2, 3, 4}, dt, {1, 1, 1, 4});
    const Gradients g = Dispatch::backward(
        Dispatch::float_sum(Dispatch::float_mul(Dispatch::interpolate(x, Size2{1, 4}, mode(InterpolateMode::Bilinear)), c)));
    EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{3.25, 6.75}));
    // Nearest 4 to 2 cells reads cells 0 and 2: cells 1 and 3 get +0, whatever the cotangent.
    const DispatchTensor x2 = tensor_on(device, {1, 2, 3, 4}, dt, {1, 1, 1, 4});
    const DispatchTensor c2 = tensor_on(device, {std::numeric_limits<double>::infinity(), 5}, dt, {1, 1, 1, 2});
    const Gradients g2 = Dispatch::backward(
        Dispatch::float_sum(Dispatch::float_mul(Dispatch::interpolate(x2, Size2{1, 2}, mode(InterpolateMode::Nearest)), c2)));
    EXPECT_EQ(values(*Dispatch::grad(x2, g2)), (std::vector<double>{std::numeric_limits<double>::infinity(), 0, 5, 0}));
  }
  // The explicit backward pass on a plain device: the same adjoint, bicubic 4 to 7 with corners aligned.
  const DispatchDevice plain = plain_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor x = tensor_on(plain, {0, 0, 0, 0}, dt, {1, 1, 1, 4});
    const DispatchTensor g = tensor_on(plain, {0, 1, 0, 0, 0, 0, 0}, dt, {1, 1, 1, 7});
    // Output 1 (t = 0.5 between cells 0 and 1) reads cells -1 (held at 0), 0, 1, 2.
    EXPECT_EQ(values(Dispatch::interpolate_backward(x, g, Size2{1, 7}, mode(InterpolateMode::Bicubic, true))),
              (std::vector<double>{0.5, 0.59375, -0.09375, 0}));
  }
}

// Every backend computes the same taps, weights and terms in the same order (Flex in one kernel per
// plane, the others as passes of their own ops): NdArray's bits, on values that round.
TYPED_TEST(InterpolateOps, EveryBackendGivesNdArraysBits) {
  std::vector<double> v(2 * 3 * 5 * 4);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 37) % 23) / 7.0 - 1.3;
  for (const DType dt : kDtypes) {
    for (const InterpolateMode m : {InterpolateMode::Nearest, InterpolateMode::NearestExact, InterpolateMode::Bilinear, InterpolateMode::Bicubic}) {
      for (const bool align : {false, true}) {
        for (const Size2 out : {Size2{7, 3}, Size2{2, 9}, Size2{5, 4}}) {
          const InterpolateOptions o{m, align};
          const DispatchTensor here = tensor_on(plain_device<TypeParam>(), v, dt, {2, 3, 5, 4});
          const DispatchTensor reference = tensor_on(DispatchDevice::NdArray(), v, dt, {2, 3, 5, 4});
          EXPECT_EQ(values(Dispatch::interpolate(here, out, o)), values(Dispatch::interpolate(reference, out, o)));
          const std::vector<double> g(2 * 3 * out[0] * out[1], 0.75);
          const Shape gs{2, 3, out[0], out[1]};
          EXPECT_EQ(values(Dispatch::interpolate_backward(here, tensor_on(plain_device<TypeParam>(), g, dt, gs), out, o)),
                    values(Dispatch::interpolate_backward(reference, tensor_on(DispatchDevice::NdArray(), g, dt, gs), out, o)));
        }
      }
    }
  }
}

TYPED_TEST(InterpolateOps, BadArgumentsPanicInOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = tensor_on(device, {1, 2, 3, 4}, DType::F32, {1, 1, 2, 2});
  EXPECT_PANIC(Dispatch::interpolate(tensor_on(device, {1, 2, 3, 4}, DType::F32, {1, 2, 2}), Size2{2, 2}, mode(InterpolateMode::Bilinear)),
               "module-input-rank", "interpolate needs a 4-D input [batch, channels, height, width], got shape [1, 2, 2].");
  EXPECT_PANIC(Dispatch::interpolate(x, Size2{0, 2}, mode(static_cast<InterpolateMode>(4))), "interpolate-mode",
               "interpolate needs mode nearest (0), nearest_exact (1), bilinear (2) or bicubic (3), got 4.");
  EXPECT_PANIC(Dispatch::interpolate(x, Size2{0, 2}, mode(InterpolateMode::Bicubic)), "module-option-zero",
               "interpolate needs output_size of at least 1 in every dim, got [0, 2].");
  EXPECT_PANIC(Dispatch::interpolate(tensor_on(device, {}, DType::F32, {1, 1, 0, 2}), Size2{2, 2}, mode(InterpolateMode::Nearest)),
               "pool-empty-input", "interpolate needs an input with at least 1 element in each pooled dim, got shape [1, 1, 0, 2].");
  // The backward pass: the gradient's dtype, then the forward's checks under its name, then its shape.
  const DispatchTensor g64 = tensor_on(device, std::vector<double>(9), DType::F64, {1, 1, 3, 3});
  EXPECT_PANIC(Dispatch::interpolate_backward(x, g64, Size2{3, 3}, mode(InterpolateMode::Bilinear)), "dtype-mismatch",
               "interpolate_backward needs operands of one dtype, got F32 and F64.");
  const DispatchTensor g = tensor_on(device, std::vector<double>(9), DType::F32, {1, 1, 3, 3});
  EXPECT_PANIC(Dispatch::interpolate_backward(x, g, Size2{3, 0}, mode(InterpolateMode::Bilinear)), "module-option-zero",
               "interpolate_backward needs output_size of at least 1 in every dim, got [3, 0].");
  EXPECT_PANIC(Dispatch::interpolate_backward(x, g, Size2{3, 4}, mode(InterpolateMode::Bilinear)), "pool-grad-shape",
               "interpolate_backward needs a gradient of the output's shape [1, 1, 3, 4], got [1, 1, 3, 3].");
  // Rule NotDifferentiable: the backward pass is not itself differentiable.
  const DispatchDevice tracked = autodiff_device<TypeParam>();
  EXPECT_PANIC(Dispatch::interpolate_backward(tensor_on(tracked, {1, 2, 3, 4}, DType::F32, {1, 1, 2, 2}),
                                              tensor_on(tracked, std::vector<double>(9), DType::F32, {1, 1, 3, 3}), Size2{3, 3},
                                              mode(InterpolateMode::Bilinear)),
               "not-differentiable", "Can't differentiate interpolate_backward.");
}

}  // namespace
}  // namespace crossgrad
