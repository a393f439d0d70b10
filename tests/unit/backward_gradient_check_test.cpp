// backward checks every gradient a backward rule returns against the input it flows to (Note
// [Backward checks what rules return] in crossgrad/autodiff/node.hpp): a gradient of another shape,
// dtype, device or backend is an engine bug, raised as backward-gradient-mismatch naming the op,
// never stored in Gradients. The rules under test are hand-built nodes (Node is public), since every
// rule of the engine is right.
#include "test_support.hpp"

#include <functional>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class BackwardGradientCheck : public OnEachBackend<B> {
 protected:
  using Rule = std::function<std::vector<AnyTensor>(const AnyTensor&)>;

  static typename B::Tensor f32(std::vector<float> v, Shape s) {
    return B::from_data(TensorData::from_f32(std::move(v), std::move(s)), B::default_device());
  }
  static DispatchTensor wrap(AutodiffTensor<B> t) {
    return {DispatchTensorKind::Autodiff(DispatchTensorKind{BackendTensor<B>::Autodiff(std::move(t))}),
            CheckpointingStrategy::Disabled};
  }
  // A [4] F32 leaf and a child node of it (value [4]) whose backward is `rule`, recorded as op `op`.
  struct Graph {
    DispatchTensor leaf;
    DispatchTensor child;
  };
  static Graph graph(Rule rule, std::string_view op = "planted_op") {
    AutodiffTensor<B> leaf = Autodiff<B>::from_inner(f32({1, 2, 3, 4}, {4}));
    auto node = std::make_shared<Node>();
    node->id = next_node_id();
    node->parents.push_back(leaf.node);
    node->backward = std::move(rule);
    node->op = op;
    typename B::Tensor value = f32({1, 2, 3, 4}, {4});
    node->meta = node_meta_of<B>(value);
    return {wrap(std::move(leaf)), wrap(AutodiffTensor<B>{std::move(value), std::move(node)})};
  }
  static std::string message(std::string_view op, std::string_view got) {
    const std::string dev = B::default_device().to_string();
    return "internal error: the backward rule of " + std::string(op) + " returned for its input 0 a gradient of " +
           std::string(got) + ", but that input is " + std::string(B::name) + "[[4], F32, " + dev +
           "]: a gradient must have its input's shape, dtype, device and backend.";
  }
};
TYPED_TEST_SUITE(BackwardGradientCheck, AllBackendTypes, BackendTestName);

TYPED_TEST(BackwardGradientCheck, AFittingGradientIsStored) {
  using B = TypeParam;
  const auto g = this->graph([](const AnyTensor&) { return std::vector<AnyTensor>{AnyTensor{TestFixture::f32({5, 6, 7, 8}, {4})}}; });
  const Gradients grads = Dispatch::backward(g.child);
  const auto got = Dispatch::grad(g.leaf, grads);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(Dispatch::float_into_data(*got).to_f32(), (std::vector<float>{5, 6, 7, 8}));
  (void)sizeof(B);
}

TYPED_TEST(BackwardGradientCheck, AGradientOfAnotherShapeIsRefused) {
  using B = TypeParam;
  const std::string dev = B::default_device().to_string();
  // The bug of the issue: a leaf of [4] given a gradient of [2]; and one of the same element count.
  const auto two = this->graph([](const AnyTensor&) { return std::vector<AnyTensor>{AnyTensor{TestFixture::f32({1, 2}, {2})}}; });
  EXPECT_PANIC(Dispatch::backward(two.child), "backward-gradient-mismatch",
               this->message("planted_op", std::string(B::name) + "[[2], F32, " + dev + "]"));
  const auto square = this->graph([](const AnyTensor&) { return std::vector<AnyTensor>{AnyTensor{TestFixture::f32({1, 2, 3, 4}, {2, 2})}}; });
  EXPECT_PANIC(Dispatch::backward(square.child), "backward-gradient-mismatch",
               this->message("planted_op", std::string(B::name) + "[[2, 2], F32, " + dev + "]"));
}

