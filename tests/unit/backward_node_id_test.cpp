// backward identifies nodes by id (Gradients is keyed by node id, CONTRACT section 2), so two
// distinct nodes of one graph sharing an id, which the public Autodiff<B>::leaf_with_id can build,
// are refused with duplicate-node-id instead of having their gradients merged. The same node
// reached along several paths, and one id reused in separate graphs, stay fine.
#include "test_support.hpp"

#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

std::string duplicate_message(NodeId id) {
  return "backward found two distinct nodes with id NodeId(" + std::to_string(id.value) +
         ") in one graph: each node of a graph needs its own id.";
}

template <class B>
class BackwardNodeIds : public OnEachBackend<B> {
 protected:
  // A tracked leaf with the given id, as a runtime tensor: Autodiff(B(Autodiff(...))).
  static DispatchTensor leaf(std::vector<double> v, NodeId id) {
    const Shape s{v.size()};
    auto t = Autodiff<B>::leaf_with_id(B::from_data(TensorData::from_f64(std::move(v), s), B::default_device()), id);
    return {DispatchTensorKind::Autodiff(DispatchTensorKind{BackendTensor<B>::Autodiff(std::move(t))}),
            CheckpointingStrategy::Disabled};
  }
  static std::vector<double> grad(const DispatchTensor& t, const Gradients& g) {
    const auto got = Dispatch::grad(t, g);
    EXPECT_TRUE(got.has_value());
    return got ? Dispatch::float_into_data(*got).to_f64() : std::vector<double>{};
  }
};
TYPED_TEST_SUITE(BackwardNodeIds, AllBackendTypes, BackendTestName);

TYPED_TEST(BackwardNodeIds, TwoLeavesSharingAnIdAreRefused) {
  const NodeId id = next_node_id();
  const DispatchTensor a = this->leaf({1, 2}, id);
  const DispatchTensor b = this->leaf({10, 20}, id);
  // Before the fix: no panic, and one entry under `id` holding a's and b's gradients merged.
  EXPECT_PANIC(Dispatch::backward(Dispatch::float_mul(a, b)), "duplicate-node-id", duplicate_message(id));
  // Reached through longer, different paths too.
  const DispatchTensor deep = Dispatch::float_add(Dispatch::float_exp(Dispatch::float_neg(a)),
                                                  Dispatch::float_mul_scalar(Dispatch::float_tanh(b), 2.0));
  EXPECT_PANIC(Dispatch::backward(Dispatch::float_sum(deep)), "duplicate-node-id", duplicate_message(id));
}

TYPED_TEST(BackwardNodeIds, LeafReusingAnOpNodesIdIsRefused) {
  const DispatchTensor x = this->leaf({0.5, 1.5}, next_node_id());
  const DispatchTensor y = Dispatch::float_exp(x);
  const NodeId op_id = node_of<TypeParam>(y);
  const DispatchTensor z = this->leaf({3, 4}, op_id);
  EXPECT_PANIC(Dispatch::backward(Dispatch::float_add(y, z)), "duplicate-node-id", duplicate_message(op_id));
  // A leaf with another graph node's id only matters once both are in one graph.
  const DispatchTensor w = this->leaf({1, 1}, next_node_id());
  const DispatchTensor root = Dispatch::float_add(w, w);
  const DispatchTensor outside = this->leaf({5, 6}, node_of<TypeParam>(root));
  EXPECT_EQ(this->grad(w, Dispatch::backward(root)), (std::vector<double>{2, 2}));
  EXPECT_EQ(this->grad(outside, Dispatch::backward(outside)), (std::vector<double>{1, 1}));
  const DispatchTensor with_twin = this->leaf({7, 8}, node_of<TypeParam>(w));
  EXPECT_PANIC(Dispatch::backward(Dispatch::float_mul(root, with_twin)), "duplicate-node-id",
               duplicate_message(node_of<TypeParam>(w)));
}

TYPED_TEST(BackwardNodeIds, OneNodeOnManyPathsIsNotADuplicate) {
  const DispatchTensor x = this->leaf({1, 2}, next_node_id());
  // x * x + x: x is reached three times; d/dx = 2x + 1.
  const Gradients g = Dispatch::backward(Dispatch::float_add(Dispatch::float_mul(x, x), x));
  EXPECT_EQ(this->grad(x, g), (std::vector<double>{3, 5}));
  EXPECT_EQ(g.size(), 1u);
}

TYPED_TEST(BackwardNodeIds, OneIdInSeparateGraphsIsFine) {
  const NodeId id = next_node_id();
  const DispatchTensor a = this->leaf({1, 2}, id);
  const DispatchTensor b = this->leaf({10, 20}, id);
  EXPECT_EQ(this->grad(a, Dispatch::backward(Dispatch::float_mul_scalar(a, 3.0))), (std::vector<double>{3, 3}));
  EXPECT_EQ(this->grad(b, Dispatch::backward(Dispatch::float_mul(b, b))), (std::vector<double>{20, 40}));
}

}  // namespace
}  // namespace crossgrad
