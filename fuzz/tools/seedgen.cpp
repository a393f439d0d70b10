// fuzz_seedgen: writes corpus/<target>/seed-<name> from the readable scenario
// descriptions below, encoded by the same schemas the targets decode with (Note
// [One schema, two directions]).
//   fuzz_seedgen CORPUS_ROOT          (re)write the seeds; stale seed-* files
//   are removed fuzz_seedgen --check CORPUS_ROOT  fail when a seed is missing
//   or differs (ctest corpus)
// Seeds are generated over the whole registry (every backend the engine knows,
// whether or not it is built or has a device here): every backend pair, every primitive
// kind, every op, and a scenario for every catalog entry a CPU build can raise.
// Each seed must decode back to the scenario it was written from.
#include <crossgrad/oracle/ctc_reference.hpp>
#include <crossgrad/oracle/oracle.hpp>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <set>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "decode/op_args.hpp"
#include "decode/remote_protocol.hpp"
#include "decode/scenarios.hpp"
#include "decode/tensor_data.hpp"

namespace fs = std::filesystem;
using namespace crossgrad;
using namespace crossgrad::fuzz;
using oracle::DispatchSpec;
using oracle::GraphSpec;
using oracle::KindSpec;
using oracle::Op;
using oracle::OpProbe;

namespace {

std::map<std::string, std::map<std::string, std::vector<std::uint8_t>>> seeds;  // target -> name -> bytes
int errors = 0;

template <class S>
void emit(const std::string &target, const std::string &name, const S &s) {
  const auto bytes = encode_with(s, [](auto &io, auto &x) { schema(io, x); });
  const S back = decode_with<S>(bytes, [](auto &io, auto &x) { schema(io, x); });
  if (!(back == s)) {
    std::fprintf(stderr, "seedgen: %s/%s does not decode back to its scenario\n", target.c_str(), name.c_str());
    ++errors;
  }
  seeds[target]["seed-" + name] = bytes;
}

// Every backend the engine knows, built or not, with a device here or not: the seed set is the same
// on every machine and in every build (Note [Backend bytes name registry indices]). Seeds naming a
// backend this machine lacks are replayed as "not applicable here".
const std::vector<std::size_t> &backends() {
  static const std::vector<std::size_t> all = [] {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < kKnownBackendCount; ++i) out.push_back(i);
    return out;
  }();
  return all;
}
std::string bname(std::size_t b) { return std::string(kKnownBackends[b].name); }

// ---- specs, readable
DispatchSpec tracked_float(std::size_t b, std::vector<std::size_t> shape = {2, 2}, DType d = DType::F32,
                           std::vector<double> values = {}) {
  return {{1, oracle::tensor_on(b, PrimitiveKind::Autodiff, std::move(shape), d, std::move(values))},
          CheckpointingStrategy::Disabled};
}
DispatchSpec plain(std::size_t b, PrimitiveKind p = PrimitiveKind::Float, std::vector<std::size_t> shape = {2, 2},
                   DType d = DType::F32, std::vector<double> values = {}) {
  if (p != PrimitiveKind::Float && p != PrimitiveKind::Autodiff) d = oracle::dtypes_for(p).front();
  return {{0, oracle::tensor_on(b, p, std::move(shape), d, std::move(values))}, std::nullopt};
}
DispatchSpec wrapped(std::size_t depth, std::size_t b, PrimitiveKind p) {
  DispatchSpec s = plain(b, p);
  s.kind.autodiff_depth = depth;
  return s;
}
GraphSpec graph(std::size_t b, std::vector<std::vector<std::size_t>> shapes, std::vector<oracle::OpSpec> ops,
                DType d = DType::F32) {
  GraphSpec g;
  g.backend = b;
  g.dtype = d;
  g.leaf_shapes = std::move(shapes);
  g.leaf_values.assign(g.leaf_shapes.size(), {});
  g.ops = std::move(ops);
  return g;
}
oracle::OpSpec op(Op o, std::size_t lhs = 0, std::size_t rhs = 1, double scalar = 2.0, std::size_t dim = 0,
                  std::size_t dim1 = 1) {
  return {o, lhs, rhs, scalar, dim, dim1};
}
// A hop (issue 14): value lhs moves to backend `to`, keeping the autodiff graph.
oracle::OpSpec hop(std::size_t lhs, std::size_t to) { return {oracle::kHopOp, lhs, to, 1.0, 0, 0}; }
// The state/command graph of the hop seeds (two leaves, four steps: within grad_replace's and
// gradients_api's graph limits): x on a, y on b; x hops to b, is multiplied by y there, the
// product hops back to a and is summed there. Each leaf's gradient must come back on its own backend.
GraphSpec spanning_graph(std::size_t a, std::size_t b) {
  GraphSpec g = graph(a, {{2, 2}, {2, 2}}, {hop(0, b), op(Op::float_mul, 2, 1), hop(3, a), op(Op::float_sum, 4)});
  g.leaf_values = {{0.5, -1, 1.5, 2}, {-0.25, 3, 0.75, -2}};
  g.leaf_backends = {a, b};
  return g;
}
std::string pk(PrimitiveKind p) { return std::string(primitive_kind_name(p)); }
const PrimitiveKind kPrimitives[] = {PrimitiveKind::Float, PrimitiveKind::Int, PrimitiveKind::Bool,
                                     PrimitiveKind::Quantized, PrimitiveKind::Autodiff};

// ---- tensor_data_fuzzer
void tensor_data_seeds() {
  const std::string T = "tensor_data_fuzzer";
  for (DType d : all_dtypes()) {
    const std::string n(dtype_name(d));
    TensorDataScenario s;
    s.entry = DataEntry::FromBytes;
    s.dtype = d;
    s.dims = {2, 3};
    s.bytes.assign(6 * dtype_size(d), 0);
    for (std::size_t i = 0; i < s.bytes.size(); ++i)
      s.bytes[i] = d == DType::Bool ? i % 2 : static_cast<std::uint8_t>(i * 7);
    if (d == DType::F32 || d == DType::F64) {  // finite, small values
      for (std::size_t i = 0; i < 6; ++i) {
        if (d == DType::F32) {
          float v = 0.5f * i;
          std::memcpy(&s.bytes[i * 4], &v, 4);
        } else {
          double v = -1.25 * i;
          std::memcpy(&s.bytes[i * 8], &v, 8);
        }
      }
    }
    emit(T, "from-bytes-" + n, s);
    s.entry = DataEntry::TypedValues;
    emit(T, "typed-" + n, s);
    s.dims = {4, 4};
    emit(T, "typed-length-mismatch-" + n, s);
    s.entry = DataEntry::FromBytes;
    emit(T, "from-bytes-length-mismatch-" + n, s);
  }
  TensorDataScenario s;
  s.dtype = DType::F32;
  s.dims = {1};
  s.bytes = {0, 0, 128, 63, 1};
  emit(T, "from-bytes-ragged", s);
  s.dims = {1ull << 40, 1ull << 40};
  s.bytes = {};
  emit(T, "shape-overflow", s);
  s.dtype = DType::Bool;
  s.dims = {3};
  s.bytes = {0, 1, 7};
  emit(T, "invalid-bool-value", s);
  s.entry = DataEntry::Allocate;
  s.bytes = {};
  s.dtype = DType::F32;
  s.dims = {1ull << 20, 1ull << 20};
  emit(T, "allocate-too-large", s);
  s.dtype = DType::F64;
  s.dims = {1ull << 62, 4};
  emit(T, "allocate-bytes-overflow", s);
  s.dims = {1ull << 40, 1ull << 40};
  emit(T, "allocate-shape-overflow", s);
  s.dims = {4, 4};
  emit(T, "allocate-small", s);
  s.dims = {};
  emit(T, "allocate-scalar", s);
  // float_random through Allocate's bytes (random_call_of): each kind, a distribution without
  // values, and a dtype that is not float.
  s.dims = {3, 5};
  s.bytes = {0, 0, 0, 7, 1, 0, 0, 0, 0, 0, 0};
  emit(T, "allocate-random-default", s);
  s.bytes = {1, 0, 3, 9};
  emit(T, "allocate-random-bernoulli", s);
  s.dtype = DType::F32;
  s.bytes = {2, 2, 1, 42};
  emit(T, "allocate-random-uniform", s);
  s.bytes = {3, 1, 4, 5, 5};
  emit(T, "allocate-random-normal", s);
  s.bytes = {2, 1, 2, 1};
  emit(T, "allocate-random-uniform-without-values", s);
  s.bytes = {2, 1, 7, 3};
  emit(T, "allocate-random-uniform-rounding-up-to-high", s);
  s.bytes = {3, 0, 255};
  emit(T, "allocate-random-normal-nan-std", s);
  s.dtype = DType::I32;
  s.bytes = {0};
  emit(T, "allocate-random-of-an-int-dtype", s);
  // Probes on valid data of each category, on every backend, plain and tracked.
  struct Data {
    std::string name;
    DType dtype;
    std::vector<std::uint8_t> bytes;
  };
  const Data data[] = {{"f32", DType::F32, {0, 0, 128, 63, 0, 0, 0, 64}},
                       {"i64", DType::I64, {1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0}},
                       {"bool", DType::Bool, {1, 0}}};
  for (const Data &x : data) {
    for (std::size_t b : backends()) {
      for (bool tracked : {false, true}) {
        TensorDataScenario p;
        p.entry = DataEntry::FromBytes;
        p.dtype = x.dtype;
        p.dims = {2};
        p.bytes = x.bytes;
        for (DataProbe probe :
             {DataProbe::FloatFromData, DataProbe::IntFromData, DataProbe::BoolFromData, DataProbe::FloatIntoData}) {
          p.probes.push_back({probe, b, tracked, 0});
        }
        emit(T, "probes-a-" + x.name + "-" + bname(b) + (tracked ? "-tracked" : "-plain"), p);
        p.probes.clear();
        for (DataProbe probe : {DataProbe::IntIntoData, DataProbe::BoolIntoData, DataProbe::CudaDevice,
                                DataProbe::AutodiffOfAutodiffDevice}) {
          p.probes.push_back({probe, b, tracked, 1});
        }
        emit(T, "probes-b-" + x.name + "-" + bname(b) + (tracked ? "-tracked" : "-plain"), p);
      }
    }
    TensorDataScenario r;
    r.dtype = x.dtype;
    r.dims = {2};
    r.bytes = x.bytes;
    r.probes = {{DataProbe::ToF32, 0, false, 0},
                {DataProbe::ToF64, 0, false, 0},
                {DataProbe::ToI64, 0, false, 0},
                {DataProbe::ToBool, 0, false, 0}};
    emit(T, "readers-" + x.name, r);
  }
}

// ---- grad_replace_fuzzer
void grad_replace_seeds() {
  const std::string T = "grad_replace_fuzzer";
  auto scenario = [](std::size_t state_backend, DispatchSpec tensor, DispatchSpec grad) {
    GradReplaceCase c;
    c.scenario.graphs = {graph(state_backend, {{2, 2}, {2, 2}}, {op(Op::float_mul, 0, 1), op(Op::float_sum, 2)})};
    c.scenario.tensor = std::move(tensor);
    c.scenario.grad = std::move(grad);
    c.scenario.target_entry = 0;
    return c;
  };
  for (std::size_t bt : backends()) {
    for (std::size_t bg : backends()) {
      // Every backend pair: same backend replaces, another backend is
      // cross-backend.
      emit(T, "pair-" + bname(bt) + "-" + bname(bg), scenario(bt, tracked_float(bt), plain(bg)));
      // A tracked (Autodiff) gradient is cross-backend even on the same
      // backend.
      emit(T, "autodiff-grad-" + bname(bt) + "-" + bname(bg), scenario(bt, tracked_float(bt), tracked_float(bg)));
    }
    // Same-backend gradient of every primitive kind: only Float is accepted.
    for (PrimitiveKind p : kPrimitives) {
      emit(T, "grad-primitive-" + pk(p) + "-" + bname(bt), scenario(bt, tracked_float(bt), plain(bt, p)));
    }
    // Receivers of every shape: plain (requires-autodiff),
    // Autodiff(Autodiff(..)), Autodiff(B(p)).
    for (PrimitiveKind p : kPrimitives) {
      emit(T, "plain-receiver-" + pk(p) + "-" + bname(bt), scenario(bt, plain(bt, p), plain(bt)));
      emit(T, "receiver-autodiff-of-" + pk(p) + "-" + bname(bt), scenario(bt, wrapped(1, bt, p), plain(bt)));
      emit(T, "receiver-nested-" + pk(p) + "-" + bname(bt), scenario(bt, wrapped(2, bt, p), plain(bt)));
    }
    // Accepted variations: other shape and dtype, checkpointing on the
    // gradient, replace twice, a fresh tensor without an entry, an empty state.
    GradReplaceCase c =
        scenario(bt, tracked_float(bt), plain(bt, PrimitiveKind::Float, {3}, DType::F64, {1.5, -2, 0.25}));
    c.scenario.grad.checkpointing = CheckpointingStrategy::Balanced;
    c.second_grad = plain(bt, PrimitiveKind::Float, {2, 2}, DType::F32, {-0.0, 1, 2, 3});
    emit(T, "replace-twice-" + bname(bt), c);
    c = scenario(bt, tracked_float(bt), plain(bt));
    c.scenario.target_entry.reset();
    c.scenario.graphs.clear();
    emit(T, "empty-state-" + bname(bt), c);
  }
  // A state from one graph spanning two backends (issue 14): its Gradients holds entries of both.
  // Replacing either leaf's entry with a gradient of the other backend of the same graph is the
  // exact cross-backend panic, nothing touched; with one of its own backend it succeeds.
  for (std::size_t a : backends()) {
    for (std::size_t b : backends()) {
      if (a == b) continue;
      for (std::size_t entry : {0, 1}) {
        const std::size_t own = entry == 0 ? a : b;
        for (std::size_t g : {a, b}) {
          GradReplaceCase c = scenario(a, tracked_float(own), plain(g, PrimitiveKind::Float, {2, 2}, DType::F32, {1, -2, 0.5, 4}));
          c.scenario.graphs = {spanning_graph(a, b)};
          c.scenario.target_entry = entry;
          emit(T, "spanning-" + bname(a) + "-" + bname(b) + "-entry" + std::to_string(entry) + "-grad-" + bname(g), c);
        }
      }
    }
  }
}

