#pragma once
#include <crossgrad/backends/registry.hpp>

#include <compare>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
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
struct Node {
  NodeId id;
  std::vector<std::shared_ptr<const Node>> parents;
  // Given the gradient of this node's output, the gradient of each parent (same order), each on
  // its parent's backend. Empty for leaves, whose gradient ends up in Gradients.
  std::function<std::vector<AnyTensor>(const AnyTensor&)> backward;

  bool is_leaf() const { return !backward; }
};

}  // namespace crossgrad
