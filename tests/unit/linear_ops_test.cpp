// linear and its three backward passes (docs/OPS.md "Module ops") on every backend, plain and
// tracked, against values worked out here from the definition (y = x @ weight + bias with Burn's
// weight [d_input, d_output]), the gradients of x, weight and bias through Autodiff<B> (Burn's
// backward entry points), the backward passes called directly, empty operands, the argument panics
// in the documented order, and the refusal of the backward passes on an autodiff device.
#include "test_support.hpp"

#include <optional>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class LinearOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(LinearOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

// x [[1, 2, 3], [4, 5, 6]], weight [[1, 0], [0, 1], [1, 1]], bias [10, 20]:
// x @ weight = [[4, 5], [10, 11]].
DispatchTensor x_of(const DispatchDevice& device, DType dt, Shape shape = Shape{2, 3}) {
  return tensor_on(device, {1, 2, 3, 4, 5, 6}, dt, std::move(shape));
}
DispatchTensor weight_of(const DispatchDevice& device, DType dt) { return tensor_on(device, {1, 0, 0, 1, 1, 1}, dt, {3, 2}); }
DispatchTensor bias_of(const DispatchDevice& device, DType dt) { return tensor_on(device, {10, 20}, dt, {2}); }

TYPED_TEST(LinearOps, ProductOfTheRowsWithTheWeightPlusTheBias) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor w = weight_of(device, dt);
      EXPECT_EQ(values(Dispatch::linear(x_of(device, dt), w, std::nullopt)), (std::vector<double>{4, 5, 10, 11}));
      const DispatchTensor y = Dispatch::linear(x_of(device, dt), w, bias_of(device, dt));
      EXPECT_EQ(Dispatch::float_shape(y), (Shape{2, 2}));
      EXPECT_EQ(values(y), (std::vector<double>{14, 25, 20, 31}));
      // Leading dims fold into rows and come back; a rank-1 x is one row.
      const DispatchTensor batched = Dispatch::linear(x_of(device, dt, Shape{1, 2, 3}), w, bias_of(device, dt));
      EXPECT_EQ(Dispatch::float_shape(batched), (Shape{1, 2, 2}));
      EXPECT_EQ(values(batched), (std::vector<double>{14, 25, 20, 31}));
      const DispatchTensor row = Dispatch::linear(tensor_on(device, {1, 2, 3}, dt, {3}), w, bias_of(device, dt));
      EXPECT_EQ(Dispatch::float_shape(row), (Shape{2}));
      EXPECT_EQ(values(row), (std::vector<double>{14, 25}));
      // d_input 0: each row is the bias alone; no rows: an empty result of the output's shape.
      const DispatchTensor none = tensor_on(device, {}, dt, {0, 2});
      EXPECT_EQ(values(Dispatch::linear(tensor_on(device, {}, dt, {2, 0}), none, bias_of(device, dt))),
                (std::vector<double>{10, 20, 10, 20}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::linear(tensor_on(device, {}, dt, {0, 3}), w, std::nullopt)), (Shape{0, 2}));
    }
  }
}

TYPED_TEST(LinearOps, GradientsOfInputWeightAndBias) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    for (const bool with_bias : {true, false}) {
      const DispatchTensor x = x_of(device, dt), w = weight_of(device, dt), b = bias_of(device, dt);
      const DispatchTensor y = Dispatch::linear(x, w, with_bias ? std::optional<DispatchTensor>(b) : std::nullopt);
      const DispatchTensor c = tensor_on(device, {1, 2, 4, 8}, dt, {2, 2});
      const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(y, c)));
      // dx = c @ weight^T, dweight = x^T @ c, dbias = c summed over the rows.
      EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{1, 2, 3, 4, 8, 12}));
      EXPECT_EQ(values(*Dispatch::grad(w, g)), (std::vector<double>{17, 34, 22, 44, 27, 54}));
      if (with_bias) {
        EXPECT_EQ(values(*Dispatch::grad(b, g)), (std::vector<double>{5, 10}));
      } else {
        EXPECT_FALSE(Dispatch::grad(b, g).has_value());
      }
    }
  }
}