// ---- ops_differential_fuzzer
void ops_seeds() {
  const std::string T = "ops_differential_fuzzer";
  for (std::size_t b : backends()) {
    for (Op o : oracle::all_ops()) {
      const bool binary = oracle::is_binary(o);
      OpsCase c;
      c.graph = graph(b,
                      binary ? std::vector<std::vector<std::size_t>>{{2, 3}, {3, 2}}
                             : std::vector<std::vector<std::size_t>>{{2, 3}},
                      {op(o, 0, 1, 2.0, 1, 0), op(Op::float_sum, 2)}, DType::F64);
      if (binary && o != Op::float_matmul && o != Op::linear) c.graph.leaf_shapes[1] = {2, 3};
      if (o == Op::float_log || o == Op::float_sqrt || o == Op::float_powf_scalar) c.graph.leaf_values[0] = {0.5, 1, 1.5, 2, 2.5, 3};
      c.finite_differences = true;
      emit(T, "op-" + std::string(oracle::op_name(o)) + "-" + bname(b), c);
    }
    OpsCase deep;
    deep.graph = graph(b, {{2, 1, 3}, {1, 4, 3}},
                       {op(Op::float_add, 0, 1), op(Op::float_tanh, 2), op(Op::float_swap_dims, 3, 0, 0, 1, 2), op(Op::float_mul, 3, 3),
                        op(Op::float_mean_dim, 5, 0, 0, 1), op(Op::sigmoid, 6), op(Op::float_reshape, 7), op(Op::float_mean, 8)});
    emit(T, "deep-broadcast-" + bname(b), deep);
  }
  // Hops (issue 14) over every ordered pair of backends, same-backend moves included. hop: x (on a)
  // hops to b, meets y (a leaf on b) there, the result hops back to a and meets x again (hops in
  // both directions, F64 with finite differences). hop-root: the root itself lives on b.
  // leaves: x on a, y on b and no hop step: each binary step moves its rhs to its lhs's backend
  // (implicit hops both ways), and y's gradient is the sum of parts from both backends.
  for (std::size_t a : backends()) {
    for (std::size_t b : backends()) {
      OpsCase h;
      h.graph = graph(a, {{2, 3}, {2, 3}},
                      {hop(0, b), op(Op::float_mul, 2, 1), op(Op::float_tanh, 3), hop(4, a), op(Op::float_add, 5, 0),
                       op(Op::float_sum, 6)},
                      DType::F64);
      h.graph.leaf_backends = {a, b};
      h.finite_differences = true;
      emit(T, "hop-" + bname(a) + "-" + bname(b), h);
      OpsCase r;
      r.graph = graph(a, {{3}}, {op(Op::float_exp, 0), hop(1, b), op(Op::float_mul_scalar, 2, 0, 0.5, 0, 0), hop(3, b)}, DType::F64);
      r.finite_differences = true;
      emit(T, "hop-root-" + bname(a) + "-" + bname(b), r);
      if (a == b) continue;
      OpsCase l;
      l.graph = graph(a, {{2, 3}, {2, 3}}, {op(Op::float_mul, 0, 1), op(Op::float_sub, 1, 2), op(Op::float_sum, 3)}, DType::F64);
      l.graph.leaf_backends = {a, b};
      l.finite_differences = true;
      emit(T, "leaves-" + bname(a) + "-" + bname(b), l);
    }
  }
  // Probes: each documented op panic, and op-backend-mismatch for every backend
  // pair.
  auto probe_case = [](std::vector<OpProbe> probes) {
    OpsCase c;
    c.graph = graph(backends().front(), {{2}}, {});
    c.probes = std::move(probes);
    return c;
  };
  const std::size_t b0 = backends().front();
  auto binary = [](Op o, DispatchSpec a, DispatchSpec b) {
    OpProbe p;
    p.kind = OpProbe::Kind::Binary;
    p.op = o;
    p.lhs = std::move(a);
    p.rhs = std::move(b);
    return p;
  };
  for (std::size_t ba : backends()) {
    for (std::size_t bb : backends()) {
      emit(T, "probe-add-" + bname(ba) + "-" + bname(bb),
           probe_case({binary(Op::float_add, plain(ba), plain(bb)), binary(Op::float_add, tracked_float(ba), tracked_float(bb)),
                       binary(Op::float_mul, tracked_float(ba), plain(bb))}));
    }
  }
  emit(T, "probe-dtype-mismatch",
       probe_case({binary(Op::float_add, plain(b0), plain(b0, PrimitiveKind::Float, {2, 2}, DType::F64))}));
  emit(T, "probe-broadcast-mismatch",
       probe_case({binary(Op::float_sub, plain(b0, PrimitiveKind::Float, {2, 3}), plain(b0, PrimitiveKind::Float, {4, 3}))}));
  emit(T, "probe-matmul-rank",
       probe_case({binary(Op::float_matmul, plain(b0, PrimitiveKind::Float, {3}), plain(b0, PrimitiveKind::Float, {3, 2}))}));
  emit(T, "probe-matmul-inner-dim",
       probe_case(
           {binary(Op::float_matmul, plain(b0, PrimitiveKind::Float, {2, 3}), plain(b0, PrimitiveKind::Float, {2, 3}))}));
  emit(T, "probe-matmul-batch",
       probe_case({binary(Op::float_matmul, plain(b0, PrimitiveKind::Float, {2, 2, 3}),
                          plain(b0, PrimitiveKind::Float, {3, 3, 2}))}));
  for (PrimitiveKind p : kPrimitives) {
    OpProbe u;
    u.kind = OpProbe::Kind::Unary;
    u.op = Op::float_exp;
    u.lhs = plain(b0, p);
    OpProbe w = u;
    w.lhs = wrapped(1, b0, p);
    emit(T, "probe-kind-" + pk(p), probe_case({u, w, binary(Op::float_div, plain(b0), plain(b0, p))}));
  }
  OpProbe p;
  p.lhs = plain(b0, PrimitiveKind::Float, {2, 3});
  p.kind = OpProbe::Kind::SumDim;
  p.dim = 2;
  OpProbe m = p;
  m.kind = OpProbe::Kind::MeanDim;
  m.dim = 1;
  OpProbe sw = p;
  sw.kind = OpProbe::Kind::SwapDims;
  sw.dim = 0;
  sw.dim1 = 5;
  emit(T, "probe-dims", probe_case({p, m, sw}));
  OpProbe r = p;
  r.kind = OpProbe::Kind::Reshape;
  r.to_shape = {4};
  OpProbe r2 = r;
  r2.to_shape = {3, 2};
  emit(T, "probe-reshape", probe_case({r, r2}));
  OpProbe cast = p;
  cast.kind = OpProbe::Kind::Cast;
  cast.dtype = DType::I32;
  OpProbe cast2 = cast;
  cast2.dtype = DType::F64;
  emit(T, "probe-cast", probe_case({cast, cast2}));
  OpProbe q = p;
  q.kind = OpProbe::Kind::Quantize;
  q.lhs = plain(b0, PrimitiveKind::Float, {2}, DType::F32, {1.0, std::numeric_limits<double>::infinity()});
  OpProbe q2 = q;
  q2.lhs = tracked_float(b0, {2}, DType::F64, {1.0, -2.5});
  emit(T, "probe-quantize", probe_case({q, q2}));
  // F64 values whose F32 scale max|x| / 127 overflows (catalog quantize-scale-overflow), and the
  // same through a tracked tensor.
  OpProbe big = q;
  big.lhs = plain(b0, PrimitiveKind::Float, {2}, DType::F64, {1e300, 1.0});
  OpProbe biggest = big;
  biggest.lhs = tracked_float(b0, {2}, DType::F64, {0.5, 1e300});
  emit(T, "probe-quantize-scale-overflow", probe_case({big, biggest}));
  for (std::size_t ba : backends()) {
    for (std::size_t bb : backends()) {
      std::vector<OpProbe> moves;
      for (int variant = 0; variant < 3; ++variant) {
        OpProbe t;
        t.kind = OpProbe::Kind::ToDevice;
        t.lhs = variant == 1 ? plain(ba) : tracked_float(ba);
        t.target_backend = bb;
        t.target_tracked = variant != 2;
        t.target_nested = false;
        moves.push_back(t);
      }
      emit(T, "probe-to-device-" + bname(ba) + "-" + bname(bb), probe_case(moves));
    }
  }
  OpProbe nested;
  nested.kind = OpProbe::Kind::ToDevice;
  nested.lhs = tracked_float(b0);
  nested.target_backend = b0;
  nested.target_nested = true;
  emit(T, "probe-to-device-nested", probe_case({nested}));
}

// ---- gradients_api_fuzzer
void gradients_api_seeds() {
  const std::string T = "gradients_api_fuzzer";
  auto cmd = [](CommandKind k, std::size_t index = 0) {
    Command c;
    c.kind = k;
    c.index = index;
    return c;
  };
  auto backward = [](GraphSpec g) {
    Command c;
    c.kind = CommandKind::Backward;
    c.graph = std::move(g);
    return c;
  };
  auto with_spec = [](CommandKind k, std::size_t index, DispatchSpec s) {
    Command c;
    c.kind = k;
    c.index = index;
    c.spec = std::move(s);
    return c;
  };
  for (std::size_t b : backends()) {
    CommandSequence s;
    s.commands = {
        backward(graph(b, {{2, 2}, {2, 2}}, {op(Op::float_mul, 0, 1)})),
        cmd(CommandKind::Grad, 0),
        with_spec(CommandKind::GradReplace, 0, plain(b, PrimitiveKind::Float, {2, 2}, DType::F32, {1, 2, 3, 4})),
        cmd(CommandKind::Grad, 0),
        cmd(CommandKind::GradRemove, 0),
        cmd(CommandKind::GradRemove, 0),
        cmd(CommandKind::Grad, 1),
        cmd(CommandKind::Inner, 1),
        cmd(CommandKind::FromInner, 2),
        cmd(CommandKind::BackwardOf, 3),
        cmd(CommandKind::Grad, 3)};
    emit(T, "lifecycle-" + bname(b), s);
    for (std::size_t other : backends()) {
      CommandSequence x;
      x.commands = {backward(graph(b, {{3}}, {op(Op::float_exp, 0)})),
                    backward(graph(other, {{2}}, {op(Op::float_tanh, 0)})),
                    with_spec(CommandKind::GradReplace, 0, plain(other)),
                    with_spec(CommandKind::GradReplace, 1, plain(b)),
                    with_spec(CommandKind::GradReplace, 0, tracked_float(b)),
                    cmd(CommandKind::Grad, 0),
                    cmd(CommandKind::Grad, 1)};
      emit(T, "two-backends-" + bname(b) + "-" + bname(other), x);
      if (other == b) continue;
      // One graph spanning b and other (issue 14): pool[0] is its leaf on b, pool[1] its leaf on
      // other; each entry on its leaf's backend; a gradient of the graph's other backend is the
      // cross-backend panic, one of the leaf's own is replaced.
      CommandSequence h;
      h.commands = {backward(spanning_graph(b, other)),
                    cmd(CommandKind::Grad, 0),
                    cmd(CommandKind::Grad, 1),
                    with_spec(CommandKind::GradReplace, 0, plain(other)),
                    with_spec(CommandKind::GradReplace, 1, plain(b)),
                    with_spec(CommandKind::GradReplace, 0, plain(b, PrimitiveKind::Float, {2, 2}, DType::F32, {1, 2, 3, 4})),
                    with_spec(CommandKind::GradReplace, 1, plain(other, PrimitiveKind::Float, {2, 2}, DType::F32, {-1, 0.5, 0, 8})),
                    cmd(CommandKind::Grad, 0),
                    cmd(CommandKind::GradRemove, 1),
                    cmd(CommandKind::Grad, 1),
                    backward(spanning_graph(other, b)),
                    cmd(CommandKind::Grad, 3)};
      emit(T, "spanning-" + bname(b) + "-" + bname(other), h);
    }
    for (PrimitiveKind p : kPrimitives) {
      for (std::size_t depth : {0, 1, 2}) {
        CommandSequence m;
        m.commands = {backward(graph(b, {{2}}, {op(Op::float_neg, 0)})),
                      with_spec(CommandKind::AddTensor, 0, wrapped(depth, b, p)),
                      cmd(CommandKind::Grad, 1),
                      cmd(CommandKind::GradRemove, 1),
                      with_spec(CommandKind::GradReplace, 1, plain(b)),
                      with_spec(CommandKind::GradReplace, 0, plain(b, p)),
                      cmd(CommandKind::BackwardOf, 1),
                      cmd(CommandKind::Inner, 1),
                      cmd(CommandKind::FromInner, 1),
                      cmd(CommandKind::Grad, 0)};
        emit(T, "kind-" + pk(p) + "-depth" + std::to_string(depth) + "-" + bname(b), m);
      }
    }
  }
}

// ---- op_args_fuzzer
// Every registry op (kOps, no op named here) on every backend with valid arguments, plain in F32
// and tracked in F64; and for every (op, catalog panic) pair the argument candidates below reach,
// one seed on every backend, plain and tracked. Which candidate is valid, and which panic an
// invalid one raises, is the oracle's reference evaluator's answer (oracle::reference_op), so a
// new op of an existing Sig gets its seeds without an edit here.
namespace oa = crossgrad::fuzz::op_args;
using ArgEdit = std::function<void(oa::OpArgsCase &)>;

std::size_t float_code(double v) {
  for (std::size_t c = 0; c < oa::kFloatCodes; ++c) {
    const double x = oa::float_value(c);
    if ((std::isnan(x) && std::isnan(v)) || std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(v)) return c;
  }
  std::fprintf(stderr, "seedgen: %g is not in the op_args float table\n", v);
  ++errors;
  return 0;
}
std::size_t int_code(std::int64_t v) {
  for (std::size_t c = 0; c < oa::kIntCodes; ++c) {
    if (oa::int_value(c) == v) return c;
  }
  std::fprintf(stderr, "seedgen: %lld is not in the op_args int table\n", static_cast<long long>(v));
  ++errors;
  return 0;
}
std::size_t dtype_index(DType d) {
  for (std::size_t i = 0; i < all_dtypes().size(); ++i) {
    if (all_dtypes()[i] == d) return i;
  }
  return 0;
}
oa::ArgTensor arg(std::vector<std::size_t> shape) { return {std::move(shape), {}}; }
oa::ArgTensor index_arg(std::vector<std::size_t> shape, std::vector<std::int64_t> values) {
  oa::ArgTensor t{std::move(shape), {}};
  for (std::int64_t v : values) t.codes.push_back(static_cast<std::uint8_t>(int_code(v)));
  return t;
}
// The second tensor, given by a mode (its shape as the decoder derives it).
void second(oa::OpArgsCase &c, oa::ShapeMode mode, std::vector<std::size_t> shape) {
  c.tensors.resize(2);
  c.tensors[1] = arg(std::move(shape));
  c.modes = {mode};
}
void cat_pieces(oa::OpArgsCase &c, std::size_t dim, std::vector<std::vector<std::size_t>> shapes) {
  c.dim = dim;
  c.tensors.clear();
  c.modes.clear();
  c.sizes.clear();
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    c.tensors.push_back(arg(shapes[k]));
    if (k == 0) continue;
    c.modes.push_back(oa::ShapeMode::Explicit);
    c.sizes.push_back(0);
  }
}

