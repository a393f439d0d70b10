// The backward pass of every autodiff graph, whatever backends its nodes live on.
#include <crossgrad/autodiff/gradients.hpp>
#include <crossgrad/core/panic.hpp>

#include <array>
#include <cstddef>
#include <memory_resource>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace crossgrad {
namespace {

// a + b on their backend. Both flow into one node, so both are on that node's backend; anything
// else means a backward closure returned a gradient on the wrong backend.
AnyTensor add_on_one_backend(const AnyTensor& a, const AnyTensor& b) {
  std::optional<AnyTensor> sum;
  for_each_backend([&]<class B>() {
    const auto* x = std::get_if<typename B::Tensor>(&a);
    if (x == nullptr) return;
    const auto* y = std::get_if<typename B::Tensor>(&b);
    if (y == nullptr) panic(PanicId::Unreachable);
    sum.emplace(B::float_add(*x, *y));
  });
  if (!sum) panic(PanicId::Unreachable);
  return std::move(*sum);
}

// The op's name in a node's `op`: a plain name is itself; a full signature ("crossgrad::AutodiffTensor<B>
// crossgrad::Autodiff<B>::float_exp(const Tensor&) [with B = ...]") gives the last qualified name
// before its parameter list.
std::string op_name_of(std::string_view site) {
  const std::size_t open = site.find('(');
  if (open == std::string_view::npos) return std::string(site);
  const std::string_view head = site.substr(0, open);
  const std::size_t colons = head.rfind("::");
  return std::string(colons == std::string_view::npos ? head : head.substr(colons + 2));
}

std::string render_meta(const NodeMeta& m) {
  return std::string(kKnownBackends[m.backend].name) + "[" + m.shape.to_string() + ", " + std::string(dtype_name(m.dtype)) +
         ", " + m.device.to_string() + "]";
}

// Note [Backward checks what rules return]: `g`, returned by `node`'s rule for its parent `input`,
// must be a tensor like that parent's. A gradient on another backend than the parent's is caught
// here too, before add_on_one_backend (whose unreachable would not name the rule).
void check_gradient(const Node& node, std::size_t input, const AnyTensor& g) {
  const NodeMeta& want = node.parents[input]->meta;
  std::optional<NodeMeta> got;
  bool fits = false;
  for_each_backend([&]<class B>() {
    const auto* t = std::get_if<typename B::Tensor>(&g);
    if (t == nullptr) return;
    // Cheapest first: a gradient of the right backend, dtype and device only pays for its shape.
    fits = registry_index_of<B>() == want.backend && B::dtype(*t) == want.dtype && B::device(*t) == want.device &&
           B::shape(*t) == want.shape;
    if (!fits) got = node_meta_of<B>(*t);
  });
  if (fits) return;
  if (!got) panic(PanicId::Unreachable);
  panic(PanicId::BackwardGradientMismatch, {{"op", op_name_of(node.op)},
                                            {"input", std::to_string(input)},
                                            {"got", render_meta(*got)},
                                            {"expected", render_meta(want)}});
}

}  // namespace

// Note [One node per id]
// backward's bookkeeping and its result (Gradients, keyed by node id: CONTRACT section 2) both
// identify a node by its id, so two distinct nodes of one graph sharing an id (possible through
// the public leaf_with_id) would be merged: one's gradient added into, or lost behind, the
// other's. The traversal below therefore maps every id it meets to the node it belongs to and
// panics duplicate-node-id when a second node shows up under the same id, before any backward
// rule runs. The same node reached along several paths is one node, not a duplicate.
Gradients backward_from(const Node& root, AnyTensor seed) {
  using NodePtr = const Node*;
  // The bookkeeping of a small graph lives in this frame (a graph of a few nodes otherwise paid a
  // heap allocation per map entry, more than its backward rules); a larger one spills to the heap.
  std::array<std::byte, 4096> arena;
  std::pmr::monotonic_buffer_resource bookkeeping(arena.data(), arena.size());
  // Iterative post-order DFS: graphs from fuzzers can be deep chains, recursion would overflow.
  std::pmr::vector<NodePtr> order(&bookkeeping);
  std::pmr::unordered_map<std::uint64_t, NodePtr> visited(&bookkeeping);  // id -> the one node that carries it
  std::pmr::vector<std::pair<NodePtr, std::size_t>> stack(&bookkeeping);
  stack.emplace_back(&root, 0);
  visited.emplace(root.id.value, &root);
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < node->parents.size()) {
      NodePtr parent = node->parents[next++].get();
      const auto [seen, fresh] = visited.emplace(parent->id.value, parent);
      if (fresh) {
        stack.emplace_back(parent, 0);
      } else if (seen->second != parent) {
        panic(PanicId::DuplicateNodeId, {{"id", std::to_string(parent->id.value)}});
      }
    } else {
      order.push_back(node);
      stack.pop_back();
    }
  }

  std::pmr::unordered_map<std::uint64_t, AnyTensor> pending(&bookkeeping);
  pending.emplace(root.id.value, std::move(seed));
  Gradients grads;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const NodePtr node = *it;
    auto found = pending.find(node->id.value);
    if (found == pending.end()) continue;
    AnyTensor g = std::move(found->second);
    pending.erase(found);
    if (node->is_leaf()) {
      grads.register_grad(node->id, std::move(g));
      continue;
    }
    std::vector<AnyTensor> parent_grads = node->backward(g);
    if (parent_grads.size() != node->parents.size()) panic(PanicId::Unreachable);
    for (std::size_t i = 0; i < node->parents.size(); ++i) check_gradient(*node, i, parent_grads[i]);
    for (std::size_t i = 0; i < node->parents.size(); ++i) {
      const std::uint64_t pid = node->parents[i]->id.value;
      auto slot = pending.find(pid);
      if (slot == pending.end()) {
        pending.emplace(pid, std::move(parent_grads[i]));
      } else {
        slot->second = add_on_one_backend(slot->second, parent_grads[i]);
      }
    }
  }
  return grads;
}

}  // namespace crossgrad
