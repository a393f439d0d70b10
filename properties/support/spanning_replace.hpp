#pragma once
// grad_replace inside one Gradients built by one graph that spans backends (CONTRACT sections 5
// and 7): leaf x replaced with the gradient backward gave leaf y. The expected outcome is the
// oracle's, decided from the specs (the leaves' backends as specified, never read back from the
// engine's rendering); shared by cross_backend_props and the exhaustive matrix.
#include <crossgrad/dispatch/dispatch.hpp>
#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/checks.hpp>
#include <crossgrad/oracle/expect.hpp>
#include <crossgrad/oracle/graph.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/snapshot.hpp>

#include <optional>
#include <string>
#include <vector>

namespace crossgrad::properties {

inline std::string leaf_on(const oracle::GraphSpec& g, std::size_t i) {
  return "leaf v" + std::to_string(i) + " (on " + oracle::all_backends().at(oracle::value_backends(g).at(i)).name + ")";
}

// Leaf i as the oracle's expectation code sees it: Autodiff(B(Autodiff(..))) on its backend as
// specified, with the node id of the built leaf.
inline oracle::KindSpec spanning_leaf_kind(const oracle::GraphSpec& g, const oracle::GraphRun& run, std::size_t i) {
  oracle::KindSpec k{1, oracle::tensor_on(oracle::value_backends(g).at(i), PrimitiveKind::Autodiff, g.leaf_shapes.at(i), g.dtype)};
  k.leaf.node_id = oracle::node_of(run.leaves.at(i).kind);
  return k;
}
// Leaf i's gradient as specified: B(Float(..)) of the leaf's shape and the graph's dtype.
inline oracle::KindSpec spanning_gradient_kind(const oracle::GraphSpec& g, std::size_t i) {
  return oracle::KindSpec{0, oracle::tensor_on(oracle::value_backends(g).at(i), PrimitiveKind::Float, g.leaf_shapes.at(i), g.dtype)};
}

// grad_replace(leaf x, gg.grads, y_grad), y_grad being the gradient backward gave leaf y (taken
// before any replace). Leaves on different backends: the cross-backend panic with the oracle's
// exact message and the container exactly as before. Same backend: success, x's entry now y_grad
// bit for bit (data, shape, dtype, device), no other entry changed, grad(x) returns it.
inline oracle::Failure check_replace_with_gradient_of(const oracle::GraphSpec& normalized_graph, oracle::GraphGradients& gg,
                                                      std::size_t x, std::size_t y, const DispatchTensor& y_grad) {
  const oracle::GraphSpec& g = normalized_graph;
  const std::vector<std::size_t> where = oracle::value_backends(g);
  const std::string ctx = "\n  grad_replace(" + leaf_on(g, x) + ", grads, gradient of " + leaf_on(g, y) + ")\n  graph: " + oracle::describe(g);
  const oracle::KindSpec x_kind = spanning_leaf_kind(g, gg.run, x);
  const oracle::Outcome expected = oracle::expect_grad_replace(x_kind, x_kind.leaf.node_id, spanning_gradient_kind(g, y), std::nullopt);
  const bool apart = where[x] != where[y];
  if (apart ? expected.panic_id != std::optional<std::string>("cross-backend") : !expected.ok()) {
    return "the oracle expects " + oracle::describe(expected) + ctx;
  }
  const DispatchTensor& tensor = gg.run.leaves.at(x);
  oracle::GradientsSnapshot want = oracle::snapshot(gg.grads);
  const oracle::Outcome actual = oracle::outcome_of([&] { Dispatch::grad_replace(tensor, gg.grads, y_grad); });
  if (actual != expected) return "expected " + oracle::describe(expected) + "\n  got " + oracle::describe(actual) + ctx;
  if (!expected.ok()) {
    if (auto diff = oracle::compare(want, oracle::snapshot(gg.grads))) return "a panicking grad_replace touched the container: " + *diff + ctx;
    return std::nullopt;
  }
  const std::optional<oracle::EntrySnapshot> installed = oracle::snapshot_of(y_grad);
  if (!installed) return "the gradient of " + leaf_on(g, y) + " is not a plain float tensor" + ctx;
  want.insert_or_assign(*x_kind.leaf.node_id, *installed);
  if (auto diff = oracle::compare(want, oracle::snapshot(gg.grads))) return "after grad_replace: " + *diff + ctx;
  const std::optional<DispatchTensor> got = Dispatch::grad(tensor, gg.grads);
  if (!got) return "grad after grad_replace returned nothing" + ctx;
  const std::optional<oracle::EntrySnapshot> got_snap = oracle::snapshot_of(*got);
  if (!got_snap) return "grad after grad_replace is not a plain float tensor" + ctx;
  if (auto diff = oracle::compare(*installed, *got_snap)) return "grad after grad_replace: " + *diff + ctx;
  return std::nullopt;
}

}  // namespace crossgrad::properties
