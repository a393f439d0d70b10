#include <crossgrad/autodiff/gradients.hpp>

#include <atomic>

namespace crossgrad {

NodeId next_node_id() {
  static std::atomic<std::uint64_t> counter{1};
  return NodeId{counter.fetch_add(1, std::memory_order_relaxed)};
}

const AnyTensor* Gradients::find(NodeId id) const {
  const auto it = entries_.find(id);
  return it == entries_.end() ? nullptr : &it->second;
}

std::optional<AnyTensor> Gradients::remove(NodeId id) {
  auto node = entries_.extract(id);
  if (node.empty()) return std::nullopt;
  return std::optional<AnyTensor>(std::move(node.mapped()));
}

void Gradients::register_grad(NodeId id, AnyTensor grad) { entries_.insert_or_assign(id, std::move(grad)); }

void Gradients::extend(Gradients other) {
  for (auto& [id, grad] : other.entries_) entries_.insert_or_assign(id, std::move(grad));
}

std::vector<NodeId> Gradients::node_ids() const {
  std::vector<NodeId> ids;
  ids.reserve(entries_.size());
  for (const auto& [id, grad] : entries_) ids.push_back(id);
  return ids;
}

}  // namespace crossgrad
