#include <cmath>
#include <crossgrad/core/panic.hpp>
#include <crossgrad/dispatch/dispatch.hpp>
#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/op_probe.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/render.hpp>
#include <sstream>

namespace crossgrad::oracle {
namespace {

bool is_float_view(const KindSpec &k) {
  return (k.autodiff_depth == 0 && k.leaf.primitive == PrimitiveKind::Float) ||
         (k.autodiff_depth == 1 && k.leaf.primitive == PrimitiveKind::Autodiff);
}
bool is_tracked(const KindSpec &k) { return k.autodiff_depth == 1; }

std::string binary_name(Op op) {
  if (op == Op::Sub) return "float_sub";
  if (op == Op::Mul) return "float_mul";
  if (op == Op::Div) return "float_div";
  if (op == Op::Matmul) return "float_matmul";
  return "float_add";
}
std::string unary_name(Op op) {
  if (op == Op::Neg) return "float_neg";
  if (op == Op::Exp) return "float_exp";
  if (op == Op::Log) return "float_log";
  if (op == Op::Sqrt) return "float_sqrt";
  if (op == Op::Tanh) return "float_tanh";
  if (op == Op::Relu) return "relu";
  if (op == Op::Sigmoid) return "sigmoid";
  if (op == Op::PowfScalar) return "float_powf_scalar";
  if (op == Op::AddScalar) return "float_add_scalar";
  if (op == Op::MulScalar) return "float_mul_scalar";
  if (op == Op::Sum) return "float_sum";
  if (op == Op::Mean) return "float_mean";
  return "float_neg";
}

DispatchDevice device_for(std::size_t backend, bool tracked, bool nested) {
  std::optional<DispatchDevice> d;
  std::size_t i = 0;
  for_each_backend([&]<class B>() {
    if (i++ == backend) d = DispatchDevice::of<B>(B::default_device());
  });
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
    case K::Binary:
      if (p.op == Op::Sub) return Dispatch::float_sub(a, b);
      if (p.op == Op::Mul) return Dispatch::float_mul(a, b);
      if (p.op == Op::Div) return Dispatch::float_div(a, b);
      if (p.op == Op::Matmul) return Dispatch::float_matmul(a, b);
      return Dispatch::float_add(a, b);
    case K::Unary:
      if (p.op == Op::Exp) return Dispatch::float_exp(a);
      if (p.op == Op::Log) return Dispatch::float_log(a);
      if (p.op == Op::Sqrt) return Dispatch::float_sqrt(a);
      if (p.op == Op::Tanh) return Dispatch::float_tanh(a);
      if (p.op == Op::Relu) return Dispatch::relu(a);
      if (p.op == Op::Sigmoid) return Dispatch::sigmoid(a);
      if (p.op == Op::PowfScalar) return Dispatch::float_powf_scalar(a, 2.0);
      if (p.op == Op::AddScalar) return Dispatch::float_add_scalar(a, 1.5);
      if (p.op == Op::MulScalar) return Dispatch::float_mul_scalar(a, -2.0);
      if (p.op == Op::Sum) return Dispatch::float_sum(a);
      if (p.op == Op::Mean) return Dispatch::float_mean(a);
      return Dispatch::float_neg(a);
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
  return a;
}

std::string op_name_of(const OpProbe &p) {
  using K = OpProbe::Kind;
  switch (p.kind) {
    case K::Binary:
      return binary_name(p.op);
    case K::Unary:
      return unary_name(p.op);
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
  return "?";
}

std::vector<ProbeFault> faults_of(const OpProbe &p, const DispatchTensor &a, const DispatchTensor &b) {
  using K = OpProbe::Kind;
  std::vector<ProbeFault> f;
  const std::string op = op_name_of(p);
  const KindSpec &ka = p.lhs.kind;
  const KindSpec &kb = p.rhs.kind;
  const std::string ra = render_kind(ka, node_of(a.kind));
  const std::string rb = render_kind(kb, node_of(b.kind));
  const auto &sa = ka.leaf.shape;
  const auto &sb = kb.leaf.shape;
  if (!is_float_view(ka)) f.push_back({"op-kind-mismatch", op + " needs a tensor of kind Float, got " + ra + "."});
  switch (p.kind) {
    case K::Binary: {
      if (!is_float_view(kb)) f.push_back({"op-kind-mismatch", op + " needs a tensor of kind Float, got " + rb + "."});
      if (!f.empty()) return f;
      if (ka.leaf.backend != kb.leaf.backend || is_tracked(ka) != is_tracked(kb)) {
        f.push_back({"op-backend-mismatch", op + " needs operands on one backend, got " + ra + " and " + rb + "."});
        return f;
      }
      if (ka.leaf.dtype != kb.leaf.dtype) {
        f.push_back({"dtype-mismatch", op + " needs operands of one dtype, got " + render_dtype(ka.leaf.dtype) +
                                           " and " + render_dtype(kb.leaf.dtype) + "."});
      }
      if (p.op == Op::Matmul) {
        if (sa.size() < 2 || sb.size() < 2) {
          f.push_back({"matmul-rank", "float_matmul needs tensors of rank 2 or more, got shapes " + render_shape(sa) +
                                          " and " + render_shape(sb) + "."});
        } else {
          if (sa[sa.size() - 1] != sb[sb.size() - 2]) {
            f.push_back({"matmul-inner-dim", "float_matmul needs the inner dims to agree, got shapes " +
                                                 render_shape(sa) + " and " + render_shape(sb) + "."});
          }
          const std::vector<std::size_t> ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
          if (!broadcast_shape(ba, bb)) f.push_back({"broadcast-mismatch", std::nullopt});
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
        return f;
      }
      if (is_tracked(ka) && ka.leaf.backend != p.target_backend) {
        f.push_back({"cross-backend-autodiff-move",
                     "float_to_device cannot move an autodiff tensor from " + ka.leaf.backend_name + " to " +
                         all_backends().at(p.target_backend).name + ": the graph lives on one backend."});
      }
      return f;
    }
    case K::Cast:
      if (f.empty() && p.dtype != DType::F32 && p.dtype != DType::F64) f.push_back({"unsupported-dtype", std::nullopt});
      return f;
    case K::Quantize:
      if (f.empty()) {
        for (double v : effective_values(ka.leaf)) {
          const bool f32_overflow = ka.leaf.dtype == DType::F32 && std::fabs(v) > 3.4028234663852886e38;
          if (!std::isfinite(v) || f32_overflow) {
            f.push_back({"quantize-non-finite", std::nullopt});
            break;
          }
        }
      }
      return f;
    case K::Unary:
    case K::kCount:
      return f;
  }
  return f;
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
      if (f.panic_id == id && (!f.message || *f.message == panic.message())) {
        if (reached) *reached = id;
        return std::nullopt;
      }
    }
    std::string want;
    for (const ProbeFault &f : faults) want += " | " + f.panic_id + (f.message ? " \"" + *f.message + "\"" : "");
    return describe(p) + ": panicked " + id + " \"" + panic.message() + "\"; expected " +
           (faults.empty() ? std::string("success") : want.substr(3));
  }
  if (!faults.empty()) return describe(p) + ": succeeded; expected panic " + faults.front().panic_id;
  if (p.kind == OpProbe::Kind::ToDevice) {
    const TensorData before = Dispatch::float_into_data(a);
    const TensorData after = Dispatch::float_into_data(*result);
    if (!(before == after)) return describe(p) + ": float_to_device changed the data";
  }
  return std::nullopt;
}

}  // namespace crossgrad::oracle