// Argument candidates by Sig: valid ones first (the first the reference accepts is the op's seed),
// then invalid ones, each aimed at a catalog argument panic.
struct Candidates {
  std::vector<ArgEdit> valid, invalid;
};
Candidates candidates(OpSig sig, DType dtype) {
  const std::size_t SIZE_MAX_CODE = oa::kDimCodes - 1;
  switch (sig) {
    // An empty tensor: no value for the extremes over every element (float_max, float_min,
    // float_max_abs: empty-reduction); the other unary ops accept it and get no panic seed.
    case OpSig::Unary:
      return {{[](oa::OpArgsCase &) {}}, {[](auto &c) { c.tensors[0] = arg({2, 0}); }}};
    // The fill holds a 0 (an int divisor's first element): for int_div and int_remainder the
    // third valid candidate names nonzero divisors, and the fill is their int-division-by-zero.
    case OpSig::Binary:
      return {{[](auto &c) { second(c, oa::ShapeMode::LikeFirst, {2, 3}); },
               [](auto &c) { second(c, oa::ShapeMode::Derived, {3, 2}); },
               [](auto &c) {
                 second(c, oa::ShapeMode::LikeFirst, {2, 3});
                 c.tensors[1].codes = {1, 2, 3, 5, 6, 7};
               }},
              {[](auto &c) { second(c, oa::ShapeMode::Explicit, {4, 3}); },
               [](auto &c) {
                 c.tensors[0] = arg({3});
                 second(c, oa::ShapeMode::Explicit, {3, 2});
               },
               [](auto &c) {
                 c.tensors[0] = arg({2, 2, 3});
                 second(c, oa::ShapeMode::Explicit, {3, 3, 2});
               },
               [](auto &c) { second(c, oa::ShapeMode::LikeFirst, {2, 3}); }}};
    case OpSig::Scalar:  // 0.5 is an int divisor of 0
      return {{[](auto &c) { c.scalar = float_code(1.5); }}, {[](auto &c) { c.scalar = float_code(0.5); }}};
    case OpSig::Bounds:
      return {{[](auto &c) { c.min = float_code(-0.5), c.max = float_code(1.0); }},
              {[](auto &c) { c.min = float_code(2.0), c.max = float_code(1.0); },
               [](auto &c) { c.min = float_code(std::nan("")), c.max = float_code(1.0); }}};
    case OpSig::Dim:
      return {{[](auto &c) { c.dim = 1; }},
              {[](auto &c) { c.dim = 5; },
               [=](auto &c) { c.dim = SIZE_MAX_CODE; },
               [](auto &c) {
                 c.tensors[0] = arg({2, 0});
                 c.dim = 1;
               }}};
    case OpSig::DimPair:
      return {{[](auto &c) { c.dim = 0, c.dim1 = 1; }}, {[](auto &c) { c.dim = 0, c.dim1 = 5; }}};
    // rfft: a power-of-two length, zero-padded or truncated by n (codes: 2^code, then 3 and 0).
    // Faults: a length of 3, n 3 or 0, a dim past the rank.
    case OpSig::Rfft: {
      auto with = [](std::vector<std::size_t> x, std::size_t dim, std::optional<std::size_t> n_code) {
        return [=](oa::OpArgsCase &c) {
          c.tensors[0] = arg(x);
          c.dim = dim;
          c.has_fft_size = n_code.has_value();
          c.fft_size = n_code.value_or(0);
        };
      };
      return {{with({2, 4}, 1, std::nullopt), with({3, 2}, 0, 3), with({2, 8}, 1, 1), with({4}, 0, 0)},
              {with({2, 3}, 1, std::nullopt), with({2, 4}, 1, 6), with({2, 4}, 1, 7), with({2, 4}, 5, std::nullopt)}};
    }
    // irfft: spectra of n / 2 + 1 bins, or n truncating or padding them. Faults: 4 bins (2 (4 - 1)
    // = 6), parts of two shapes, n 3, a dim past the rank.
    case OpSig::Irfft: {
      auto with = [](std::vector<std::size_t> x, std::size_t dim, std::optional<std::size_t> n_code, oa::ShapeMode im) {
        return [=](oa::OpArgsCase &c) {
          c.tensors[0] = arg(x);
          c.dim = dim;
          c.has_fft_size = n_code.has_value();
          c.fft_size = n_code.value_or(0);
          second(c, im, oa::binary_rhs_shape(c, im, 1));
        };
      };
      const oa::ShapeMode like = oa::ShapeMode::LikeFirst, derived = oa::ShapeMode::Derived;
      return {{with({2, 3}, 1, std::nullopt, like), with({3, 2}, 0, std::nullopt, like), with({2, 5}, 1, 2, like)},
              {with({2, 4}, 1, std::nullopt, like), with({2, 3}, 1, std::nullopt, derived), with({2, 3}, 1, 6, like),
               with({2, 3}, 5, std::nullopt, like)}};
    }
    case OpSig::ToShape:
      return {{[](auto &c) { c.shape = {3, 2}; }, [](auto &c) { c.shape = {4, 2, 3}; }},
              {[](auto &c) { c.shape = {4}; }}};
    case OpSig::ToDType:
      // A float target, else an int one (float_into_int); an int target, else Bool, for the panic.
      return {{[=](auto &c) { c.dtype = dtype_index(dtype == DType::F32 ? DType::F64 : DType::F32); },
               [](auto &c) { c.dtype = dtype_index(DType::I32); }},
              {[](auto &c) { c.dtype = dtype_index(DType::I32); }, [](auto &c) { c.dtype = dtype_index(DType::Bool); }}};
    case OpSig::Axes:
      return {{[](auto &c) { c.axes = {1, 0}; }},
              {[](auto &c) { c.axes = {0, 0}; }, [](auto &c) { c.axes = {0}; },
               [](auto &c) { c.axes = {oa::kAxisCodes - 1, 0}; }}};
    case OpSig::Ranges:
      return {{[](auto &c) { c.ranges = {{0, 2}, {1, 3}}; }},
              {[](auto &c) { c.ranges = {{0, 2}, {1, 4}}; }, [](auto &c) { c.ranges = {{2, 1}}; },
               [](auto &c) { c.ranges = {{0, 1}, {0, 1}, {0, 1}}; }}};
    case OpSig::RangesAssign:
      // The receiver is [2, 3]: the block 0..2 x 1..3 takes a [2, 2].
      return {{[](auto &c) {
                 c.ranges = {{0, 2}, {1, 3}};
                 second(c, oa::ShapeMode::Derived, {2, 2});
               },
               [](auto &c) {
                 c.ranges = {{1, 2}};
                 second(c, oa::ShapeMode::Explicit, {1, 3});
               }},
              {[](auto &c) {
                 c.ranges = {{0, 2}, {1, 4}};
                 second(c, oa::ShapeMode::Explicit, {2, 3});
               },
               [](auto &c) {
                 c.ranges = {{0, 2}, {1, 3}};
                 second(c, oa::ShapeMode::Explicit, {2, 3});
               },
               [](auto &c) {
                 c.ranges = {{0, 1}, {0, 1}, {0, 1}};
                 second(c, oa::ShapeMode::Explicit, {1, 1});
               }}};
    case OpSig::Select:
    case OpSig::SelectAssign: {
      const bool assign = sig == OpSig::SelectAssign;
      auto with = [assign](std::size_t dim, oa::ArgTensor indices, std::size_t int_dtype = 0) {
        return [=](oa::OpArgsCase &c) {
          c.dim = dim;
          c.indices = indices;
          c.int_dtype = int_dtype;
          if (assign) {
            std::vector<std::size_t> values = c.tensors[0].shape;
            if (dim < values.size() && indices.shape.size() == 1) values[dim] = indices.shape[0];
            second(c, oa::ShapeMode::Derived, values);
          }
        };
      };
      Candidates out{{with(1, index_arg({3}, {2, 0, 2}))},
                     {with(1, index_arg({1, 2}, {0, 1})), with(1, index_arg({2}, {0, -1})),
                      with(1, index_arg({1}, {3})), with(5, index_arg({1}, {0})),
                      with(1, index_arg({2}, {0, 1}), 2)}};
      if (assign) {
        out.invalid.push_back([](oa::OpArgsCase &c) {
          c.dim = 1;
          c.indices = index_arg({1}, {0});
          second(c, oa::ShapeMode::Explicit, {2, 2});
        });
      }
      return out;
    }
    case OpSig::Gather:
    case OpSig::Scatter: {
      const bool scatter = sig == OpSig::Scatter;
      // Indices given explicitly (or, with mode LikeFirst, as the receiver's [2, 3]); scatter's
      // values take the indices' shape.
      auto with = [scatter](std::size_t dim, oa::ShapeMode mode, oa::ArgTensor indices, std::size_t int_dtype = 0) {
        return [=](oa::OpArgsCase &c) {
          c.dim = dim;
          c.index_mode = mode;
          c.index_size = 0;
          c.indices = indices;
          c.int_dtype = int_dtype;
          if (scatter) second(c, oa::ShapeMode::LikeFirst, indices.shape);
        };
      };
      const oa::ShapeMode like = oa::ShapeMode::LikeFirst, explicit_shape = oa::ShapeMode::Explicit;
      Candidates out{{with(1, like, index_arg({2, 3}, {2, 0, 2, 1, 1, 0})),
                      with(0, explicit_shape, index_arg({3, 3}, {1, 0, 1, 0, 0, 1, 1, 1, 0}))},
                     {with(1, explicit_shape, index_arg({3}, {0, 1, 2})),
                      with(1, explicit_shape, index_arg({3, 3}, {0, 0, 0, 0, 0, 0, 0, 0, 0})),
                      with(1, like, index_arg({2, 3}, {0, 1, -1, 0, 0, 0})),
                      with(1, like, index_arg({2, 3}, {0, 1, 3, 0, 0, 0})), with(5, like, index_arg({2, 3}, {})),
                      with(1, like, index_arg({2, 3}, {0, 1, 0, 1, 0, 1}), 2)}};
      if (scatter) {
        out.invalid.push_back([](oa::OpArgsCase &c) {
          c.dim = 1;
          c.index_mode = oa::ShapeMode::LikeFirst;
          c.indices = index_arg({2, 3}, {0, 1, 2, 2, 1, 0});
          second(c, oa::ShapeMode::Explicit, {2, 2});
        });
      }
      return out;
    }
    case OpSig::ScatterUpdate: {
      // Scatter's arguments with an update: Max, then Assign (the first a tracked receiver takes),
      // and Mul, which a tracked receiver refuses (scatter-update-gradient).
      const Candidates scatter = candidates(OpSig::Scatter, dtype);
      const auto with_update = [](ArgEdit e, std::size_t update) -> ArgEdit {
        return [=](oa::OpArgsCase &c) {
          e(c);
          c.update = update;
        };
      };
      Candidates out;
      for (const ArgEdit &e : scatter.valid) {
        out.valid.push_back(with_update(e, 4));
        out.valid.push_back(with_update(e, 0));
      }
      for (const ArgEdit &e : scatter.invalid) out.invalid.push_back(with_update(e, 1));
      out.invalid.push_back(with_update(scatter.valid.front(), 2));
      return out;
    }
    case OpSig::GatherNd:
    case OpSig::ScatterNd: {
      // Index rows into the [2, 3] receiver: [3, 1] given as rows 3 and k 1 (Derived), [2, 2]
      // explicit, [2, 0] (k = 0: whole tensors); scatter_nd's values of the gathered shape.
      const bool scatter = sig == OpSig::ScatterNd;
      auto with = [scatter](oa::ShapeMode mode, oa::ArgTensor indices, std::size_t update = 1, std::size_t int_dtype = 0,
                            std::vector<std::size_t> values = {}) {
        return [=](oa::OpArgsCase &c) {
          c.index_mode = mode;
          c.indices = indices;
          c.int_dtype = int_dtype;
          if (mode == oa::ShapeMode::Derived) {
            c.index_size = indices.shape[0];
            c.k = indices.shape[1];
          }
          if (scatter) {
            c.update = update;
            if (values.empty()) second(c, oa::ShapeMode::LikeFirst, oa::nd_values_shape(c, oa::ShapeMode::LikeFirst, 1));
            else second(c, oa::ShapeMode::Explicit, values);
          }
        };
      };
      const oa::ShapeMode rows = oa::ShapeMode::Derived, given = oa::ShapeMode::Explicit;
      Candidates out{{with(rows, index_arg({3, 1}, {1, 0, 1}), 0), with(given, index_arg({2, 2}, {1, 2, 0, 0}), 4),
                      with(given, index_arg({2, 0}, {}))},
                     {with(given, index_arg({1, 3}, {0, 0, 0})), with(given, index_arg({1, 2}, {1, 3})),
                      with(given, index_arg({1, 2}, {-1, 0})), with(given, index_arg({2, 1}, {0, 1}), 1, 2)}};
      if (scatter) {
        out.invalid.push_back(with(given, index_arg({2, 1}, {0, 1}), 1, 0, {2, 2}));
        out.invalid.push_back(with(rows, index_arg({3, 1}, {1, 0, 1}), 3));  // Min: refused when tracked
      }
      return out;
    }
    case OpSig::BinaryDim:
      return {{[](auto &c) {
                 second(c, oa::ShapeMode::LikeFirst, {2, 3});
                 c.dim = 1;
               },
               [](auto &c) {
                 c.tensors[0] = arg({3, 2});
                 second(c, oa::ShapeMode::Explicit, {3, 1});
                 c.dim = 0;
               }},
              {[](auto &c) {
                 second(c, oa::ShapeMode::LikeFirst, {2, 3});
                 c.dim = 0;
               },
               [](auto &c) {
                 second(c, oa::ShapeMode::Explicit, {4, 3});
                 c.dim = 1;
               },
               [](auto &c) {
                 second(c, oa::ShapeMode::LikeFirst, {2, 3});
                 c.dim = 5;
               }}};
    case OpSig::Affine:
      return {{[](auto &c) { c.alpha = float_code(0.5), c.beta = float_code(0.5); }}, {}};
    case OpSig::Repeat:
      return {{[](auto &c) { c.dim = 1, c.times = 2; }, [](auto &c) { c.dim = 0, c.times = 0; }},
              {[](auto &c) { c.dim = 5, c.times = 2; }}};
    case OpSig::Window:
      return {{[](auto &c) { c.dim = 1, c.size = 2, c.step = 1; }, [](auto &c) { c.dim = 0, c.size = 3, c.step = 2; }},
              {[](auto &c) { c.dim = 1, c.size = 2, c.step = 0; }, [](auto &c) { c.dim = 5, c.size = 1, c.step = 1; }}};
    case OpSig::Sort:
      return {{[](auto &c) { c.dim = 1, c.descending = true; }, [](auto &c) { c.dim = 0, c.descending = false; }},
              {[](auto &c) { c.dim = 5, c.descending = true; }}};
    case OpSig::TopK:
      return {{[](auto &c) { c.dim = 1, c.k = 2; }, [](auto &c) { c.dim = 0, c.k = 0; }},
              {[](auto &c) { c.dim = 1, c.k = 5; }, [](auto &c) { c.dim = 5, c.k = 1; }}};
    case OpSig::MaskSelect: {
      // A Bool mask of the receiver's [2, 3] (LikeFirst), or of its last dim alone (Derived: not
      // the receiver's shape), explicit, or an int mask.
      auto with = [](oa::ShapeMode mode, oa::ArgTensor mask, std::size_t mask_dtype = std::size(oa::kIntDTypes)) {
        return [=](oa::OpArgsCase &c) {
          c.index_mode = mode;
          c.indices = mask;
          c.int_dtype = mask_dtype;
        };
      };
      const oa::ShapeMode like = oa::ShapeMode::LikeFirst, last = oa::ShapeMode::Derived, given = oa::ShapeMode::Explicit;
      return {{with(like, index_arg({2, 3}, {1, 0, 0, 1, 1, 0})), with(given, index_arg({2, 3}, {0, 0, 0, 0, 0, 0}))},
              {with(last, index_arg({3}, {0, 1, 1})), with(like, index_arg({2, 3}, {1, 0, 0, 1, 1, 0}), 0)}};
    }
    case OpSig::MaskWhere:
    case OpSig::MaskFill: {
      const bool with_value = sig == OpSig::MaskWhere;
      // A Bool mask (int_dtype past the int dtypes: oa::kMaskDTypeChoices) given by mode, the value
      // of the receiver's shape (LikeFirst) or explicit.
      auto with = [with_value](oa::ShapeMode mode, oa::ArgTensor mask, std::vector<std::size_t> value,
                               std::size_t mask_dtype = std::size(oa::kIntDTypes)) {
        return [=](oa::OpArgsCase &c) {
          c.index_mode = mode;
          c.indices = mask;
          c.int_dtype = mask_dtype;
          if (!with_value) c.scalar = float_code(-2.5);
          if (with_value) {
            second(c, value.empty() ? oa::ShapeMode::LikeFirst : oa::ShapeMode::Explicit,
                   value.empty() ? c.tensors[0].shape : value);
          }
        };
      };
      const oa::ShapeMode like = oa::ShapeMode::LikeFirst, last = oa::ShapeMode::Derived, given = oa::ShapeMode::Explicit;
      return {{with(like, index_arg({2, 3}, {1, 0, 0, 1, 1, 0}), {}), with(last, index_arg({3}, {0, 1, 1}), {3})},
              {with(given, index_arg({4}, {1, 0, 1, 0}), {}), with(like, index_arg({2, 3}, {1, 0, 0, 1, 1, 0}), {}, 0),
               with(like, index_arg({2, 3}, {1, 0, 0, 1, 1, 0}), {2, 2})}};
    }
    // A [1, 2, 5, 5] input; the window array is kernel_size, stride, padding ([h, w] each).
    // The 1-D poolings read the window's width entries (1, 3, 5), dilation[1] and output_size[1].
    case OpSig::AvgPool2d:
    case OpSig::AvgPool2dBackward:
    case OpSig::AvgPool1d:
    case OpSig::AvgPool1dBackward: {
      const bool backward = sig == OpSig::AvgPool2dBackward || sig == OpSig::AvgPool1dBackward;
      auto with = [backward](std::vector<std::size_t> x, std::array<std::size_t, 6> window, bool include_pad, bool ceil,
                             oa::ShapeMode grad = oa::ShapeMode::LikeFirst) {
        return [=](oa::OpArgsCase &c) {
          c.tensors[0] = arg(x);
          c.window = window;
          c.count_include_pad = include_pad;
          c.ceil_mode = ceil;
          if (backward) second(c, grad, oa::pool_grad_shape(c, grad, 1));
        };
      };
      if (sig == OpSig::AvgPool1d || sig == OpSig::AvgPool1dBackward) {
        Candidates out{{with({1, 2, 5}, {0, 3, 0, 2, 0, 1}, true, false), with({1, 2, 5}, {0, 2, 0, 1, 0, 0}, false, true)},
                       {with({2, 3}, {1, 1, 1, 1, 0, 0}, true, false), with({1, 2, 5}, {0, 0, 0, 1, 0, 0}, true, false),
                        with({1, 2, 5}, {0, 2, 0, 0, 0, 0}, true, false), with({1, 2, 5}, {0, 3, 0, 1, 0, 2}, true, false),
                        with({1, 1, 2}, {0, 5, 0, 1, 0, 1}, true, false), with({1, 1, 0}, {0, 1, 0, 1, 0, 0}, true, false)}};
        if (backward) out.invalid.push_back(with({1, 2, 5}, {0, 3, 0, 2, 0, 1}, true, false, oa::ShapeMode::Derived));
        return out;
      }
      Candidates out{{with({1, 2, 5, 5}, {3, 3, 2, 2, 1, 1}, true, false), with({1, 2, 5, 5}, {2, 3, 2, 1, 1, 0}, false, true)},
                     {with({2, 3}, {1, 1, 1, 1, 0, 0}, true, false), with({1, 2, 5, 5}, {0, 2, 1, 1, 0, 0}, true, false),
                      with({1, 2, 5, 5}, {2, 2, 0, 1, 0, 0}, true, false), with({1, 2, 5, 5}, {3, 3, 1, 1, 2, 0}, true, false),
                      with({1, 1, 2, 2}, {5, 1, 1, 1, 1, 0}, true, false)}};
      if (backward) out.invalid.push_back(with({1, 2, 5, 5}, {3, 3, 2, 2, 1, 1}, true, false, oa::ShapeMode::Derived));
      return out;
    }
    // max_pool2d: the window array is kernel_size, stride, padding; then dilation. The backward
    // pass takes the forward's indices from the fill (0: every gradient to the plane's first cell).
    case OpSig::MaxPool2d:
    case OpSig::MaxPool2dBackward:
    case OpSig::MaxPool1d:
    case OpSig::MaxPool1dBackward: {
      const bool backward = sig == OpSig::MaxPool2dBackward || sig == OpSig::MaxPool1dBackward;
      auto with = [backward](std::vector<std::size_t> x, std::array<std::size_t, 6> window, Size2 dilation, bool ceil,
                             oa::ShapeMode grad = oa::ShapeMode::LikeFirst,
                             oa::ArgTensor indices = {}, oa::ShapeMode index_mode = oa::ShapeMode::LikeFirst) {
        return [=](oa::OpArgsCase &c) {
          c.tensors[0] = arg(x);
          c.window = window;
          c.dilation = dilation;
          c.ceil_mode = ceil;
          if (!backward) return;
          second(c, grad, oa::pool_grad_shape(c, grad, 1));
          c.index_mode = index_mode;
          c.indices = indices;
          if (index_mode != oa::ShapeMode::Explicit) {
            c.indices.shape = c.tensors[1].shape;
            if (index_mode == oa::ShapeMode::Derived) ++c.indices.shape[0];
          }
        };
      };
      if (sig == OpSig::MaxPool1d || sig == OpSig::MaxPool1dBackward) {
        // The indices name cells of a row of 5 (the fill's values pass it).
        const oa::ArgTensor cells = index_arg({1, 2, 3}, {0, 2, 4, 1, 3, 4});
        Candidates out{{with({1, 2, 5}, {0, 3, 0, 2, 0, 1}, {1, 1}, false, oa::ShapeMode::LikeFirst, cells, oa::ShapeMode::Explicit),
                        with({1, 2, 5}, {0, 2, 0, 1, 0, 0}, {1, 2}, true, oa::ShapeMode::LikeFirst, cells, oa::ShapeMode::Explicit)},
                       {with({2, 3}, {1, 1, 1, 1, 0, 0}, {1, 1}, false), with({1, 2, 5}, {0, 2, 0, 1, 0, 0}, {1, 0}, false),
                        with({1, 2, 5}, {0, 3, 0, 1, 0, 2}, {1, 1}, false), with({1, 1, 2}, {0, 2, 0, 1, 0, 0}, {1, 2}, false),
                        with({1, 1, 1}, {0, 2, 0, 1, 0, 1}, {1, 2}, false)}};
        if (backward) {
          out.invalid.push_back(with({1, 2, 5}, {0, 3, 0, 2, 0, 1}, {1, 1}, false, oa::ShapeMode::Derived));
          out.invalid.push_back(with({1, 2, 5}, {0, 3, 0, 2, 0, 1}, {1, 1}, false, oa::ShapeMode::LikeFirst, {}, oa::ShapeMode::Derived));
          out.invalid.push_back(with({1, 1, 2}, {0, 2, 0, 1, 0, 0}, {1, 1}, false, oa::ShapeMode::LikeFirst, index_arg({1, 1, 1}, {7}),
                                     oa::ShapeMode::Explicit));
        }
        return out;
      }
      Candidates out{{with({1, 2, 5, 5}, {3, 3, 2, 2, 1, 1}, {1, 1}, false), with({1, 2, 5, 5}, {2, 2, 1, 2, 1, 0}, {2, 1}, true)},
                     {with({2, 3}, {1, 1, 1, 1, 0, 0}, {1, 1}, false), with({1, 2, 5, 5}, {2, 2, 1, 1, 0, 0}, {1, 0}, false),
                      with({1, 2, 5, 5}, {3, 3, 1, 1, 2, 0}, {1, 1}, false), with({1, 1, 2, 2}, {2, 1, 1, 1, 0, 0}, {2, 1}, false),
                      with({1, 1, 1, 1}, {2, 1, 1, 1, 1, 0}, {2, 1}, false)}};
      if (backward) {
        out.invalid.push_back(with({1, 2, 5, 5}, {3, 3, 2, 2, 1, 1}, {1, 1}, false, oa::ShapeMode::Derived));
        out.invalid.push_back(with({1, 2, 5, 5}, {3, 3, 2, 2, 1, 1}, {1, 1}, false, oa::ShapeMode::LikeFirst, {}, oa::ShapeMode::Derived));
        out.invalid.push_back(with({1, 1, 2, 2}, {2, 2, 1, 1, 0, 0}, {1, 1}, false, oa::ShapeMode::LikeFirst,
                                   index_arg({1, 1, 1, 1}, {7}), oa::ShapeMode::Explicit));
      }
      return out;
    }
    case OpSig::AdaptivePool2d:
    case OpSig::AdaptivePool2dBackward:
    case OpSig::AdaptivePool1d:
    case OpSig::AdaptivePool1dBackward: {
      const bool backward = sig == OpSig::AdaptivePool2dBackward || sig == OpSig::AdaptivePool1dBackward;
      auto with = [backward](std::vector<std::size_t> x, Size2 out, oa::ShapeMode grad = oa::ShapeMode::LikeFirst) {
        return [=](oa::OpArgsCase &c) {
          c.tensors[0] = arg(x);
          c.output_size = out;
          if (backward) second(c, grad, oa::pool_grad_shape(c, grad, 1));
        };
      };
      if (sig == OpSig::AdaptivePool1d || sig == OpSig::AdaptivePool1dBackward) {
        Candidates out{{with({1, 2, 5}, {0, 3}), with({2, 1, 4}, {0, 1})},
                       {with({2, 3}, {0, 1}), with({1, 2, 5}, {0, 0}), with({1, 1, 0}, {0, 2})}};
        if (backward) out.invalid.push_back(with({1, 2, 5}, {0, 3}, oa::ShapeMode::Derived));
        return out;
      }
      Candidates out{{with({1, 2, 5, 5}, {2, 3}), with({2, 1, 3, 4}, {1, 1})},
                     {with({2, 3}, {1, 1}), with({1, 2, 5, 5}, {0, 2}), with({1, 1, 0, 4}, {2, 2})}};
      if (backward) out.invalid.push_back(with({1, 2, 5, 5}, {2, 3}, oa::ShapeMode::Derived));
      return out;
    }
    // adaptive_avg_pool3d and its backward pass: output_size [d, h, w] (the gradient of the output's
    // shape). Faults: a rank-4 input, a zero output size, an empty depth, a gradient of another batch.
    case OpSig::AdaptivePool3d:
    case OpSig::AdaptivePool3dBackward: {
      const bool backward = sig == OpSig::AdaptivePool3dBackward;
      auto with = [backward](std::vector<std::size_t> x, Size3 out, oa::ShapeMode grad = oa::ShapeMode::LikeFirst) {
        return [=](oa::OpArgsCase &c) {
          c.tensors[0] = arg(x);
          c.output_size_3d = out;
          if (backward) second(c, grad, oa::pool_grad_shape(c, grad, 1));
        };
      };
      Candidates out{{with({1, 2, 3, 4, 5}, {2, 3, 2}), with({2, 1, 2, 3, 3}, {1, 1, 1}), with({1, 1, 2, 2, 3}, {4, 3, 5})},
                     {with({1, 2, 4, 4}, {1, 1, 1}), with({1, 2, 3, 4, 5}, {0, 2, 2}), with({1, 1, 0, 3, 3}, {1, 1, 1})}};
      if (backward) out.invalid.push_back(with({1, 2, 3, 4, 5}, {2, 3, 2}, oa::ShapeMode::Derived));
      return out;
    }
    // interpolate and its backward pass: output_size, the mode code, align_corners (the gradient of
    // the output's shape). Faults: a rank-3 input, the unknown mode code 4, an output size of 0, an
    // empty width, a gradient of another shape.
    case OpSig::Interpolate:
    case OpSig::InterpolateBackward: {
      const bool backward = sig == OpSig::InterpolateBackward;
      auto with = [backward](std::vector<std::size_t> x, Size2 out, std::size_t mode, bool align,
                             oa::ShapeMode grad = oa::ShapeMode::LikeFirst) {
        return [=](oa::OpArgsCase &c) {
          c.tensors[0] = arg(x);
          c.output_size = out;
          c.interpolate_mode = mode;
          c.align_corners = align;
          if (backward) second(c, grad, oa::pool_grad_shape(c, grad, 1));
        };
      };
      Candidates out{{with({1, 2, 3, 4}, {5, 5}, 0, false), with({1, 1, 4, 4}, {3, 2}, 1, false), with({2, 1, 3, 3}, {5, 4}, 2, false),
                      with({1, 2, 3, 2}, {4, 5}, 2, true), with({1, 1, 4, 5}, {5, 3}, 3, false), with({1, 1, 4, 4}, {3, 5}, 3, true)},
                     {with({2, 3, 4}, {2, 2}, 2, false), with({1, 1, 3, 3}, {2, 2}, 4, false), with({1, 1, 3, 3}, {0, 2}, 2, false),
                      with({1, 1, 3, 0}, {2, 2}, 1, false)}};
      if (backward) out.invalid.push_back(with({1, 2, 3, 4}, {5, 5}, 2, false, oa::ShapeMode::Derived));
      return out;
    }
    // unfold4d: the window array is kernel_size, stride, padding; then dilation. Faults: a rank-3
    // input, a zero kernel, stride or dilation, a span past the padded input, no rows.
    case OpSig::Unfold4d: {
      auto with = [](std::vector<std::size_t> x, std::array<std::size_t, 6> window, Size2 dilation) {
        return [=](oa::OpArgsCase &c) {
          c.tensors[0] = arg(x);
          c.window = window;
          c.dilation = dilation;
        };
      };
      return {{with({1, 2, 5, 5}, {3, 3, 2, 2, 1, 1}, {1, 1}), with({2, 1, 4, 5}, {2, 3, 1, 2, 0, 1}, {2, 1}),
               with({1, 0, 3, 3}, {2, 2, 1, 1, 0, 0}, {1, 1})},
              {with({2, 3, 3}, {1, 1, 1, 1, 0, 0}, {1, 1}), with({1, 2, 5, 5}, {0, 2, 1, 1, 0, 0}, {1, 1}),
               with({1, 2, 5, 5}, {2, 2, 0, 1, 0, 0}, {1, 1}), with({1, 2, 5, 5}, {2, 2, 1, 1, 0, 0}, {1, 0}),
               with({1, 1, 2, 2}, {3, 1, 1, 1, 0, 0}, {1, 1}), with({1, 1, 0, 3}, {1, 1, 1, 1, 1, 1}, {1, 1})}};
    }
    // fold4d: output_size, then unfold4d's window and dilation. Faults: a rank-4 input, a zero
    // output size, a dim 1 the kernel's cells do not divide, a span past the padded output, one
    // block too many.
    case OpSig::Fold4d: {
      auto with = [](std::vector<std::size_t> x, Size2 out, std::array<std::size_t, 6> window, Size2 dilation) {
        return [=](oa::OpArgsCase &c) {
          c.tensors[0] = arg(x);
          c.output_size = out;
          c.window = window;
          c.dilation = dilation;
        };
      };
      return {{with({1, 4, 4}, {3, 3}, {2, 2, 1, 1, 0, 0}, {1, 1}), with({2, 2, 4}, {5, 2}, {2, 1, 2, 1, 0, 0}, {1, 1}),
               with({1, 4, 4}, {3, 3}, {2, 2, 2, 2, 1, 1}, {1, 1}), with({1, 4, 1}, {3, 3}, {2, 2, 1, 1, 0, 0}, {2, 2})},
              {with({1, 1, 4, 4}, {3, 3}, {2, 2, 1, 1, 0, 0}, {1, 1}), with({1, 4, 4}, {0, 3}, {2, 2, 1, 1, 0, 0}, {1, 1}),
               with({1, 5, 4}, {3, 3}, {2, 2, 1, 1, 0, 0}, {1, 1}), with({1, 0, 1}, {1, 1}, {3, 3, 1, 1, 0, 0}, {1, 1}),
               with({1, 4, 5}, {3, 3}, {2, 2, 1, 1, 0, 0}, {1, 1})}};
    }
    // A [4, 3] table read at [2, 3] indices with repeats (row 3 three times: its gradient adds
    // three rows); faults: a rank-1 table or index, an index past the table, a negative index, a
    // gradient one batch too large.
    case OpSig::Embedding:
    case OpSig::EmbeddingBackward: {
      const bool backward = sig == OpSig::EmbeddingBackward;
      auto with = [backward](std::vector<std::size_t> w, oa::ArgTensor indices, std::size_t int_dtype = 0,
                             oa::ShapeMode grad = oa::ShapeMode::LikeFirst) {
        return [=](oa::OpArgsCase &c) {
          c.tensors[0] = arg(w);
          c.indices = indices;
          c.int_dtype = int_dtype;
          if (backward) second(c, grad, oa::embedding_grad_shape(c, grad, 1));
        };
      };
      const oa::ArgTensor rows = index_arg({2, 3}, {0, 3, 1, 3, 3, 2});
      Candidates out{{with({4, 3}, rows), with({4, 3}, index_arg({1, 2}, {2, 2}), 1), with({3, 0}, index_arg({2, 1}, {1, 0}))},
                     {with({4}, rows), with({4, 3}, index_arg({5}, {0, 3, 1, 3, 2})),
                      with({4, 3}, index_arg({2, 3}, {0, 3, 1, 4, 3, 2})), with({4, 3}, index_arg({1, 2}, {1, -1}))}};
      if (backward) out.invalid.push_back(with({4, 3}, rows, 0, oa::ShapeMode::Derived));
      return out;
    }
    // linear: x [..., d_input] times a weight [d_input, d_output], with a bias or none; an empty
    // x's row (d_input 0: the bias alone) and no rows at all. Faults: a scalar x, a rank-1 weight
    // or rank-2 bias, a weight or bias one size off.
    case OpSig::Linear: {
      auto with = [](std::vector<std::size_t> x, oa::ShapeMode w, std::vector<std::size_t> w_shape, bool bias,
                     oa::ShapeMode b = oa::ShapeMode::LikeFirst, std::vector<std::size_t> b_shape = {}) {
        return [=](oa::OpArgsCase &c) {
          c.tensors[0] = arg(x);
          second(c, w, w == oa::ShapeMode::Explicit ? w_shape : oa::linear_operand_shape(c, w, 1));
          if (!bias) return;
          c.tensors.resize(3);
          c.tensors[2] = arg(b == oa::ShapeMode::Explicit ? b_shape : oa::linear_operand_shape(c, b, 2));
          c.modes.push_back(b);
        };
      };
      const oa::ShapeMode like = oa::ShapeMode::LikeFirst, derived = oa::ShapeMode::Derived,
                          given = oa::ShapeMode::Explicit;
      return {{with({2, 3}, like, {}, true), with({2, 2, 3}, given, {3, 2}, false), with({3}, like, {}, true),
               with({2, 0}, like, {}, true), with({0, 3}, like, {}, false)},
              {with({}, given, {1, 2}, false), with({2, 3}, derived, {}, false), with({2, 3}, like, {}, true, derived),
               with({2, 3}, given, {3}, false), with({2, 3}, like, {}, true, given, {3, 3})}};
    }
    // layer_norm: x [..., d] normalised over d with a weight [d] and a bias or none, epsilon 1e-3,
    // 0.1 or 1; no rows and empty rows. Faults: a scalar x, a rank-2 weight, a weight or bias one
    // size off.
    case OpSig::LayerNorm: {
      auto with = [](std::vector<std::size_t> x, oa::ShapeMode w, std::vector<std::size_t> w_shape, bool bias, double epsilon,
                     oa::ShapeMode b = oa::ShapeMode::LikeFirst) {
        return [=](oa::OpArgsCase &c) {
          c.tensors[0] = arg(x);
          second(c, w, w == oa::ShapeMode::Explicit ? w_shape : oa::layer_norm_operand_shape(c, w, 1));
          c.scalar = float_code(epsilon);
          if (!bias) return;
          c.tensors.resize(3);
          c.tensors[2] = arg(oa::layer_norm_operand_shape(c, b, 2));
          c.modes.push_back(b);
        };
      };
      const oa::ShapeMode like = oa::ShapeMode::LikeFirst, derived = oa::ShapeMode::Derived,
                          given = oa::ShapeMode::Explicit;
      return {{with({2, 3}, like, {}, true, 1e-3), with({2, 2, 3}, given, {3}, false, 0.1), with({4}, like, {}, true, 1.0),
               with({2, 0}, like, {}, true, 1e-3), with({0, 3}, like, {}, false, 1e-3)},
              {with({}, given, {1}, false, 1e-3), with({2, 3}, derived, {}, false, 1e-3), with({2, 3}, like, {}, true, 1e-3, derived),
               with({2, 3}, given, {3, 1}, false, 1e-3)}};
    }
    // batch_norm: x [batch, channels, ...] with weight, bias, mean and variance [channels] (the
    // decoder's LikeFirst shape), epsilon 1e-3 or 1; no batch, no channels. Faults: a rank-1 x,
    // a statistic one channel off (Derived), a rank-2 statistic.
    case OpSig::BatchNorm: {
      auto with = [](std::vector<std::size_t> x, std::size_t odd = 0, oa::ShapeMode mode = oa::ShapeMode::Derived,
                     std::vector<std::size_t> shape = {}, double epsilon = 1e-3) {
        return [=](oa::OpArgsCase &c) {
          c.tensors.assign(5, oa::ArgTensor{});
          c.tensors[0] = arg(x);
          c.modes.assign(4, oa::ShapeMode::LikeFirst);
          for (std::size_t k = 1; k <= 4; ++k) c.tensors[k] = arg(oa::batch_norm_operand_shape(c, oa::ShapeMode::LikeFirst, k));
          if (odd > 0) {
            c.modes[odd - 1] = mode;
            c.tensors[odd] = arg(mode == oa::ShapeMode::Explicit ? shape : oa::batch_norm_operand_shape(c, mode, odd));
          }
          c.scalar = float_code(epsilon);
        };
      };
      return {{with({2, 3, 4}), with({2, 3}, 0, oa::ShapeMode::Derived, {}, 1.0), with({1, 2, 2, 3}), with({0, 3, 2}),
               with({2, 0, 2})},
              {with({3}), with({2, 3, 4}, 2), with({2, 3, 4}, 4, oa::ShapeMode::Explicit, {3, 1})}};
    }
    // attention: query [batch, heads, seq_q, head_dim], key and value of seq_k 3 (the decoder's
    // LikeFirst shapes), a Bool mask of the scores' shape with a fully masked row, a bias, scale
    // and softcap from the float table, causal masking; no queries, no keys. Faults: a rank-3 query,
    // a key of another seq (LikeFirst for the value then misfits), a value of another seq_k, a mask
    // and a bias of another shape, a softcap of 0 or -1.
    case OpSig::Attention: {
      struct Edit {
        std::vector<std::size_t> q;
        oa::ShapeMode k = oa::ShapeMode::LikeFirst, v = oa::ShapeMode::LikeFirst;
        bool mask = false, bias = false, causal = false;
        oa::ShapeMode mask_mode = oa::ShapeMode::LikeFirst, bias_mode = oa::ShapeMode::LikeFirst;
        std::optional<double> scale, softcap;
      };
      auto with = [](Edit e) {
        return [=](oa::OpArgsCase &c) {
          c.tensors.assign(3, oa::ArgTensor{});
          c.tensors[0] = arg(e.q);
          c.modes = {e.k, e.v};
          c.tensors[1] = arg(oa::attention_operand_shape(c, e.k, 1));
          c.tensors[2] = arg(oa::attention_operand_shape(c, e.v, 2));
          c.attention_mask = e.mask;
          if (e.mask) {
            c.index_mode = e.mask_mode;
            c.int_dtype = std::size(oa::kIntDTypes);  // Bool
            const std::vector<std::size_t> m = oa::attention_operand_shape(c, e.mask_mode, 3);
            std::vector<std::int64_t> cells(m[0] * m[1] * m[2] * m[3]);
            for (std::size_t i = 0; i < cells.size(); ++i) cells[i] = i % m[3] == 0 || i < m[3] ? 1 : 0;  // row 0 fully masked
            c.indices = index_arg(m, cells);
          }
          c.attention_bias = e.bias;
          if (e.bias) {
            c.tensors.push_back(arg(oa::attention_operand_shape(c, e.bias_mode, 3)));
            c.modes.push_back(e.bias_mode);
          }
          c.has_scale = e.scale.has_value();
          if (e.scale) c.scalar = float_code(*e.scale);
          c.has_softcap = e.softcap.has_value();
          if (e.softcap) c.max = float_code(*e.softcap);
          c.causal = e.causal;
        };
      };
      const oa::ShapeMode derived = oa::ShapeMode::Derived;
      return {{with({.q = {1, 2, 4, 2}, .mask = true, .bias = true, .causal = true}), with({.q = {2, 1, 3, 4}}),
               with({.q = {1, 1, 2, 3}, .causal = true}), with({.q = {1, 2, 3, 2}, .mask = true, .scale = 0.5, .softcap = 7.0}),
               with({.q = {1, 1, 0, 2}}), with({.q = {0, 1, 2, 2}, .mask = true, .bias = true})},
              {with({.q = {2, 4, 2}}), with({.q = {1, 2, 3, 2}, .v = derived}), with({.q = {1, 2, 3, 2}, .mask = true, .mask_mode = derived}),
               with({.q = {1, 2, 3, 2}, .bias = true, .bias_mode = derived}), with({.q = {1, 2, 3, 2}, .softcap = 0.0}),
               with({.q = {1, 2, 3, 2}, .softcap = -1.0})}};
    }
    case OpSig::LinearXBackward:
    case OpSig::LinearWeightBackward: {
      const bool x_grad = sig == OpSig::LinearXBackward;
      auto with = [](std::vector<std::size_t> first, oa::ShapeMode g, std::vector<std::size_t> g_shape = {}) {
        return [=](oa::OpArgsCase &c) {
          c.tensors[0] = arg(first);
          second(c, g, g == oa::ShapeMode::Explicit ? g_shape : oa::linear_operand_shape(c, g, 1));
        };
      };
      const oa::ShapeMode like = oa::ShapeMode::LikeFirst, derived = oa::ShapeMode::Derived,
                          given = oa::ShapeMode::Explicit;
      if (x_grad) {  // {weight, grad}
        return {{with({3, 4}, like), with({3, 4}, given, {2, 2, 4}), with({3, 0}, like), with({3, 2}, given, {2})},
                {with({3, 4}, derived), with({4}, given, {2, 4}), with({3, 4}, given, {})}};
      }
      return {{with({2, 3}, like), with({2, 2, 3}, like), with({0, 3}, like), with({3}, given, {4})},  // {x, grad}
              {with({2, 3}, derived), with({}, given, {3}), with({2, 3}, given, {3, 3})}};
    }
    // conv2d: padding, stride, dilation and groups on small images, a bias or none, no input
    // channels (the bias alone) and no batch. Faults: a rank-3 input, a zero stride or kernel,
    // groups 0 or not dividing the channels, a weight for other channels, a bias one off, a
    // kernel past the padded input; the backward passes: a gradient or weight one off.
    case OpSig::Conv2d:
    case OpSig::Conv2dBackward:
    case OpSig::Conv2dBiasBackward: {
      using Conv = std::array<std::size_t, 7>;
      const oa::ShapeMode like = oa::ShapeMode::LikeFirst, derived = oa::ShapeMode::Derived,
                          given = oa::ShapeMode::Explicit;
      // Operand k after x: its mode and, when given, its shape.
      struct Later {
        oa::ShapeMode mode = oa::ShapeMode::LikeFirst;
        std::vector<std::size_t> shape = {};
      };
      auto with = [](std::vector<std::size_t> x, Conv conv, std::vector<Later> later) {
        return [=](oa::OpArgsCase &c) {
          c.tensors.assign(1, arg(x));
          c.modes.clear();
          c.conv = conv;
          for (std::size_t k = 0; k < later.size(); ++k) {
            c.tensors.resize(k + 2);
            c.modes.push_back(later[k].mode);
            c.tensors[k + 1] = arg(later[k].mode == oa::ShapeMode::Explicit ? later[k].shape
                                                                              : oa::conv_operand_shape(c, later[k].mode, k + 1));
          }
        };
      };
      const Conv plain{1, 1, 1, 1, 1, 1, 1};
      if (sig == OpSig::Conv2dBiasBackward) {
        const Conv none{};  // conv2d_bias_backward takes no options
        return {{with({2, 3, 4, 4}, none, {{like}, {like}}), with({1, 2, 3, 3}, none, {{given, {2}}, {like}})},
                {with({2, 3, 4, 4}, none, {{like}, {derived}}), with({2, 3, 4, 4}, none, {{given, {3, 1}}, {like}})}};
      }
      if (sig == OpSig::Conv2dBackward) {
        return {{with({1, 2, 5, 5}, plain, {{like}, {like}}), with({2, 2, 4, 4}, {2, 2, 0, 0, 1, 1, 2}, {{like}, {like}}),
                 with({1, 1, 4, 5}, {1, 2, 2, 1, 2, 1, 1}, {{given, {3, 1, 3, 2}}, {like}})},
                {with({1, 2, 5, 5}, plain, {{like}, {derived}}), with({1, 2, 5, 5}, plain, {{derived}, {like}})}};
      }
      return {{with({1, 2, 5, 5}, plain, {{like}, {like}}), with({2, 2, 5, 5}, {2, 2, 0, 0, 1, 1, 2}, {{like}}),
               with({1, 1, 4, 5}, {1, 2, 2, 1, 2, 1, 1}, {{given, {3, 1, 3, 2}}, {like}}), with({1, 0, 3, 3}, plain, {{like}, {like}}),
               with({0, 2, 3, 3}, plain, {{like}})},
              {with({2, 5, 5}, plain, {{given, {2, 2, 2, 2}}}), with({1, 2, 5, 5}, {0, 1, 1, 1, 1, 1, 1}, {{like}}),
               with({1, 2, 5, 5}, {1, 1, 1, 1, 1, 1, 0}, {{given, {2, 2, 2, 2}}}),
               with({1, 2, 5, 5}, {1, 1, 1, 1, 1, 1, 3}, {{given, {3, 1, 2, 2}}}), with({1, 2, 5, 5}, plain, {{derived}}),
               with({1, 2, 5, 5}, plain, {{like}, {derived}}), with({1, 2, 2, 2}, {1, 1, 0, 0, 1, 1, 1}, {{given, {2, 2, 4, 4}}}),
               with({1, 2, 5, 5}, plain, {{given, {2, 2, 0, 2}}})}};
    }
    // conv1d: conv2d's cases on rows of at most 5 (a stored dim's largest value; the options in
    // conv[]'s width entries: stride 1, padding 3, dilation 5, groups 6). Faults: a rank-4 input, a zero stride, groups 0 or not dividing, a
    // weight for other channels, a bias one off, a kernel past the padded input; the backward
    // passes: a gradient or weight one off.
    case OpSig::Conv1d:
    case OpSig::Conv1dBackward:
    case OpSig::Conv1dBiasBackward: {
      using Conv = std::array<std::size_t, 7>;
      const oa::ShapeMode like = oa::ShapeMode::LikeFirst, derived = oa::ShapeMode::Derived,
                          given = oa::ShapeMode::Explicit;
      struct Later {
        oa::ShapeMode mode = oa::ShapeMode::LikeFirst;
        std::vector<std::size_t> shape = {};
      };
      auto with = [](std::vector<std::size_t> x, Conv conv, std::vector<Later> later) {
        return [=](oa::OpArgsCase &c) {
          c.tensors.assign(1, arg(x));
          c.modes.clear();
          c.conv = conv;
          for (std::size_t k = 0; k < later.size(); ++k) {
            c.tensors.resize(k + 2);
            c.modes.push_back(later[k].mode);
            c.tensors[k + 1] = arg(later[k].mode == oa::ShapeMode::Explicit ? later[k].shape
                                                                              : oa::conv_operand_shape(c, later[k].mode, k + 1));
          }
        };
      };
      const Conv plain{0, 1, 0, 1, 0, 1, 1}, strided{0, 2, 0, 0, 0, 1, 2}, dilated{0, 1, 0, 2, 0, 2, 1};
      if (sig == OpSig::Conv1dBiasBackward) {
        const Conv none{};
        return {{with({2, 3, 5}, none, {{like}, {like}}), with({1, 2, 3}, none, {{given, {2}}, {like}})},
                {with({2, 3, 5}, none, {{like}, {derived}}), with({2, 3, 5}, none, {{given, {3, 1}}, {like}})}};
      }
      if (sig == OpSig::Conv1dBackward) {
        return {{with({1, 2, 5}, plain, {{like}, {like}}), with({2, 2, 5}, strided, {{like}, {like}}),
                 with({1, 1, 5}, dilated, {{given, {3, 1, 3}}, {like}})},
                {with({1, 2, 5}, plain, {{like}, {derived}}), with({1, 2, 5}, plain, {{derived}, {like}})}};
      }
      return {{with({1, 2, 5}, plain, {{like}, {like}}), with({2, 2, 5}, strided, {{like}}),
               with({1, 1, 5}, dilated, {{given, {3, 1, 3}}, {like}}), with({1, 0, 4}, plain, {{like}, {like}}),
               with({0, 2, 4}, plain, {{like}})},
              {with({1, 2, 5, 1}, plain, {{given, {2, 2, 2}}}), with({1, 2, 5}, {0, 0, 0, 1, 0, 1, 1}, {{like}}),
               with({1, 2, 5}, {0, 1, 0, 1, 0, 1, 0}, {{given, {2, 2, 2}}}),
               with({1, 2, 5}, {0, 1, 0, 1, 0, 1, 3}, {{given, {3, 1, 2}}}), with({1, 2, 5}, plain, {{derived}}),
               with({1, 2, 5}, plain, {{like}, {derived}}), with({1, 2, 2}, {0, 1, 0, 0, 0, 1, 1}, {{given, {2, 2, 4}}})}};
    }
    // conv_transpose2d: stride, padding, padding_out, dilation and groups on small images, a bias or
    // none, no input channels (the bias alone) and no batch. Faults: a rank-3 input, a zero stride,
    // groups 0 or not dividing the input channels, a weight for other input channels, a bias one
    // off, padding_out at the stride and dilation, padding cropping the whole output, an input with
    // no rows; the backward passes: a gradient or weight one off.
    // conv_transpose1d: the same on rows of at most 5 (the options in conv[]'s and padding_out's
    // width entries), with a rank-4 input for the rank fault and a row of 1 or 0 for the size faults.
    case OpSig::ConvTranspose2d:
    case OpSig::ConvTranspose2dBackward:
    case OpSig::ConvTranspose1d:
    case OpSig::ConvTranspose1dBackward: {
      using Conv = std::array<std::size_t, 7>;
      const oa::ShapeMode like = oa::ShapeMode::LikeFirst, derived = oa::ShapeMode::Derived,
                          given = oa::ShapeMode::Explicit;
      struct Later {
        oa::ShapeMode mode = oa::ShapeMode::LikeFirst;
        std::vector<std::size_t> shape = {};
      };
      auto with = [](std::vector<std::size_t> x, Conv conv, Size2 padding_out, std::vector<Later> later) {
        return [=](oa::OpArgsCase &c) {
          c.tensors.assign(1, arg(x));
          c.modes.clear();
          c.conv = conv;
          c.padding_out = padding_out;
          for (std::size_t k = 0; k < later.size(); ++k) {
            c.tensors.resize(k + 2);
            c.modes.push_back(later[k].mode);
            c.tensors[k + 1] = arg(later[k].mode == oa::ShapeMode::Explicit ? later[k].shape
                                                                              : oa::conv_operand_shape(c, later[k].mode, k + 1));
          }
        };
      };
      const Conv plain{1, 1, 1, 1, 1, 1, 1}, strided{2, 2, 0, 0, 1, 1, 2}, mixed{2, 1, 1, 0, 1, 2, 1};
      if (sig == OpSig::ConvTranspose1dBackward || sig == OpSig::ConvTranspose1d) {
        const Conv strided1{0, 2, 0, 0, 0, 1, 2}, mixed1{0, 2, 0, 1, 0, 2, 1};
        if (sig == OpSig::ConvTranspose1dBackward) {
          return {{with({1, 2, 3}, plain, {0, 0}, {{like}, {like}}), with({2, 2, 3}, strided1, {0, 1}, {{like}, {like}}),
                   with({1, 1, 3}, mixed1, {0, 1}, {{given, {1, 3, 2}}, {like}})},
                  {with({1, 2, 3}, plain, {0, 0}, {{like}, {derived}}), with({1, 2, 3}, plain, {0, 0}, {{derived}, {like}})}};
        }
        return {{with({1, 2, 3}, plain, {0, 0}, {{like}, {like}}), with({2, 2, 3}, strided1, {0, 1}, {{like}}),
                 with({1, 1, 3}, mixed1, {0, 1}, {{given, {1, 3, 2}}, {like}}), with({1, 0, 3}, plain, {0, 0}, {{like}, {like}}),
                 with({0, 2, 3}, plain, {0, 0}, {{like}})},
                {with({1, 2, 3, 3}, plain, {0, 0}, {{given, {2, 2, 2}}}), with({1, 2, 3}, {1, 0, 1, 1, 1, 1, 1}, {0, 0}, {{like}}),
                 with({1, 2, 3}, {1, 1, 1, 1, 1, 1, 0}, {0, 0}, {{given, {2, 2, 2}}}),
                 with({1, 2, 3}, {1, 1, 1, 1, 1, 1, 3}, {0, 0}, {{given, {2, 1, 2}}}),
                 with({1, 2, 3}, plain, {0, 0}, {{derived}}), with({1, 2, 3}, plain, {0, 0}, {{like}, {derived}}),
                 with({1, 2, 3}, plain, {0, 1}, {{like}}), with({1, 1, 1}, plain, {0, 0}, {{given, {1, 1, 1}}}),
                 with({1, 1, 0}, plain, {0, 0}, {{like}})}};
      }
      if (sig == OpSig::ConvTranspose2dBackward) {
        return {{with({1, 2, 3, 3}, plain, {0, 0}, {{like}, {like}}), with({2, 2, 3, 3}, strided, {1, 1}, {{like}, {like}}),
                 with({1, 1, 2, 3}, mixed, {1, 1}, {{given, {1, 3, 3, 2}}, {like}})},
                {with({1, 2, 3, 3}, plain, {0, 0}, {{like}, {derived}}), with({1, 2, 3, 3}, plain, {0, 0}, {{derived}, {like}})}};
      }
      return {{with({1, 2, 3, 3}, plain, {0, 0}, {{like}, {like}}), with({2, 2, 3, 3}, strided, {1, 1}, {{like}}),
               with({1, 1, 2, 3}, mixed, {1, 1}, {{given, {1, 3, 3, 2}}, {like}}), with({1, 0, 3, 3}, plain, {0, 0}, {{like}, {like}}),
               with({0, 2, 3, 3}, plain, {0, 0}, {{like}})},
              {with({2, 3, 3}, plain, {0, 0}, {{given, {2, 2, 2, 2}}}), with({1, 2, 3, 3}, {0, 1, 1, 1, 1, 1, 1}, {0, 0}, {{like}}),
               with({1, 2, 3, 3}, {1, 1, 1, 1, 1, 1, 0}, {0, 0}, {{given, {2, 2, 2, 2}}}),
               with({1, 2, 3, 3}, {1, 1, 1, 1, 1, 1, 3}, {0, 0}, {{given, {2, 1, 2, 2}}}),
               with({1, 2, 3, 3}, plain, {0, 0}, {{derived}}), with({1, 2, 3, 3}, plain, {0, 0}, {{like}, {derived}}),
               with({1, 2, 3, 3}, plain, {1, 0}, {{like}}), with({1, 1, 1, 1}, {1, 1, 1, 0, 1, 1, 1}, {0, 0}, {{given, {1, 1, 1, 1}}}),
               with({1, 1, 0, 2}, plain, {0, 0}, {{like}})}};
    }
    // conv3d and conv_transpose3d: conv2d's and conv_transpose2d's cases on small volumes (the depth's
    // options in depth[]: stride, padding, dilation, padding_out), a bias or none, no input
    // channels and no batch. Faults: a rank-4 input, a zero depth stride, groups not dividing, a
    // weight for other channels, a bias one off, a kernel past the padded depth, padding_out at the
    // depth's stride and dilation; the backward passes: a gradient or weight one off.
    case OpSig::Conv3d:
    case OpSig::Conv3dBackward:
    case OpSig::Conv3dBiasBackward:
    case OpSig::ConvTranspose3d:
    case OpSig::ConvTranspose3dBackward: {
      using Conv = std::array<std::size_t, 7>;
      using Depth = std::array<std::size_t, 4>;
      const oa::ShapeMode like = oa::ShapeMode::LikeFirst, derived = oa::ShapeMode::Derived,
                          given = oa::ShapeMode::Explicit;
      struct Later {
        oa::ShapeMode mode = oa::ShapeMode::LikeFirst;
        std::vector<std::size_t> shape = {};
      };
      // conv3d's passes store no padding_out (of the depth or the plane): theirs stay 0.
      const bool has_padding_out = sig == OpSig::ConvTranspose3d || sig == OpSig::ConvTranspose3dBackward;
      auto with = [has_padding_out](std::vector<std::size_t> x, Conv conv, Depth depth, Size2 padding_out, std::vector<Later> later) {
        return [=](oa::OpArgsCase &c) {
          c.tensors.assign(1, arg(x));
          c.modes.clear();
          c.conv = conv;
          c.depth = depth;
          c.padding_out = padding_out;
          if (!has_padding_out) c.depth[3] = 0, c.padding_out = {0, 0};
          for (std::size_t k = 0; k < later.size(); ++k) {
            c.tensors.resize(k + 2);
            c.modes.push_back(later[k].mode);
            c.tensors[k + 1] = arg(later[k].mode == oa::ShapeMode::Explicit ? later[k].shape
                                                                              : oa::conv_operand_shape(c, later[k].mode, k + 1));
          }
        };
      };
      const Conv plain{1, 1, 1, 1, 1, 1, 1}, strided{2, 2, 0, 0, 1, 1, 2}, none{};
      const Depth flat{1, 0, 1, 0}, padded{1, 1, 1, 0}, deep{2, 0, 1, 1};
      if (sig == OpSig::Conv3dBiasBackward) {
        return {{with({2, 3, 2, 3, 3}, none, {}, {}, {{like}, {like}}), with({1, 2, 1, 2, 2}, none, {}, {}, {{given, {2}}, {like}})},
                {with({2, 3, 2, 3, 3}, none, {}, {}, {{like}, {derived}}),
                 with({2, 3, 2, 3, 3}, none, {}, {}, {{given, {3, 1}}, {like}})}};
      }
      if (sig == OpSig::Conv3dBackward || sig == OpSig::ConvTranspose3dBackward) {
        return {{with({1, 2, 3, 3, 3}, plain, flat, {0, 0}, {{like}, {like}}),
                 with({2, 2, 3, 3, 3}, strided, deep, {1, 1}, {{like}, {like}})},
                {with({1, 2, 3, 3, 3}, plain, padded, {0, 0}, {{like}, {derived}}),
                 with({1, 2, 3, 3, 3}, plain, flat, {0, 0}, {{derived}, {like}})}};
      }
      const bool transposed = sig == OpSig::ConvTranspose3d;
      return {{with({1, 2, 3, 3, 3}, plain, padded, {0, 0}, {{like}, {like}}),
               with({2, 2, 3, 3, 3}, strided, deep, {1, 1}, {{like}}), with({1, 0, 2, 2, 2}, plain, flat, {0, 0}, {{like}, {like}}),
               with({0, 2, 2, 2, 2}, plain, flat, {0, 0}, {{like}})},
              {with({2, 3, 3, 3}, plain, flat, {0, 0}, {{given, {2, 2, 2, 2, 2}}}),
               with({1, 2, 3, 3, 3}, plain, {0, 0, 1, 0}, {0, 0}, {{like}}),
               with({1, 2, 3, 3, 3}, {1, 1, 1, 1, 1, 1, 3}, flat, {0, 0}, {{given, {2, 1, 2, 2, 2}}}),
               with({1, 2, 3, 3, 3}, plain, flat, {0, 0}, {{derived}}), with({1, 2, 3, 3, 3}, plain, flat, {0, 0}, {{like}, {derived}}),
               transposed ? with({1, 2, 3, 3, 3}, plain, {1, 0, 1, 1}, {0, 0}, {{like}})
                          : with({1, 2, 1, 3, 3}, plain, {1, 0, 1, 0}, {0, 0}, {{given, {2, 2, 2, 2, 2}}})}};
    }
    case OpSig::LinearBiasBackward:
      return {{[](auto &c) { c.tensors[0] = arg({2, 3}); }, [](auto &c) { c.tensors[0] = arg({2, 2, 4}); },
               [](auto &c) { c.tensors[0] = arg({0, 3}); }, [](auto &c) { c.tensors[0] = arg({3}); }},
              {[](auto &c) { c.tensors[0] = arg({}); }}};
    case OpSig::Cat:
      return {{[](auto &c) {
                cat_pieces(c, 1, {{2, 3}, {2, 1}});
                c.modes = {oa::ShapeMode::LikeFirst};
                c.sizes = {1};
              }},
              {[](auto &c) { cat_pieces(c, 0, {}); }, [](auto &c) { cat_pieces(c, 0, {{1, 2}, {1, 3}}); },
               [](auto &c) { cat_pieces(c, 0, {{1, 2}, {2}}); }, [](auto &c) { cat_pieces(c, 5, {{1, 2}}); }}};
  }
  return {};
}

