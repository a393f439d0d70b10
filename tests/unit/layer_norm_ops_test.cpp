// layer_norm (docs/OPS.md "Module ops") on every backend, plain and tracked, against rows whose
// mean and biased variance are exact here ((x - mean) / sqrt(var + epsilon) * weight + bias), its
// gradients through Autodiff<B> (Burn's default composition), and the argument panics in the
// documented order.
#include "test_support.hpp"

#include <cmath>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class LayerNormOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(LayerNormOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

TYPED_TEST(LayerNormOps, NormalisesEachRowOfTheLastDim) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      // Rows [1, 3] and [0, 4]: means 2, variances 1 and 4, so both normalise to [-1, 1].
      const DispatchTensor x = tensor_on(device, {1, 3, 0, 4}, dt, {2, 2});
      const DispatchTensor w = tensor_on(device, {2, 0.5}, dt, {2});
      const DispatchTensor b = tensor_on(device, {1, -1}, dt, {2});
      EXPECT_EQ(values(Dispatch::layer_norm(x, w, b, 0.0)), (std::vector<double>{-1, -0.5, -1, -0.5}));
      EXPECT_EQ(values(Dispatch::layer_norm(x, w, std::nullopt, 0.0)), (std::vector<double>{-2, 0.5, -2, 0.5}));
      // epsilon 3 on the first row: sqrt(1 + 3) = 2.
      EXPECT_EQ(values(Dispatch::layer_norm(tensor_on(device, {1, 3}, dt, {2}), w, std::nullopt, 3.0)),
                (std::vector<double>{-1, 0.25}));
      // A row of equal values with epsilon 0 is 0 / 0.
      for (double v : values(Dispatch::layer_norm(tensor_on(device, {5, 5}, dt, {1, 2}), w, b, 0.0))) EXPECT_TRUE(std::isnan(v));
      // No rows, and rows of no element, are shaped without a value.
      EXPECT_EQ(Dispatch::float_shape(Dispatch::layer_norm(tensor_on(device, {}, dt, {0, 3, 2}), w, b, 1e-5)), (Shape{0, 3, 2}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::layer_norm(tensor_on(device, {}, dt, {3, 0}), tensor_on(device, {}, dt, {0}),
                                                           std::nullopt, 1e-5)),
                (Shape{3, 0}));
    }
  }
}

TYPED_TEST(LayerNormOps, GradientsFlowThroughTheComposition) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    // x = [-1, -1, 1, 1]: mean 0, variance 1, so x normalises to itself. With weight 1 and the
    // cotangent [1, 0, 0, 0], dx = g - mean(g) - x mean(g x) = [0.5, -0.5, 0, 0]; the weight's
    // gradient is cotangent * x = [-1, 0, 0, 0], the bias's the cotangent.
    const DispatchTensor x = tensor_on(device, {-1, -1, 1, 1}, dt, {1, 4});
    const DispatchTensor w = tensor_on(device, {1, 1, 1, 1}, dt, {4});
    const DispatchTensor b = tensor_on(device, {0, 0, 0, 0}, dt, {4});
    const DispatchTensor c = tensor_on(device, {1, 0, 0, 0}, dt, {1, 4});
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(Dispatch::layer_norm(x, w, b, 0.0), c)));
    const std::vector<double> dx = values(*Dispatch::grad(x, g));
    const std::vector<double> want{0.5, -0.5, 0, 0};
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(dx[i], want[i], 1e-6) << i;
    EXPECT_EQ(values(*Dispatch::grad(w, g)), (std::vector<double>{-1, 0, 0, 0}));
    EXPECT_EQ(values(*Dispatch::grad(b, g)), (std::vector<double>{1, 0, 0, 0}));
    // An empty x: every operand still gets a gradient of its shape, zeros.
    const DispatchTensor empty = tensor_on(device, {}, dt, {0, 4});
    const Gradients ge = Dispatch::backward(Dispatch::float_sum(Dispatch::layer_norm(empty, w, b, 1e-5)));
    EXPECT_EQ(Dispatch::float_shape(*Dispatch::grad(empty, ge)), (Shape{0, 4}));
    EXPECT_EQ(values(*Dispatch::grad(w, ge)), (std::vector<double>{0, 0, 0, 0}));
  }
}

TYPED_TEST(LayerNormOps, BadArgumentsPanicInOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, DType::F32, {2, 3});
  const DispatchTensor w = tensor_on(device, {1, 1, 1}, DType::F32, {3});
  EXPECT_PANIC(Dispatch::layer_norm(x, tensor_on(device, {1, 1, 1}, DType::F64, {3}), std::nullopt, 1e-5), "dtype-mismatch",
               "layer_norm needs operands of one dtype, got F32 and F64.");
  EXPECT_PANIC(Dispatch::layer_norm(tensor_on(device, {1}, DType::F32, {}), w, std::nullopt, 1e-5), "module-input-scalar",
               "layer_norm needs its input to have at least 1 dim [..., d_model], got shape [].");
  EXPECT_PANIC(Dispatch::layer_norm(x, tensor_on(device, {1, 1, 1}, DType::F32, {1, 3}), std::nullopt, 1e-5), "module-input-rank",
               "layer_norm needs a 1-D weight [d_model], got shape [1, 3].");
  EXPECT_PANIC(Dispatch::layer_norm(x, tensor_on(device, {1, 1}, DType::F32, {2}), std::nullopt, 1e-5), "module-dim-mismatch",
               "layer_norm needs the input [2, 3] and the weight [2] to agree: dim 1 of the input is 3, dim 0 of the weight is 2.");
  EXPECT_PANIC(Dispatch::layer_norm(x, w, tensor_on(device, {1, 1}, DType::F32, {2}), 1e-5), "module-dim-mismatch",
               "layer_norm needs the bias [2] and the weight [3] to agree: dim 0 of the bias is 2, dim 0 of the weight is 3.");
}

}  // namespace
}  // namespace crossgrad
