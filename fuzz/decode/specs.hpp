#pragma once
// Schemas (Note [One schema, two directions]) for the oracle's spec types,
// shared by the grad_replace, ops_differential and gradients_api targets. All
// sizes are bounded here: rank <= 4, dims <= kMaxDim, so a tensor holds at most
// 6^4 = 1296 elements, and broadcasting or matmul of two such tensors stays
// within those bounds.
#include <cmath>
#include <crossgrad/oracle/oracle.hpp>
#include <cstddef>
#include <optional>
#include <vector>

#include "decode/backends.hpp"
#include "harness/io.hpp"

namespace crossgrad::fuzz {

inline constexpr std::size_t kMaxRank4 = 4;
inline constexpr std::size_t kMaxDim = 6;
inline constexpr std::size_t kMaxGraphLeaves = 3;
inline constexpr std::size_t kMaxGraphOps = 16;

// Values come from a one-byte codebook: 0..239 are (code - 120) / 8 (exact in
// F32 and F64), the rest are specials (NaN, infinities, -0, huge, tiny, ...).
// value_code() inverts it (nearest code).
double value_of_code(std::size_t code);
std::size_t value_code(double v);

template <class Io>
void value(Io &io, double &v) {
  std::size_t code = 0;
  if constexpr (!Io::reading) code = value_code(v);
  io.pick(code, 256);
  v = value_of_code(code);
}

template <class Io>
void shape(Io &io, std::vector<std::size_t> &dims) {
  list(io, dims, kMaxRank4, [](Io &i, std::size_t &d) { i.pick(d, kMaxDim + 1); });
}

// Values for a primitive: Float/Autodiff take the whole codebook; Int is
// truncated by the oracle; Bool is 0/1; Quantized is finite (quantize of a
// non-finite value is its own catalog panic, probed by ops_differential_fuzzer,
// not a property of the kind under test here).
void sanitize_values(oracle::TensorSpec &spec);

template <class Io>
void tensor_spec(Io &io, oracle::TensorSpec &t) {
  backend_and_device(io, t.backend, t.device.index);
  io.pick_enum(t.primitive, 5);
  const std::span<const DType> dtypes = oracle::dtypes_for(t.primitive);
  std::size_t d = 0;
  if constexpr (!Io::reading) {
    for (std::size_t i = 0; i < dtypes.size(); ++i) {
      if (dtypes[i] == t.dtype) d = i;
    }
  }
  io.pick(d, dtypes.size());
  t.dtype = dtypes[d];
  shape(io, t.shape);
  bool explicit_values = !t.values.empty();
  io.flag(explicit_values);
  if (explicit_values) {
    const std::size_t n = oracle::element_count(t.shape);
    if constexpr (Io::reading) t.values.assign(n, 0.0);
    t.values.resize(n);
    for (double &v : t.values) value(io, v);
  } else {
    t.values.clear();
  }
  if constexpr (Io::reading) {
    const oracle::BackendRef &ref = oracle::all_backends().at(t.backend);
    t.backend_name = ref.name;
    t.device.kind = ref.default_device.kind;
    t.node_id.reset();
    sanitize_values(t);
  }
}

// Mode 0: the well-formed tracked float Autodiff(B(Autodiff(..))); 1: the
// well-formed plain B(Float(..)); 2: any depth 0..2 with any primitive
// (malformed shapes included).
template <class Io>
void kind_spec(Io &io, oracle::KindSpec &k) {
  std::size_t mode = 2;
  if constexpr (!Io::reading) {
    if (k.autodiff_depth == 1 && k.leaf.primitive == PrimitiveKind::Autodiff)
      mode = 0;
    else if (k.autodiff_depth == 0 && k.leaf.primitive == PrimitiveKind::Float)
      mode = 1;
  }
  io.pick(mode, 4);
  if (mode > 2) mode = 2;
  if (mode == 2) io.pick(k.autodiff_depth, 3);
  tensor_spec(io, k.leaf);
  if constexpr (Io::reading) {
    if (mode == 0) {
      k.autodiff_depth = 1;
      k.leaf.primitive = PrimitiveKind::Autodiff;
    } else if (mode == 1) {
      k.autodiff_depth = 0;
      k.leaf.primitive = PrimitiveKind::Float;
    }
    if (mode != 2 && !oracle::is_well_formed(k)) k.autodiff_depth = mode == 0 ? 1 : 0;
    const std::span<const DType> dtypes = oracle::dtypes_for(k.leaf.primitive);
    bool ok = false;
    for (DType d : dtypes) ok = ok || d == k.leaf.dtype;
    if (!ok) k.leaf.dtype = dtypes.front();
    sanitize_values(k.leaf);
  }
}

template <class Io>
void dispatch_spec(Io &io, oracle::DispatchSpec &s) {
  kind_spec(io, s.kind);
  std::size_t c = s.checkpointing ? 1 + static_cast<std::size_t>(*s.checkpointing) : 0;
  io.pick(c, 3);
  if (c == 0)
    s.checkpointing.reset();
  else
    s.checkpointing = static_cast<CheckpointingStrategy>(c - 1);
}

// Op code 511 (oracle::kHopOp, the last reserved code; 63, 127 and 255 in the smaller code
// spaces) is a hop: value lhs moves to the backend named by the rhs byte (modulo the known backends, by the oracle's normalized()); the target is a
// backend use like any backend byte, so a hop to a backend this machine lacks makes the scenario
// "not applicable here" (never remapped). Before hops, code 63 decoded as float_neg of lhs; no
// stored input held one when they came (measured, issue 14).
template <class Io>
void op_spec(Io &io, oracle::OpSpec &op) {
  io.pick_enum(op.op, oracle::kOpCodeSpace);
  io.pick(op.lhs, 16);
  io.pick(op.rhs, 16);
  value(io, op.scalar);
  io.pick(op.dim, kMaxRank4);
  io.pick(op.dim1, kMaxRank4);
  if constexpr (Io::reading) {
    if (oracle::is_hop(op.op)) io.note_use(op.rhs % kKnownBackendCount, 0);
  }
}

// Leaf shapes after the first: 0 a new shape, 1 the first leaf's shape, 2 the
// first leaf's with its last two dims swapped (so binary ops and matmul apply
// often).
template <class Io>
void graph_spec(Io &io, oracle::GraphSpec &g, std::size_t max_leaves = kMaxGraphLeaves,
                std::size_t max_ops = kMaxGraphOps) {
  backend(io, g.backend);
  bool f64 = g.dtype == DType::F64;
  io.flag(f64);
  g.dtype = f64 ? DType::F64 : DType::F32;
  std::size_t leaves = g.leaf_shapes.size();
  io.count(leaves, 1, max_leaves);
  if constexpr (Io::reading) {
    g.leaf_shapes.assign(leaves, {});
    g.leaf_values.assign(leaves, {});
  }
  g.leaf_values.resize(g.leaf_shapes.size());
  for (std::size_t i = 0; i < leaves && i < g.leaf_shapes.size(); ++i) {
    std::size_t mode = 0;
    std::vector<std::size_t> swapped = g.leaf_shapes[0];
    if (swapped.size() >= 2) std::swap(swapped[swapped.size() - 1], swapped[swapped.size() - 2]);
    if constexpr (!Io::reading) {
      if (i > 0 && g.leaf_shapes[i] == g.leaf_shapes[0])
        mode = 1;
      else if (i > 0 && g.leaf_shapes[i] == swapped)
        mode = 2;
    }
    if (i > 0) io.pick(mode, 3);
    if (mode == 0)
      shape(io, g.leaf_shapes[i]);
    else if constexpr (Io::reading)
      g.leaf_shapes[i] = mode == 1 ? g.leaf_shapes[0] : swapped;
    bool explicit_values = !g.leaf_values[i].empty();
    io.flag(explicit_values);
    if (explicit_values) {
      g.leaf_values[i].resize(oracle::element_count(g.leaf_shapes[i]));
      for (double &v : g.leaf_values[i]) value(io, v);
    } else {
      g.leaf_values[i].clear();
    }
  }
  list(io, g.ops, max_ops, [](Io &i, oracle::OpSpec &op) { op_spec(i, op); });
}

// A graph's leaf backends, in a scenario's trailing section (Note [Trailing sections]): a flag,
// then, when set, one backend byte per leaf (each a backend use). Flag off: every leaf on
// graph.backend (leaf_backends empty), which is what an old file, ending before the section, reads.
template <class Io>
void leaf_backends(Io &io, oracle::GraphSpec &g) {
  bool any = !g.leaf_backends.empty();
  io.flag(any);
  if (!any) {
    g.leaf_backends.clear();
    return;
  }
  if constexpr (Io::reading)
    g.leaf_backends.assign(g.leaf_shapes.size(), 0);
  else
    g.leaf_backends.resize(g.leaf_shapes.size(), g.backend);  // one per leaf, as the reader reads
  for (std::size_t &b : g.leaf_backends) backend(io, b);
}

}  // namespace crossgrad::fuzz
