#include "mutate/spec_mutations.hpp"

#include <crossgrad/backends/registry.hpp>
#include <crossgrad/core/dtype.hpp>
#include <crossgrad/ops/op_list.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <iterator>
#include <utility>

#include "decode/specs.hpp"
#include "mutate/values.hpp"

namespace crossgrad::fuzz::mutate {
namespace {

constexpr std::size_t kPrimitiveCount = 5;  // PrimitiveKind Float .. Autodiff (the schema's pick)
constexpr std::size_t kMaxDepth = 2;
constexpr std::size_t kOperandChoices = 16;  // op_spec's lhs / rhs picks
constexpr std::size_t kProbeDimChoices = 6;

template <class T>
T *one_of(Rng &rng, std::vector<T> &v) {
  return v.empty() ? nullptr : &v[rng.below(v.size())];
}

std::size_t value_count(const oracle::GraphSpec &g, std::size_t op_position) {
  return g.leaf_shapes.size() + op_position;
}

oracle::OpSpec random_op_spec(Rng &rng, std::size_t values) {
  oracle::OpSpec op;
  op.op = random_graph_op(rng);
  op.lhs = rng.below(values == 0 ? 1 : values);
  op.rhs = rng.below(values == 0 ? 1 : values);
  op.scalar = value_of_code(112 + rng.below(17));  // -1 .. 1 in steps of 1/8
  op.dim = rng.below(kMaxRank4);
  op.dim1 = rng.below(kMaxRank4);
  return op;
}

// Keeps a spec's dtype among its primitive's (the decoder would take the first otherwise).
void fit_dtype(oracle::TensorSpec &t) {
  const std::span<const DType> ok = oracle::dtypes_for(t.primitive);
  for (DType d : ok) {
    if (d == t.dtype) return;
  }
  t.dtype = ok.front();
}

}  // namespace

std::size_t random_backend(Rng &rng) {
  if (rng.chance(7, 8)) {
    const std::vector<oracle::BackendRef> here = oracle::available_backends();
    if (!here.empty()) return here[rng.below(here.size())].index;
  }
  return rng.below(kKnownBackendCount);
}

oracle::Op random_graph_op(Rng &rng) {
  const std::vector<oracle::Op> &ops = oracle::all_ops();
  const std::size_t i = rng.below(ops.size() + 1);
  return i == ops.size() ? oracle::kHopOp : ops[i];
}

oracle::Op random_registry_op(Rng &rng) { return static_cast<oracle::Op>(rng.below(kOpCount)); }

oracle::DispatchSpec random_dispatch_spec(Rng &rng) {
  oracle::DispatchSpec s;
  oracle::KindSpec &k = s.kind;
  const std::size_t mode = rng.below(4);
  if (mode <= 1) {  // the tracked float the engine makes
    k.autodiff_depth = 1;
    k.leaf.primitive = PrimitiveKind::Autodiff;
  } else if (mode == 2) {
    k.autodiff_depth = 0;
    k.leaf.primitive = PrimitiveKind::Float;
  } else {  // any structure, malformed included
    k.autodiff_depth = rng.below(kMaxDepth + 1);
    k.leaf.primitive = static_cast<PrimitiveKind>(rng.below(kPrimitiveCount));
  }
  k.leaf.backend = random_backend(rng);
  const std::span<const DType> dtypes = oracle::dtypes_for(k.leaf.primitive);
  k.leaf.dtype = dtypes[rng.below(dtypes.size())];
  const std::size_t rank = rng.below(3);
  for (std::size_t i = 0; i < rank; ++i) k.leaf.shape.push_back(1 + rng.below(3));
  if (rng.chance(1, 4)) s.checkpointing = static_cast<CheckpointingStrategy>(rng.below(2));
  return s;
}

oracle::GraphSpec random_graph(Rng &rng, std::size_t max_leaves, std::size_t max_ops) {
  oracle::GraphSpec g;
  g.backend = random_backend(rng);
  g.dtype = rng.chance(1, 2) ? DType::F64 : DType::F32;
  const std::size_t leaves = 1 + rng.below(max_leaves);
  std::vector<std::size_t> first;
  const std::size_t rank = rng.below(3);
  for (std::size_t i = 0; i < rank; ++i) first.push_back(1 + rng.below(3));
  g.leaf_shapes.assign(leaves, first);
  g.leaf_values.assign(leaves, {});
  const std::size_t ops = 1 + rng.below(max_ops);
  for (std::size_t i = 0; i < ops; ++i) g.ops.push_back(random_op_spec(rng, leaves + i));
  return g;
}

oracle::OpProbe random_probe(Rng &rng) {
  oracle::OpProbe p;
  p.kind = static_cast<oracle::OpProbe::Kind>(rng.below(static_cast<std::size_t>(oracle::OpProbe::Kind::kCount)));
  p.op = random_registry_op(rng);
  p.lhs = random_dispatch_spec(rng);
  p.rhs = random_dispatch_spec(rng);
  if (rng.chance(1, 2)) p.rhs.kind.leaf.shape = p.lhs.kind.leaf.shape;
  p.dim = rng.below(kProbeDimChoices);
  p.dim1 = rng.below(kProbeDimChoices);
  p.to_shape = p.lhs.kind.leaf.shape;
  p.target_backend = random_backend(rng);
  p.target_tracked = rng.chance(1, 2);
  const std::span<const DType> all = all_dtypes();
  p.dtype = all[rng.below(all.size())];
  return p;
}

bool change_backend(Rng &rng, Parts &p) {
  const std::size_t specs = p.specs.size(), graphs = p.graphs.size(), probes = p.probes.size();
  const std::size_t total = specs + 2 * graphs + probes;
  if (total == 0) return false;
  std::size_t at = rng.below(total);
  if (at < specs) {
    oracle::TensorSpec &t = p.specs[at]->kind.leaf;
    t.backend = other_than(rng, t.backend, kKnownBackendCount);
    t.device.index = rng.chance(1, 8) ? 1 : 0;  // a second device, where the backend numbers them
    return true;
  }
  at -= specs;
  if (at < 2 * graphs) {
    oracle::GraphSpec &g = *p.graphs[at / 2].graph;
    if (at % 2 == 0) {
      g.backend = other_than(rng, g.backend, kKnownBackendCount);
    } else {  // one leaf's own backend (the trailing section), or every leaf back on the graph's
      if (!g.leaf_backends.empty() && rng.chance(1, 4)) {
        g.leaf_backends.clear();
      } else {
        g.leaf_backends.resize(g.leaf_shapes.size(), g.backend);
        std::size_t &b = g.leaf_backends[rng.below(g.leaf_backends.size())];
        b = other_than(rng, b, kKnownBackendCount);
      }
    }
    return true;
  }
  oracle::OpProbe &probe = *p.probes[at - 2 * graphs];
  probe.target_backend = other_than(rng, probe.target_backend, kKnownBackendCount);
  return true;
}

bool change_primitive(Rng &rng, Parts &p) {
  oracle::DispatchSpec **s = one_of(rng, p.specs);
  if (!s) return false;
  oracle::TensorSpec &t = (*s)->kind.leaf;
  t.primitive = static_cast<PrimitiveKind>(other_than(rng, static_cast<std::size_t>(t.primitive), kPrimitiveCount));
  fit_dtype(t);
  return true;
}

bool change_depth(Rng &rng, Parts &p) {
  oracle::DispatchSpec **s = one_of(rng, p.specs);
  if (!s) return false;
  oracle::KindSpec &k = (*s)->kind;
  k.autodiff_depth = other_than(rng, k.autodiff_depth, kMaxDepth + 1);
  return true;
}

bool change_dtype(Rng &rng, Parts &p) {
  const std::size_t specs = p.specs.size(), graphs = p.graphs.size();
  std::size_t casts = 0;
  for (oracle::OpProbe *q : p.probes) casts += q->kind == oracle::OpProbe::Kind::Cast;
  const std::size_t total = specs + graphs + casts;
  if (total == 0) return false;
  std::size_t at = rng.below(total);
  if (at < specs) {
    oracle::TensorSpec &t = p.specs[at]->kind.leaf;
    const std::span<const DType> ok = oracle::dtypes_for(t.primitive);
    if (ok.size() < 2) {  // Bool, Quantized: the dtype follows the primitive; change that instead
      t.primitive = PrimitiveKind::Int;
      t.dtype = oracle::dtypes_for(t.primitive)[rng.below(4)];
      return true;
    }
    std::size_t i = 0;
    while (i < ok.size() && ok[i] != t.dtype) ++i;
    t.dtype = ok[other_than(rng, i, ok.size())];
    return true;
  }
  at -= specs;
  if (at < graphs) {
    oracle::GraphSpec &g = *p.graphs[at].graph;
    g.dtype = g.dtype == DType::F64 ? DType::F32 : DType::F64;
    return true;
  }
  at -= graphs;
  for (oracle::OpProbe *q : p.probes) {
    if (q->kind != oracle::OpProbe::Kind::Cast) continue;
    if (at-- == 0) {
      const std::span<const DType> all = all_dtypes();
      std::size_t i = 0;
      while (i < all.size() && all[i] != q->dtype) ++i;
      q->dtype = all[other_than(rng, i, all.size())];
      return true;
    }
  }
  return false;
}

bool change_shape(Rng &rng, Parts &p) {
  std::size_t leaves = 0;
  for (const GraphRef &g : p.graphs) leaves += g.graph->leaf_shapes.size();
  std::size_t reshapes = 0;
  for (oracle::OpProbe *q : p.probes) reshapes += q->kind == oracle::OpProbe::Kind::Reshape;
  const std::size_t total = p.specs.size() + leaves + reshapes;
  if (total == 0) return false;
  std::size_t at = rng.below(total);
  if (at < p.specs.size()) {
    oracle::TensorSpec &t = p.specs[at]->kind.leaf;
    if (!mutate_shape(rng, t.shape, kMaxRank4, kMaxDim + 1)) return false;
    if (!t.values.empty()) t.values.resize(oracle::element_count(t.shape), 0.0);
    return true;
  }
  at -= p.specs.size();
  if (at < leaves) {
    for (const GraphRef &ref : p.graphs) {
      oracle::GraphSpec &g = *ref.graph;
      if (at >= g.leaf_shapes.size()) {
        at -= g.leaf_shapes.size();
        continue;
      }
      std::vector<std::size_t> &s = g.leaf_shapes[at];
      if (at > 0 && rng.chance(1, 3)) {  // the first leaf's shape, as is or with its last two dims swapped
        s = g.leaf_shapes[0];
        if (s.size() >= 2 && rng.chance(1, 2)) std::swap(s[s.size() - 1], s[s.size() - 2]);
      } else if (!mutate_shape(rng, s, kMaxRank4, kMaxDim + 1)) {
        return false;
      }
      if (at < g.leaf_values.size() && !g.leaf_values[at].empty())
        g.leaf_values[at].resize(oracle::element_count(s), 0.0);
      return true;
    }
    return false;
  }
  at -= leaves;
  for (oracle::OpProbe *q : p.probes) {
    if (q->kind != oracle::OpProbe::Kind::Reshape) continue;
    if (at-- == 0) return mutate_shape(rng, q->to_shape, kMaxRank4, kMaxDim + 1);
  }
  return false;
}

bool change_values(Rng &rng, Parts &p) {
  std::size_t leaves = 0, ops = 0;
  for (const GraphRef &g : p.graphs) {
    leaves += g.graph->leaf_shapes.size();
    ops += g.graph->ops.size();
  }
  const std::size_t total = p.specs.size() + leaves + ops;
  if (total == 0) return false;
  std::size_t at = rng.below(total);
  if (at < p.specs.size()) {
    oracle::TensorSpec &t = p.specs[at]->kind.leaf;
    return mutate_values(rng, t.values, oracle::element_count(t.shape));
  }
  at -= p.specs.size();
  for (const GraphRef &ref : p.graphs) {
    oracle::GraphSpec &g = *ref.graph;
    if (at < g.leaf_shapes.size()) {
      g.leaf_values.resize(g.leaf_shapes.size());
      return mutate_values(rng, g.leaf_values[at], oracle::element_count(g.leaf_shapes[at]));
    }
    at -= g.leaf_shapes.size();
    if (at < g.ops.size()) {
      g.ops[at].scalar = mutated_value(rng, g.ops[at].scalar);
      return true;
    }
    at -= g.ops.size();
  }
  return false;
}

bool change_checkpointing(Rng &rng, Parts &p) {
  oracle::DispatchSpec **s = one_of(rng, p.specs);
  if (!s) return false;
  const std::size_t now = (*s)->checkpointing ? 1 + static_cast<std::size_t>(*(*s)->checkpointing) : 0;
  const std::size_t next = other_than(rng, now, 3);
  if (next == 0)
    (*s)->checkpointing.reset();
  else
    (*s)->checkpointing = static_cast<CheckpointingStrategy>(next - 1);
  return true;
}

bool insert_op(Rng &rng, Parts &p) {
  std::vector<GraphRef *> room;
  for (GraphRef &g : p.graphs) {
    if (g.graph->ops.size() < g.max_ops) room.push_back(&g);
  }
  GraphRef **g = one_of(rng, room);
  if (!g) return false;
  std::vector<oracle::OpSpec> &ops = (*g)->graph->ops;
  const std::size_t at = rng.below(ops.size() + 1);
  ops.insert(ops.begin() + static_cast<std::ptrdiff_t>(at), random_op_spec(rng, value_count(*(*g)->graph, at)));
  return true;
}

bool remove_op(Rng &rng, Parts &p) {
  std::vector<GraphRef *> some;
  for (GraphRef &g : p.graphs) {
    if (!g.graph->ops.empty()) some.push_back(&g);
  }
  GraphRef **g = one_of(rng, some);
  if (!g) return false;
  std::vector<oracle::OpSpec> &ops = (*g)->graph->ops;
  ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(rng.below(ops.size())));
  return true;
}

