// Int and bool results of tracked ops never carry a graph (issue 11 item 5; Note [The op registry]
// in ops/op_list.hpp, Rule None and Leaf). The framework crossgrad mirrors had a bug here: an int
// or bool result of a tracked op, converted back to float, silently re-entered the graph.
//
// v (and w) are tracked leaves; b = greater / lower / equal (v, w), greater_scalar (v, s) or
// a = argmax (v, dim). Then:
//   - b / a is exactly Autodiff(<Backend>(Bool|Int(...))) (rendered as the oracle writes it), with
//     the mask / indices computed here from the input values (first maximum, first NaN wins);
//   - f = bool_into_float / int_into_float (b or a, dtype) is a fresh tracked leaf holding them;
//   - root = sum(v * f + f): backward gives exactly two entries, v and f: grad(v) = f (the mask
//     or index is a constant) and grad(f) = v + 1 (summed over the reduced dim for argmax), both
//     computed here in double from the inputs. Nothing upstream of the comparison (w) appears.
// And the plain path: B(Bool|Int(...)) results, plain B(Float(...)) conversions, same values.
#include "gen/specs.hpp"
#include "support/op_call.hpp"
#include "support/prop.hpp"

#include <crossgrad/crossgrad.hpp>
#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/render.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace crossgrad;
using namespace crossgrad::properties;
namespace og = crossgrad::oracle;

