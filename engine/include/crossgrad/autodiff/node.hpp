#pragma once
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

// One recorded operation (or a leaf) of an Autodiff<B> graph.
template <class Tensor>
struct Node {
  NodeId id;
  std::vector<std::shared_ptr<const Node>> parents;
  // Given the gradient of this node's output, the gradient of each parent (same order).
  // Empty for leaves, whose gradient ends up in Gradients.
  std::function<std::vector<Tensor>(const Tensor&)> backward;

  bool is_leaf() const { return !backward; }
};

}  // namespace crossgrad
