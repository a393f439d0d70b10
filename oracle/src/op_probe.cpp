#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <crossgrad/core/panic.hpp>
#include <crossgrad/dispatch/dispatch.hpp>
#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/message_pattern.hpp>
#include <crossgrad/oracle/op_probe.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/render.hpp>
#include <sstream>

namespace crossgrad::oracle {
namespace {

bool is_tracked(const KindSpec &k) { return k.autodiff_depth == 1; }

// The decoder picks any op code for any probe kind; the registry says which op a probe of that kind
// runs: Binary probes run float -> float ops of the Binary signature (others run float_add), Unary
// probes float -> float ops of the Unary, Scalar and Bounds signatures (others run float_neg).
bool float_to_float(Op op) {
  return is_op_code(op) && op_info(op).operand == OpKind::Float && op_info(op).result == OpKind::Float;
}
Op binary_op(Op op) {
  return float_to_float(op) && op_info(op).sig == OpSig::Binary ? op : Op::float_add;
}
Op unary_op(Op op) {
  if (!float_to_float(op)) return Op::float_neg;
  const OpSig sig = op_info(op).sig;
  return sig == OpSig::Unary || sig == OpSig::Scalar || sig == OpSig::Bounds ? op : Op::float_neg;
}
// The Dispatch name of the op a Binary or Unary probe runs.
std::string dispatch_name(Op op) { return std::string(op_name(op)); }
[[noreturn]] void bad_kind(const char *where) {
  throw std::logic_error(std::string(where) + ": OpProbe::Kind::kCount is not a probe kind");
}

DispatchDevice device_for(std::size_t backend, bool tracked, bool nested) {
  std::optional<DispatchDevice> d;
  if (!with_backend_at(backend, [&]<class B>() { d = DispatchDevice::of<B>(B::default_device()); })) {
    throw std::logic_error("oracle: an op probe names backend " + std::to_string(backend) + ", which is not built here");
  }
  DispatchDevice out = *d;
  if (nested) out = DispatchDevice::Autodiff(std::move(out));
  if (tracked || nested) out = DispatchDevice::Autodiff(std::move(out));
  return out;
}
std::string render_device_of(std::size_t backend, bool tracked, bool nested) {
  std::string s =
      all_backends().at(backend).name + "(" + render_device(all_backends().at(backend).default_device) + ")";
  if (nested) s = "Autodiff(" + s + ")";
  if (tracked || nested) s = "Autodiff(" + s + ")";
  return s;
}

DispatchTensor run(const OpProbe &p, const DispatchTensor &a, const DispatchTensor &b) {
  using K = OpProbe::Kind;
  switch (p.kind) {
    case K::Binary: {
      // Through apply_op, the graphs' one mapping from Op to Dispatch call.
      const OpSpec op{binary_op(p.op), 0, 1, 1.0, 0, 0};
      return apply_op(op, a, b);
    }
    case K::Unary: {
      const Op op = unary_op(p.op);
      const double scalar = op == Op::float_powf_scalar ? 2.0 : op == Op::float_add_scalar ? 1.5 : -2.0;
      return apply_op(OpSpec{op, 0, 0, scalar, 0, 0}, a, a);
    }
    case K::SumDim:
      return Dispatch::float_sum_dim(a, p.dim);
    case K::MeanDim:
      return Dispatch::float_mean_dim(a, p.dim);
    case K::Reshape:
      return Dispatch::float_reshape(a, Shape(p.to_shape));
    case K::SwapDims:
      return Dispatch::float_swap_dims(a, p.dim, p.dim1);
    case K::ToDevice:
      return Dispatch::float_to_device(a, device_for(p.target_backend, p.target_tracked, p.target_nested));
    case K::Cast:
      return Dispatch::float_cast(a, p.dtype);
    case K::Quantize:
      return Dispatch::dequantize(Dispatch::quantize(a));
    case K::kCount:
      break;
  }
  bad_kind("run");
}

std::string op_name_of(const OpProbe &p) {
  using K = OpProbe::Kind;
  switch (p.kind) {
    case K::Binary:
      return dispatch_name(binary_op(p.op));
    case K::Unary:
      return dispatch_name(unary_op(p.op));
    case K::SumDim:
      return "float_sum_dim";
    case K::MeanDim:
      return "float_mean_dim";
    case K::Reshape:
      return "float_reshape";
    case K::SwapDims:
      return "float_swap_dims";
    case K::ToDevice:
      return "float_to_device";
    case K::Cast:
      return "float_cast";
    case K::Quantize:
      return "quantize";
    case K::kCount:
      break;
  }
  bad_kind("op_name_of");
}

std::string regex_escape(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// quantize-scale-overflow names max |x| in shortest round-trip scientific form ("1e+41").
std::string quantize_scale_overflow_message(double max_abs) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, max_abs, std::chars_format::scientific);
  return "quantize needs values of magnitude at most 127 * f32::MAX (about 4.32e40) so that its F32 scale is finite, "
         "got max |x| = " + std::string(buf, r.ptr) + ".";
}

std::vector<ProbeFault> faults_of(const OpProbe &p, const DispatchTensor &a, const DispatchTensor &b) {
  using K = OpProbe::Kind;
  std::vector<ProbeFault> f;
  const std::string op = op_name_of(p);
  const KindSpec &ka = p.lhs.kind;
  const KindSpec &kb = p.rhs.kind;
  // Rendered only where a fault names them: most probes expect none.
  const auto ra = [&] { return render_kind(ka, node_of(a.kind)); };
  const auto rb = [&] { return render_kind(kb, node_of(b.kind)); };
  const auto &sa = ka.leaf.shape;
  const auto &sb = kb.leaf.shape;
  if (!is_float_view(ka)) f.push_back({"op-kind-mismatch", op + " needs a tensor of kind Float, got " + ra() + "."});
  switch (p.kind) {
    case K::Binary: {
      if (!is_float_view(kb)) f.push_back({"op-kind-mismatch", op + " needs a tensor of kind Float, got " + rb() + "."});
      if (!f.empty()) return f;
      if (ka.leaf.backend != kb.leaf.backend || is_tracked(ka) != is_tracked(kb)) {
        f.push_back({"op-backend-mismatch", op + " needs operands on one backend, got " + ra() + " and " + rb() + "."});
        return f;
      }
      if (ka.leaf.dtype != kb.leaf.dtype) {
        f.push_back({"dtype-mismatch", op + " needs operands of one dtype, got " + render_dtype(ka.leaf.dtype) +
                                           " and " + render_dtype(kb.leaf.dtype) + "."});
      }
      if (binary_op(p.op) == Op::float_matmul) {
        if (sa.size() < 2 || sb.size() < 2) {
          f.push_back({"matmul-rank", op + " needs tensors of rank 2 or more, got shapes " + render_shape(sa) +
                                          " and " + render_shape(sb) + "."});
        } else {
          if (sa[sa.size() - 1] != sb[sb.size() - 2]) {
            f.push_back({"matmul-inner-dim", op + " needs the inner dims to agree, got shapes " +
                                                 render_shape(sa) + " and " + render_shape(sb) + "."});
          }
          const std::vector<std::size_t> ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
          // Whether the message names the batch shapes or the whole shapes is the engine's choice.
          if (!broadcast_shape(ba, bb)) {
            f.push_back({"broadcast-mismatch", std::nullopt,
                         "float_matmul cannot broadcast shapes (" + regex_escape(render_shape(ba)) + "|" +
                             regex_escape(render_shape(sa)) + ") and (" + regex_escape(render_shape(bb)) + "|" +
                             regex_escape(render_shape(sb)) + ")\\."});
          }
        }
      } else if (!broadcast_shape(sa, sb)) {
        f.push_back({"broadcast-mismatch",
                     op + " cannot broadcast shapes " + render_shape(sa) + " and " + render_shape(sb) + "."});
      }
      return f;
    }
    case K::SumDim:
    case K::MeanDim:
      if (f.empty() && p.dim >= sa.size()) {
        f.push_back({"dim-out-of-range", op + " got dim " + std::to_string(p.dim) + " for a tensor of rank " +
                                             std::to_string(sa.size()) + "."});
      }
      return f;
    case K::SwapDims:
      if (f.empty()) {
        for (std::size_t d : {p.dim, p.dim1}) {
          if (d >= sa.size()) {
            f.push_back({"dim-out-of-range", op + " got dim " + std::to_string(d) + " for a tensor of rank " +
                                                 std::to_string(sa.size()) + "."});
          }
        }
      }
      return f;
    case K::Reshape:
      if (f.empty() && element_count(sa) != element_count(p.to_shape)) {
        f.push_back({"reshape-mismatch", "float_reshape cannot turn shape " + render_shape(sa) + " into " +
                                             render_shape(p.to_shape) + ": element counts differ."});
      }
      return f;
    case K::ToDevice: {
      if (!f.empty()) return f;
      const bool device_tracked = p.target_tracked || p.target_nested;
      if (is_tracked(ka) != device_tracked) {
        f.push_back({"device-kind-mismatch", std::string("float_to_device needs a device of the tensor's kind, got ") +
                                                 (is_tracked(ka) ? "an autodiff" : "a plain") + " tensor and device " +
                                                 render_device_of(p.target_backend, p.target_tracked, p.target_nested) +
                                                 "."});
        return f;
      }
      if (p.target_nested) {
        f.push_back({"autodiff-wraps-autodiff", std::string(text::autodiff_wraps_autodiff)});
      }
      // A tracked tensor moves to another backend's autodiff device too, keeping the graph
      // (CONTRACT section 7): no fault, checked on success below.
      return f;
    }
    case K::Cast:
      // The dtype is pinned; what the message says is "not supported by" is the backend's wording.
      if (f.empty() && p.dtype != DType::F32 && p.dtype != DType::F64) {
        f.push_back({"unsupported-dtype", std::nullopt, "DType " + render_dtype(p.dtype) + " is not supported by [^.]+\\."});
      }
      return f;
    case K::Quantize:
      if (f.empty()) {
        // An F32 leaf holds its values rounded to F32: beyond FLT_MAX they are infinite.
        double max_abs = 0;
        bool non_finite = false;
        for (double v : effective_values(ka.leaf)) {
          const double stored = ka.leaf.dtype == DType::F32 ? static_cast<double>(static_cast<float>(v)) : v;
          non_finite = non_finite || !std::isfinite(stored);
          max_abs = std::fmax(max_abs, std::fabs(stored));
        }
        if (non_finite) {
          // Which non-finite value is named depends on the backend's scan order.
          f.push_back({"quantize-non-finite", std::nullopt, "quantize needs finite values, got (-?inf|-?nan)\\."});
        } else if (max_abs > 127.0 * static_cast<double>(std::numeric_limits<float>::max())) {
          f.push_back({"quantize-scale-overflow", quantize_scale_overflow_message(max_abs)});
        }
      }
      return f;
    case K::Unary: {
      // The extremes over every element have no value for a tensor without elements; the
      // message names its first dim of size 0 (docs/OPS.md, float_max).
      const Op u = unary_op(p.op);
      if (f.empty() && (u == Op::float_max || u == Op::float_min || u == Op::float_max_abs)) {
        for (std::size_t d = 0; d < sa.size(); ++d) {
          if (sa[d] != 0) continue;
          f.push_back({"empty-reduction", op + " over dim " + std::to_string(d) + " of size 0 has no result."});
          break;
        }
      }
      return f;
    }
    case K::kCount:
      break;
  }
  bad_kind("faults_of");
}

// What a successful probe returns: result_shape's rules for Binary and Unary, the other kinds'
// documented shapes, the dtype (float_cast: the target; dequantize: F32), the backend and
// whether the result is tracked.
struct ExpectedResult {
  std::vector<std::size_t> shape;
  DType dtype;
  std::size_t backend;
  bool tracked;
};
ExpectedResult expected_result(const OpProbe &p) {
  using K = OpProbe::Kind;
  const KindSpec &ka = p.lhs.kind;
  ExpectedResult e{ka.leaf.shape, ka.leaf.dtype, ka.leaf.backend, is_tracked(ka)};
  switch (p.kind) {
    case K::Binary:
      e.shape = *result_shape(OpSpec{binary_op(p.op), 0, 1, 1.0, 0, 0}, ka.leaf.shape, p.rhs.kind.leaf.shape);
      return e;
    case K::Unary:
      e.shape = *result_shape(OpSpec{unary_op(p.op), 0, 0, 1.0, 0, 0}, ka.leaf.shape, ka.leaf.shape);
      return e;
    case K::SumDim:
    case K::MeanDim:
      e.shape[p.dim] = 1;
      return e;
    case K::Reshape:
      e.shape = p.to_shape;
      return e;
    case K::SwapDims:
      std::swap(e.shape[p.dim], e.shape[p.dim1]);
      return e;
    case K::ToDevice:
      e.backend = p.target_backend;
      return e;
    case K::Cast:
      e.dtype = p.dtype;
      return e;
    case K::Quantize:
      e.dtype = DType::F32;
      return e;
    case K::kCount:
      break;
  }
  bad_kind("expected_result");
}

}  // namespace