oa::OpArgsCase op_args_case(const OpInfo &op, std::size_t b, bool tracked, DType dtype) {
  oa::OpArgsCase c;
  c.backend = b;
  c.tracked = tracked;
  c.op_code = static_cast<std::size_t>(op.id);
  c.f64 = dtype == DType::F64;
  if (op.sig != OpSig::Cat) c.tensors = {arg({2, 3})};
  return c;
}

// The panic the reference expects for this case, or "" for a value.
std::string reference_panic(const oa::OpArgsCase &c) {
  const oa::ReferenceCall call = oa::reference_call(c);
  const oracle::ReferenceResult r = oracle::reference_op(oa::op_of(c).id, call.operands, call.args);
  return r.panic_id ? *r.panic_id : std::string();
}

void op_args_seeds() {
  const std::string T = "op_args_fuzzer";
  for (const OpInfo &op : kOps) {
    const std::string name(op.name);
    for (std::size_t b : backends()) {
      for (const auto &[tracked, dtype] : {std::pair{false, DType::F32}, std::pair{true, DType::F64}}) {
        bool found = false;
        for (const ArgEdit &edit : candidates(op.sig, dtype).valid) {
          oa::OpArgsCase c = op_args_case(op, b, tracked, dtype);
          edit(c);
          // A backward pass's tracked seed is its refusal (not-differentiable) of valid arguments.
          const std::string panic = reference_panic(c);
          const bool refused = tracked && op.rule == OpRule::NotDifferentiable && panic == "not-differentiable";
          if (!panic.empty() && !refused) continue;
          emit(T, "op-" + name + "-" + bname(b) + (tracked ? "-tracked" : "-plain"), c);
          found = true;
          break;
        }
        if (!found) {
          std::fprintf(stderr, "seedgen: no valid op_args candidate for %s (Sig %s)\n", name.c_str(),
                       std::string(op_sig_name(op.sig)).c_str());
          ++errors;
        }
      }
    }
    // Each invalid candidate's panic on plain and tracked receivers; one that only a tracked
    // receiver raises (scatter-update-gradient) gets tracked seeds only.
    std::set<std::string> reached;
    for (const ArgEdit &edit : candidates(op.sig, DType::F32).invalid) {
      for (bool tracked_probe : {false, true}) {
        oa::OpArgsCase probe = op_args_case(op, 0, tracked_probe, DType::F32);
        edit(probe);
        const std::string id = reference_panic(probe);
        if (id.empty() || !reached.insert(id).second) continue;
        for (std::size_t b : backends()) {
          for (bool tracked : {false, true}) {
            if (tracked_probe && !tracked) continue;
            oa::OpArgsCase c = probe;
            c.backend = b;
            c.tracked = tracked;
            emit(T, "panic-" + id + "-" + name + "-" + bname(b) + (tracked ? "-tracked" : "-plain"), c);
          }
        }
      }
    }
  }
}

