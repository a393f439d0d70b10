#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/checks.hpp>
#include <crossgrad/oracle/message_pattern.hpp>
#include <crossgrad/oracle/numeric.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/render.hpp>
#include <crossgrad/oracle/snapshot.hpp>

#include <crossgrad/core/panic.hpp>
#include <crossgrad/dispatch/dispatch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <sstream>

namespace crossgrad::oracle {
namespace {

// Text for failure messages (a scenario's description, a step's name), built only when a message
// uses it: on inputs of a few elements, building it for every check cost more than the check.
template <class Make>
struct LazyText {
  Make make;
  std::string operator()() const { return make(); }
  friend std::string operator+(std::string head, const LazyText& t) { return head + t.make(); }
  friend std::string operator+(const LazyText& t, std::string_view tail) { return t.make() + std::string(tail); }
};
template <class Make>
LazyText(Make) -> LazyText<Make>;

std::string context(const DispatchSpec& tensor, const DispatchSpec& grad) {
  return "\n  tensor: " + describe(tensor) + "\n  grad:   " + describe(grad);
}

// Still usable: an entry can be taken out and put back, and a fresh one added and removed.
Failure probe_usable(Gradients& grads) {
  const GradientsSnapshot before = snapshot(grads);
  if (!grads.empty()) {
    const NodeId id = grads.begin()->first;
    std::optional<AnyTensor> t = grads.remove(id);
    if (!t) return std::string("container unusable: remove of an existing entry returned nothing");
    grads.register_grad(id, std::move(*t));
  }
  std::optional<AnyTensor> probe;
  with_backend_at(reference_backend(), [&]<class B>() {
    probe.emplace(B::from_data(TensorData::from_f32({1.0f}, Shape{1}), B::default_device()));
  });
  const NodeId fresh = next_node_id();
  grads.register_grad(fresh, *probe);
  if (!grads.contains(fresh) || !grads.remove(fresh)) return std::string("container unusable: probe entry lost");
  if (auto diff = compare(before, grads)) return "container unusable: " + *diff;
  return std::nullopt;
}

}  // namespace

std::string describe(const GradReplaceScenario& s) {
  std::ostringstream os;
  os << "GradReplaceScenario{\n  tensor: " << describe(s.tensor) << "\n  grad:   " << describe(s.grad)
     << "\n  target_entry: " << (s.target_entry ? std::to_string(*s.target_entry) : std::string("none"));
  for (const GraphSpec& g : s.graphs) os << "\n  graph: " << describe(g);
  os << "\n}";
  return os.str();
}
std::ostream& operator<<(std::ostream& os, const GradReplaceScenario& s) { return os << describe(s); }

Gradients build_gradients(const std::vector<GraphSpec>& graphs) {
  Gradients grads;
  for (const GraphSpec& g : graphs) {
    const NormalizedGraph ng(g);
    if (unavailable_here(ng)) continue;  // cannot run here: not applicable, left out
    grads.extend(graph_gradients(ng).grads);
  }
  return grads;
}

DispatchSpec resolved_tensor(const GradReplaceScenario& s, const Gradients& grads) {
  DispatchSpec t = s.tensor;
  if (s.target_entry && !grads.empty() && t.kind.leaf.primitive == PrimitiveKind::Autodiff) {
    const std::vector<NodeId> ids = grads.node_ids();
    t.kind.leaf.node_id = ids[*s.target_entry % ids.size()].value;
  }
  return t;
}

Failure check_grad_replace(const DispatchSpec& tensor, const DispatchSpec& grad, Gradients& grads) {
  const DispatchTensor t = build(tensor);
  const DispatchTensor g = build(grad);
  const std::optional<std::uint64_t> tn = node_of(t.kind);
  const Outcome expected = expect_grad_replace(tensor.kind, tn, grad.kind, node_of(g.kind));
  const GradientsSnapshot before = snapshot(grads);
  const Outcome actual = outcome_of([&] { Dispatch::grad_replace(t, grads, g); });
  if (actual != expected) {
    return "grad_replace outcome: expected " + describe(expected) + "\n  got " + describe(actual) + context(tensor, grad);
  }
  const GradientsSnapshot after = snapshot(grads);
  if (!expected.ok()) {
    if (auto diff = compare(before, after)) return "grads touched by a panicking grad_replace: " + *diff + context(tensor, grad);
    if (auto bad = probe_usable(grads)) return *bad + context(tensor, grad);
    return std::nullopt;
  }
  const std::optional<EntrySnapshot> installed = snapshot_of(g);
  GradientsSnapshot want = before;
  want.erase(*tn);
  want.emplace(*tn, *installed);
  if (auto diff = compare(want, after)) {
    return "after grad_replace (replace, never accumulate; no other entry changed): " + *diff + context(tensor, grad);
  }
  const std::optional<DispatchTensor> got = Dispatch::grad(t, grads);
  if (!got) return "grad after grad_replace returned nothing" + context(tensor, grad);
  const std::optional<EntrySnapshot> got_snap = snapshot_of(*got);
  if (!got_snap) return "grad after grad_replace returned a non-float kind" + context(tensor, grad);
  if (auto diff = compare(*installed, *got_snap)) return "grad after grad_replace: " + *diff + context(tensor, grad);
  const std::optional<DispatchTensor> removed = Dispatch::grad_remove(t, grads);
  if (!removed) return "grad_remove after grad_replace returned nothing" + context(tensor, grad);
  if (auto diff = compare(*installed, *snapshot_of(*removed))) return "grad_remove: " + *diff + context(tensor, grad);
  if (Dispatch::grad_remove(t, grads)) return "grad_remove returned the gradient twice" + context(tensor, grad);
  if (Dispatch::grad(t, grads)) return "grad after grad_remove still returns a gradient" + context(tensor, grad);
  want.erase(*tn);
  if (auto diff = compare(want, grads)) return "after grad_remove: " + *diff + context(tensor, grad);
  return std::nullopt;
}

Failure check_grad_replace(const GradReplaceScenario& s) { return check_grad_replace(s, build_gradients(s.graphs)); }

Failure check_grad_replace(const GradReplaceScenario& s, const Gradients& built) {
  Gradients grads = built;
  return check_grad_replace(resolved_tensor(s, grads), s.grad, grads);
}

Failure check_replace_twice(const GradReplaceScenario& s, const DispatchSpec& second_grad) {
  return check_replace_twice(s, second_grad, build_gradients(s.graphs));
}

Failure check_replace_twice(const GradReplaceScenario& s, const DispatchSpec& second_grad, const Gradients& built) {
  Gradients grads = built;
  const DispatchSpec tensor = resolved_tensor(s, grads);
  const DispatchTensor t = build(tensor);
  const DispatchTensor g1 = build(s.grad);
  const DispatchTensor g2 = build(second_grad);
  const auto tn = node_of(t.kind);
  if (!expect_grad_replace(tensor.kind, tn, s.grad.kind, node_of(g1.kind)).ok() ||
      !expect_grad_replace(tensor.kind, tn, second_grad.kind, node_of(g2.kind)).ok()) {
    return std::nullopt;  // only meaningful for two valid replaces
  }
  GradientsSnapshot want = snapshot(grads);
  const Outcome first = outcome_of([&] { Dispatch::grad_replace(t, grads, g1); });
  const Outcome second = outcome_of([&] { Dispatch::grad_replace(t, grads, g2); });
  if (!first.ok() || !second.ok()) {
    return "valid replaces panicked: " + describe(first) + " / " + describe(second) + context(tensor, second_grad);
  }
  want.erase(*tn);
  want.emplace(*tn, *snapshot_of(g2));
  if (auto diff = compare(want, grads)) {
    return "second grad_replace must replace the first (never accumulate): " + *diff + context(tensor, second_grad);
  }
  return std::nullopt;
}

Failure check_checkpointing_irrelevant(const GradReplaceScenario& s) {
  return check_checkpointing_irrelevant(s, build_gradients(s.graphs));
}

Failure check_checkpointing_irrelevant(const GradReplaceScenario& s, const Gradients& built) {
  const Gradients& base = built;
  const DispatchSpec tensor = resolved_tensor(s, base);
  const DispatchTensor t = build(tensor);
  const DispatchTensor g = build(s.grad);
  const GradientsSnapshot start = snapshot(base);
  std::optional<Outcome> first_outcome;
  std::optional<GradientsSnapshot> first_after;
  const std::optional<CheckpointingStrategy> strategies[] = {std::nullopt, CheckpointingStrategy::Disabled,
                                                             CheckpointingStrategy::Balanced};
  for (const auto& cp : strategies) {
    Gradients grads = base;
    // The copy is checked once: the others are made the same way from the same unchanged base.
    if (!first_outcome) {
      if (auto diff = compare(start, grads)) return "Gradients copy differs: " + *diff;
    }
    DispatchTensor gc = g;
    gc.checkpointing = cp;
    const Outcome outcome = outcome_of([&] { Dispatch::grad_replace(t, grads, gc); });
    const GradientsSnapshot after = snapshot(grads);
    if (!first_outcome) {
      first_outcome = outcome;
      first_after = after;
      continue;
    }
    const std::string which = cp ? (*cp == CheckpointingStrategy::Balanced ? "Balanced" : "Disabled") : "none";
    if (outcome != *first_outcome) {
      return "gradient checkpointing " + which + " changed the outcome: " + describe(outcome) + " vs " +
             describe(*first_outcome) + context(tensor, s.grad);
    }
    if (auto diff = compare(*first_after, after)) {
      return "gradient checkpointing " + which + " changed the result: " + *diff + context(tensor, s.grad);
    }
  }
  return std::nullopt;
}

Failure check_cross_backend_message(const DispatchSpec& tensor, const DispatchSpec& grad) {
  const DispatchTensor t = build(tensor);
  const DispatchTensor g = build(grad);
  const KindSpec inner = unwrap(tensor.kind);
  const Outcome expected = expect_grad_replace(tensor.kind, node_of(t.kind), grad.kind, node_of(g.kind));
  if (expected.panic_id != std::optional<std::string>("cross-backend")) return std::nullopt;
  Gradients grads;
  const Outcome actual = outcome_of([&] { Dispatch::grad_replace(t, grads, g); });
  if (actual != expected) return "cross-backend: expected " + describe(expected) + "\n  got " + describe(actual) + context(tensor, grad);
  const std::string want_t = render_kind(inner, node_of(t.kind));
  const std::string want_g = render_kind(grad.kind, node_of(g.kind));
  // Compiled once: the pattern is a constant. MessagePattern answers as std::regex (ECMAScript)
  // would, groups included (tests/unit/message_pattern_test.cpp), without its per-match cost.
  static const MessagePattern pattern{text::cross_backend_pattern};
  MessagePattern::Groups m;
  const std::string_view message = actual.message;
  if (!pattern.full_match(message, m)) return "messagePattern (anchored) does not match: " + actual.message;
  if (m[1].in(message) != want_t || m[2].in(message) != want_g) {
    return "messagePattern (anchored) recovered t=" + std::string(m[1].in(message)) + " g=" + std::string(m[2].in(message)) +
           " from " + actual.message;
  }
  const std::string embedded = "thread 'main' panicked at backend.rs:479:\n" + actual.message + "\nnote: run with RUST_BACKTRACE=1";
  if (!pattern.search(embedded, m)) return "messagePattern (unanchored) does not match: " + actual.message;
  if (m[1].in(embedded) != want_t || m[2].in(embedded) != want_g) {
    return "messagePattern (unanchored) recovered t=" + std::string(m[1].in(embedded)) + " g=" + std::string(m[2].in(embedded)) +
           " from " + actual.message;
  }
  return std::nullopt;
}

std::string_view receiver_op_name(ReceiverOp op) {
  switch (op) {
    case ReceiverOp::Grad: return "grad";
    case ReceiverOp::GradRemove: return "grad_remove";
    case ReceiverOp::Backward: return "backward";
    case ReceiverOp::Inner: return "inner";
  }
  return "?";
}

Failure check_receiver(ReceiverOp op, const DispatchSpec& tensor, Gradients& grads) {
  const DispatchTensor t = build(tensor);
  const auto tn = node_of(t.kind);
  const GradientsSnapshot before = snapshot(grads);
  const std::string name(receiver_op_name(op));
  const LazyText ctx{[&] { return "\n  tensor: " + describe(tensor); }};
  switch (op) {
    case ReceiverOp::Grad:
    case ReceiverOp::GradRemove: {
      const GradExpectation e = expect_grad(tensor.kind, tn, before);
      std::optional<DispatchTensor> result;
      const Outcome actual = outcome_of([&] {
        result = op == ReceiverOp::Grad ? Dispatch::grad(t, grads) : Dispatch::grad_remove(t, grads);
      });
      if (actual != e.outcome) return name + ": expected " + describe(e.outcome) + "\n  got " + describe(actual) + ctx;
      GradientsSnapshot want = before;
      if (actual.ok()) {
        if (e.value.has_value() != result.has_value()) {
          return name + ": expected " + (e.value ? "an entry" : std::string("nothing")) + ", got " +
                 (result ? "an entry" : std::string("nothing")) + ctx;
        }
        if (result) {
          const auto snap = snapshot_of(*result);
          if (!snap) return name + " returned a non-float kind" + ctx;
          if (auto diff = compare(*e.value, *snap)) return name + ": " + *diff + ctx;
          if (op == ReceiverOp::GradRemove) want.erase(*tn);
        }
      }
      if (auto diff = compare(want, grads)) return "container after " + name + ": " + *diff + ctx;
      return std::nullopt;
    }
    case ReceiverOp::Backward: {
      std::optional<Gradients> result;
      const Outcome expected = expect_receiver(tensor.kind);
      const Outcome actual = outcome_of([&] { result = Dispatch::backward(t); });
      if (actual != expected) return name + ": expected " + describe(expected) + "\n  got " + describe(actual) + ctx;
      if (actual.ok()) {
        // A leaf root: its gradient is ones of its shape and dtype.
        TensorSpec ones = tensor.kind.leaf;
        ones.primitive = PrimitiveKind::Float;
        ones.values.assign(element_count(ones.shape), 1.0);
        GradientsSnapshot want;
        want.emplace(*tn, EntrySnapshot{ones.backend, leaf_data(ones), ones.device});
        if (auto diff = compare(want, *result)) return "backward of a leaf: " + *diff + ctx;
      }
      if (auto diff = compare(before, grads)) return "backward touched another container: " + *diff + ctx;
      return std::nullopt;
    }
    case ReceiverOp::Inner: {
      std::optional<DispatchTensor> result;
      const Outcome expected = expect_receiver(tensor.kind);
      const Outcome actual = outcome_of([&] { result = Dispatch::inner(t); });
      if (actual != expected) return name + ": expected " + describe(expected) + "\n  got " + describe(actual) + ctx;
      if (actual.ok()) {
        const auto snap = snapshot_of(*result);
        if (!snap) return "inner returned a non-float kind" + ctx;
        const EntrySnapshot want{tensor.kind.leaf.backend, leaf_data(tensor.kind.leaf), tensor.kind.leaf.device};
        if (auto diff = compare(want, *snap)) return "inner: " + *diff + ctx;
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

Failure check_from_inner(const DispatchSpec& tensor) {
  const DispatchTensor t = build(tensor);
  std::optional<DispatchTensor> result;
  const Outcome expected = expect_from_inner(tensor.kind);
  const Outcome actual = outcome_of([&] { result = Dispatch::from_inner(t); });
  const LazyText ctx{[&] { return "\n  tensor: " + describe(tensor); }};
  if (actual != expected) return "from_inner: expected " + describe(expected) + "\n  got " + describe(actual) + ctx;
  if (!actual.ok()) return std::nullopt;
  if (autodiff_depth_of(result->kind) != 1 || primitive_of(result->kind) != PrimitiveKind::Autodiff ||
      backend_of(result->kind) != tensor.kind.leaf.backend || !node_of(result->kind)) {
    return "from_inner did not return Autodiff(B(Autodiff(..))) on the same backend" + ctx;
  }
  return std::nullopt;
}

Failure check_inner_from_inner(const TensorSpec& float_tensor) {
  const DispatchTensor t = build(DispatchSpec{KindSpec{0, float_tensor}, std::nullopt});
  const DispatchTensor back = Dispatch::inner(Dispatch::from_inner(t));
  const auto a = snapshot_of(t);
  const auto b = snapshot_of(back);
  if (!b) return "inner(from_inner(t)) is not a float kind\n  tensor: " + describe(float_tensor);
  if (auto diff = compare(*a, *b)) return "inner(from_inner(t)): " + *diff + "\n  tensor: " + describe(float_tensor);
  return std::nullopt;
}

Failure check_to_device_roundtrip(const TensorSpec& float_tensor, std::size_t backend) {
  const DispatchTensor t = build(DispatchSpec{KindSpec{0, float_tensor}, std::nullopt});
  const BackendRef& target = all_backends().at(backend);
  const DispatchTensor moved = Dispatch::float_to_device(t, dispatch_device(backend, target.default_device));
  const DispatchTensor back = Dispatch::float_to_device(moved, dispatch_device(float_tensor.backend, float_tensor.device));
  const LazyText ctx{[&] { return "\n  tensor: " + describe(float_tensor) + "\n  to: " + target.name; }};
  const auto a = snapshot_of(t);
  const auto m = snapshot_of(moved);
  const auto b = snapshot_of(back);
  if (!m || m->backend != backend || m->device != target.default_device) return "to_device: wrong backend or device" + ctx;
  if (m->data != a->data) return "to_device: data changed: " + describe(*m) + " vs " + describe(*a) + ctx;
  if (!b) return "to_device back: not a float kind" + ctx;
  if (auto diff = compare(*a, *b)) return "to_device round trip: " + *diff + ctx;
  return std::nullopt;
}

Failure check_debug_rendering(const KindSpec& kind, const Renderer& engine_debug) {
  const DispatchTensorKind built = build_kind(kind);
  const std::string got = engine_debug(built);
  const std::string want = render_kind(kind, node_of(built));
  const LazyText ctx{[&] { return "\n  kind: " + describe(kind); }};
  if (got != want) return "debug: expected\n  " + want + "\n  got\n  " + got + ctx;
  static const MessagePattern grammar(kind_grammar_regex());
  if (!grammar.full_match(got)) return "debug rendering does not follow the grammar: " + got + ctx;
  std::size_t open = 0;
  for (std::size_t p = 0; got.compare(p, 9, "Autodiff(") == 0 && got.compare(p, 23, "Autodiff(AutodiffTensor") != 0; p += 9) ++open;
  if (open != kind.autodiff_depth) return "debug rendering has " + std::to_string(open) + " Autodiff( wrappers" + ctx;
  if (got.find(" and ") != std::string::npos || got.find('.') != std::string::npos) {
    return "debug rendering contains \" and \" or \".\": " + got + ctx;
  }
  // No element values: other values and another element count with the same digits per dim
  // render to the same length (and, with the same dims, to the same text).
  KindSpec other = kind;
  for (double& v : other.leaf.values) v = v == 0.0 ? 1.0 : -v * 3.0 + 1.0;
  if (kind.leaf.primitive == PrimitiveKind::Bool || kind.leaf.primitive == PrimitiveKind::Int) {
    for (double& v : other.leaf.values) v = v == 0.0 ? 1.0 : 0.0;
  }
  if (kind.leaf.primitive == PrimitiveKind::Quantized) other.leaf.values.clear();
  const DispatchTensorKind other_built = build_kind(other);
  const std::string other_got = engine_debug(other_built);
  if (other_got != render_kind(kind, node_of(other_built))) return "debug rendering depends on element values: " + other_got + ctx;
  KindSpec resized = kind;
  resized.leaf.values.clear();
  for (std::size_t& d : resized.leaf.shape) {
    std::size_t p = 1;
    while (p * 10 <= d) p *= 10;
    d = d == 0 ? 0 : p;
  }
  const DispatchTensorKind resized_built = build_kind(resized);
  const std::string resized_got = engine_debug(resized_built);
  const std::size_t node_digits = std::to_string(node_of(built).value_or(0)).size();
  const std::size_t resized_digits = std::to_string(node_of(resized_built).value_or(0)).size();
  if (resized_got.size() - resized_digits != got.size() - node_digits) {
    return "debug rendering length depends on more than rank: " + got + " vs " + resized_got + ctx;
  }
  return std::nullopt;
}

namespace {
// check_graph_differential; `kept`, when given, receives the tracked run of `keep_backend` (Hops
// Ignore) that the comparisons used, once they have passed.
Failure differential_of(const NormalizedGraph& ng, std::size_t keep_backend, std::optional<GraphGradients>* kept) {
  const GraphSpec& g = ng;
  const std::size_t ref = reference_backend();
  const GraphRun ref_run = run_graph(ng, ref, g.dtype, false);
  std::vector<TensorData> ref_values;
  for (const DispatchTensor& v : ref_run.values) ref_values.push_back(Dispatch::float_into_data(v));
  const auto shapes = value_shapes(g);
  GraphGradients ref_grads = graph_gradients_on(ng, ref, g.dtype);
  // Note [Conditioning of a graph]: how far the backends' gradients may drift apart.
  const Conditioning conditioning = conditioning_of(g, ref_values);
  for (const BackendRef& b : available_backends()) {
    if (b.index == ref) continue;
    const DispatchDevice device = dispatch_device(b.index, b.default_device);
    // Forward: each op alone, on the reference's inputs, within its own bound.
    for (std::size_t k = 0; k < g.ops.size(); ++k) {
      const OpSpec& op = g.ops[k];
      // A hop is the identity in a run without hops; check_graph_hops checks it as specified.
      if (is_hop(op.op)) continue;
      const TensorData& lhs = ref_values[op.lhs];
      const TensorData& rhs = ref_values[is_binary(op.op) ? op.rhs : op.lhs];
      // The step's name, built only for a failure message.
      const auto what = [&] {
        std::ostringstream os;
        os << b.name << " " << op << " on " << render_shape(shapes[op.lhs]);
        if (is_binary(op.op)) os << ", " << render_shape(shapes[op.rhs]);
        return os.str();
      };
      std::optional<TensorData> got;
      const Outcome outcome = outcome_of([&] {
        got = Dispatch::float_into_data(apply_op(op, Dispatch::float_from_data(lhs, device), Dispatch::float_from_data(rhs, device)));
      });
      if (!outcome.ok()) return what() + " panicked: " + describe(outcome) + "\n  graph: " + describe(g);
      const Bound bound = bound_for_inputs(op, g.dtype, lhs, rhs);
      if (auto diff = compare_values(ref_values[g.leaf_shapes.size() + k], *got, bound, what, op_name(op.op))) {
        return *diff + "\n  graph: " + describe(g);
      }
    }
    // Backward of the whole graph, against the reference's gradients.
    GraphGradients grads = graph_gradients_on(ng, b.index, g.dtype, Hops::Ignore);
    const std::string backward_key = g.ops.size() == 1 ? "backward " + std::string(op_name(g.ops[0].op)) : std::string("backward graph");
    for (std::size_t i = 0; i < g.leaf_shapes.size(); ++i) {
      const auto want = Dispatch::grad(ref_grads.run.leaves[i], ref_grads.grads);
      const auto got = Dispatch::grad(grads.run.leaves[i], grads.grads);
      if (want.has_value() != got.has_value()) return b.name + ": gradient of leaf " + std::to_string(i) + " present on one backend only\n  graph: " + describe(g);
      if (!want) continue;
      const TensorData w = Dispatch::float_into_data(*want);
      if (auto diff = compare_values(w, Dispatch::float_into_data(*got), graph_gradient_bound(g, w, conditioning, i),
                                     [&] { return b.name + " gradient of leaf v" + std::to_string(i); }, backward_key)) {
        return *diff + "\n  graph: " + describe(g);
      }
    }
    if (kept != nullptr && b.index == keep_backend) kept->emplace(std::move(grads));
  }
  if (kept != nullptr && ref == keep_backend) kept->emplace(std::move(ref_grads));
  if (has_hops(g)) return check_graph_hops(g);
  return std::nullopt;
}
}  // namespace

Failure check_graph_differential(const GraphSpec& graph) { return differential_of(NormalizedGraph(graph), 0, nullptr); }

namespace {

// Whether every element of every value is finite.
bool all_finite(const std::vector<TensorData>& values) {
  for (const TensorData& v : values) {
    for (double x : v.to_f64()) {
      if (!std::isfinite(x)) return false;
    }
  }
  return true;
}

// A tracked float tensor Autodiff(B(Autodiff(..))) of registry index `backend`, read from the
// kind's structure (never from a rendering).
bool tracked_on(const DispatchTensor& t, std::size_t backend) {
  return autodiff_depth_of(t.kind) == 1 && primitive_of(t.kind) == PrimitiveKind::Autodiff && backend_of(t.kind) == backend;
}

std::string backend_name(std::size_t backend) {
  return backend < all_backends().size() ? all_backends()[backend].name : "backend#" + std::to_string(backend);
}

// A leaf's gradient: the container's entry a tensor of the leaf's own backend, and grad(leaf) (read
// through outcome_of: an engine that put the entry elsewhere may throw there) a plain float
// tensor of that backend, on its default device (where the leaf was built).
Failure check_gradient_placement(const DispatchTensor& leaf_tensor, const Gradients& grads, std::size_t leaf,
                                 std::size_t backend, const GradientsSnapshot& entries) {
  const auto what = [&] { return "gradient of leaf v" + std::to_string(leaf) + " (a leaf on " + backend_name(backend) + ")"; };
  const std::optional<std::uint64_t> node = node_of(leaf_tensor.kind);
  const auto it = node ? entries.find(*node) : entries.end();
  if (it == entries.end()) return what() + ": no entry in the container";
  if (it->second.backend != backend) return what() + ": the container's entry is a tensor of " + backend_name(it->second.backend);
  std::optional<DispatchTensor> read;
  const Outcome o = outcome_of([&] { read = Dispatch::grad(leaf_tensor, grads); });
  if (!o.ok()) return what() + ": grad panicked: " + describe(o);
  if (!read) return what() + ": grad returned nothing, the container has an entry";
  const DispatchTensor& got = *read;
  if (autodiff_depth_of(got.kind) != 0 || primitive_of(got.kind) != PrimitiveKind::Float) {
    return what() + ": grad did not return a plain float tensor";
  }
  if (backend_of(got.kind) != backend) return what() + ": grad returned a tensor of " + backend_name(backend_of(got.kind));
  if (!(Dispatch::float_device(got) == dispatch_device(backend, all_backends().at(backend).default_device))) {
    return what() + ": grad returned a tensor on another device of " + backend_name(backend);
  }
  return std::nullopt;
}

}  // namespace

Failure check_graph_hops(const GraphSpec& graph) {
  const NormalizedGraph ng(graph);
  const GraphSpec& g = ng;
  if (unavailable_here(g)) return std::nullopt;  // not applicable here (hops_applicable_here says why)
  const LazyText ctx{[&] { return "\n  graph: " + describe(g); }};
  const std::size_t ref = reference_backend();
  const std::size_t leaves = g.leaf_shapes.size();
  const std::vector<std::size_t> where = value_backends(g);
  // The reference: the graph without hops, untracked, on the reference backend.
  const GraphRun ref_run = run_graph(ng, ref, g.dtype, false, Hops::Ignore);
  std::vector<TensorData> ref_values;
  for (const DispatchTensor& v : ref_run.values) ref_values.push_back(Dispatch::float_into_data(v));
  const bool finite = all_finite(ref_values);
  const Conditioning conditioning = conditioning_of(g, ref_values);  // Note [Conditioning of a graph]
  // The system under test: the graph as specified, tracked.
  GraphGradients follow;
  const Outcome ran = outcome_of([&] { follow = graph_gradients(ng); });
  if (!ran.ok()) return "hops as specified: forward or backward panicked: " + describe(ran) + ctx;

  // Forward: every value on its backend, tracked; a hop's value bit for bit its lhs's; every
  // other step within its own bound of the reference op on the same inputs, and every value
  // within the graph bound of the reference run (when that run is finite everywhere: a
  // non-finite intermediate makes later classes depend on summation order).
  const DispatchDevice ref_device = dispatch_device(ref, all_backends().at(ref).default_device);
  std::vector<TensorData> values;
  for (std::size_t k = 0; k < follow.run.values.size(); ++k) {
    const DispatchTensor& v = follow.run.values[k];
    const LazyText what{[k] { return "hops as specified: v" + std::to_string(k); }};
    if (!tracked_on(v, where[k])) {
      return what + " is not a tracked tensor of " + backend_name(where[k]) + " (got backend " +
             backend_name(backend_of(v.kind)) + ")" + ctx;
    }
    values.push_back(Dispatch::float_into_data(v));
    const TensorData& got = values.back();
    if (k < leaves) {
      if (!(got == ref_values[k])) return what + ": the leaf's data differs from the reference leaf's" + ctx;
      continue;
    }
    const OpSpec& op = g.ops[k - leaves];
    if (is_hop(op.op)) {
      if (!(got == values[op.lhs])) {
        return what + " = to_backend(v" + std::to_string(op.lhs) + " -> " + backend_name(op.rhs) +
               "): the moved data (or dtype) is not bit for bit its source's" + ctx;
      }
      continue;
    }
    const TensorData& lhs = values[op.lhs];
    const TensorData& rhs = values[is_binary(op.op) ? op.rhs : op.lhs];
    std::optional<TensorData> want;
    const Outcome o = outcome_of([&] {
      want = Dispatch::float_into_data(
          apply_op(op, Dispatch::float_from_data(lhs, ref_device), Dispatch::float_from_data(rhs, ref_device)));
    });
    if (!o.ok()) return what + ": the reference op panicked on its inputs: " + describe(o) + ctx;
    if (auto diff = compare_values(*want, got, bound_for_inputs(op, g.dtype, lhs, rhs), what, op_name(op.op))) return *diff + ctx;
    if (finite) {
      if (auto diff = compare_values(ref_values[k], got, graph_value_bound(g, ref_values[k], conditioning, k),
                                     [&] { return what + " (vs the reference run)"; })) {
        return *diff + ctx;
      }
    }
  }

  // Backward: every leaf's gradient on the leaf's own backend (grad's result and the entry), and
  // within the graph bound of the reference gradient and of the gradient of the graph without
  // hops on graph.backend (a hop whose gradient is accumulated twice doubles it).
  const GraphGradients ref_grads = graph_gradients_on(ng, ref, g.dtype, Hops::Ignore);
  const GraphGradients plain = graph_gradients_on(ng, g.backend, g.dtype, Hops::Ignore);
  const GradientsSnapshot entries = snapshot(follow.grads);
  for (std::size_t i = 0; i < leaves; ++i) {
    const auto want = Dispatch::grad(ref_grads.run.leaves[i], ref_grads.grads);
    const auto without = Dispatch::grad(plain.run.leaves[i], plain.grads);
    const LazyText what{[i] { return "hops as specified: gradient of leaf v" + std::to_string(i); }};
    const std::optional<std::uint64_t> node = node_of(follow.run.leaves[i].kind);
    const bool has_entry = node && entries.count(*node);
    if (want.has_value() != has_entry) {
      return what + (has_entry ? " present" : " missing") + ", the reference's " + (want ? "present" : "missing") + ctx;
    }
    if (!want) continue;
    if (auto bad = check_gradient_placement(follow.run.leaves[i], follow.grads, i, where[i], entries)) {
      return "hops as specified: " + *bad + ctx;
    }
    const auto got = Dispatch::grad(follow.run.leaves[i], follow.grads);  // placed right: readable
    const TensorData got_data = Dispatch::float_into_data(*got);
    const TensorData want_data = Dispatch::float_into_data(*want);
    if (auto diff = compare_values(want_data, got_data, graph_gradient_bound(g, want_data, conditioning, i), what, "backward hops")) {
      return *diff + ctx;
    }
    if (!without) return what + " present, absent in the graph without hops on " + backend_name(g.backend) + ctx;
    const TensorData without_data = Dispatch::float_into_data(*without);
    if (auto diff = compare_values(without_data, got_data, graph_gradient_bound(g, without_data, conditioning, i), [&] {
          return what + " (vs the graph without hops on " + backend_name(g.backend) + ")";
        })) {
      return *diff + ctx;
    }
  }
  return std::nullopt;
}

namespace {

// Finite differences judge a gradient only where the objective is smooth. finite_differences
// already drops points where the h and h/2 estimates disagree; what it cannot see is a kink met
// exactly (relu at 0: backward 0, central differences a consistent 0.5), a derivative that is
// infinite where the value is finite (sqrt at 0), non-finite intermediates (x / 0), or values so
// large or small that the textbook backward formulas leave the range of F64 where the forward
// stays in it (Burn's div rule -a / b^2 at a = b = 1e-300: b^2 underflows to 0 and the gradient
// is -inf, its true value 0; found by ops_differential_fuzzer). Such graphs are not judged: the
// returned reason says which rule applies; nullopt when the graph is smooth.
// Beyond these magnitudes a square (or a power's x^(p-1) for |p| <= 2) can leave F64's normal range.
constexpr double kWellScaledMax = 0x1p+500;  // about 3.3e150
constexpr double kWellScaledMin = 0x1p-500;  // about 3.1e-151
std::optional<std::string> not_smooth_at_leaf_values(const NormalizedGraph& ng, const GraphRun& run) {
  const GraphSpec& g = ng;
  std::vector<TensorData> data;
  std::vector<std::vector<double>> values;
  for (const DispatchTensor& v : run.values) {
    data.push_back(Dispatch::float_into_data(v));
    values.push_back(data.back().to_f64());
    for (double x : values.back()) {
      if (!std::isfinite(x)) return "a non-finite value";
      const double a = std::fabs(x);
      if (a != 0.0 && (a > kWellScaledMax || a < kWellScaledMin)) return "a value beyond 2^+-500";
    }
  }
  // A divisor (or log's, sqrt's, ... argument) that the root reads and that is known to no better
  // than its distance to the op's pole (Note [Conditioning of a graph]): correct backends may put
  // it on either side of the pole or on it, so f is not defined to within rounding there, and a
  // gradient through 1 / b or a / b^2 is not known to within 100 %. v9 = sum(mean_dim(v0) - v0)
  // with v0 holding 3.4e38, then v12 / v9 (F64, ops_differential_fuzzer): the sum's terms of
  // +-1.7e38 cancel to 0.0625 in NdArray's order (f finite, differences -16) and to exactly 0 in
  // Flex's (its forward +-inf, its backward NaN); regress-fd-divisor-cancels-to-zero-on-flex.
  if (conditioning_of(g, data).pole_within_error) {
    return "an operand within its rounding error of its op's pole (a divisor that is a cancelled sum's residue)";
  }
  // Points where an op's derivative is undefined or infinite although its value is finite: relu
  // at 0, sqrt at 0 (d/dx = inf; inf * 0 further down gives NaN), x^p at 0 for p < 1.
  const auto singular_at_zero = [](const OpSpec& op) {
    return op.op == Op::relu || op.op == Op::leaky_relu || op.op == Op::prelu || infinite_partial_at_zero(op);
  };
  for (const auto& op : g.ops) {
    if (!singular_at_zero(op) || op.lhs >= values.size()) continue;
    for (double x : values[op.lhs]) {
      if (x == 0.0) return "a singular point (relu, leaky_relu, prelu, sqrt or x^p with p < 1 at 0)";
    }
  }
  for (const auto& op : g.ops) {
    const std::vector<double> at = infinite_partial_at(op);
    if (at.empty() || op.lhs >= values.size()) continue;
    for (double x : values[op.lhs]) {
      if (std::find(at.begin(), at.end(), x) != at.end()) return "a singular point (acos, asin at +-1, acosh at 1)";
    }
  }
  // Whether some op of `ops` has an operand element of magnitude `limit` or more.
  const auto operand_reaches = [&](std::initializer_list<Op> ops, double limit) {
    for (const auto& op : g.ops) {
      if (std::find(ops.begin(), ops.end(), op.op) == ops.end() || op.lhs >= values.size()) continue;
      for (double x : values[op.lhs]) {
        if (std::fabs(x) >= limit) return true;
      }
    }
    return false;
  };
  // round, floor, ceil and trunc have gradient 0 (docs/OPS.md), but where |x| >= 2^52 every double
  // is an integer, so they are the identity on every point finite differences can step to and
  // central differences give 1 (ops_differential_fuzzer: ceil(3.4e38) in F64).
  if (operand_reaches({Op::float_round, Op::float_floor, Op::float_ceil, Op::float_trunc}, 0x1p+52)) {
    return "round, floor, ceil or trunc where every double is an integer (|x| >= 2^52)";
  }
  // sin, cos and tan far from 0: the step 1e-5 |x| is no longer small against the period 2 pi
  // (from |x| = 2^13 it is 0.08), so the differences sample the function, not its slope; at
  // |x| = 1e30 tan(tan(x)) gave central differences 5.7e-26 for a slope of 1.00017
  // (ops_differential_fuzzer).
  if (operand_reaches({Op::float_sin, Op::float_cos, Op::float_tan}, 0x1p+13)) {
    return "sin, cos or tan where the step is not small against the period (|x| >= 2^13)";
  }
  // remainder by s (or by b) where a / s is huge: the step 1e-5 |a| spans many periods of length
  // |s|, the same as sin's; remainder_scalar(-1e30, 5) gave central differences 3.8e-25 for a
  // slope of 1 (ops_differential_fuzzer).
  for (const auto& op : g.ops) {
    if (op.op != Op::float_remainder_scalar && op.op != Op::float_remainder) continue;
    if (op.lhs >= values.size() || (op.op == Op::float_remainder && op.rhs >= values.size())) continue;
    double largest_a = 0, smallest_b = std::fabs(op.scalar);  // over every pairing: broadcasting aside
    for (double a : values[op.lhs]) largest_a = std::fmax(largest_a, std::fabs(a));
    if (op.op == Op::float_remainder) {
      smallest_b = std::numeric_limits<double>::infinity();
      for (double b : values[op.rhs]) smallest_b = std::fmin(smallest_b, std::fabs(b));
    }
    if (largest_a >= 0x1p+13 * smallest_b) {
      return "remainder where the step is not small against the period (|a| >= 2^13 |b|)";
    }
  }
  // x^p: its derivative p x^(p-1) must be finite and within range where the value is (p = inf:
  // x^inf is 0 for |x| < 1, and backward multiplies inf by the incoming gradient).
  for (const auto& op : g.ops) {
    if (op.op != Op::float_powf_scalar || op.lhs >= values.size()) continue;
    if (!std::isfinite(op.scalar)) return "x^p with a non-finite p";
    for (double x : values[op.lhs]) {
      const double d = std::fabs(op.scalar * std::pow(x, op.scalar - 1.0));
      if (!std::isfinite(d) || (d != 0.0 && (d > kWellScaledMax || d < kWellScaledMin))) {
        return "x^p whose derivative p x^(p-1) leaves 2^+-500";
      }
    }
  }
  // clamp exactly at a bound (backward 1, central differences 0.5) and max_dim / min_dim / max /
  // min / max_abs(_dim) with a tied extreme (backward splits it, central differences give 1/2 to
  // each side of the tie).
  const std::vector<std::vector<std::size_t>> shapes = value_shapes(g);
  for (const auto& op : g.ops) {
    if (op.op == Op::float_clamp) {
      for (double x : values[op.lhs]) {
        if (x == clamp_min(op) || x == clamp_max(op)) return "clamp exactly at a bound";
      }
    }

    // pow with a tensor exponent: every pair (broadcasting pairs a subset) must keep both partials
    // b a^(b-1) and a^b log(a) finite and within range, a > 0; atan2 off its branch cut (a = 0 with
    // b <= 0) and off the origin.
    // hypot at the origin: a cone's tip, no derivative (backward 0 / 0).
    if (op.op == Op::float_hypot) {
      const std::size_t out = g.leaf_shapes.size() + static_cast<std::size_t>(&op - g.ops.data());
      if (out < values.size()) {
        for (double h : values[out]) {
          if (h == 0.0) return "hypot at the origin";
        }
      }
    }
    if (op.op == Op::float_powf || op.op == Op::float_atan2) {
      for (double x : values[op.lhs]) {
        for (double p : values[op.rhs]) {
          if (op.op == Op::float_atan2) {
            if (x == 0.0 && p <= 0.0) return "atan2 on its branch cut or at the origin";
            continue;
          }
          if (!(x > 0.0)) return "a^b with a <= 0";
          const double dl = std::fabs(p * std::pow(x, p - 1.0)), dr = std::fabs(std::pow(x, p) * std::log(x));
          for (double dd : {dl, dr}) {
            if (!std::isfinite(dd) || (dd != 0.0 && (dd > kWellScaledMax || dd < kWellScaledMin))) {
              return "a^b whose partials leave 2^+-500";
            }
          }
        }
      }
    }
    if (op.op == Op::float_remainder_scalar || op.op == Op::float_remainder) {
      // A result of 0 (or of b, where a tiny negative remainder rounded up to it) sits on a jump:
      // backward takes one side, central differences straddle it.
      const std::size_t out = g.leaf_shapes.size() + static_cast<std::size_t>(&op - g.ops.data());
      if (out < values.size()) {
        for (double r : values[out]) {
          if (r == 0.0 || (op.op == Op::float_remainder_scalar && std::fabs(r) == std::fabs(op.scalar))) {
            return "remainder exactly at a jump (a multiple of b)";
          }
        }
      }
    }
    if (op.op == Op::float_clamp_min || op.op == Op::float_clamp_max) {
      for (double x : values[op.lhs]) {
        if (x == op.scalar) return "clamp_min or clamp_max exactly at its bound";
      }
    }
    // A running extreme that meets a tie (x_r equal to the extreme so far) switches its source
    // there: backward follows the later element, central differences split the step between both.
    if (op.op == Op::float_cummax || op.op == Op::float_cummin) {
      const std::vector<std::size_t>& s = shapes[op.lhs];
      const double sign = op.op == Op::float_cummin ? -1.0 : 1.0;
      std::size_t outer = 1, inner = 1;
      for (std::size_t d = 0; d < op.dim && d < s.size(); ++d) outer *= s[d];
      for (std::size_t d = op.dim + 1; d < s.size(); ++d) inner *= s[d];
      const std::size_t n = op.dim < s.size() ? s[op.dim] : 0;
      for (std::size_t o = 0; o < outer && n > 0; ++o) {  // a lane of no element has no tie
        for (std::size_t i = 0; i < inner; ++i) {
          double best = sign * values[op.lhs][o * n * inner + i];
          for (std::size_t k = 1; k < n; ++k) {
            const double x = sign * values[op.lhs][(o * n + k) * inner + i];
            if (x == best) return "cummax or cummin with a tie against its running extreme";
            best = std::max(best, x);
          }
        }
      }
    }
    // sort and topk with two equal elements in a lane: the stable order sends the gradient to the
    // earlier one, while moving either by the step swaps them (ties of sorting, docs/OPS.md).
    if (op.op == Op::float_sort || op.op == Op::float_topk) {
      const std::vector<std::size_t>& s = shapes[op.lhs];
      std::size_t outer = 1, inner = 1;
      for (std::size_t d = 0; d < op.dim && d < s.size(); ++d) outer *= s[d];
      for (std::size_t d = op.dim + 1; d < s.size(); ++d) inner *= s[d];
      const std::size_t n = op.dim < s.size() ? s[op.dim] : 0;
      std::vector<double> lane(n);
      for (std::size_t o = 0; o < outer && n > 1; ++o) {
        for (std::size_t i = 0; i < inner; ++i) {
          for (std::size_t k = 0; k < n; ++k) lane[k] = values[op.lhs][(o * n + k) * inner + i];
          std::sort(lane.begin(), lane.end());
          if (std::adjacent_find(lane.begin(), lane.end()) != lane.end()) return "sort or topk with tied elements in a lane";
        }
      }
    }
    // The extremes over every element (float_max, float_min, float_max_abs) are one slice of the
    // flat tensor; max_abs ties on |x|, so x and -x at the maximum tie too.
    const bool along_dim = op.op == Op::float_max_dim || op.op == Op::float_min_dim || op.op == Op::float_max_abs_dim;
    const bool whole = op.op == Op::float_max || op.op == Op::float_min || op.op == Op::float_max_abs;
    if (along_dim || whole) {
      const bool min = op.op == Op::float_min_dim || op.op == Op::float_min;
      const bool magnitude = op.op == Op::float_max_abs_dim || op.op == Op::float_max_abs;
      const double sign = min ? -1.0 : 1.0;  // a minimum is the maximum of -x
      const std::vector<std::size_t>& s = shapes[op.lhs];
      std::size_t inner = 1;
      if (along_dim) {
        for (std::size_t d = op.dim + 1; d < s.size(); ++d) inner *= s[d];
      }
      const std::size_t n = along_dim ? s[op.dim] : element_count(s);
      const std::size_t outer = element_count(s) / std::max<std::size_t>(1, n * inner);
      for (std::size_t o = 0; o < outer; ++o) {
        for (std::size_t i = 0; i < inner; ++i) {
          double best = -INFINITY;
          std::size_t hits = 0;
          for (std::size_t k = 0; k < n; ++k) {
            const double v = values[op.lhs][(o * n + k) * inner + i];
            const double x = magnitude ? std::fabs(v) : sign * v;
            if (x > best) {
              best = x;
              hits = 1;
            } else if (x == best) {
              ++hits;
            }
          }
          if (hits > 1) {
            return magnitude ? "max_abs with a tied maximum of |x| (x and -x too)"
                   : min     ? "min_dim or min with a tied minimum"
                             : "max_dim or max with a tied maximum";
          }
        }
      }
    }
  }
  return std::nullopt;
}

// A step op (round, floor, ceil, trunc, sign) whose output changes when every leaf element moves
// by the finite-difference step h = step * max(1, |x|), one way or the other: its operand then
// crosses a jump within the step, and where it moves across many (floor(sinh(-14.75)): sinh's
// slope 1.3e6 times h = 1.5e-4 spans ~190 integers) the differences see a staircase as a slope
// that agrees at h and h/2 (backward 0, central differences 1274576; ops_differential_fuzzer).
// Moving all leaves at once can only flag more graphs than moving one element would.
// hard_sigmoid's clamp the same way: an element that moves between clamped-at-0, inside and
// clamped-at-1 within the step sits at (or within a step of) a kink, where backward takes one
// side's slope and central differences a mix (its alpha scales how far a step moves it).
std::optional<std::string> step_crosses_a_jump(const NormalizedGraph& ng, const GraphRun& at_x, double step) {
  const GraphSpec& g = ng;
  std::vector<std::size_t> steps;  // value indices of the step ops' outputs
  std::vector<std::size_t> kinks;  // and of hard_sigmoid's
  for (std::size_t k = 0; k < g.ops.size(); ++k) {
    if (step_jump(g.ops[k].op) > 0) steps.push_back(g.leaf_shapes.size() + k);
    if (g.ops[k].op == Op::hard_sigmoid) kinks.push_back(g.leaf_shapes.size() + k);
  }
  if (steps.empty() && kinks.empty()) return std::nullopt;
  const auto sides = [](const std::vector<double>& y) {
    std::vector<int> s;
    for (double v : y) s.push_back(v <= 0 ? 0 : v >= 1 ? 2 : 1);
    return s;
  };
  std::vector<std::vector<double>> x;
  for (std::size_t i = 0; i < g.leaf_shapes.size(); ++i) x.push_back(Dispatch::float_into_data(at_x.values[i]).to_f64());
  for (const double sign : {1.0, -1.0}) {
    std::vector<std::vector<double>> moved = x;
    for (std::vector<double>& leaf : moved) {
      for (double& v : leaf) v += sign * step * std::fmax(1.0, std::fabs(v));
    }
    const GraphRun run = run_graph(ng, reference_backend(), DType::F64, false, Hops::Ignore, &moved);
    for (std::size_t out : steps) {
      if (Dispatch::float_into_data(run.values[out]).to_f64() != Dispatch::float_into_data(at_x.values[out]).to_f64()) {
        return "a step op (round, floor, ceil, trunc, sign) whose operand crosses a jump within the step";
      }
    }
    for (std::size_t out : kinks) {
      if (sides(Dispatch::float_into_data(run.values[out]).to_f64()) != sides(Dispatch::float_into_data(at_x.values[out]).to_f64())) {
        return "hard_sigmoid whose clamp starts or stops within the step";
      }
    }
  }
  return std::nullopt;
}

}  // namespace

FdVerdict judge_graph_finite_differences(const GraphSpec& graph, const FdBudget& budget) {
  GraphSpec f64 = graph;
  f64.dtype = DType::F64;  // normalisation does not depend on the dtype
  const NormalizedGraph ng(std::move(f64));
  const GraphSpec& g = ng;
  FdVerdict verdict;
  // The graph at its leaf values, read by both the smoothness rules and finite_differences.
  const GraphRun at_x = run_graph(ng, reference_backend(), DType::F64, false);
  if (const std::optional<std::string> why = not_smooth_at_leaf_values(ng, at_x)) {
    verdict.not_judged = "not smooth at the leaf values: " + *why;
    return verdict;
  }
  if (const std::optional<std::string> why = step_crosses_a_jump(ng, at_x, budget.step)) {
    verdict.not_judged = "not smooth within the step: " + *why;
    return verdict;
  }
  const FiniteDifferences fd = finite_differences(ng, at_x, budget);
  const std::vector<FdJudgement> judgements = judge_points(fd);
  verdict.sampled = fd.points.size();
  verdict.evaluations = fd.evaluations;
  const std::vector<bool> used = used_leaves(g);
  // One row of the tightness table per op for single-op graphs, one for all deeper graphs.
  const std::string key = g.ops.size() == 1 ? "fd " + std::string(op_name(g.ops[0].op)) : std::string("fd graph");
  // Each available backend runs the graph without hops; a graph with hops also runs as specified
  // (when every backend it names is available here). Hops are the identity in the objective.
  struct Run {
    std::string name;
    std::function<GraphGradients()> gradients;
  };
  std::vector<Run> runs;
  for (const BackendRef& b : available_backends()) {
    runs.push_back({b.name, [&ng, index = b.index] { return graph_gradients_on(ng, index, DType::F64, Hops::Ignore); }});
  }
  if (has_hops(g) && !unavailable_here(g)) runs.push_back({"hops as specified", [&ng] { return graph_gradients(ng); }});
  for (const Run& b : runs) {
    const GraphGradients gg = b.gradients();
    std::vector<std::optional<std::vector<double>>> analytic(g.leaf_shapes.size());
    for (std::size_t i = 0; i < g.leaf_shapes.size(); ++i) {
      const auto grad = Dispatch::grad(gg.run.leaves[i], gg.grads);
      if (!grad) {
        if (used[i]) {
          verdict.failure = b.name + ": no gradient for used leaf v" + std::to_string(i) + "\n  graph: " + describe(g);
          return verdict;
        }
        continue;
      }
      analytic[i] = Dispatch::float_into_data(*grad).to_f64();
      if (analytic[i]->size() != element_count(g.leaf_shapes[i])) {
        verdict.failure = b.name + ": gradient of v" + std::to_string(i) + " has the wrong size\n  graph: " + describe(g);
        return verdict;
      }
    }
    for (std::size_t k = 0; k < fd.points.size(); ++k) {
      const FdPoint& p = fd.points[k];
      const FdJudgement& j = judgements[k];
      if (!j.judged || !analytic[p.leaf]) continue;
      const double got = (*analytic[p.leaf])[p.index];
      const double error = std::fabs(got - j.slope);
      record_tightness(key, DType::F64, error, j.tolerance);
      if (!(error <= j.tolerance)) {
        std::ostringstream os;
        os.precision(17);
        os << b.name << ": d(sum root)/d v" << p.leaf << "[" << p.index << "] backward " << got << ", finite differences "
           << j.slope << " (tol " << j.tolerance << ")\n  graph: " << describe(g);
        verdict.failure = os.str();
        return verdict;
      }
    }
  }
  for (const FdJudgement& j : judgements) verdict.judged += j.judged ? 1 : 0;
  if (verdict.judged == 0) {
    verdict.not_judged = fd.points.empty() ? "no element to differentiate" : judgements.front().why_not;
  }
  return verdict;
}

Failure check_graph_finite_differences(const GraphSpec& graph) { return judge_graph_finite_differences(graph).failure; }

namespace {
// check_backward_entries on a backward already run; leaf i's entry must be on where[i], the backend
// the check expects (from the spec, never from the run, so that a run of the wrong backend fails).
Failure entries_of(const GraphSpec& g, const GraphGradients& gg, const std::vector<std::size_t>& where) {
  const std::vector<bool> used = used_leaves(g);
  const GradientsSnapshot snap = snapshot(gg.grads);
  std::size_t count = 0;
  for (std::size_t i = 0; i < g.leaf_shapes.size(); ++i) {
    const auto node = node_of(gg.run.leaves[i].kind);
    const auto it = snap.find(*node);
    if (!used[i]) {
      if (it != snap.end()) return "backward made an entry for unused leaf v" + std::to_string(i) + "\n  graph: " + describe(g);
      continue;
    }
    ++count;
    if (it == snap.end()) return "backward made no entry for leaf v" + std::to_string(i) + "\n  graph: " + describe(g);
    if (auto bad = check_gradient_placement(gg.run.leaves[i], gg.grads, i, where[i], snap)) {
      return "backward: " + *bad + "\n  graph: " + describe(g);
    }
    if (it->second.backend != where[i] || it->second.data.dtype() != g.dtype ||
        it->second.data.shape().dims() != g.leaf_shapes[i]) {
      return "backward entry of v" + std::to_string(i) + " is " + describe(it->second) + "\n  graph: " + describe(g);
    }
  }
  if (count != snap.size()) return "backward made " + std::to_string(snap.size()) + " entries, expected " + std::to_string(count) + "\n  graph: " + describe(g);
  return std::nullopt;
}

}  // namespace

Failure check_backward_entries(const GraphSpec& graph) {
  const NormalizedGraph ng(graph);
  const GraphSpec& g = ng;
  // As specified when every backend the graph names is here (each leaf's entry on the leaf's own
  // backend); else the graph without hops on graph.backend, if that one is here.
  const bool follow = !unavailable_here(g);
  if (!follow && unavailable_here(g.backend, all_backends().at(g.backend).default_device)) return std::nullopt;  // not applicable
  GraphGradients gg;
  const Outcome ran = outcome_of([&] { gg = follow ? graph_gradients(ng) : graph_gradients_on(ng, g.backend, g.dtype, Hops::Ignore); });
  if (!ran.ok()) return "backward panicked: " + describe(ran) + "\n  graph: " + describe(g);
  return entries_of(g, gg, follow ? value_backends(g) : std::vector<std::size_t>(g.leaf_shapes.size(), g.backend));
}

GraphVerdicts check_graph_differential_and_entries(const GraphSpec& graph) {
  const NormalizedGraph ng(graph);
  const GraphSpec& g = ng;
  GraphVerdicts v;
  // has_hops counts a leaf on another backend too: without any, the graph as specified is the graph
  // without hops on graph.backend, and graph_gradients runs what differential_of runs there.
  if (has_hops(g) || unavailable_here(g)) {
    v.differential = differential_of(ng, 0, nullptr);
    if (!v.differential) v.entries = check_backward_entries(g);
    return v;
  }
  std::optional<GraphGradients> kept;
  v.differential = differential_of(ng, g.backend, &kept);
  if (v.differential) return v;
  // kept is always set here (graph.backend is available, so it was compared); the general check
  // stays the answer should it not be. Every value is on graph.backend.
  v.entries = kept ? entries_of(g, *kept, value_backends(g)) : check_backward_entries(g);
  return v;
}

}  // namespace crossgrad::oracle