std::string_view probe_kind_name(OpProbe::Kind kind) {
  switch (kind) {
    case OpProbe::Kind::Binary:
      return "binary";
    case OpProbe::Kind::Unary:
      return "unary";
    case OpProbe::Kind::SumDim:
      return "sum_dim";
    case OpProbe::Kind::MeanDim:
      return "mean_dim";
    case OpProbe::Kind::Reshape:
      return "reshape";
    case OpProbe::Kind::SwapDims:
      return "swap_dims";
    case OpProbe::Kind::ToDevice:
      return "to_device";
    case OpProbe::Kind::Cast:
      return "cast";
    case OpProbe::Kind::Quantize:
      return "quantize";
    case OpProbe::Kind::kCount:
      break;
  }
  return "?";
}

std::string describe(const OpProbe &p) {
  std::ostringstream os;
  os << op_name_of(p) << "(" << describe(p.lhs);
  switch (p.kind) {
    case OpProbe::Kind::Binary:
      os << ", " << describe(p.rhs);
      break;
    case OpProbe::Kind::SumDim:
    case OpProbe::Kind::MeanDim:
      os << ", dim=" << p.dim;
      break;
    case OpProbe::Kind::SwapDims:
      os << ", " << p.dim << ", " << p.dim1;
      break;
    case OpProbe::Kind::Reshape:
      os << ", " << render_shape(p.to_shape);
      break;
    case OpProbe::Kind::ToDevice:
      os << ", " << render_device_of(p.target_backend, p.target_tracked, p.target_nested);
      break;
    case OpProbe::Kind::Cast:
      os << ", " << render_dtype(p.dtype);
      break;
    case OpProbe::Kind::Unary:
    case OpProbe::Kind::Quantize:
    case OpProbe::Kind::kCount:
      break;
  }
  os << ")";
  return os.str();
}