// ctc_loss (op_args::kCtcLossCode): a valid case and one per catalog panic of its checks, on every
// backend, plain and tracked. The oracle's ctc_loss_panic names each case's outcome.
oa::OpArgsCase ctc_case(std::size_t b, bool tracked, std::size_t blank, std::array<std::size_t, 4> dims,
                        std::vector<std::int64_t> targets, std::vector<std::int64_t> input_lengths,
                        std::vector<std::int64_t> target_lengths) {
  oa::OpArgsCase c;
  c.backend = b;
  c.tracked = tracked;
  c.op_code = oa::kCtcLossCode;
  c.f64 = tracked;
  c.ctc_blank = blank;
  c.ctc_dims = dims;
  const auto [time, batch, classes, max_target] = dims;
  c.tensors = {arg({time, batch, classes})};
  c.ctc_targets = index_arg({batch, max_target}, std::move(targets));
  c.ctc_input_lengths = index_arg({batch}, std::move(input_lengths));
  c.ctc_target_lengths = index_arg({batch}, std::move(target_lengths));
  return c;
}

void ctc_loss_seeds() {
  const std::string T = "op_args_fuzzer";
  for (std::size_t b : backends()) {
    for (bool tracked : {false, true}) {
      const std::string where = bname(b) + (tracked ? "-tracked" : "-plain");
      std::vector<std::pair<std::string, oa::OpArgsCase>> cases;
      // "1 2" over 3 steps, "3 3" (a blank between the repeats) over 3, the empty target over 2.
      cases.emplace_back("op-ctc_loss", ctc_case(b, tracked, 0, {3, 3, 4, 2}, {1, 2, 3, 3, 5, 5}, {3, 3, 2}, {2, 2, 0}));
      // "3 3" over 2 steps has no alignment: +inf.
      cases.emplace_back("op-ctc_loss-unreachable", ctc_case(b, tracked, 0, {2, 1, 4, 2}, {3, 3}, {2}, {2}));
      oa::OpArgsCase shape = ctc_case(b, tracked, 0, {3, 2, 4, 2}, {1, 2, 3, 1}, {3, 3}, {2, 2});
      shape.ctc_explicit_shapes = true;  // the shapes are read, not derived from ctc_dims
      shape.ctc_dims = {};
      shape.ctc_targets.shape = {4};
      cases.emplace_back("panic-ctc-shape-ctc_loss", shape);
      cases.emplace_back("panic-ctc-blank-ctc_loss", ctc_case(b, tracked, 4, {3, 2, 4, 2}, {1, 2, 3, 1}, {3, 3}, {2, 2}));
      cases.emplace_back("panic-ctc-length-ctc_loss", ctc_case(b, tracked, 0, {3, 2, 4, 2}, {1, 2, 3, 1}, {3, 4}, {2, 2}));
      cases.emplace_back("panic-ctc-target-label-ctc_loss",
                         ctc_case(b, tracked, 0, {3, 2, 4, 2}, {1, 2, 3, 0}, {3, 3}, {2, 2}));
      for (auto &[name, c] : cases) {
        const oa::CtcLossCall call = oa::ctc_loss_call(c);
        const std::optional<std::string> panic = oracle::ctc_loss_panic(
            {call.log_probs.shape, call.targets.shape, call.input_lengths.shape, call.target_lengths.shape,
             oracle::int_values(call.targets), oracle::int_values(call.input_lengths), oracle::int_values(call.target_lengths),
             call.blank});
        const bool wants_panic = name.rfind("panic-", 0) == 0;
        if (wants_panic != panic.has_value() || (panic && name.find("panic-" + *panic + "-") != 0)) {
          std::fprintf(stderr, "seedgen: ctc_loss seed %s: the oracle says %s\n", name.c_str(), panic ? panic->c_str() : "a value");
          ++errors;
        }
        emit(T, name + "-" + where, c);
      }
    }
  }
}

