#pragma once
#include <crossgrad/backends/registry.hpp>

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace crossgrad {

struct NodeId {
  std::uint64_t value = 0;
  friend auto operator<=>(const NodeId&, const NodeId&) = default;
};

// Fresh, process-unique ids, as Burn's NodeId::new().
NodeId next_node_id();

// Note [One graph across backends]
// A node is not typed by backend: a move between backends (CONTRACT section 7) makes a node of
// one backend the parent of a node of another, and backward walks that one graph. Every gradient
// that flows into a node is a tensor of the node's own backend; a move's backward is what carries
// a gradient from one backend to the other.
//
// Note [Backward checks what rules return]
// A backward rule is ordinary code and can be wrong in ways no value check sees: a gradient of
// another shape (a leaf of [4] given one of [2]), dtype, device or backend would be stored in
// Gradients and handed out by grad as if it were right. So, as PyTorch's autograd engine checks a
// function's outputs against the metadata of its inputs (validate_outputs), every node records
// what its own tensor is (NodeMeta, taken from the tensor when the node is made), and backward_from
// checks every gradient a rule returns for a parent against that parent's NodeMeta before using it,
// panicking backward-gradient-mismatch with the op that recorded the rule. It is an engine bug,
// never a user error, and never silently repaired (no reshape, cast or move).
struct NodeMeta {
  Shape shape;
  DType dtype = DType::F32;
  Device device;
  std::size_t backend = 0;  // registry index (Note [Registry indices do not depend on the build])
};

struct Node {
  NodeId id;
  std::vector<std::shared_ptr<const Node>> parents;
  // Given the gradient of this node's output, the gradient of each parent (same order), each on
  // its parent's backend. Empty for leaves, whose gradient ends up in Gradients.
  std::function<std::vector<AnyTensor>(const AnyTensor&)> backward;
  // This node's tensor (Note [Backward checks what rules return]).
  NodeMeta meta;
  // The op that recorded backward, for messages: the recording function's name ("float_exp"), or
  // a compiler's full function signature, of which backward_graph.cpp keeps the name. Empty for
  // leaves.
  std::string_view op;

  bool is_leaf() const { return !backward; }
};

// The NodeMeta of float primitive `t` of backend B.
template <class B>
NodeMeta node_meta_of(const typename B::Tensor& t) {
  return NodeMeta{B::shape(t), B::dtype(t), B::device(t), registry_index_of<B>()};
}

}  // namespace crossgrad