TYPED_TEST(LinearOps, BackwardPassesCalledDirectly) {
  const DispatchDevice device = plain_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor c = tensor_on(device, {1, 2, 4, 8}, dt, {1, 2, 2});
    const DispatchTensor dx = Dispatch::linear_x_backward(weight_of(device, dt), c);
    EXPECT_EQ(Dispatch::float_shape(dx), (Shape{1, 2, 3}));
    EXPECT_EQ(values(dx), (std::vector<double>{1, 2, 3, 4, 8, 12}));
    const DispatchTensor dw = Dispatch::linear_weight_backward(x_of(device, dt, Shape{1, 2, 3}), c);
    EXPECT_EQ(Dispatch::float_shape(dw), (Shape{3, 2}));
    EXPECT_EQ(values(dw), (std::vector<double>{17, 34, 22, 44, 27, 54}));
    const DispatchTensor db = Dispatch::linear_bias_backward(c);
    EXPECT_EQ(Dispatch::float_shape(db), (Shape{2}));
    EXPECT_EQ(values(db), (std::vector<double>{5, 10}));
    // No rows: zero gradients for the weight and the bias, an empty one for x.
    const DispatchTensor empty_grad = tensor_on(device, {}, dt, {0, 2});
    EXPECT_EQ(values(Dispatch::linear_weight_backward(tensor_on(device, {}, dt, {0, 3}), empty_grad)),
              (std::vector<double>(6, 0.0)));
    EXPECT_EQ(values(Dispatch::linear_bias_backward(empty_grad)), (std::vector<double>{0, 0}));
    EXPECT_EQ(Dispatch::float_shape(Dispatch::linear_x_backward(weight_of(device, dt), empty_grad)), (Shape{0, 3}));
    // d_output 0: x's gradient is zeros (a sum of nothing per element).
    EXPECT_EQ(values(Dispatch::linear_x_backward(tensor_on(device, {}, dt, {3, 0}), tensor_on(device, {}, dt, {2, 0}))),
              (std::vector<double>(6, 0.0)));
  }
}

TYPED_TEST(LinearOps, BadArgumentsPanicInOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = x_of(device, DType::F32), w = weight_of(device, DType::F32);
  EXPECT_PANIC(Dispatch::linear(x, weight_of(device, DType::F64), std::nullopt), "dtype-mismatch",
               "linear needs operands of one dtype, got F32 and F64.");
  EXPECT_PANIC(Dispatch::linear(x, w, bias_of(device, DType::F64)), "dtype-mismatch", "linear needs operands of one dtype, got F32 and F64.");
  EXPECT_PANIC(Dispatch::linear(tensor_on(device, {1}, DType::F32, Shape{}), w, std::nullopt), "module-input-scalar",
               "linear needs its input to have at least 1 dim [..., d_input], got shape [].");
  EXPECT_PANIC(Dispatch::linear(x, tensor_on(device, {1, 2, 3}, DType::F32, {3}), std::nullopt), "module-input-rank",
               "linear needs a 2-D weight [d_input, d_output], got shape [3].");
  EXPECT_PANIC(Dispatch::linear(x, w, tensor_on(device, {1, 2}, DType::F32, {1, 2})), "module-input-rank",
               "linear needs a 1-D bias [d_output], got shape [1, 2].");
  EXPECT_PANIC(Dispatch::linear(x, tensor_on(device, {1, 2, 3, 4, 5, 6, 7, 8}, DType::F32, {4, 2}), std::nullopt),
               "module-dim-mismatch",
               "linear needs the input [2, 3] and the weight [4, 2] to agree: dim 1 of the input is 3, dim 0 of the weight is 4.");
  EXPECT_PANIC(Dispatch::linear(x, w, tensor_on(device, {1, 2, 3}, DType::F32, {3})), "module-dim-mismatch",
               "linear needs the bias [3] and the weight [3, 2] to agree: dim 0 of the bias is 3, dim 1 of the weight is 2.");
  EXPECT_PANIC(Dispatch::linear_x_backward(w, x), "module-dim-mismatch",
               "linear_x_backward needs the gradient [2, 3] and the weight [3, 2] to agree: dim 1 of the gradient is 3, dim 1 of "
               "the weight is 2.");
  EXPECT_PANIC(Dispatch::linear_weight_backward(x, tensor_on(device, {1, 2, 3, 4, 5, 6}, DType::F32, {3, 2})), "pool-grad-shape",
               "linear_weight_backward needs a gradient of the output's shape [2, 2], got [3, 2].");
  EXPECT_PANIC(Dispatch::linear_bias_backward(tensor_on(device, {1}, DType::F32, Shape{})), "module-input-scalar",
               "linear_bias_backward needs its gradient to have at least 1 dim [..., d_output], got shape [].");
}

TYPED_TEST(LinearOps, TheBiasIsTrackedLikeTheInput) {
  const DispatchDevice tracked = autodiff_device<TypeParam>();
  const DispatchTensor bias = bias_of(plain_device<TypeParam>(), DType::F32);
  try {
    (void)Dispatch::linear(x_of(tracked, DType::F32), weight_of(tracked, DType::F32), bias);
    ADD_FAILURE() << "a plain bias with tracked x and weight did not panic";
  } catch (const Panic& p) {
    EXPECT_EQ(p.id(), PanicId::OpBackendMismatch) << p.what();
  }
}

TYPED_TEST(LinearOps, BackwardPassesRefuseAnAutodiffDevice) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  const DispatchTensor g = tensor_on(device, {1, 2, 4, 8}, DType::F32, {2, 2});
  EXPECT_PANIC(Dispatch::linear_x_backward(weight_of(device, DType::F32), g), "not-differentiable",
               "Can't differentiate linear_x_backward.");
  EXPECT_PANIC(Dispatch::linear_weight_backward(x_of(device, DType::F32), g), "not-differentiable",
               "Can't differentiate linear_weight_backward.");
  EXPECT_PANIC(Dispatch::linear_bias_backward(g), "not-differentiable", "Can't differentiate linear_bias_backward.");
}

}  // namespace
}  // namespace crossgrad