// deform_conv2d (op_args::kDeformConv2dCode): valid calls with and without mask and bias, strided
// and padded, and one per panic of its own checks and of a check it shares with conv2d, on every
// backend, plain and tracked. The fuzzer's own verdict (run in fuzz_repro) judges each.
oa::OpArgsCase deform_case(std::size_t b, bool tracked, std::vector<std::size_t> x, std::vector<std::size_t> w,
                           std::array<std::size_t, 7> conv, std::size_t offset_groups, bool mask, bool bias) {
  oa::OpArgsCase c;
  c.backend = b;
  c.tracked = tracked;
  c.op_code = oa::kDeformConv2dCode;
  c.f64 = tracked;
  c.tensors = {arg(std::move(x)), arg(std::move(w))};
  c.conv = conv;
  c.deform_offset_groups = offset_groups;
  c.deform_mask = mask;
  c.deform_bias = bias;
  const oa::DeformShapes d = oa::deform_shapes(c);
  c.deform_offset = arg(d.offset);
  if (mask) c.deform_mask_tensor = arg(d.mask);
  if (bias) c.deform_bias_tensor = arg(d.bias);
  return c;
}

void deform_conv2d_seeds() {
  const std::string T = "op_args_fuzzer";
  for (std::size_t b : backends()) {
    for (bool tracked : {false, true}) {
      const std::string where = bname(b) + (tracked ? "-tracked" : "-plain");
      emit(T, "op-deform_conv2d-" + where, deform_case(b, tracked, {1, 2, 4, 4}, {3, 2, 3, 3}, {1, 1, 0, 0, 1, 1, 1}, 1, true, true));
      emit(T, "op-deform_conv2d-groups-strided-" + where,
           deform_case(b, tracked, {2, 4, 5, 5}, {2, 2, 2, 2}, {2, 1, 1, 0, 1, 2, 2}, 2, false, true));
      emit(T, "op-deform_conv2d-no-mask-no-bias-" + where,
           deform_case(b, tracked, {1, 1, 3, 3}, {1, 1, 2, 2}, {1, 1, 0, 0, 1, 1, 1}, 1, false, false));
      emit(T, "panic-deform-offset-groups-deform_conv2d-" + where,
           deform_case(b, tracked, {1, 4, 4, 4}, {2, 4, 3, 3}, {1, 1, 0, 0, 1, 1, 1}, 3, false, false));
      // Read shapes are counts 0..5 (a derived one may be larger): no mask of 9 taps here.
      oa::OpArgsCase wrong = deform_case(b, tracked, {1, 2, 4, 4}, {3, 2, 3, 3}, {1, 1, 0, 0, 1, 1, 1}, 1, false, false);
      wrong.deform_explicit_shapes = true;
      wrong.deform_offset = arg({1, 5, 2, 2});  // dims are counts 0..5
      emit(T, "panic-deform-operand-shape-deform_conv2d-" + where, wrong);
      emit(T, "panic-conv-groups-deform_conv2d-" + where,
           deform_case(b, tracked, {1, 4, 4, 4}, {2, 4, 3, 3}, {1, 1, 0, 0, 1, 1, 3}, 1, false, false));
    }
  }
}