TYPED_TEST(BackwardGradientCheck, AGradientOfAnotherDTypeIsRefused) {
  using B = TypeParam;
  const std::string dev = B::default_device().to_string();
  const auto g = this->graph([](const AnyTensor&) {
    return std::vector<AnyTensor>{AnyTensor{B::from_data(TensorData::from_f64({1, 2, 3, 4}, {4}), B::default_device())}};
  });
  EXPECT_PANIC(Dispatch::backward(g.child), "backward-gradient-mismatch",
               this->message("planted_op", std::string(B::name) + "[[4], F64, " + dev + "]"));
}

TYPED_TEST(BackwardGradientCheck, AGradientOnAnotherBackendIsRefused) {
  using B = TypeParam;
  // NdArray's gradient for a leaf of any other backend; Flex's for an NdArray leaf.
  using Other = std::conditional_t<std::is_same_v<B, backends::NdArray>, backends::Flex, backends::NdArray>;
  const auto g = this->graph([](const AnyTensor&) {
    return std::vector<AnyTensor>{AnyTensor{Other::from_data(TensorData::from_f32({1, 2, 3, 4}, {4}), Other::default_device())}};
  });
  EXPECT_PANIC(Dispatch::backward(g.child), "backward-gradient-mismatch",
               this->message("planted_op", std::string(Other::name) + "[[4], F32, Cpu]"));
}

TYPED_TEST(BackwardGradientCheck, TheMessageNamesTheOpFromItsRecordingSite) {
  // A node's op may be a full function signature; backward shows the op's name alone.
  using B = TypeParam;
  const std::string dev = B::default_device().to_string();
  const auto g = this->graph([](const AnyTensor&) { return std::vector<AnyTensor>{AnyTensor{TestFixture::f32({1}, {1})}}; },
                             "crossgrad::AutodiffTensor<B> crossgrad::Autodiff<B>::float_exp(const Tensor&) [with B = X]");
  EXPECT_PANIC(Dispatch::backward(g.child), "backward-gradient-mismatch",
               this->message("float_exp", std::string(B::name) + "[[1], F32, " + dev + "]"));
}

TYPED_TEST(BackwardGradientCheck, NothingIsStoredForAMisfit) {
  // The panic comes before the gradient reaches Gradients: a later, right backward is unaffected.
  const auto bad = this->graph([](const AnyTensor&) { return std::vector<AnyTensor>{AnyTensor{TestFixture::f32({1, 2}, {2})}}; });
  EXPECT_THROW(Dispatch::backward(bad.child), Panic);
  const Gradients grads = Dispatch::backward(Dispatch::float_mul_scalar(bad.leaf, 3.0));
  const auto got = Dispatch::grad(bad.leaf, grads);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(Dispatch::float_into_data(*got).to_f32(), (std::vector<float>{3, 3, 3, 3}));
}

// Every op of the engine passes: gradients of a real graph fit their leaves (the properties check
// this for every registry op; this is the quick unit-level witness on a graph using broadcasting,
// a cast and a reduction).
TYPED_TEST(BackwardGradientCheck, RealRulesFit) {
  using B = TypeParam;
  const DispatchDevice ad = DispatchDevice::Autodiff(DispatchDevice::of<B>(B::default_device()));
  const DispatchTensor a = Dispatch::float_from_data(TensorData::from_f32({1, 2, 3, 4, 5, 6}, {2, 3}), ad);
  const DispatchTensor b = Dispatch::float_from_data(TensorData::from_f64({1, 2, 3}, {3}), ad);
  const DispatchTensor y = Dispatch::float_mul(a, Dispatch::float_cast(b, DType::F32));
  const Gradients grads = Dispatch::backward(Dispatch::float_sum_dim(y, 1));
  EXPECT_EQ(Dispatch::float_shape(*Dispatch::grad(b, grads)), (Shape{3}));
  EXPECT_EQ(Dispatch::float_dtype(*Dispatch::grad(b, grads)), DType::F64);
  EXPECT_EQ(Dispatch::float_shape(*Dispatch::grad(a, grads)), (Shape{2, 3}));
}

}  // namespace
}  // namespace crossgrad
