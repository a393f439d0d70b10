#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/model.hpp>
#include <crossgrad/oracle/numeric.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/render.hpp>

#include <crossgrad/core/panic.hpp>
#include <crossgrad/dispatch/dispatch.hpp>

namespace crossgrad::oracle {
namespace {

KindSpec spec_of_leaf(std::size_t backend, const DispatchTensor& t, DType dtype) {
  const TensorData data = Dispatch::float_into_data(t);
  KindSpec k{autodiff_depth_of(t.kind), tensor_on(backend, primitive_of(t.kind), data.shape().dims(), dtype, data.to_f64())};
  k.leaf.node_id = node_of(t.kind);
  return k;
}

Failure compare_with_graph_without_hops(const NormalizedGraph& ng, const GraphGradients& hopped) {
  const GraphSpec& g = ng;
  GraphGradients plain;
  const Outcome o = outcome_of([&] { plain = graph_gradients_on(ng, g.backend, g.dtype, Hops::Ignore); });
  if (!o.ok()) return "backward of the graph without hops panicked: " + describe(o);
  std::vector<TensorData> values;
  for (const DispatchTensor& v : plain.run.values) values.push_back(Dispatch::float_into_data(v));
  const Conditioning conditioning = conditioning_of(g, values);  // Note [Conditioning of a graph]
  for (std::size_t i = 0; i < hopped.run.leaves.size(); ++i) {
    const std::optional<DispatchTensor> want = Dispatch::grad(plain.run.leaves[i], plain.grads);
    const std::optional<DispatchTensor> got = Dispatch::grad(hopped.run.leaves[i], hopped.grads);
    const auto what = [i] { return "backward: gradient of leaf v" + std::to_string(i) + " with hops"; };
    if (want.has_value() != got.has_value()) return what() + (got ? " present" : " missing") + ", without hops the opposite";
    if (!want) continue;
    const TensorData want_data = Dispatch::float_into_data(*want);
    if (auto diff = compare_values(want_data, Dispatch::float_into_data(*got), graph_gradient_bound(g, want_data, conditioning, i),
                                   [&] { return what() + " (vs the graph without hops)"; })) {
      return diff;
    }
  }
  return std::nullopt;
}

}  // namespace

const GradientsSession::PoolEntry* GradientsSession::pick(std::size_t index) const {
  if (pool_.empty()) return nullptr;
  return &pool_[index % pool_.size()];
}

Failure GradientsSession::check_model(std::string_view after) const {
  if (auto diff = compare(model_, grads_)) return "container differs from the model after " + std::string(after) + ": " + *diff;
  return std::nullopt;
}

Failure GradientsSession::backward(const GraphSpec& graph) {
  // A graph naming a backend that is not available here cannot run as specified: not applicable,
  // a no-op (callers count it; generators name only available backends).
  const NormalizedGraph ng(graph);
  if (unavailable_here(ng)) return std::nullopt;
  GraphGradients gg;
  const Outcome o = outcome_of([&] { gg = graph_gradients(ng); });
  if (!o.ok()) return "backward of a generated graph panicked: " + describe(o) + "\n  graph: " + describe(graph);
  const GradientsSnapshot entries = snapshot(gg.grads);
  // Each leaf lives on its own backend (graph.backend, or its leaf_backends entry), and so does
  // its gradient, whichever backends the graph hops through (CONTRACT section 7).
  for (std::size_t i = 0; i < gg.run.leaves.size(); ++i) {
    const std::optional<std::uint64_t> node = node_of(gg.run.leaves[i].kind);
    const auto it = node ? entries.find(*node) : entries.end();
    if (it != entries.end() && it->second.backend != gg.run.backends[i]) {
      return "backward put the gradient of leaf v" + std::to_string(i) + " on backend#" + std::to_string(it->second.backend) +
             ", not on the leaf's own backend#" + std::to_string(gg.run.backends[i]) + "\n  graph: " + describe(graph);
    }
  }
  // A graph with hops: each leaf's gradient equals the one of the same graph without hops on
  // graph.backend (a hop whose gradient is counted twice doubles it; values alone cannot see that).
  if (has_hops(ng)) {
    if (auto bad = compare_with_graph_without_hops(ng, gg)) return *bad + "\n  graph: " + describe(graph);
  }
  for (const auto& [id, entry] : entries) model_.insert_or_assign(id, entry);  // extend: new wins
  grads_.extend(std::move(gg.grads));
  for (std::size_t i = 0; i < gg.run.leaves.size(); ++i) {
    const DispatchTensor& leaf = gg.run.leaves[i];
    pool_.push_back({spec_of_leaf(gg.run.backends[i], leaf, graph.dtype), leaf});
  }
  return check_model("backward + extend");
}

Failure GradientsSession::add_tensor(const DispatchSpec& spec) {
  DispatchTensor t = build(spec);
  KindSpec k = spec.kind;
  k.leaf.node_id = node_of(t.kind);
  pool_.push_back({k, std::move(t)});
  return std::nullopt;
}

Failure GradientsSession::grad(std::size_t index) {
  const PoolEntry* e = pick(index);
  if (!e) return std::nullopt;
  const GradExpectation want = expect_grad(e->spec, e->spec.leaf.node_id, model_);
  std::optional<DispatchTensor> got;
  const Outcome o = outcome_of([&] { got = Dispatch::grad(e->tensor, grads_); });
  // The context is rendered only for a failure: a passing command must not pay for it.
  const auto ctx = [&] { return "\n  tensor: " + describe(e->spec); };
  if (o != want.outcome) return "grad: expected " + describe(want.outcome) + "\n  got " + describe(o) + ctx();
  if (o.ok() && want.value.has_value() != got.has_value()) return "grad: entry presence differs from the model" + ctx();
  if (o.ok() && got) {
    if (auto diff = compare(*want.value, *snapshot_of(*got))) return "grad: " + *diff + ctx();
  }
  return check_model("grad");
}

Failure GradientsSession::grad_remove(std::size_t index) {
  const PoolEntry* e = pick(index);
  if (!e) return std::nullopt;
  const GradExpectation want = expect_grad(e->spec, e->spec.leaf.node_id, model_);
  std::optional<DispatchTensor> got;
  const Outcome o = outcome_of([&] { got = Dispatch::grad_remove(e->tensor, grads_); });
  const auto ctx = [&] { return "\n  tensor: " + describe(e->spec); };
  if (o != want.outcome) return "grad_remove: expected " + describe(want.outcome) + "\n  got " + describe(o) + ctx();
  if (o.ok() && want.value.has_value() != got.has_value()) return "grad_remove: entry presence differs from the model" + ctx();
  if (o.ok() && got) {
    if (auto diff = compare(*want.value, *snapshot_of(*got))) return "grad_remove: " + *diff + ctx();
    model_.erase(*e->spec.leaf.node_id);
  }
  return check_model("grad_remove");
}

Failure GradientsSession::grad_replace(std::size_t index, const DispatchSpec& grad_spec) {
  const PoolEntry* e = pick(index);
  if (!e) return std::nullopt;
  const DispatchTensor g = build(grad_spec);
  const Outcome want = expect_grad_replace(e->spec, e->spec.leaf.node_id, grad_spec.kind, node_of(g.kind));
  const Outcome o = outcome_of([&] { Dispatch::grad_replace(e->tensor, grads_, g); });
  if (o != want) {
    return "grad_replace: expected " + describe(want) + "\n  got " + describe(o) + "\n  tensor: " + describe(e->spec) +
           "\n  grad:   " + describe(grad_spec);
  }
  if (o.ok()) model_.insert_or_assign(*e->spec.leaf.node_id, *snapshot_of(g));
  return check_model("grad_replace");
}

Failure GradientsSession::backward_of(std::size_t index) {
  const PoolEntry* e = pick(index);
  if (!e) return std::nullopt;
  const Outcome want = expect_receiver(e->spec);
  std::optional<Gradients> got;
  const Outcome o = outcome_of([&] { got = Dispatch::backward(e->tensor); });
  if (o != want) return "backward: expected " + describe(want) + "\n  got " + describe(o) + "\n  tensor: " + describe(e->spec);
  if (o.ok()) {
    for (const auto& [id, entry] : snapshot(*got)) model_.insert_or_assign(id, entry);
    grads_.extend(std::move(*got));
  }
  return check_model("backward");
}

Failure GradientsSession::inner(std::size_t index) {
  const PoolEntry* e = pick(index);
  if (!e) return std::nullopt;
  const Outcome want = expect_receiver(e->spec);
  std::optional<DispatchTensor> got;
  const Outcome o = outcome_of([&] { got = Dispatch::inner(e->tensor); });
  if (o != want) return "inner: expected " + describe(want) + "\n  got " + describe(o) + "\n  tensor: " + describe(e->spec);
  if (o.ok()) {
    KindSpec k = e->spec;
    k.autodiff_depth = 0;
    k.leaf.primitive = PrimitiveKind::Float;
    k.leaf.node_id.reset();
    pool_.push_back({k, std::move(*got)});
  }
  return check_model("inner");
}

Failure GradientsSession::tracking(std::size_t index) {
  const PoolEntry* e = pick(index);
  if (!e) return std::nullopt;
  const DispatchTensor& t = e->tensor;
  const std::string where = "\n  tensor: " + describe(e->spec);
  const std::vector<std::string> panics = expect_tracking_panics(e->spec);
  if (!panics.empty() && panics[0] == "op-kind-mismatch") {
    const std::string kind = render_kind(e->spec, node_of(t.kind));
    const auto expect_mismatch = [&](const char* op, auto call) -> Failure {
      const Outcome want = Outcome::panic("op-kind-mismatch", std::string(op) + " needs a tensor of kind Float, got " + kind + ".");
      const Outcome got = outcome_of(call);
      if (got != want) return std::string(op) + ": expected " + describe(want) + "\n  got " + describe(got) + where;
      return std::nullopt;
    };
    if (Failure f = expect_mismatch("float_detach", [&] { (void)Dispatch::float_detach(t); })) return f;
    if (Failure f = expect_mismatch("float_is_require_grad", [&] { (void)Dispatch::float_is_require_grad(t); })) return f;
    if (Failure f = expect_mismatch("float_set_require_grad", [&] { (void)Dispatch::float_set_require_grad(t, true); })) return f;
    return check_model("tracking");
  }
  const bool tracked = e->spec.autodiff_depth == 1;
  const auto same_values = [&](const DispatchTensor& a) {
    return Dispatch::float_into_data(a) == Dispatch::float_into_data(t);
  };
  // Every tracked entry joined the pool as a leaf (a graph's, from_data's or from_inner's).
  if (Dispatch::float_is_require_grad(t) != tracked) return std::string("float_is_require_grad is not 'a tracked leaf'") + where;
  const DispatchTensor detached = Dispatch::float_detach(t);
  if (detached.kind.is_autodiff() != tracked || !same_values(detached)) return "float_detach changed the kind or the values" + where;
  if (tracked && node_of(detached.kind) == node_of(t.kind)) return "float_detach kept the tensor's node" + where;
  const DispatchTensor off = Dispatch::float_set_require_grad(t, false);
  if (off.kind.is_autodiff() || !same_values(off)) return "float_set_require_grad(false) is not the plain tensor" + where;
  const DispatchTensor on = Dispatch::float_set_require_grad(t, true);
  if (!on.kind.is_autodiff() || !Dispatch::float_is_require_grad(on) || !same_values(on)) {
    return "float_set_require_grad(true) is not a tracked leaf of the values" + where;
  }
  if (tracked) {
    if (node_of(on.kind) != node_of(t.kind)) return "float_set_require_grad(true) of a leaf made another leaf" + where;
    const DispatchTensor result = Dispatch::float_neg(t);
    if (Dispatch::float_is_require_grad(result)) return "float_is_require_grad of an op's result is true" + where;
    const Outcome want = Outcome::panic("require-grad-non-leaf", "Can't convert a non leaf tensor into a tracked tensor.");
    const Outcome got = outcome_of([&] { (void)Dispatch::float_set_require_grad(result, true); });
    if (got != want) return "float_set_require_grad(true) of an op's result: expected " + describe(want) + "\n  got " + describe(got) + where;
  }
  return check_model("tracking");
}

Failure GradientsSession::from_inner(std::size_t index) {
  const PoolEntry* e = pick(index);
  if (!e) return std::nullopt;
  const Outcome want = expect_from_inner(e->spec);
  std::optional<DispatchTensor> got;
  const Outcome o = outcome_of([&] { got = Dispatch::from_inner(e->tensor); });
  if (o != want) return "from_inner: expected " + describe(want) + "\n  got " + describe(o) + "\n  tensor: " + describe(e->spec);
  if (o.ok()) {
    KindSpec k = e->spec;
    k.autodiff_depth = 1;
    k.leaf.primitive = PrimitiveKind::Autodiff;
    k.leaf.node_id = node_of(got->kind);
    if (!k.leaf.node_id) return "from_inner returned a kind without an autodiff node\n  tensor: " + describe(e->spec);
    pool_.push_back({k, std::move(*got)});
  }
  return check_model("from_inner");
}

}  // namespace crossgrad::oracle