// ---- remote_protocol_fuzzer
// Rpc sequences for the server's Handler: each rpc on a live session and the statuses of the
// protocol (wrong tokens, unknown and stale sessions, every limit of the fuzzer's Handler, other
// sessions' handles), every op code with arguments fitted to its Sig on three held tensors (float,
// int indices, bool), absurd shapes, dtypes, scalars, dims and ranges, and raw request bytes.
namespace rp = crossgrad::fuzz::remote_protocol;

struct Rpcs {
  rp::ProtocolCase c;
  rp::Step &add(rp::Rpc r, rp::Token t = rp::Token::Right) {
    c.steps.emplace_back();
    c.steps.back().rpc = r;
    c.steps.back().token = t;
    return c.steps.back();
  }
  rp::Step &on(rp::Rpc r, std::size_t session = 0) {
    rp::Step &s = add(r);
    s.session = {rp::SessionPick::Opened, session, 0};
    return s;
  }
  void open() { add(rp::Rpc::OpenSession); }
  void close(std::size_t session = 0) { on(rp::Rpc::CloseSession, session); }
  rp::Step &data(std::vector<std::uint64_t> shape, DType d, std::vector<std::uint8_t> bytes, bool fill = false,
                 std::size_t session = 0) {
    rp::Step &s = on(rp::Rpc::FromData, session);
    s.shape = std::move(shape);
    s.dtype.code = static_cast<std::size_t>(d);
    s.bytes = std::move(bytes);
    s.fill = fill;
    return s;
  }
  rp::Step &into(rp::HandleRef h, std::size_t session = 0) {
    rp::Step &s = on(rp::Rpc::IntoData, session);
    s.handle = h;
    return s;
  }
  rp::Step &call(std::size_t op_code, std::vector<rp::HandleRef> operands, bool fit = true) {
    rp::Step &s = on(rp::Rpc::Call);
    s.op.code = op_code;
    s.fit = fit;
    s.operands = std::move(operands);
    return s;
  }
};
rp::HandleRef recent(std::size_t i) { return {rp::HandlePick::Returned, i, 0}; }
rp::HandleRef small_handle(std::size_t v) { return {rp::HandlePick::Small, v, 0}; }
rp::HandleRef raw_handle(std::uint64_t v) { return {rp::HandlePick::Raw, 0, v}; }
rp::Scalar scalar_code(double v) {  // the op_args table code of v (exact values only)
  for (std::size_t c = 0; c < rp::kScalarTable; ++c) {
    if (std::bit_cast<std::uint64_t>(oa::float_value(c)) == std::bit_cast<std::uint64_t>(v)) return {c, 0};
  }
  return {rp::kScalarTable, std::bit_cast<std::uint64_t>(v)};
}
std::vector<std::uint8_t> f32_bytes(std::vector<float> v) {
  std::vector<std::uint8_t> out(v.size() * 4);
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}
std::vector<std::uint8_t> i64_bytes(std::vector<std::int64_t> v) {
  std::vector<std::uint8_t> out(v.size() * 8);
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}
// The op codes past the registry ops, in remote_protocol's fixed code space.
constexpr std::size_t kFloatFullCode = rp::kLowOpCodes, kQuantizeCode = rp::kLowOpCodes + 1,
                      kDequantizeCode = rp::kLowOpCodes + 2, kCode999 = rp::kLowOpCodes + 3,
                      kRawOpCode = rp::kRawOpCode;

// Opens a session holding f = F32 [2, 3], i = I64 [2] {0, 1}, b = Bool [2] {1, 0}; then the
// most recent handles are b (0), i (1), f (2).
Rpcs three_tensors() {
  Rpcs r;
  r.open();
  r.data({2, 3}, DType::F32, f32_bytes({0.5f, -1.0f, 1.5f, 2.0f, 0.25f, 3.0f}));
  r.data({2}, DType::I64, i64_bytes({0, 1}));
  r.data({2}, DType::Bool, {1, 0});
  return r;
}

