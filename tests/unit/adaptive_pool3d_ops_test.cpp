// adaptive_avg_pool3d and adaptive_avg_pool3d_backward (docs/OPS.md "Module ops") on every backend,
// plain and tracked, against window means worked out here from the definition (output o of out
// along a dim of in averages cells floor(o in / out) to ceil((o + 1) in / out) - 1, a box over depth,
// height and width), the gradient through Autodiff<B> and the explicit backward pass, and the
// argument panics in the documented order.
#include "test_support.hpp"

#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class AdaptivePool3dOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(AdaptivePool3dOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

// 0..11 in a [1, 1, 2, 2, 3] volume: value = 6 d + 3 h + w.
DispatchTensor twelve(const DispatchDevice& device, DType dt) {
  std::vector<double> v(12);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  return tensor_on(device, v, dt, {1, 1, 2, 2, 3});
}

TYPED_TEST(AdaptivePool3dOps, EachOutputAveragesItsBox) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor x = twelve(device, dt);
      // The whole volume: the mean 5.5.
      EXPECT_EQ(values(Dispatch::adaptive_avg_pool3d(x, Size3{1, 1, 1})), (std::vector<double>{5.5}));
      // Per frame: 2.5 and 8.5; per frame and column pair (cells 0-1 and 1-2 overlap): 2 + 6 d, 3 + 6 d.
      EXPECT_EQ(values(Dispatch::adaptive_avg_pool3d(x, Size3{2, 1, 1})), (std::vector<double>{2.5, 8.5}));
      const DispatchTensor y = Dispatch::adaptive_avg_pool3d(x, Size3{2, 1, 2});
      EXPECT_EQ(Dispatch::float_shape(y), (Shape{1, 1, 2, 1, 2}));
      EXPECT_EQ(values(y), (std::vector<double>{2, 3, 8, 9}));
      // More outputs than cells repeat them: depth 2 to 4 reads frame 0 twice, then frame 1 twice.
      EXPECT_EQ(values(Dispatch::adaptive_avg_pool3d(x, Size3{4, 1, 1})), (std::vector<double>{2.5, 2.5, 8.5, 8.5}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::adaptive_avg_pool3d(tensor_on(device, {}, dt, {0, 2, 2, 2, 2}), Size3{1, 2, 3})),
                (Shape{0, 2, 1, 2, 3}));
    }
  }
}

TYPED_TEST(AdaptivePool3dOps, GradientSharesEachOutputAmongItsBox) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    // Per frame (6 cells each): cotangents 6 and 12 give 1 and 2 to every cell of their frame.
    const DispatchTensor x = twelve(device, dt);
    const DispatchTensor c = tensor_on(device, {6, 12}, dt, {1, 1, 2, 1, 1});
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(Dispatch::adaptive_avg_pool3d(x, Size3{2, 1, 1}), c)));
    EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2}));
  }
  // The explicit backward pass: overlapping column windows (cells 0-1 and 1-2) add at column 1.
  const DispatchDevice plain = plain_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor g = tensor_on(plain, {4, 8}, dt, {1, 1, 1, 1, 2});
    EXPECT_EQ(values(Dispatch::adaptive_avg_pool3d_backward(twelve(plain, dt), g)),
              (std::vector<double>{0.5, 1.5, 1, 0.5, 1.5, 1, 0.5, 1.5, 1, 0.5, 1.5, 1}));
  }
}

TYPED_TEST(AdaptivePool3dOps, BadArgumentsPanicInOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = twelve(device, DType::F32);
  EXPECT_PANIC(Dispatch::adaptive_avg_pool3d(tensor_on(device, std::vector<double>(12), DType::F32, {1, 2, 2, 3}), Size3{1, 1, 1}),
               "module-input-rank", "adaptive_avg_pool3d needs a 5-D input [batch, channels, depth, height, width], got shape [1, 2, 2, 3].");
  EXPECT_PANIC(Dispatch::adaptive_avg_pool3d(x, Size3{1, 0, 1}), "module-option-zero",
               "adaptive_avg_pool3d needs output_size of at least 1 in every dim, got [1, 0, 1].");
  EXPECT_PANIC(Dispatch::adaptive_avg_pool3d(tensor_on(device, {}, DType::F32, {1, 1, 0, 2, 2}), Size3{1, 1, 1}), "pool-empty-input",
               "adaptive_avg_pool3d needs an input with at least 1 element in each pooled dim, got shape [1, 1, 0, 2, 2].");
  const DispatchTensor g64 = tensor_on(device, {1}, DType::F64, {1, 1, 1, 1, 1});
  EXPECT_PANIC(Dispatch::adaptive_avg_pool3d_backward(x, g64), "dtype-mismatch",
               "adaptive_avg_pool3d_backward needs operands of one dtype, got F32 and F64.");
  EXPECT_PANIC(Dispatch::adaptive_avg_pool3d_backward(x, tensor_on(device, {1, 2}, DType::F32, {2, 1, 1, 1, 1})), "pool-grad-shape",
               "adaptive_avg_pool3d_backward needs a gradient of the output's shape [1, 1, 1, 1, 1], got [2, 1, 1, 1, 1].");
  const DispatchDevice tracked = autodiff_device<TypeParam>();
  EXPECT_PANIC(Dispatch::adaptive_avg_pool3d_backward(twelve(tracked, DType::F32), tensor_on(tracked, {1}, DType::F32, {1, 1, 1, 1, 1})),
               "not-differentiable", "Can't differentiate adaptive_avg_pool3d_backward.");
}

}  // namespace
}  // namespace crossgrad
