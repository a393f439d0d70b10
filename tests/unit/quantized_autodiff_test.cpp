// Quantized tensors meeting autodiff (issue 10, item 4), on every registered backend (skipped where
// the backend has no device). Expected outcomes come from CONTRACT section 5 and the catalog:
//   Q1  quantize of a tracked tensor Autodiff(B(Autodiff(..))) gives Autodiff(B(Quantized(..))), the
//       shape Burn gives non-float tensors under autodiff (catalog `unreachable`: "Autodiff(B(p))
//       where p is not an Autodiff primitive"), holding the same int8 values as quantizing the
//       plain tensor, and keeping the receiver's checkpointing.
//   Q2  from_inner: of B(Quantized(..)) panics should-be-float "Should be float, got quantized";
//       of Autodiff(B(Quantized(..))) panics autodiff-wraps-autodiff (section 5: from_inner on an
//       autodiff kind).
//   Q3  grad / grad_remove / backward / inner: on Autodiff(B(Quantized(..))) panic unreachable, on
//       B(Quantized(..)) requires-autodiff (catalog entries, section 5 receiver order).
//   Q4  grad_replace with a quantized gradient panics should-be-float "got quantized" and leaves
//       the container as it was; with a quantized receiver it panics unreachable before looking
//       at the gradient.
//   Q5  float ops (and a second quantize, and float_to_device) on Autodiff(B(Quantized(..))) panic
//       op-kind-mismatch with the kind rendered as in section 3.
//   Q6  dequantize of Autodiff(B(Quantized(..))) gives a tracked float tensor Autodiff(B(Autodiff))
//       on a new node, bit-identical to the plain path's dequantize, with the receiver's
//       checkpointing. Quantization is not differentiable (as Burn's Autodiff: quantize works on
//       the inner primitive, dequantize starts a new leaf): backward through ops after dequantize
//       gives the dequantized tensor its gradient, and the tensor that was quantized none.
//   Q7  quantize of a tracked tensor holding inf panics quantize-non-finite.
#include "test_support.hpp"

#include <cmath>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class QuantizedAutodiff : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_IF_UNAVAILABLE(B);
    x = Dispatch::float_from_data(TensorData::from_f32({1.0f, -2.5f, 0.3f, 4.0f}, {2, 2}), autodiff_device<B>());
    x.checkpointing = CheckpointingStrategy::Balanced;
    q = Dispatch::quantize(x);
    plain_q = Dispatch::quantize(Dispatch::inner(x));
  }
  std::string device() { return B::default_device().to_string(); }
  // B(Quantized(BTensor { shape: [2, 2], dtype: QInt8, device: .. }))
  std::string quantized_debug() {
    return std::string(B::name) + "(Quantized(" + std::string(B::name) + "Tensor { shape: [2, 2], dtype: QInt8, device: " +
           device() + " }))";
  }
  DispatchTensor x, q, plain_q;
};
TYPED_TEST_SUITE(QuantizedAutodiff, AllBackendTypes, BackendTestName);

TYPED_TEST(QuantizedAutodiff, QuantizeOfATrackedTensorIsAutodiffOfAQuantizedPrimitive) {
  EXPECT_EQ(debug(this->q.kind), "Autodiff(" + this->quantized_debug() + ")");
  EXPECT_EQ(debug(this->plain_q.kind), this->quantized_debug());
  EXPECT_EQ(this->q.checkpointing, std::optional(CheckpointingStrategy::Balanced));
  // Same int8 values as the plain path: their dequantized data agree bit for bit.
  const DispatchTensor unwrapped{this->q.kind.autodiff_inner(), std::nullopt};
  EXPECT_EQ(Dispatch::float_into_data(Dispatch::dequantize(unwrapped)),
            Dispatch::float_into_data(Dispatch::dequantize(this->plain_q)));
}

TYPED_TEST(QuantizedAutodiff, FromInnerRefusesQuantized) {
  EXPECT_PANIC(Dispatch::from_inner(this->plain_q), "should-be-float", "Should be float, got quantized");
  EXPECT_PANIC(Dispatch::from_inner(this->q), "autodiff-wraps-autodiff", "Autodiff should not wrap an autodiff tensor.");
  // Through the high-level Tensor too.
  EXPECT_PANIC(Tensor::from_inner(Tensor(this->plain_q)), "should-be-float", "Should be float, got quantized");
}

TYPED_TEST(QuantizedAutodiff, AutodiffOpsOnAQuantizedKind) {
  Gradients grads = Dispatch::backward(Dispatch::float_sum(this->x));
  const std::string unreachable = "internal error: entered unreachable code";
  EXPECT_PANIC(Dispatch::grad(this->q, grads), "unreachable", unreachable);
  EXPECT_PANIC(Dispatch::grad_remove(this->q, grads), "unreachable", unreachable);
  EXPECT_PANIC(Dispatch::backward(this->q), "unreachable", unreachable);
  EXPECT_PANIC(Dispatch::inner(this->q), "unreachable", unreachable);
  EXPECT_PANIC(Dispatch::grad(this->plain_q, grads), "requires-autodiff", "Requires autodiff tensor.");
  EXPECT_PANIC(Dispatch::backward(this->plain_q), "requires-autodiff", "Requires autodiff tensor.");
  EXPECT_PANIC(Dispatch::inner(this->plain_q), "requires-autodiff", "Requires autodiff tensor.");
  EXPECT_EQ(grads.size(), 1u);
}