namespace {

enum class Producer { Greater, Lower, Equal, GreaterScalar, Argmax };

const char* producer_name(Producer p) {
  switch (p) {
    case Producer::Greater: return "float_greater";
    case Producer::Lower: return "float_lower";
    case Producer::Equal: return "float_equal";
    case Producer::GreaterScalar: return "float_greater_scalar";
    case Producer::Argmax: return "float_argmax";
  }
  return "?";
}

// Quarter steps in [-2, 2] (many ties, so equal / first-maximum rules matter; sums of up to
// gen::kMaxElements of them are exact in F32, so the argmax case's grad(f) is exact in any
// summation order) and ±0, ±inf, NaN. Comparisons also get arbitrary floats (their grad(f) is
// one rounding of v + 1).
rc::Gen<double> value(bool arbitrary) {
  return rc::gen::weightedOneOf<double>(
      {{8, rc::gen::map(rc::gen::inRange(-8, 9), [](int i) { return i / 4.0; })},
       {3, rc::gen::elementOf(std::vector<double>{0.0, -0.0, INFINITY, -INFINITY, NAN})},
       {arbitrary ? 2u : 0u, rc::gen::map(rc::gen::arbitrary<float>(), [](float f) { return static_cast<double>(f); })}});
}

double in_dtype(double v, DType d) { return d == DType::F32 ? static_cast<double>(static_cast<float>(v)) : v; }

std::vector<double> gen_values(std::size_t n, DType d, bool arbitrary) {
  std::vector<double> v = *rc::gen::container<std::vector<double>>(n, value(arbitrary));
  for (double& x : v) x = in_dtype(x, d);
  return v;
}

std::size_t count(const std::vector<std::size_t>& shape) {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

std::vector<std::size_t> strides_of(const std::vector<std::size_t>& shape) {
  std::vector<std::size_t> s(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

// The flat index into `small` (aligned from the right, size-1 dims broadcast) of element `flat`
// of `big`.
std::size_t broadcast_index(std::size_t flat, const std::vector<std::size_t>& big, const std::vector<std::size_t>& small) {
  const auto bs = strides_of(big), ss = strides_of(small);
  const std::size_t lead = big.size() - small.size();
  std::size_t out = 0;
  for (std::size_t i = 0; i < big.size(); ++i) {
    const std::size_t coord = (flat / bs[i]) % big[i];
    if (i >= lead && small[i - lead] != 1) out += coord * ss[i - lead];
  }
  return out;
}

const og::BackendRef& backend_ref(std::size_t index) {
  for (const og::BackendRef& b : og::all_backends())
    if (b.index == index) return b;
  RC_FAIL("backend index not in the registry");
}

DispatchTensor floats(std::size_t backend, bool tracked, const std::vector<double>& v, const std::vector<std::size_t>& shape, DType d) {
  const DispatchDevice device = og::dispatch_device(backend, backend_ref(backend).default_device, tracked);
  if (d == DType::F32) {
    return Dispatch::float_from_data(TensorData::from_f32(std::vector<float>(v.begin(), v.end()), Shape(shape)), device);
  }
  return Dispatch::float_from_data(TensorData::from_f64(v, Shape(shape)), device);
}

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

std::string show(const std::vector<double>& v) {
  std::ostringstream os;
  os.precision(17);
  os << "[";
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  return os.str() + "]";
}

void require_values(const std::string& what, const std::vector<double>& got, const std::vector<double>& want) {
  bool ok = got.size() == want.size();
  for (std::size_t i = 0; ok && i < got.size(); ++i) ok = same(got[i], want[i]);
  if (!ok) RC_FAIL(what + ": got " + show(got) + ", expected " + show(want));
}

void require_eq(const std::string& what, const std::string& got, const std::string& want) {
  if (got != want) RC_FAIL(what + ":\n  got      " + got + "\n  expected " + want);
}

// One scenario: the inputs and what the producer must give, all computed here.
struct Scenario {
  Producer producer = Producer::Greater;
  std::size_t backend = 0;
  DType dtype = DType::F32;
  std::vector<std::size_t> v_shape;
  std::vector<double> v;
  std::vector<std::size_t> w_shape;  // comparisons with a tensor
  std::vector<double> w;
  double scalar = 0;                 // greater_scalar
  std::size_t dim = 0;               // argmax
  std::vector<std::size_t> out_shape;
  std::vector<double> expected;      // mask (0/1) or argmax indices, as doubles
};

// Burn's max scan (docs/OPS.md): the first NaN, else the first of the equal maxima.
std::vector<double> expected_argmax(const std::vector<double>& v, const std::vector<std::size_t>& shape, std::size_t dim) {
  const auto st = strides_of(shape);
  std::vector<std::size_t> out_shape = shape;
  out_shape[dim] = 1;
  std::vector<double> out;
  const auto ost = strides_of(out_shape);
  for (std::size_t o = 0; o < count(out_shape); ++o) {
    std::size_t base = 0;
    for (std::size_t i = 0; i < shape.size(); ++i) base += ((o / ost[i]) % out_shape[i]) * st[i];
    std::size_t best = 0;
    for (std::size_t i = 1; i < shape[dim]; ++i) {
      const double b = v[base + best * st[dim]], x = v[base + i * st[dim]];
      if (!std::isnan(b) && (std::isnan(x) || x > b)) best = i;
    }
    out.push_back(static_cast<double>(best));
  }
  return out;
}

Scenario gen_scenario() {
  Scenario s;
  s.producer = *rc::gen::elementOf(std::vector<Producer>{Producer::Greater, Producer::Lower, Producer::Equal,
                                                         Producer::GreaterScalar, Producer::Argmax});
  s.backend = *gen::backend();
  s.dtype = *rc::gen::elementOf(std::vector<DType>{DType::F32, DType::F64});
  const bool argmax = s.producer == Producer::Argmax;
  if (argmax) {
    s.v_shape = *rc::gen::suchThat(gen::shape(3, true), [](const std::vector<std::size_t>& sh) {
      for (std::size_t d : sh)
        if (d > 0) return true;
      return false;
    });
    std::vector<std::size_t> dims;
    for (std::size_t i = 0; i < s.v_shape.size(); ++i)
      if (s.v_shape[i] > 0) dims.push_back(i);
    s.dim = *rc::gen::elementOf(dims);
  } else {
    s.v_shape = *gen::shape(3, true);
  }
  s.v = gen_values(count(s.v_shape), s.dtype, !argmax);
  switch (s.producer) {
    case Producer::Greater:
    case Producer::Lower:
    case Producer::Equal: {
      // w broadcasts into v's shape: leading dims dropped, some dims set to 1.
      const std::size_t drop = *rc::gen::inRange<std::size_t>(0, s.v_shape.size() + 1);
      for (std::size_t i = drop; i < s.v_shape.size(); ++i) s.w_shape.push_back(*rc::gen::arbitrary<bool>() ? 1 : s.v_shape[i]);
      s.w = gen_values(count(s.w_shape), s.dtype, true);
      s.out_shape = s.v_shape;
      for (std::size_t i = 0; i < s.v.size(); ++i) {
        const double a = s.v[i], b = s.w[broadcast_index(i, s.v_shape, s.w_shape)];
        const bool m = s.producer == Producer::Greater ? a > b : s.producer == Producer::Lower ? a < b : a == b;
        s.expected.push_back(m ? 1.0 : 0.0);
      }
      break;
    }
    case Producer::GreaterScalar:
      s.scalar = in_dtype(*value(true), s.dtype);
      s.out_shape = s.v_shape;
      for (double a : s.v) s.expected.push_back(a > s.scalar ? 1.0 : 0.0);
      break;
    case Producer::Argmax:
      s.out_shape = s.v_shape;
      s.out_shape[s.dim] = 1;
      s.expected = expected_argmax(s.v, s.v_shape, s.dim);
      break;
  }
  return s;
}

std::string describe(const Scenario& s) {
  std::ostringstream os;
  os << producer_name(s.producer) << " on " << backend_ref(s.backend).name << " " << og::render_dtype(s.dtype)
     << " v" << og::render_shape(s.v_shape) << "=" << show(s.v);
  if (!s.w_shape.empty() || s.producer == Producer::Greater || s.producer == Producer::Lower || s.producer == Producer::Equal)
    os << " w" << og::render_shape(s.w_shape) << "=" << show(s.w);
  if (s.producer == Producer::GreaterScalar) os << " s=" << s.scalar;
  if (s.producer == Producer::Argmax) os << " dim=" << s.dim;
  return os.str();
}

bool int_result(const Scenario& s) { return s.producer == Producer::Argmax; }

// b / a from v (and w).
DispatchTensor produce(const Scenario& s, const DispatchTensor& v, const std::optional<DispatchTensor>& w) {
  switch (s.producer) {
    case Producer::Greater: return Dispatch::float_greater(v, *w);
    case Producer::Lower: return Dispatch::float_lower(v, *w);
    case Producer::Equal: return Dispatch::float_equal(v, *w);
    case Producer::GreaterScalar: return Dispatch::float_greater_scalar(v, s.scalar);
    case Producer::Argmax: return Dispatch::float_argmax(v, s.dim);
  }
  RC_FAIL("unknown producer");
}

std::vector<double> read_result(const Scenario& s, const DispatchTensor& r) {
  std::vector<double> out;
  if (int_result(s)) {
    const TensorData d = Dispatch::int_into_data(r);
    RC_ASSERT(d.dtype() == DType::I64);
    for (std::int64_t x : d.to_i64()) out.push_back(static_cast<double>(x));
  } else {
    const TensorData d = Dispatch::bool_into_data(r);
    RC_ASSERT(d.dtype() == DType::Bool);
    for (bool x : d.to_bool()) out.push_back(x ? 1.0 : 0.0);
  }
  return out;
}

DispatchTensor into_float(const Scenario& s, const DispatchTensor& r, DType dtype) {
  return int_result(s) ? Dispatch::int_into_float(r, dtype) : Dispatch::bool_into_float(r, dtype);
}

// What the producer's result renders as: depth 1 (tracked) or 0, Int(I64) or Bool(Bool), no node.
std::string expected_rendering(const Scenario& s, bool tracked) {
  const PrimitiveKind p = int_result(s) ? PrimitiveKind::Int : PrimitiveKind::Bool;
  const DType d = int_result(s) ? DType::I64 : DType::Bool;
  return og::render_kind(og::KindSpec{tracked ? 1u : 0u, og::tensor_on(s.backend, p, s.out_shape, d)}, std::nullopt);
}

}  // namespace

CG_PROP(IntBoolResults, TrackedResultsNeverCarryAGraph, 300, ()) {
  const Scenario s = gen_scenario();
  RC_TAG(std::string(producer_name(s.producer)));
  const std::string where = describe(s);

  const DispatchTensor v = floats(s.backend, true, s.v, s.v_shape, s.dtype);
  std::optional<DispatchTensor> w;
  if (s.producer == Producer::Greater || s.producer == Producer::Lower || s.producer == Producer::Equal)
    w = floats(s.backend, true, s.w, s.w_shape, s.dtype);

  const DispatchTensor r = produce(s, v, w);
  require_eq(where + "\nresult kind", debug(r.kind), expected_rendering(s, true));
  if (!r.checkpointing) RC_FAIL(where + "\na tracked result without a checkpointing strategy");
  require_values(where + "\nresult values", read_result(s, r), s.expected);

  const DispatchTensor f = into_float(s, r, s.dtype);
  const std::optional<std::uint64_t> f_id = og::node_of(f.kind);
  if (!f_id) RC_FAIL(where + "\nthe conversion is not a tracked float: " + debug(f.kind));
  require_eq(where + "\nconversion kind", debug(f.kind),
             og::render_kind(og::KindSpec{1, og::tensor_on(s.backend, PrimitiveKind::Autodiff, s.out_shape, s.dtype)}, f_id));
  const std::uint64_t v_id = *og::node_of(v.kind);
  if (*f_id == v_id) RC_FAIL(where + "\nthe conversion reuses v's node id");
  if (w && *f_id == *og::node_of(w->kind)) RC_FAIL(where + "\nthe conversion reuses w's node id");
  require_values(where + "\nconverted values", Dispatch::float_into_data(f).to_f64(), s.expected);

  const DispatchTensor root = Dispatch::float_sum(Dispatch::float_add(Dispatch::float_mul(v, f), f));
  const Gradients grads = Dispatch::backward(root);
  if (w && grads.contains(NodeId{*og::node_of(w->kind)}))
    RC_FAIL(where + "\nw, upstream of the comparison, got a gradient: the result carried its graph");
  if (grads.size() != 2) RC_FAIL(where + "\nexpected 2 gradient entries (v and f), got " + std::to_string(grads.size()));

  // grad(v) = f broadcast to v's shape (the mask or index is a constant).
  std::vector<double> want_gv;
  for (std::size_t i = 0; i < s.v.size(); ++i) want_gv.push_back(s.expected[broadcast_index(i, s.v_shape, s.out_shape)]);
  const std::optional<DispatchTensor> gv = Dispatch::grad(v, grads);
  if (!gv) RC_FAIL(where + "\nno gradient for v");
  require_values(where + "\ngrad(v)", Dispatch::float_into_data(*gv).to_f64(), want_gv);

  // grad(f) = v + 1, summed over the elements of v that each element of f was broadcast to.
  std::vector<double> want_gf(count(s.out_shape), 0.0);
  std::vector<double> ones(count(s.out_shape), 0.0);
  for (std::size_t i = 0; i < s.v.size(); ++i) {
    const std::size_t j = broadcast_index(i, s.v_shape, s.out_shape);
    want_gf[j] += s.v[i];
    ones[j] += 1.0;
  }
  for (std::size_t j = 0; j < want_gf.size(); ++j) want_gf[j] = in_dtype(in_dtype(want_gf[j], s.dtype) + ones[j], s.dtype);
  const std::optional<DispatchTensor> gf = Dispatch::grad(f, grads);
  if (!gf) RC_FAIL(where + "\nno gradient for f");
  require_values(where + "\ngrad(f)", Dispatch::float_into_data(*gf).to_f64(), want_gf);
}

CG_PROP(IntBoolResults, PlainResultsArePlainPrimitives, 200, ()) {
  const Scenario s = gen_scenario();
  RC_TAG(std::string(producer_name(s.producer)));
  const std::string where = describe(s);

  const DispatchTensor v = floats(s.backend, false, s.v, s.v_shape, s.dtype);
  std::optional<DispatchTensor> w;
  if (s.producer == Producer::Greater || s.producer == Producer::Lower || s.producer == Producer::Equal)
    w = floats(s.backend, false, s.w, s.w_shape, s.dtype);

  const DispatchTensor r = produce(s, v, w);
  require_eq(where + "\nresult kind", debug(r.kind), expected_rendering(s, false));
  if (r.checkpointing) RC_FAIL(where + "\na plain result with a checkpointing strategy");
  require_values(where + "\nresult values", read_result(s, r), s.expected);

  const DType target = *rc::gen::elementOf(std::vector<DType>{DType::F32, DType::F64});
  const DispatchTensor f = into_float(s, r, target);
  require_eq(where + "\nconversion kind", debug(f.kind),
             og::render_kind(og::KindSpec{0, og::tensor_on(s.backend, PrimitiveKind::Float, s.out_shape, target)}, std::nullopt));
  if (f.checkpointing) RC_FAIL(where + "\na plain conversion with a checkpointing strategy");
  require_values(where + "\nconverted values", Dispatch::float_into_data(f).to_f64(), s.expected);
}

// The int and bool ops (every registry op with an int or bool receiver and Rule None, so a new one
// is covered with no edit here) on an autodiff device: r = argmax(v) (Int) or greater_scalar(v, 0)
// (Bool) of a tracked leaf v; y = op(r[, second]) with the second operand derived from r (ones for
// the int ops: no zero divisor; not(r) for the bool ops), scalar 2, target I32. y must be
// Autodiff(B(Int|Bool(...))) with no node; f = into_float(y) a fresh leaf; backward from
// sum(v * f + f) gives v and f their gradients and nothing else: the op neither carried v's graph
// nor made a node of its own.
CG_PROP(IntBoolResults, IntAndBoolOpsStayOffTheGraph, 200, ()) {
  std::vector<OpId> ops;
  for (const OpInfo& info : kOps) {
    if (info.operand != OpKind::Float && info.rule == OpRule::None) ops.push_back(info.id);
  }
  const OpInfo& op = op_info(*rc::gen::elementOf(ops));
  RC_TAG(std::string(op.name));
  const std::size_t backend = *gen::backend();
  const DType dtype = *rc::gen::elementOf(std::vector<DType>{DType::F32, DType::F64});
  // No empty dim: the reductions of nothing (mean, max, min) are panics, not results.
  const std::vector<std::size_t> shape = *rc::gen::suchThat(gen::shape(3, true), [](const std::vector<std::size_t>& sh) {
    return !sh.empty() && std::find(sh.begin(), sh.end(), 0) == sh.end();
  });
  const std::vector<double> values = gen_values(count(shape), dtype, true);
  const std::string where = std::string(op.name) + " on " + backend_ref(backend).name + " " + og::render_dtype(dtype) + " v" +
                            og::render_shape(shape) + "=" + show(values);

  const DispatchTensor v = floats(backend, true, values, shape, dtype);
  const bool ints = op.operand == OpKind::Int;
  const DispatchTensor r = ints ? Dispatch::float_argmax(v, shape.size() - 1) : Dispatch::float_greater_scalar(v, 0.0);
  const DispatchTensor second = ints ? Dispatch::int_add_scalar(Dispatch::int_mul_scalar(r, 0), 1) : Dispatch::bool_not(r);
  og::OpArgs args;
  args.scalar = 2;
  args.dtype = DType::I32;  // int_cast's and bool_into_int's target
  args.k = 1;               // topk's k: r has no empty dim, so one element of each lane
  std::vector<DispatchTensor> operands{r};
  if (op.sig == OpSig::Binary) operands.push_back(second);
  std::vector<std::size_t> r_shape = shape;
  if (ints) r_shape.back() = 1;
  // The layout ops with arguments that keep every element: r's own shape (reshape, expand), the
  // identity permutation, dim 0 flipped or repeated once, windows of 1, the whole range, every
  // index in order, r alone concatenated (cat), second written over r (slice_assign) or where a
  // mask of trues picks it (mask_where), position 0 along dim 0 (gather), every row (gather_nd).
  args.shape = r_shape;
  for (std::size_t d = 0; d < r_shape.size(); ++d) args.axes.push_back(d);
  if (moves_elements(op.id) || takes_index_tensor(op.sig) || takes_mask(op.sig)) {
    if (op_stem(op.id) == "flip") args.axes = {0};
    args.times = 1;
    args.size = 1;
    args.step = 1;
    if (op.sig == OpSig::RangesAssign) operands.push_back(second);
    const DispatchDevice device = Dispatch::float_device(v);
    std::vector<std::int64_t> rows(r_shape[0]);
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::int64_t>(i);
    if (op.sig == OpSig::Select) operands.push_back(Dispatch::int_from_data(TensorData::from_i64(rows, Shape{rows.size()}), device));
    if (op.sig == OpSig::GatherNd) operands.push_back(Dispatch::int_from_data(TensorData::from_i64(rows, Shape{rows.size(), 1}), device));
    if (op.sig == OpSig::Gather) {  // every element from position 0 along dim 0
      operands.push_back(Dispatch::int_from_data(TensorData::from_i64(std::vector<std::int64_t>(count(r_shape), 0), Shape(r_shape)), device));
    }
    // The index updates: every row along dim 0 once (select_add / select_or), every element to
    // position 0 along dim 0 (scatter), every row (scatter_nd), all true (mask_fill); second as the
    // values, of r's shape each time.
    if (op.sig == OpSig::SelectAssign) operands.push_back(Dispatch::int_from_data(TensorData::from_i64(rows, Shape{rows.size()}), device));
    if (op.sig == OpSig::ScatterNd) operands.push_back(Dispatch::int_from_data(TensorData::from_i64(rows, Shape{rows.size(), 1}), device));
    if (op.sig == OpSig::Scatter || op.sig == OpSig::ScatterUpdate) {
      operands.push_back(Dispatch::int_from_data(TensorData::from_i64(std::vector<std::int64_t>(count(r_shape), 0), Shape(r_shape)), device));
    }
    if (op.sig == OpSig::SelectAssign || op.sig == OpSig::Scatter || op.sig == OpSig::ScatterUpdate || op.sig == OpSig::ScatterNd) {
      operands.push_back(second);
    }
    if (op.sig == OpSig::MaskFill) {
      operands.push_back(Dispatch::bool_from_data(TensorData::from_bool(std::vector<bool>(count(r_shape), true), Shape(r_shape)), device));
    }
    if (op.sig == OpSig::MaskWhere || op.sig == OpSig::MaskSelect) {  // mask_where takes second where true
      operands.push_back(Dispatch::bool_from_data(TensorData::from_bool(std::vector<bool>(count(r_shape), true), Shape(r_shape)), device));
      if (op.sig == OpSig::MaskWhere) operands.push_back(second);
    }
  }
  if (op.id == OpId::int_matmul) {  // r as a column [n, 1] times the 1 x 1 matrix [max(ones)]: r again
    const std::size_t n = count(r_shape);
    operands = {Dispatch::int_reshape(r, Shape{n, 1}), Dispatch::int_reshape(Dispatch::int_max(second), Shape{1, 1})};
  }
  const DispatchTensor y = call_op(op.id, operands, args);

  // The result's shape as the engine gives it (ReferenceOps judges it): this property is about
  // where the result lives and what it is connected to.
  const TensorData y_data = op.result == OpKind::Int ? Dispatch::int_into_data(y) : Dispatch::bool_into_data(y);
  const std::vector<std::size_t> y_shape = y_data.shape().dims();
  const PrimitiveKind p = op.result == OpKind::Int ? PrimitiveKind::Int : PrimitiveKind::Bool;
  const DType y_dtype = op.result == OpKind::Bool ? DType::Bool : op.sig == OpSig::ToDType ? DType::I32 : DType::I64;
  require_eq(where + "\nresult kind", debug(y.kind), og::render_kind(og::KindSpec{1, og::tensor_on(backend, p, y_shape, y_dtype)}, std::nullopt));
  if (!y.checkpointing) RC_FAIL(where + "\na tracked result without a checkpointing strategy");

  const DispatchTensor f = op.result == OpKind::Int ? Dispatch::int_into_float(y, dtype) : Dispatch::bool_into_float(y, dtype);
  const std::optional<std::uint64_t> f_id = og::node_of(f.kind);
  if (!f_id || *f_id == *og::node_of(v.kind)) RC_FAIL(where + "\nthe conversion is not a fresh tracked leaf: " + debug(f.kind));
  // A layout op's result (transpose, unfold, cat), an index update's and int_matmul's column seen in
  // r's order and shape when it has r's element count, so that it broadcasts against v as r does;
  // argwhere's [n, rank] coordinates, of no shape related to v's, as their sum.
  const bool keeps_count = moves_elements(op.id) || takes_index_tensor(op.sig) || takes_mask(op.sig) || op.id == OpId::int_matmul;
  const bool summed = op.id == OpId::bool_argwhere;
  const std::vector<std::size_t> g_shape = summed                                             ? std::vector<std::size_t>{1}
                                           : keeps_count && count(y_shape) == count(r_shape) ? r_shape
                                                                                             : y_shape;
  const DispatchTensor fg = summed ? Dispatch::float_sum(f) : g_shape == y_shape ? f : Dispatch::float_reshape(f, Shape(g_shape));
  const std::vector<double> f_values = Dispatch::float_into_data(fg).to_f64();

  const Gradients grads = Dispatch::backward(Dispatch::float_sum(Dispatch::float_add(Dispatch::float_mul(v, fg), fg)));
  if (grads.size() != 2) RC_FAIL(where + "\nexpected 2 gradient entries (v and f), got " + std::to_string(grads.size()));
  std::vector<double> want_gv;
  for (std::size_t i = 0; i < values.size(); ++i) want_gv.push_back(f_values.at(broadcast_index(i, shape, g_shape)));  // at(): a result of another size fails, never reads past it
  const std::optional<DispatchTensor> gv = Dispatch::grad(v, grads);
  if (!gv) RC_FAIL(where + "\nno gradient for v");
  require_values(where + "\ngrad(v)", Dispatch::float_into_data(*gv).to_f64(), want_gv);
  if (!Dispatch::grad(f, grads)) RC_FAIL(where + "\nno gradient for f");
}