void remote_protocol_seeds() {
  const std::string T = "remote_protocol_fuzzer";
  const rp::HandleRef b = recent(0), i = recent(1), f = recent(2);
  {
    Rpcs r;
    r.open();
    r.close();
    emit(T, "open-close", r.c);
  }
  {
    Rpcs r = three_tensors();
    r.into(f);
    r.into(i);
    r.into(b);
    r.call(static_cast<std::size_t>(OpId::float_add), {f, f});
    r.into(recent(0));
    r.on(rp::Rpc::KeepAlive);
    r.on(rp::Rpc::Attach);
    r.on(rp::Rpc::Free).frees = {recent(0), recent(1)};
    r.into(recent(1));  // freed: NOT_FOUND
    r.close();
    r.on(rp::Rpc::KeepAlive);  // stale session: NOT_FOUND + lost
    emit(T, "lifecycle", r.c);
  }
  // Every op code of the registry, its arguments fitted to its Sig, on the tensor of its kind.
  for (const OpInfo &op : kOps) {
    Rpcs r = three_tensors();
    const rp::HandleRef receiver = op.operand == OpKind::Int ? i : op.operand == OpKind::Bool ? b : f;
    std::vector<rp::HandleRef> operands = {receiver};
    if (op.sig == OpSig::Binary || op.sig == OpSig::Cat || op.sig == OpSig::BinaryDim) operands = {receiver, receiver};
    if (op.sig == OpSig::Select || op.sig == OpSig::Gather || op.sig == OpSig::GatherNd) operands = {f, i};
    if (op.sig == OpSig::MaskWhere) operands = {f, b, f};
    if (op.sig == OpSig::MaskFill || op.sig == OpSig::MaskSelect) operands = {f, b};
    if (op.sig == OpSig::SelectAssign || op.sig == OpSig::Scatter || op.sig == OpSig::ScatterUpdate ||
        op.sig == OpSig::ScatterNd)
      operands = {f, i, f};
    rp::Step &c = r.call(rp::op_field_code(static_cast<std::size_t>(op.id)), operands);
    c.scalars = {scalar_code(0.5), scalar_code(2.0)};
    c.dims = {1, 0};
    if (op.sig == OpSig::DimPair) c.dims = {0, 1};
    if (op.sig == OpSig::Repeat) c.dims = {1, 2};
    if (op.sig == OpSig::Window) c.dims = {1, 2, 1};
    if (op.sig == OpSig::Sort) c.dims = {1, 1};
    if (op.sig == OpSig::TopK) c.dims = {1, 2};
    if (op.sig == OpSig::ScatterUpdate) c.dims = {0, 4};  // dim 0, Max
    // rfft: dim 0 of the [2, 3] tensor (2 samples), n not given; irfft: two such spectra (n 2).
    if (op.sig == OpSig::Rfft || op.sig == OpSig::Irfft) c.dims = {0, 0};
    if (op.sig == OpSig::Irfft) c.operands = {f, f};
    if (op.sig == OpSig::GatherNd) c.dims = {};
    if (op.sig == OpSig::ScatterNd) c.dims = {2};  // Mul
    if (op.sig == OpSig::Select || op.sig == OpSig::SelectAssign || op.sig == OpSig::Gather ||
        op.sig == OpSig::Scatter || op.sig == OpSig::Cat)
      c.dims = {0};
    if (op.sig == OpSig::ToShape) c.shape = {3, 2};
    if (op.id == OpId::float_expand) c.shape = {2, 2, 3};
    if (op.sig == OpSig::ToDType) c.dtype.code = static_cast<std::size_t>(DType::F64);
    if (op.sig == OpSig::Axes) c.dims = {1, 0};
    if (op.sig == OpSig::Ranges) c.ranges = {{0, 2}, {1, 3}};
    if (op.sig == OpSig::AvgPool2dBackward || op.sig == OpSig::AdaptivePool2dBackward || op.sig == OpSig::AvgPool1dBackward ||
        op.sig == OpSig::AdaptivePool1dBackward) {
      c.operands = {f, f};
    }
    // The 1-D poolings: kernel_size 2, stride 1, padding 1, then count_include_pad 1 or dilation 1,
    // then ceil_mode 0; adaptive: output_size 1.
    if (op.sig == OpSig::AvgPool1d || op.sig == OpSig::AvgPool1dBackward || op.sig == OpSig::MaxPool1d ||
        op.sig == OpSig::MaxPool1dBackward) {
      c.dims = {2, 1, 1, 1, 0};
    }
    if (op.sig == OpSig::AdaptivePool1d) c.dims = {1};
    if (op.sig == OpSig::Unfold4d) c.dims = {2, 2, 1, 1, 0, 0};  // fit: dilation 0 0
    if (op.sig == OpSig::Fold4d) c.dims = {2, 2, 2, 2, 1, 1};  // fit: padding and dilation 0 0
    if (op.sig == OpSig::AdaptivePool1dBackward) c.dims = {};
    if (op.sig == OpSig::MaxPool1dBackward) c.operands = {f, f, i};
    // At most six dims are stored; `fit` pads the two flags with 0 (false).
    if (op.sig == OpSig::AvgPool2d || op.sig == OpSig::AvgPool2dBackward) c.dims = {2, 2, 1, 1, 0, 0};
    if (op.sig == OpSig::AdaptivePool2d) c.dims = {1, 1};
    if (op.sig == OpSig::AdaptivePool2dBackward) c.dims = {};
    if (op.sig == OpSig::Interpolate) c.dims = {3, 2, 2, 1};  // bilinear to 3x2, corners aligned
    if (op.sig == OpSig::AdaptivePool3d) c.dims = {1, 1, 1};  // a rank-2 tensor: module-input-rank
    if (op.sig == OpSig::AdaptivePool3dBackward) {
      c.operands = {f, f};
      c.dims = {};
    }
    if (op.sig == OpSig::InterpolateBackward) {
      c.operands = {f, f};
      c.dims = {2, 2, 0, 0};  // nearest to 2x2
    }
    if (op.sig == OpSig::MaxPool2dBackward) c.operands = {f, f, i};
    if (op.sig == OpSig::Embedding) c.operands = {f, i};
    if (op.sig == OpSig::EmbeddingBackward) c.operands = {f, f, i};
    if (op.sig == OpSig::Embedding || op.sig == OpSig::EmbeddingBackward) c.dims = {};
    if (op.sig == OpSig::Linear) {  // x, weight and a bias (the flag 1)
      c.operands = {f, f, f};
      c.dims = {1};
    }
    if (op.sig == OpSig::LayerNorm) {  // x, weight and a bias (the flag 1), epsilon
      c.operands = {f, f, f};
      c.dims = {1};
      c.scalars = {scalar_code(0.1)};
    }
    if (op.sig == OpSig::BatchNorm) {  // x, weight, bias, mean, variance, epsilon
      c.operands = {f, f, f, f, f};
      c.scalars = {scalar_code(0.1)};
    }
    if (op.sig == OpSig::Attention) {  // query, key, value, no mask, a bias (the flags 0, 1), causal
      c.operands = {f, f, f, f};
      c.dims = {0, 1, 0, 0, 1};
    }
    if (op.sig == OpSig::LinearXBackward || op.sig == OpSig::LinearWeightBackward) c.operands = {f, f};
    if (op.sig == OpSig::LinearXBackward || op.sig == OpSig::LinearWeightBackward || op.sig == OpSig::LinearBiasBackward)
      c.dims = {};
    // conv2d: x, weight, bias (the flag 1) and stride 1, padding 1, dilation 1, groups 1 (at most six dims are
    // stored: `fit` pads the groups with 0, a conv-groups panic); the backward passes x, weight or
    // bias and the gradient.
    if (op.sig == OpSig::Conv2d) {
      c.operands = {f, f, f};
      c.dims = {1, 1, 1, 1, 1, 1};
    }
    if (op.sig == OpSig::Conv2dBackward || op.sig == OpSig::Conv2dBiasBackward) c.operands = {f, f, f};
    if (op.sig == OpSig::Conv2dBackward) c.dims = {1, 1, 0, 0, 1, 1};
    if (op.sig == OpSig::Conv2dBiasBackward) c.dims = {};
    // conv_transpose2d: x, weight, bias (the flag 1) and stride 1, padding 1, padding_out 1 (at most
    // six dims are stored: `fit` pads the rest with 0, a zero dilation, module-option-zero); the
    // backward passes x, weight and the gradient.
    if (op.sig == OpSig::ConvTranspose2d) {
      c.operands = {f, f, f};
      c.dims = {1, 1, 1, 1, 1, 1};
    }
    // conv1d: x, weight, bias (the flag 1), stride 1, padding 1, dilation 1, groups 1; the backward
    // passes x, weight or bias and the gradient.
    if (op.sig == OpSig::Conv1d) {
      c.operands = {f, f, f};
      c.dims = {1, 1, 1, 1, 1};
    }
    if (op.sig == OpSig::Conv1dBackward || op.sig == OpSig::Conv1dBiasBackward) c.operands = {f, f, f};
    if (op.sig == OpSig::Conv1dBackward) c.dims = {1, 0, 1, 1};
    if (op.sig == OpSig::Conv1dBiasBackward) c.dims = {};
    if (op.sig == OpSig::ConvTranspose2dBackward) {
      c.operands = {f, f, f};
      c.dims = {1, 1, 0, 0, 0, 0};
    }
    // conv_transpose1d: x, weight, bias (the flag 1), stride 1, padding 1, padding_out 0, dilation 1,
    // groups 1; the backward passes x, weight and the gradient.
    if (op.sig == OpSig::ConvTranspose1d) {
      c.operands = {f, f, f};
      c.dims = {1, 1, 1, 0, 1, 1};
    }
    if (op.sig == OpSig::ConvTranspose1dBackward) {
      c.operands = {f, f, f};
      c.dims = {1, 0, 0, 1, 1};
    }
    // conv3d and conv_transpose3d: x, weight, bias (the flag 1), stride 1 1 1, padding 1 1 (at most
    // six dims are stored: `fit` pads the rest with 0, a zero dilation, module-option-zero); the
    // backward passes x, weight or bias and the gradient.
    if (op.sig == OpSig::Conv3d || op.sig == OpSig::ConvTranspose3d) {
      c.operands = {f, f, f};
      c.dims = {1, 1, 1, 1, 1, 1};
    }
    if (op.sig == OpSig::Conv3dBackward || op.sig == OpSig::ConvTranspose3dBackward || op.sig == OpSig::Conv3dBiasBackward) {
      c.operands = {f, f, f};
      c.dims = op.sig == OpSig::Conv3dBiasBackward ? std::vector<std::uint64_t>{} : std::vector<std::uint64_t>{1, 1, 1, 0, 0, 0};
    }
    if (op.sig == OpSig::MaxPool2d || op.sig == OpSig::MaxPool2dBackward) c.dims = {2, 2, 1, 1, 0, 0};  // fit: dilation 0 0, no ceil
    r.into(recent(0));
    r.close();
    emit(T, "op-" + std::string(op.name), r.c);
  }
  {
    Rpcs r = three_tensors();
    rp::Step &full = r.call(kFloatFullCode, {});
    full.shape = {2, 2};
    full.scalars = {scalar_code(2.0)};
    r.into(recent(0));
    r.call(kQuantizeCode, {f});
    r.into(recent(0));
    r.call(kDequantizeCode, {recent(0)}).scale = {0, 0};  // scale 1
    r.call(kDequantizeCode, {recent(1)}).scale = {6, 0};  // scale NaN
    r.into(recent(0));
    r.close();
    emit(T, "float-full-quantize-dequantize", r.c);
  }
  // Op codes that are not ops; raw codes; wrong operand counts; operands that are not held.
  {
    Rpcs r = three_tensors();
    r.call(kCode999, {f});
    // The first wire code past the registry's ops, as a raw code: the decoder's op field holds
    // exactly the registry (251 ops) and its special codes since the pooling ops landed.
    r.call(kRawOpCode, {f}).op.raw = static_cast<std::uint32_t>(kOpCount);
    r.call(kRawOpCode, {f}).op.raw = 0xffffffffu;
    r.call(kRawOpCode, {f}).op.raw = 1003;
    r.call(static_cast<std::size_t>(OpId::float_add), {f}, false);
    r.call(static_cast<std::size_t>(OpId::float_add), {f, f, f}, false);
    r.call(static_cast<std::size_t>(OpId::float_exp), {}, false);
    r.call(static_cast<std::size_t>(OpId::float_add), {f, raw_handle(1ull << 63)});
    r.call(static_cast<std::size_t>(OpId::float_neg), {small_handle(0)});
    r.call(kFloatFullCode, {f}, false);
    r.close();
    emit(T, "bad-op-codes-and-operands", r.c);
  }
  // NaN / infinite scalars, reversed bounds, dims beyond the rank, reversed and huge ranges.
  {
    Rpcs r = three_tensors();
    const double inf = std::numeric_limits<double>::infinity();
    r.call(static_cast<std::size_t>(OpId::float_add_scalar), {f}).scalars = {scalar_code(std::nan(""))};
    r.call(static_cast<std::size_t>(OpId::float_powf_scalar), {f}).scalars = {scalar_code(-inf)};
    r.call(static_cast<std::size_t>(OpId::float_clamp), {f}).scalars = {scalar_code(2.0), scalar_code(-inf)};
    r.call(static_cast<std::size_t>(OpId::float_sum_dim), {f}).dims = {7};
    r.call(static_cast<std::size_t>(OpId::float_swap_dims), {f}).dims = {0, 1ull << 40};
    r.call(static_cast<std::size_t>(OpId::float_permute), {f}).dims = {0, 0};
    r.call(static_cast<std::size_t>(OpId::float_slice), {f}).ranges = {{2, 1}, {0, 3}};
    r.call(static_cast<std::size_t>(OpId::float_slice), {f}).ranges = {{0, ~0ull}};
    r.call(static_cast<std::size_t>(OpId::float_select), {f, f}).dims = {0};
    r.call(static_cast<std::size_t>(OpId::float_cast), {f}).dtype = {rp::kDTypeCodes, 77};
    r.call(static_cast<std::size_t>(OpId::float_cast), {f}).dtype.code = static_cast<std::size_t>(DType::QInt8);
    r.call(static_cast<std::size_t>(OpId::float_reshape), {f}).shape = {1ull << 40, 1ull << 40};
    r.call(static_cast<std::size_t>(OpId::float_expand), {f}).shape = {1ull << 20, 2, 3};
    r.close();
    emit(T, "absurd-arguments", r.c);
  }
  // Absurd data: overflowing and huge shapes, zero dims, dtypes out of range, F16 / QInt8 / Bool
  // data, byte counts that do not match.
  {
    Rpcs r;
    r.open();
    r.data({1ull << 40, 1ull << 40}, DType::F32, {});
    r.data({1ull << 32, 0, 1ull << 40}, DType::F32, {});
    r.data({0}, DType::F64, {}, true);
    r.data({}, DType::F32, f32_bytes({1.5f}));
    r.data({2}, DType::F32, {1, 2, 3});
    r.data({2, 2}, DType::F16, {1, 2, 3, 4, 5, 6, 7, 8});
    r.data({2}, DType::QInt8, {1, 2});
    r.data({3}, DType::Bool, {0, 1, 2});
    r.data({2}, DType::F32, {}).dtype = {rp::kDTypeCodes, 77};
    r.data({1}, DType::I8, {}).dtype = {rp::kDTypeCodes, 0xffffffffu};
    r.data({256, 256}, DType::F32, {0, 0, 128, 63}, true);  // 256 KiB of 1.0f
    r.data({256, 256}, DType::F64, {0}, true);               // 512 KiB
    r.data({256, 256}, DType::F64, {0}, true);               // over --max-session-bytes
    r.into(recent(0));
    r.close();
    emit(T, "absurd-data", r.c);
  }
  // The limits of the fuzzer's Handler: sessions, tensors, session bytes, message bytes.
  {
    Rpcs r;
    for (int k = 0; k < 9; ++k) r.open();  // the ninth is over --max-sessions 8
    for (std::size_t k = 0; k < 8; ++k) r.close(k);
    emit(T, "limit-sessions", r.c);
  }
  {
    Rpcs r;
    r.open();
    r.data({2}, DType::F32, f32_bytes({1.0f, 2.0f}));
    for (int k = 0; k < 17; ++k) r.call(static_cast<std::size_t>(OpId::float_exp), {recent(0)});
    r.data({1}, DType::F32, f32_bytes({1.0f}));
    r.on(rp::Rpc::Free).frees = {recent(0), recent(1)};
    r.call(static_cast<std::size_t>(OpId::float_exp), {recent(0)});
    r.close();
    emit(T, "limit-tensors", r.c);
  }
  {
    Rpcs r;
    r.open();
    rp::Step &big = r.call(kFloatFullCode, {});
    big.shape = {512, 512};
    big.scalars = {scalar_code(1.0)};
    big.dtype.code = static_cast<std::size_t>(DType::F32);  // 1 MiB: the session's whole budget
    r.into(recent(0));                                      // over --max-message-bytes
    rp::Step &more = r.call(kFloatFullCode, {});
    more.shape = {1};
    more.scalars = {scalar_code(1.0)};
    rp::Step &huge = r.call(kFloatFullCode, {});
    huge.shape = {1ull << 40, 1ull << 40};
    huge.scalars = {scalar_code(1.0)};
    r.call(static_cast<std::size_t>(OpId::float_expand), {recent(0)}).shape = {4, 512, 512};
    r.close();
    emit(T, "limit-bytes", r.c);
  }
  // Wrong tokens change nothing; unknown, zero and stale sessions are lost.
  {
    Rpcs r;
    r.open();
    r.data({1}, DType::F32, f32_bytes({1.0f}));
    for (rp::Token t : {rp::Token::WrongByte, rp::Token::Empty, rp::Token::Prefix, rp::Token::Longer}) {
      r.add(rp::Rpc::OpenSession, t);
      rp::Step &c = r.add(rp::Rpc::CloseSession, t);
      c.session = {rp::SessionPick::Opened, 0, 0};
      rp::Step &fr = r.add(rp::Rpc::Free, t);
      fr.session = {rp::SessionPick::Opened, 0, 0};
      fr.frees = {recent(0)};
    }
    r.into(recent(0));
    r.close();
    emit(T, "wrong-tokens", r.c);
  }
  {
    Rpcs r;
    r.on(rp::Rpc::KeepAlive);  // no session opened yet: session 0
    rp::Step &k = r.add(rp::Rpc::KeepAlive);
    k.session = {rp::SessionPick::Raw, 0, 0x0123456789abcdefull};
    rp::Step &a = r.add(rp::Rpc::Attach);
    a.session = {rp::SessionPick::Zero, 0, 0};
    r.open();
    r.close();
    r.close();
    r.data({1}, DType::F32, f32_bytes({1.0f}));
    r.on(rp::Rpc::Call).op.code = 0;
    r.on(rp::Rpc::Attach);
    emit(T, "unknown-sessions", r.c);
  }
  // Another session's handle, frees of unknown handles and of the call's own operand,
  // client_gone and reap_expired.
  {
    Rpcs r;
    r.open();
    r.data({2}, DType::F32, f32_bytes({1.0f, 2.0f}));
    r.open();
    r.data({3}, DType::F32, f32_bytes({1.0f, 2.0f, 3.0f}), false, 1);
    r.into(recent(1), 1);  // session 0's tensor through session 1
    r.into(recent(0), 0);  // and the other way round
    rp::Step &own = r.call(static_cast<std::size_t>(OpId::float_neg), {recent(1)});
    own.frees = {recent(1)};  // freed before the op runs
    rp::Step &fr = r.on(rp::Rpc::Free, 1);
    fr.frees = {raw_handle(~0ull), small_handle(0), small_handle(1), small_handle(1), raw_handle(1ull << 32)};
    r.add(rp::Rpc::Reap);
    r.add(rp::Rpc::ClientGone).session = {rp::SessionPick::Opened, 1, 0};
    r.on(rp::Rpc::KeepAlive, 1);
    r.add(rp::Rpc::ClientGone).session = {rp::SessionPick::Raw, 0, 42};
    r.close(0);
    emit(T, "handles-across-sessions", r.c);
  }
  // Raw request bytes (protobuf wire format written out by hand), aimed at the live session or not.
  {
    Rpcs r = three_tensors();
    auto raw = [&](rp::Rpc as, bool aim, std::vector<std::uint8_t> bytes) {
      rp::Step &s = r.on(rp::Rpc::Raw);
      s.raw_as = as;
      s.aim = aim;
      s.bytes = std::move(bytes);
    };
    raw(rp::Rpc::Call, true, {0x10, 0x00, 0x1a, 0x02, 0x03, 0x03});          // op 0, operands [3, 3]
    raw(rp::Rpc::Call, true, {0x10, 0xe8, 0x07, 0x32, 0x01, 0x02, 0x21, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f});  // float_full [2] 1.0
    raw(rp::Rpc::FromData, true, {0x12, 0x0b, 0x0a, 0x01, 0x02, 0x10, 0x01, 0x1a, 0x04, 0, 0, 0x80, 0x3f});  // truncated data
    raw(rp::Rpc::IntoData, true, {0x10, 0x03});  // handle 3
    raw(rp::Rpc::Free, true, {0x12, 0x02, 0x01, 0x02});
    raw(rp::Rpc::KeepAlive, false, {0x08, 0x01});
    raw(rp::Rpc::Attach, false, {0xff, 0xff, 0xff});
    raw(rp::Rpc::OpenSession, false, {0x0a, 0x00});
    raw(rp::Rpc::CloseSession, true, {});
    emit(T, "raw-requests", r.c);
  }
}

std::vector<std::uint8_t> read(const fs::path &f) {
  std::ifstream in(f, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char **argv) {
  bool check = false;
  fs::path root;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--check")
      check = true;
    else if (a.rfind("-", 0) == 0 || !root.empty())
      root.clear(), i = argc;  // an unknown option or a second root: usage, never a new folder
    else
      root = a;
  }
  if (root.empty()) {
    std::fprintf(stderr, "usage: fuzz_seedgen [--check] CORPUS_ROOT\n");
    return 2;
  }
  tensor_data_seeds();
  grad_replace_seeds();
  ops_seeds();
  gradients_api_seeds();
  op_args_seeds();
  ctc_loss_seeds();
  deform_conv2d_seeds();
  remote_protocol_seeds();
  int stale = 0, written = 0;
  for (const auto &[target, files] : seeds) {
    const fs::path dir = root / target;
    if (!check) fs::create_directories(dir);
    if (fs::is_directory(dir)) {
      for (const auto &e : fs::directory_iterator(dir)) {
        const std::string n = e.path().filename().string();
        if (n.rfind("seed-", 0) == 0 && !files.count(n)) {
          ++stale;
          if (check)
            std::printf("stale seed (not generated any more): %s\n", e.path().string().c_str());
          else
            fs::remove(e.path());
        }
      }
    }
    for (const auto &[name, bytes] : files) {
      const fs::path f = dir / name;
      if (check) {
        if (!fs::exists(f) || read(f) != bytes) {
          std::printf("seed missing or out of date: %s (run fuzz_seedgen %s)\n", f.string().c_str(),
                      root.string().c_str());
          ++errors;
        }
      } else {
        std::ofstream(f, std::ios::binary)
            .write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        ++written;
      }
    }
    std::printf("%s: %zu seeds\n", target.c_str(), files.size());
  }
  if (check && stale) ++errors;
  if (!check) std::printf("wrote %d seeds, removed %d stale\n", written, stale);
  return errors ? 1 : 0;
}