namespace {
bool ka_backend_differs(const OpProbe &p) { return p.lhs.kind.leaf.backend != p.target_backend; }

// A fault's pattern (the oracle's own, see faults_of) matched as std::regex_match would, by the
// oracle's MessagePattern: compiling one costs about as little as a lookup did in the cache of
// std::regex objects it replaces, so it is compiled at each use (no cache, no lock).
bool matches_pattern(const std::string &text, const std::string &pattern) {
  return MessagePattern(pattern).full_match(text);
}
}  // namespace

std::optional<std::string> check_op_probe(const OpProbe &p, std::optional<std::string> *reached) {
  const DispatchTensor a = build(p.lhs);
  const DispatchTensor b = p.kind == OpProbe::Kind::Binary ? build(p.rhs) : a;
  const std::vector<ProbeFault> faults = faults_of(p, a, b);
  std::optional<DispatchTensor> result;
  try {
    result = run(p, a, b);
  } catch (const Panic &panic) {
    const std::string id(panic_id_name(panic.id()));
    for (const ProbeFault &f : faults) {
      if (f.panic_id != id) continue;
      const bool text_ok = f.message ? *f.message == panic.message() : matches_pattern(panic.message(), f.pattern);
      if (text_ok) {
        if (reached) *reached = id;
        return std::nullopt;
      }
    }
    std::string want;
    for (const ProbeFault &f : faults) {
      want += " | " + f.panic_id + (f.message ? " \"" + *f.message + "\"" : " matching /" + f.pattern + "/");
    }
    return describe(p) + ": panicked " + id + " \"" + panic.message() + "\"; expected " +
           (faults.empty() ? std::string("success") : want.substr(3));
  }
  if (!faults.empty()) return describe(p) + ": succeeded; expected panic " + faults.front().panic_id;
  // Success: the result's structure, shape and dtype.
  const ExpectedResult want = expected_result(p);
  const DispatchTensorKind &k = result->kind;
  const bool tracked = autodiff_depth_of(k) == 1 && primitive_of(k) == PrimitiveKind::Autodiff;
  const bool plain = autodiff_depth_of(k) == 0 && primitive_of(k) == PrimitiveKind::Float;
  if (!(want.tracked ? tracked : plain)) {
    return describe(p) + ": result is not a " + (want.tracked ? "tracked" : "plain") + " float tensor";
  }
  if (backend_of(k) != want.backend) {
    return describe(p) + ": result on backend " + all_backends().at(backend_of(k)).name + ", expected " +
           all_backends().at(want.backend).name;
  }
  const TensorData data = Dispatch::float_into_data(*result);
  if (data.shape().dims() != want.shape) {
    return describe(p) + ": result shape " + render_shape(data.shape().dims()) + ", expected " + render_shape(want.shape);
  }
  if (data.dtype() != want.dtype) {
    return describe(p) + ": result dtype " + render_dtype(data.dtype()) + ", expected " + render_dtype(want.dtype);
  }
  if (p.kind == OpProbe::Kind::ToDevice) {
    const TensorData before = Dispatch::float_into_data(a);
    if (!(before == data)) return describe(p) + ": float_to_device changed the data";
    if (want.tracked) {
      // A tracked move is an op: a new node, the receiver's checkpointing (none: Disabled).
      const CheckpointingStrategy strategy = a.checkpointing.value_or(CheckpointingStrategy::Disabled);
      if (result->checkpointing != strategy) {
        return describe(p) + ": the moved tensor's checkpointing is not the receiver's (" +
               (result->checkpointing ? "set to the other strategy" : "absent") + ")";
      }
      if (ka_backend_differs(p) && node_of(k) == node_of(a.kind)) {
        return describe(p) + ": a move to another backend kept the receiver's node (a new node is expected)";
      }
    }
  }
  return std::nullopt;
}

}  // namespace crossgrad::oracle
