// Graphs that span backends (CONTRACT section 7, issue 14): random graphs with hop steps between
// every pair of available backends and leaves on different backends (gen/hops.hpp). Values and
// gradients equal the same graph without hops, hops move bits exactly, backward agrees with
// finite differences across hops, every leaf gets its gradient on its own backend, and in a
// Gradients built by one spanning graph grad_replace accepts only a gradient of the leaf's own
// backend (CONTRACT section 5 per leaf).
#include "gen/hops.hpp"
#include "gen/specs.hpp"
#include "support/fd_share.hpp"
#include "support/prop.hpp"
#include "support/spanning_replace.hpp"

#include <crossgrad/dispatch/dispatch.hpp>
#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/expect.hpp>
#include <crossgrad/oracle/numeric.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/snapshot.hpp>

#include <cmath>
#include <string>
#include <vector>

using namespace crossgrad;
using namespace crossgrad::properties;
namespace og = crossgrad::oracle;

namespace {

std::string in_graph(const og::GraphSpec& g) { return "\n  graph: " + og::describe(g); }
std::string value_name(std::size_t v) { return "v" + std::to_string(v); }
const std::string& backend_name(std::size_t b) { return og::all_backends().at(b).name; }

void tag_span(const og::GraphSpec& g) {
  RC_TAG("spans " + std::to_string(og::named_backends(g).size()) + " backend(s)");
}

// The Follow run on graph.backend, tracked: every value is an autodiff tensor on the backend
// value_backends says (read from the built kind's structure), and every hop step holds its lhs's
// data bit for bit (shape, dtype, bytes; NaN payloads and -0.0 count).
og::Failure check_hops_move_exactly(const og::GraphSpec& graph) {
  const og::GraphSpec g = og::normalized(graph);
  const std::vector<std::size_t> where = og::value_backends(g);
  const og::GraphRun run = og::run_graph(g, g.backend, g.dtype, true, og::Hops::Follow);
  if (run.values.size() != where.size()) return "the run holds " + std::to_string(run.values.size()) + " values" + in_graph(g);
  std::vector<TensorData> data;
  for (std::size_t v = 0; v < run.values.size(); ++v) {
    const DispatchTensorKind& kind = run.values[v].kind;
    if (og::autodiff_depth_of(kind) != 1 || og::primitive_of(kind) != PrimitiveKind::Autodiff) {
      return value_name(v) + " is not a tracked tensor (Autodiff(B(Autodiff(..))))" + in_graph(g);
    }
    if (og::backend_of(kind) != where[v]) {
      return value_name(v) + " lives on " + backend_name(og::backend_of(kind)) + ", expected " + backend_name(where[v]) + in_graph(g);
    }
    data.push_back(Dispatch::float_into_data(run.values[v]));
    if (data.back().dtype() != g.dtype) return value_name(v) + " changed dtype" + in_graph(g);
  }
  const std::size_t leaves = g.leaf_shapes.size();
  for (std::size_t k = 0; k < g.ops.size(); ++k) {
    const og::OpSpec& op = g.ops[k];
    if (og::is_hop(op.op) && !(data[leaves + k] == data[op.lhs])) {
      return "hop " + value_name(leaves + k) + " = to_backend(" + value_name(op.lhs) + " -> " + backend_name(where[leaves + k]) +
             ") does not hold its input bit for bit" + in_graph(g);
    }
  }
  return std::nullopt;
}

// Gradients of the Follow run (the graph as specified) equal those of the Ignore run (the graph
// without hops, all on graph.backend), leaf by leaf: present for the same leaves and within twice
// the graph's bound (each is within the bound of the reference), scaled like
// check_graph_differential scales it. A hop's gradient accumulated twice doubles a leaf's.
og::Failure check_gradients_equal_without_hops(const og::GraphSpec& graph) {
  const og::GraphSpec g = og::normalized(graph);
  const og::GraphGradients follow = og::graph_gradients_on(g, g.backend, g.dtype, og::Hops::Follow);
  const og::GraphGradients ignore = og::graph_gradients_on(g, g.backend, g.dtype, og::Hops::Ignore);
  og::Bound bound = og::bound_for_graph(g, g.dtype);
  bound.abs *= 2;
  bound.rel *= 2;
  for (std::size_t i = 0; i < g.leaf_shapes.size(); ++i) {
    std::optional<DispatchTensor> want, got;
    const og::Outcome o = og::outcome_of([&] {
      want = Dispatch::grad(ignore.run.leaves[i], ignore.grads);
      got = Dispatch::grad(follow.run.leaves[i], follow.grads);
    });
    if (!o.ok()) return "grad of leaf " + value_name(i) + " panicked: " + og::describe(o) + in_graph(g);
    if (want.has_value() != got.has_value()) {
      return "gradient of leaf " + value_name(i) + (want ? " missing with hops" : " only with hops") + in_graph(g);
    }
    if (!want) continue;
    const TensorData w = Dispatch::float_into_data(*want);
    double scale = 1;
    for (double x : w.to_f64()) {
      if (std::isfinite(x)) scale = std::fmax(scale, std::fabs(x));
    }
    og::Bound scaled = bound;
    scaled.abs *= scale;
    if (auto diff = og::compare_values(w, Dispatch::float_into_data(*got), scaled,
                                       "gradient of leaf " + value_name(i) + " with hops vs without", "hops: with vs without")) {
      return *diff + in_graph(g);
    }
  }
  return std::nullopt;
}

// backward of a spanning graph (graph_gradients: Follow on graph.backend): every used leaf has
// exactly one entry, a plain float tensor of the leaf's shape and the graph's dtype on the LEAF's
// backend and its default device (Dispatch::grad's kind, and the container entry's variant); an
// unused leaf has none.
og::Failure check_leaf_gradients_on_own_backends(const og::GraphSpec& graph) {
  const og::GraphSpec g = og::normalized(graph);
  const std::vector<std::size_t> where = og::value_backends(g);
  const std::vector<bool> used = og::used_leaves(g);
  const og::GraphGradients gg = og::graph_gradients(g);
  const og::GradientsSnapshot entries = og::snapshot(gg.grads);
  std::size_t expected_entries = 0;
  for (std::size_t i = 0; i < g.leaf_shapes.size(); ++i) {
    const std::string leaf = "leaf " + value_name(i) + " (on " + backend_name(where[i]) + ")";
    // The container entry first: grad of a node whose entry sits on another backend panics
    // (`unreachable`, CONTRACT section 5), so the entry says more about such a bug than grad does.
    const auto entry = entries.find(*og::node_of(gg.run.leaves[i].kind));
    if (!used[i]) {
      if (entry != entries.end()) return "unused " + leaf + " has a gradient entry" + in_graph(g);
      continue;
    }
    ++expected_entries;
    if (entry == entries.end()) return "no container entry for " + leaf + in_graph(g);
    if (entry->second.backend != where[i]) {
      return "the container entry of " + leaf + " is on " + backend_name(entry->second.backend) + in_graph(g);
    }
    std::optional<DispatchTensor> grad;
    const og::Outcome o = og::outcome_of([&] { grad = Dispatch::grad(gg.run.leaves[i], gg.grads); });
    if (!o.ok()) return "grad of " + leaf + " panicked: " + og::describe(o) + in_graph(g);
    if (!grad) return "grad of " + leaf + " returned nothing" + in_graph(g);
    if (og::autodiff_depth_of(grad->kind) != 0 || og::primitive_of(grad->kind) != PrimitiveKind::Float) {
      return "the gradient of " + leaf + " is not a plain float tensor" + in_graph(g);
    }
    if (og::backend_of(grad->kind) != where[i]) {
      return "the gradient of " + leaf + " is on " + backend_name(og::backend_of(grad->kind)) + in_graph(g);
    }
    const std::optional<og::EntrySnapshot> snap = og::snapshot_of(*grad);
    const og::BackendRef& b = og::all_backends().at(where[i]);
    if (!snap || snap->device != b.default_device || snap->data.dtype() != g.dtype || snap->data.shape().dims() != g.leaf_shapes[i]) {
      return "the gradient of " + leaf + " is " + (snap ? og::describe(*snap) : std::string("unreadable")) + in_graph(g);
    }
    if (auto diff = og::compare(entry->second, *snap)) return "grad of " + leaf + " differs from its entry: " + *diff + in_graph(g);
  }
  if (entries.size() != expected_entries) {
    return "backward made " + std::to_string(entries.size()) + " entries for " + std::to_string(expected_entries) + " used leaves" + in_graph(g);
  }
  return std::nullopt;
}

// One Gradients from one spanning graph. For every leaf x with an entry: grad_replace with the
// gradient of each leaf of ANOTHER backend of the same graph panics with the exact cross-backend
// message (the oracle's expectation from the contract text) and leaves the container exactly as it
// was (support/spanning_replace.hpp); then with the gradient of a leaf on x's backend (x's own or
// another's) it succeeds and replaces only x's entry, bit for bit. Then grad and grad_remove per
// leaf: each entry once, then nothing.
og::Failure check_grad_replace_across_one_graph(const og::GraphSpec& graph, std::size_t& cross_pairs) {
  const og::GraphSpec g = og::normalized(graph);
  const std::vector<std::size_t> where = og::value_backends(g);
  og::GraphGradients gg = og::graph_gradients(g);
  Gradients& grads = gg.grads;
  const std::size_t leaves = g.leaf_shapes.size();
  // The gradients as backward made them (copies: replaces below must not change them).
  std::vector<std::optional<DispatchTensor>> original(leaves);
  for (std::size_t i = 0; i < leaves; ++i) {
    const og::Outcome o = og::outcome_of([&] { original[i] = Dispatch::grad(gg.run.leaves[i], grads); });
    if (!o.ok()) return "grad of leaf " + value_name(i) + " panicked: " + og::describe(o) + in_graph(g);
  }

  for (std::size_t x = 0; x < leaves; ++x) {
    if (!original[x]) continue;
    std::size_t same = x;  // the last leaf on x's backend with an entry (often x itself)
    for (std::size_t y = 0; y < leaves; ++y) {
      if (!original[y]) continue;
      if (where[y] == where[x]) {
        same = y;
        continue;
      }
      ++cross_pairs;
      if (auto f = check_replace_with_gradient_of(g, gg, x, y, *original[y])) return f;
    }
    if (auto f = check_replace_with_gradient_of(g, gg, x, same, *original[same])) return f;
  }

  // grad / grad_remove per leaf, on what the replaces left.
  for (std::size_t x = 0; x < leaves; ++x) {
    const DispatchTensor& tensor = gg.run.leaves[x];
    const std::string ctx = "\n  leaf " + value_name(x) + " on " + backend_name(where[x]) + in_graph(g);
    og::GradientsSnapshot want = og::snapshot(grads);
    const std::uint64_t node = *og::node_of(tensor.kind);
    const auto entry = want.find(node);
    std::optional<DispatchTensor> got;
    const og::Outcome grad_outcome = og::outcome_of([&] { got = Dispatch::grad(tensor, grads); });
    if (!grad_outcome.ok()) return "grad panicked: " + og::describe(grad_outcome) + ctx;
    if (got.has_value() != (entry != want.end())) return "grad presence differs from the container" + ctx;
    if (!got) continue;
    if (auto diff = og::compare(entry->second, *og::snapshot_of(*got))) return "grad: " + *diff + ctx;
    std::optional<DispatchTensor> removed;
    const og::Outcome remove_outcome = og::outcome_of([&] { removed = Dispatch::grad_remove(tensor, grads); });
    if (!remove_outcome.ok() || !removed) return "grad_remove of a present entry: " + og::describe(remove_outcome) + ctx;
    if (auto diff = og::compare(entry->second, *og::snapshot_of(*removed))) return "grad_remove: " + *diff + ctx;
    want.erase(node);
    if (auto diff = og::compare(want, og::snapshot(grads))) return "after grad_remove: " + *diff + ctx;
    if (Dispatch::grad_remove(tensor, grads) || Dispatch::grad(tensor, grads)) return "the entry outlived grad_remove" + ctx;
  }
  if (!grads.empty()) return "entries left after removing every leaf's" + in_graph(g);
  return std::nullopt;
}

// Judged-share minimum for finite differences across hops: hops are the identity in the objective,
// so the judged share is that of Numeric.BackwardEqualsFiniteDifferences (kMinJudgedGraphs there).
constexpr double kMinJudgedHopGraphs = 0.85;

}  // namespace