TYPED_TEST(QuantizedAutodiff, GradReplaceWithQuantizedGradientOrReceiver) {
  using B = TypeParam;
  Gradients grads = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(this->x, this->x)));
  const TensorData before = Dispatch::float_into_data(*Dispatch::grad(this->x, grads));
  EXPECT_PANIC(Dispatch::grad_replace(this->x, grads, this->plain_q), "should-be-float", "Should be float, got quantized");
  EXPECT_EQ(Dispatch::float_into_data(*Dispatch::grad(this->x, grads)), before);
  EXPECT_EQ(grads.size(), 1u);
  const DispatchTensor g = Dispatch::float_from_data(TensorData::from_f32({1, 1, 1, 1}, {2, 2}), plain_device<B>());
  EXPECT_PANIC(Dispatch::grad_replace(this->q, grads, g), "unreachable", "internal error: entered unreachable code");
  EXPECT_PANIC(Dispatch::grad_replace(this->q, grads, this->plain_q), "unreachable", "internal error: entered unreachable code");
  EXPECT_EQ(Dispatch::float_into_data(*Dispatch::grad(this->x, grads)), before);
}

TYPED_TEST(QuantizedAutodiff, FloatOpsRefuseAQuantizedKind) {
  using B = TypeParam;
  const std::string kind = "Autodiff(" + this->quantized_debug() + ")";
  EXPECT_PANIC(Dispatch::float_exp(this->q), "op-kind-mismatch", "float_exp needs a tensor of kind Float, got " + kind + ".");
  EXPECT_PANIC(Dispatch::float_sum(this->q), "op-kind-mismatch", "float_sum needs a tensor of kind Float, got " + kind + ".");
  EXPECT_PANIC(Dispatch::float_add(this->x, this->q), "op-kind-mismatch", "float_add needs a tensor of kind Float, got " + kind + ".");
  EXPECT_PANIC(Dispatch::float_matmul(this->q, this->x), "op-kind-mismatch",
               "float_matmul needs a tensor of kind Float, got " + kind + ".");
  EXPECT_PANIC(Dispatch::float_swap_dims(this->q, 0, 1), "op-kind-mismatch",
               "float_swap_dims needs a tensor of kind Float, got " + kind + ".");
  EXPECT_PANIC(Dispatch::float_cast(this->q, DType::F64), "op-kind-mismatch",
               "float_cast needs a tensor of kind Float, got " + kind + ".");
  EXPECT_PANIC(Dispatch::float_to_device(this->q, autodiff_device<B>()), "op-kind-mismatch",
               "float_to_device needs a tensor of kind Float, got " + kind + ".");
  EXPECT_PANIC(Dispatch::quantize(this->q), "op-kind-mismatch", "quantize needs a tensor of kind Float, got " + kind + ".");
  EXPECT_PANIC(Dispatch::float_into_data(this->q), "op-kind-mismatch",
               "float_into_data needs a tensor of kind Float, got " + kind + ".");
}

TYPED_TEST(QuantizedAutodiff, DequantizeStartsANewTrackedLeaf) {
  using B = TypeParam;
  const DispatchTensor y = Dispatch::dequantize(this->q);
  ASSERT_TRUE(y.kind.is_autodiff());
  EXPECT_EQ(y.checkpointing, std::optional(CheckpointingStrategy::Balanced));
  const NodeId yn = node_of<B>(y);
  EXPECT_NE(yn, node_of<B>(this->x));
  EXPECT_EQ(debug(y.kind), "Autodiff(" + std::string(B::name) + "(Autodiff(AutodiffTensor { primitive: " + std::string(B::name) +
                               "Tensor { shape: [2, 2], dtype: F32, device: " + this->device() + " }, node: NodeId(" +
                               std::to_string(yn.value) + ") })))");
  const TensorData values = Dispatch::float_into_data(y);
  EXPECT_EQ(values, Dispatch::float_into_data(Dispatch::dequantize(this->plain_q)));

  // loss = sum(y * y + x): y gets 2y, x gets ones; nothing flows from y back to x.
  const Gradients grads = Dispatch::backward(Dispatch::float_sum(Dispatch::float_add(Dispatch::float_mul(y, y), this->x)));
  EXPECT_EQ(grads.size(), 2u);
  std::vector<float> twice;
  for (float v : values.to_f32()) twice.push_back(v + v);
  EXPECT_EQ(Dispatch::float_into_data(*Dispatch::grad(y, grads)), TensorData::from_f32(twice, {2, 2}));
  EXPECT_EQ(Dispatch::float_into_data(*Dispatch::grad(this->x, grads)), TensorData::from_f32({1, 1, 1, 1}, {2, 2}));

  // A root that depends on x only through quantization gives x no gradient.
  const Gradients cut = Dispatch::backward(Dispatch::float_sum(Dispatch::float_exp(y)));
  EXPECT_FALSE(Dispatch::grad(this->x, cut).has_value());
  EXPECT_TRUE(Dispatch::grad(y, cut).has_value());
  EXPECT_EQ(cut.size(), 1u);
}

TYPED_TEST(QuantizedAutodiff, DequantizeOfAPlainQuantizedStaysPlain) {
  const DispatchTensor y = Dispatch::dequantize(this->plain_q);
  EXPECT_FALSE(y.kind.is_autodiff());
  EXPECT_EQ(y.checkpointing, std::nullopt);
  EXPECT_PANIC(Dispatch::backward(y), "requires-autodiff", "Requires autodiff tensor.");
}

TYPED_TEST(QuantizedAutodiff, QuantizeOfANonFiniteTrackedTensorPanics) {
  using B = TypeParam;
  const DispatchTensor inf = Dispatch::float_from_data(TensorData::from_f32({1.0f, INFINITY}, {2}), autodiff_device<B>());
  EXPECT_PANIC(Dispatch::quantize(inf), "quantize-non-finite", "quantize needs finite values, got inf.");
}

}  // namespace
}  // namespace crossgrad
