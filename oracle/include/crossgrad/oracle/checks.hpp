#pragma once
// Every property, written once over specs: nullopt on success, else a readable failure. The
// RapidCheck suite (properties/) and the fuzz targets (fuzz/) both call these.
#include <crossgrad/oracle/expect.hpp>
#include <crossgrad/oracle/graph.hpp>
#include <crossgrad/oracle/numeric.hpp>
#include <crossgrad/oracle/spec.hpp>

#include <crossgrad/autodiff/gradients.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace crossgrad::oracle {

using Failure = std::optional<std::string>;

// A Gradients built by the backward passes of `graphs` (hops as specified, so one graph may give
// entries of several backends, each on its leaf's backend; merged with Gradients::extend; a graph
// naming a backend not available here is left out), a tensor and a gradient. When `target_entry` is set and the tensor's leaf is an Autodiff primitive, the
// tensor takes the node id of that entry (modulo the entry count), so replace hits a live entry.
struct GradReplaceScenario {
  std::vector<GraphSpec> graphs;
  DispatchSpec tensor;
  DispatchSpec grad;
  std::optional<std::size_t> target_entry;
  friend bool operator==(const GradReplaceScenario&, const GradReplaceScenario&) = default;
};
std::string describe(const GradReplaceScenario& scenario);
std::ostream& operator<<(std::ostream& os, const GradReplaceScenario& scenario);
Gradients build_gradients(const std::vector<GraphSpec>& graphs);
// The tensor spec with the target node applied.
DispatchSpec resolved_tensor(const GradReplaceScenario& scenario, const Gradients& grads);

// grad_replace's outcome equals the oracle (exact id and message, or success); after success
// grad returns the gradient bit-identically (data, shape, dtype, device), no other entry changed,
// grad_remove returns it exactly once; after a panic the container equals its snapshot and is
// still usable.
Failure check_grad_replace(const DispatchSpec& tensor, const DispatchSpec& grad, Gradients& grads);
Failure check_grad_replace(const GradReplaceScenario& scenario);
// Two successive replaces leave the second gradient alone (replace, never accumulate).
Failure check_replace_twice(const GradReplaceScenario& scenario, const DispatchSpec& second_grad);
// The outcome and resulting container do not depend on the gradient's checkpointing.
Failure check_checkpointing_irrelevant(const GradReplaceScenario& scenario);
// The same three checks on `built`, what build_gradients(scenario.graphs) returned: each works on
// its own copy, so a caller running several of them runs the scenario's backward passes once.
Failure check_grad_replace(const GradReplaceScenario& scenario, const Gradients& built);
Failure check_replace_twice(const GradReplaceScenario& scenario, const DispatchSpec& second_grad, const Gradients& built);
Failure check_checkpointing_irrelevant(const GradReplaceScenario& scenario, const Gradients& built);
// The cross-backend message equals the independent rendering and the seed's messagePattern
// recovers both renderings exactly, anchored and unanchored.
Failure check_cross_backend_message(const DispatchSpec& tensor, const DispatchSpec& grad);

enum class ReceiverOp { Grad, GradRemove, Backward, Inner };
std::string_view receiver_op_name(ReceiverOp op);
Failure check_receiver(ReceiverOp op, const DispatchSpec& tensor, Gradients& grads);
Failure check_from_inner(const DispatchSpec& tensor);
// inner(from_inner(t)) keeps data, shape, dtype and device, for a plain float tensor.
Failure check_inner_from_inner(const TensorSpec& float_tensor);
// float_to_device to `backend` and back is bit-identical.
Failure check_to_device_roundtrip(const TensorSpec& float_tensor, std::size_t backend);
// debug(kind) equals the oracle's rendering, follows the grammar, holds no element values, and
// its length does not depend on the values or the element count. The engine's renderer is passed
// in by the caller: the oracle itself never calls it.
using Renderer = std::function<std::string(const DispatchTensorKind&)>;
Failure check_debug_rendering(const KindSpec& kind, const Renderer& engine_debug);

// Forward and backward of `graph` on every available backend equal the reference backend within
// the per-op bound (`dtype` overrides the graph's). Hops are the identity there; a graph with hops
// (has_hops) is then also checked as specified (check_graph_hops).
Failure check_graph_differential(const GraphSpec& graph);
// The graph run as specified (Hops::Follow, tracked) against the reference (the reference backend,
// Hops::Ignore, untracked): every value tracked on its value_backends entry, a hop's value bit for
// bit its lhs's (data and dtype), every other step within its bound of the reference op on the same
// inputs and within the graph bound of the reference run; every leaf's gradient a plain float
// tensor of the LEAF's backend (grad's result, its device, and the container entry's variant),
// within the graph bound of the reference gradient and of the graph without hops on
// graph.backend. Not applicable (success) when a backend the graph names is not available here:
// unavailable_here(graph) says which.
Failure check_graph_hops(const GraphSpec& graph);
// backward in F64 equals central finite differences, on every available backend, on the bounded
// sample of elements finite_differences draws (FdBudget); tolerances as judge_points says.
struct FdVerdict {
  Failure failure;
  std::size_t sampled = 0;       // elements differentiated
  std::size_t judged = 0;        // of those, compared with backward on every backend
  std::size_t evaluations = 0;   // graph evaluations spent on finite differences
  std::string not_judged;        // why nothing was judged, when judged == 0
};
// A graph with hops is also judged run as specified (its Follow gradients), when every backend it
// names is available; the objective is the graph without hops (hops are the identity).
FdVerdict judge_graph_finite_differences(const GraphSpec& graph, const FdBudget& budget = {});
Failure check_graph_finite_differences(const GraphSpec& graph);  // judge_graph_finite_differences(graph).failure
// backward creates exactly one entry per leaf the root uses, of the leaf's shape, dtype and own
// backend (leaf_backends), whichever backends the graph hops through; grad returns it as a plain
// float tensor of that backend. A graph naming an unavailable backend runs without hops on
// graph.backend; not applicable (success) when graph.backend itself is not available.
Failure check_backward_entries(const GraphSpec& graph);
// check_graph_differential, then (when it passes) check_backward_entries: the same verdicts, but a
// graph on one backend (no hop, every leaf on graph.backend) reuses the differential check's
// tracked run on graph.backend instead of running forward and backward once more.
struct GraphVerdicts {
  Failure differential;
  Failure entries;  // not checked when differential failed
};
GraphVerdicts check_graph_differential_and_entries(const GraphSpec& graph);

}  // namespace crossgrad::oracle
