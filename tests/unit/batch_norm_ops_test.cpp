// batch_norm with given statistics (docs/OPS.md "Module ops") on every backend, plain and tracked:
// values worked out here from (x - mean[c]) / sqrt(variance[c] + epsilon) * weight[c] + bias[c],
// gradients through Autodiff<B> (Burn's default composition) for all five operands, and the
// argument panics in the documented order.
#include "test_support.hpp"

#include <cmath>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class BatchNormOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(BatchNormOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

TYPED_TEST(BatchNormOps, NormalisesEachChannelWithItsStatistics) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      // Two channels of two cells, one sample: channel 0 mean 1, variance 4 (sqrt 2), weight 2,
      // bias 1; channel 1 mean -1, variance 0.25 (sqrt 0.5), weight 1, bias 0.
      const DispatchTensor x = tensor_on(device, {3, -1, 0, -2}, dt, {1, 2, 2});
      const DispatchTensor w = tensor_on(device, {2, 1}, dt, {2});
      const DispatchTensor b = tensor_on(device, {1, 0}, dt, {2});
      const DispatchTensor m = tensor_on(device, {1, -1}, dt, {2});
      const DispatchTensor v = tensor_on(device, {4, 0.25}, dt, {2});
      EXPECT_EQ(values(Dispatch::batch_norm(x, w, b, m, v, 0.0)), (std::vector<double>{3, -1, 2, -2}));
      // A rank-2 input [batch, channels]: each column is a channel.
      EXPECT_EQ(values(Dispatch::batch_norm(tensor_on(device, {3, 0, -1, -2}, dt, {2, 2}), w, b, m, v, 0.0)),
                (std::vector<double>{3, 2, -1, -2}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::batch_norm(tensor_on(device, {}, dt, {0, 2, 3}), w, b, m, v, 1e-5)), (Shape{0, 2, 3}));
    }
  }
}

// Every step is rounded to the dtype: in F32, -3 * 2^-149 / sqrt(88.5) underflows to -0, and -0 times
// an inf weight is NaN; in F64 the quotient is a subnormal and the product -inf.
TYPED_TEST(BatchNormOps, AStepThatUnderflowsMeetsAnInfWeightInTheDtype) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor y = Dispatch::batch_norm(
          tensor_on(device, {-4.2038953929744512e-45}, dt, {1, 1}), tensor_on(device, {INFINITY}, dt, {1}),
          tensor_on(device, {-0.0}, dt, {1}), tensor_on(device, {0.0}, dt, {1}), tensor_on(device, {88.5}, dt, {1}), 1e-5);
      const double v = values(y).at(0);
      if (dt == DType::F32) {
        EXPECT_TRUE(std::isnan(v)) << v;
      } else {
        EXPECT_EQ(v, -INFINITY);
      }
    }
  }
}

TYPED_TEST(BatchNormOps, GradientsReachEveryOperand) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    // One channel, variance 4 (sqrt 2), weight 2, cells x = [3, -1], mean 1: y = (x - 1) / 2 * 2 + b.
    // d sum(y) / dx = weight / sqrt = 1 each; / d bias = 2 (two cells); / d weight = sum (x - 1) / 2
    // = 0; / d mean = -2; / d variance = -sum (x - 1) weight / 2 / (v sqrt v) = 0.
    const DispatchTensor x = tensor_on(device, {3, -1}, dt, {1, 1, 2});
    const DispatchTensor w = tensor_on(device, {2}, dt, {1});
    const DispatchTensor b = tensor_on(device, {0.5}, dt, {1});
    const DispatchTensor m = tensor_on(device, {1}, dt, {1});
    const DispatchTensor v = tensor_on(device, {4}, dt, {1});
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::batch_norm(x, w, b, m, v, 0.0)));
    EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{1, 1}));
    EXPECT_EQ(values(*Dispatch::grad(b, g)), (std::vector<double>{2}));
    EXPECT_EQ(values(*Dispatch::grad(w, g)), (std::vector<double>{0}));
    EXPECT_EQ(values(*Dispatch::grad(m, g)), (std::vector<double>{-2}));
    EXPECT_EQ(values(*Dispatch::grad(v, g)), (std::vector<double>{0}));
    // Weighting the first cell by 2: d / d variance = sum c (x - 1) * weight * (-1/2) variance^(-3/2)
    // = -(2 * 2 + 1 * -2) / 8 = -0.25.
    const DispatchTensor c = tensor_on(device, {2, 1}, dt, {1, 1, 2});
    const Gradients gc = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(Dispatch::batch_norm(x, w, b, m, v, 0.0), c)));
    EXPECT_EQ(values(*Dispatch::grad(v, gc)), (std::vector<double>{-0.25}));
  }
}

TYPED_TEST(BatchNormOps, BadArgumentsPanicInOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = tensor_on(device, std::vector<double>(6), DType::F32, {2, 3});
  const DispatchTensor s = tensor_on(device, {1, 1, 1}, DType::F32, {3});
  EXPECT_PANIC(Dispatch::batch_norm(x, s, s, tensor_on(device, {1, 1, 1}, DType::F64, {3}), s, 1e-5), "dtype-mismatch",
               "batch_norm needs operands of one dtype, got F32 and F64.");
  EXPECT_PANIC(Dispatch::batch_norm(s, s, s, s, s, 1e-5), "module-input-min-rank",
               "batch_norm needs an input of rank at least 2 [batch, channels, ...], got shape [3].");
  EXPECT_PANIC(Dispatch::batch_norm(x, s, s, s, tensor_on(device, {1, 1, 1}, DType::F32, {1, 3}), 1e-5), "module-input-rank",
               "batch_norm needs a 1-D variance [channels], got shape [1, 3].");
  EXPECT_PANIC(Dispatch::batch_norm(x, s, tensor_on(device, {1, 1}, DType::F32, {2}), s, s, 1e-5), "module-dim-mismatch",
               "batch_norm needs the bias [2] and the input [2, 3] to agree: dim 0 of the bias is 2, dim 1 of the input is 3.");
}

}  // namespace
}  // namespace crossgrad