bool replace_op(Rng &rng, Parts &p) {
  std::vector<oracle::OpSpec *> ops;
  for (GraphRef &g : p.graphs) {
    for (oracle::OpSpec &op : g.graph->ops) ops.push_back(&op);
  }
  oracle::OpSpec **op = one_of(rng, ops);
  if (!op) return false;
  const oracle::Op was = (*op)->op;
  for (int tries = 0; tries < 4 && (*op)->op == was; ++tries) (*op)->op = random_graph_op(rng);
  return (*op)->op != was;
}

bool change_op_operands(Rng &rng, Parts &p) {
  std::vector<std::pair<oracle::GraphSpec *, std::size_t>> ops;
  for (GraphRef &g : p.graphs) {
    for (std::size_t i = 0; i < g.graph->ops.size(); ++i) ops.emplace_back(g.graph, i);
  }
  if (ops.empty()) return false;
  const auto [g, i] = ops[rng.below(ops.size())];
  oracle::OpSpec &op = g->ops[i];
  const std::size_t values = std::min(value_count(*g, i), kOperandChoices);
  switch (rng.below(4)) {
    case 0:
      op.lhs = other_than(rng, op.lhs % values, values);
      return values > 1;
    case 1:
      op.rhs = other_than(rng, op.rhs % values, values);
      return values > 1;
    case 2:
      op.dim = other_than(rng, op.dim, kMaxRank4);
      return true;
    default:
      op.dim1 = other_than(rng, op.dim1, kMaxRank4);
      return true;
  }
}