// (a) hop steps: tracked, on their target backend, their input's bits.
CG_PROP(CrossBackend, HopsMoveValuesBitForBit, 500, ()) {
  const auto g = *gen::hop_graph(gen::Values::WithSpecials);
  tag_span(g);
  require(check_hops_move_exactly(g));
}

// (a) against the reference (the oracle's hop-aware differential and entry checks) and against
// the same graph without hops.
CG_PROP(CrossBackend, HopGraphsEqualReferenceAndGraphWithoutHops, 500, ()) {
  const auto g = *gen::hop_graph(gen::Values::Finite);
  tag_span(g);
  require(og::check_graph_differential(g));
  require(og::check_backward_entries(g));
  require(check_gradients_equal_without_hops(g));
}

// (b) finite differences of the reference objective (hops are the identity there) against the
// gradients of the graph as specified, F64, with a random cotangent.
TEST(CrossBackend, BackwardAcrossHopsEqualsFiniteDifferences) {
  JudgedShare share;
  check_property([&] { judge(*gen::hop_graph(gen::Values::Positive, gen::ops_defined_on_positive_values(), 4), share); }, 400);
  expect_judged_share(share, kMinJudgedHopGraphs);
}

// (c) every leaf's gradient on its own backend; leaves spread over the backends, every leaf used.
CG_PROP(CrossBackend, EveryLeafGradientOnItsOwnBackend, 500, ()) {
  const auto g = gen::using_every_leaf(*gen::hop_graph(gen::Values::WithSpecials, og::all_ops(), 4, gen::LeafSpread::Apart));
  tag_span(g);
  require(check_leaf_gradients_on_own_backends(g));
}

// (d) grad_replace / grad / grad_remove per leaf of one spanning graph.
CG_PROP(CrossBackend, GradReplaceWithinOneSpanningGraph, kGradReplaceCases, ()) {
  const auto g = gen::using_every_leaf(*gen::hop_graph(gen::Values::WithSpecials, og::all_ops(), 3, gen::LeafSpread::Apart));
  std::size_t cross_pairs = 0;
  require(check_grad_replace_across_one_graph(g, cross_pairs));
  RC_CLASSIFY(cross_pairs > 0, "replaced with another backend's gradient of the graph");
}
