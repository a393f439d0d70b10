#pragma once
// Gradients: the result of backward, keyed by autodiff node id. Each entry is a float primitive of
// its node's own backend, so one container can hold entries of several backends.
#include <crossgrad/autodiff/node.hpp>
#include <crossgrad/backends/registry.hpp>

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace crossgrad {

class Gradients {
 public:
  using Map = std::map<NodeId, AnyTensor>;

  const AnyTensor* find(NodeId id) const;
  bool contains(NodeId id) const { return entries_.count(id) != 0; }
  // Takes the entry out; nullopt when there is none.
  std::optional<AnyTensor> remove(NodeId id);
  // Installs `grad` for `id`, replacing any entry (never accumulating).
  void register_grad(NodeId id, AnyTensor grad);
  // Moves other's entries in; other's entry wins on a shared id.
  void extend(Gradients other);

  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  std::vector<NodeId> node_ids() const;
  Map::const_iterator begin() const { return entries_.begin(); }
  Map::const_iterator end() const { return entries_.end(); }

 private:
  Map entries_;
};

// Walks the graph below `root` (Note [One graph across backends]) with `seed` as root's gradient
// and returns the gradient of every leaf it reaches, each on its leaf's backend. Gradients meeting
// at a node are added on that node's backend. Panics duplicate-node-id when two distinct nodes of
// the graph share an id (Note [One node per id]).
Gradients backward_from(const Node& root, AnyTensor seed);

}  // namespace crossgrad