bool insert_or_remove_leaf(Rng &rng, Parts &p) {
  GraphRef *ref = one_of(rng, p.graphs);
  if (!ref) return false;
  oracle::GraphSpec &g = *ref->graph;
  g.leaf_values.resize(g.leaf_shapes.size());
  const bool can_add = g.leaf_shapes.size() < ref->max_leaves, can_remove = g.leaf_shapes.size() > 1;
  if (!can_add && !can_remove) return false;
  if (can_add && (!can_remove || rng.chance(1, 2))) {
    std::vector<std::size_t> shape = g.leaf_shapes.empty() ? std::vector<std::size_t>{} : g.leaf_shapes[0];
    if (shape.size() >= 2 && rng.chance(1, 2)) std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
    g.leaf_shapes.push_back(shape);
    g.leaf_values.emplace_back();
    if (!g.leaf_backends.empty()) g.leaf_backends.push_back(random_backend(rng));
    return true;
  }
  const std::size_t at = rng.below(g.leaf_shapes.size());
  g.leaf_shapes.erase(g.leaf_shapes.begin() + static_cast<std::ptrdiff_t>(at));
  g.leaf_values.erase(g.leaf_values.begin() + static_cast<std::ptrdiff_t>(at));
  if (at < g.leaf_backends.size()) g.leaf_backends.erase(g.leaf_backends.begin() + static_cast<std::ptrdiff_t>(at));
  return true;
}

bool change_probe(Rng &rng, Parts &p) {
  oracle::OpProbe **q = one_of(rng, p.probes);
  if (!q) return false;
  oracle::OpProbe &probe = **q;
  switch (rng.below(5)) {
    case 0:
      probe.kind = static_cast<oracle::OpProbe::Kind>(other_than(
          rng, static_cast<std::size_t>(probe.kind), static_cast<std::size_t>(oracle::OpProbe::Kind::kCount)));
      return true;
    case 1: {
      const oracle::Op was = probe.op;
      probe.op = random_registry_op(rng);
      return probe.op != was;
    }
    case 2:
      probe.dim = other_than(rng, probe.dim, kProbeDimChoices);
      return true;
    case 3:
      probe.dim1 = other_than(rng, probe.dim1, kProbeDimChoices);
      return true;
    default:
      if (rng.chance(1, 2))
        probe.target_tracked = !probe.target_tracked;
      else
        probe.target_nested = !probe.target_nested;
      return true;
  }
}

}  // namespace crossgrad::fuzz::mutate
