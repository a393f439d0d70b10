// op_args_fuzzer: bytes -> one registry op called through Dispatch with raw, possibly invalid,
// structured arguments (decode/op_args.hpp), checked against the oracle's independent reference
// evaluator (oracle::reference_op): where it names a catalog panic, the engine must raise that
// entry with a message its catalog pattern matches; where it gives a value, the result must have
// the reference's kind, tracked-ness, backend, shape and dtype and its values (bit for bit for the
// ops whose bound is exact, NaN compared as a class; within oracle::bound_for otherwise). A tracked
// Float result of an op with a backward rule must give its receiver a gradient of its shape.
// No op is named here: the Dispatch call is expanded from the registry (CROSSGRAD_OPS) by Sig.
// Past the registry, the composed ctc_loss and deform_conv2d (op_args::kCtcLossCode,
// kDeformConv2dCode) are judged the same way against the oracle's definitions
// (oracle/ctc_reference.hpp, oracle/deform_conv2d_reference.hpp).
#include <algorithm>
#include <bit>
#include <cmath>
#include <crossgrad/crossgrad.hpp>
#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/ctc_reference.hpp>
#include <crossgrad/oracle/deform_conv2d_reference.hpp>
#include <crossgrad/oracle/numeric.hpp>
#include <crossgrad/oracle/reference_ops.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/render.hpp>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "decode/op_args.hpp"
#include "harness/op_args_call.hpp"
#include "harness/expect.hpp"
#include "harness/target.hpp"
#include "targets/targets.hpp"

namespace crossgrad::fuzz {
namespace {

using oracle::HostArray;
using namespace op_args;

PrimitiveKind expected_primitive(OpKind result, bool tracked) {
  switch (result) {
    case OpKind::Float:
      return tracked ? PrimitiveKind::Autodiff : PrimitiveKind::Float;
    case OpKind::Int:
      return PrimitiveKind::Int;
    case OpKind::Bool:
      return PrimitiveKind::Bool;
  }
  fail("unknown result kind");
}

TensorData data_of(OpKind kind, const DispatchTensor &t) {
  switch (kind) {
    case OpKind::Float:
      return Dispatch::float_into_data(t);
    case OpKind::Int:
      return Dispatch::int_into_data(t);
    case OpKind::Bool:
      return Dispatch::bool_into_data(t);
  }
  fail("unknown result kind");
}

std::vector<double> values_of(const TensorData &d) {
  switch (dtype_category(d.dtype())) {
    case DTypeCategory::Float:
      return d.to_f64();
    case DTypeCategory::Int: {
      std::vector<double> out;
      for (std::int64_t v : d.to_i64()) out.push_back(static_cast<double>(v));
      return out;
    }
    case DTypeCategory::Bool: {
      std::vector<double> out;
      for (bool v : d.to_bool()) out.push_back(v ? 1 : 0);
      return out;
    }
    case DTypeCategory::Quantized:
      break;
  }
  fail("a quantized result");
}

TensorData reference_data(const HostArray &r) {
  if (r.dtype == DType::F32) {
    std::vector<float> f(r.values.begin(), r.values.end());
    return TensorData::from_f32(std::move(f), Shape(r.shape));
  }
  return TensorData::from_f64(r.values, Shape(r.shape));
}

std::string number(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

// The largest finite |value| of the float operands; for Binary ops (matmul's bound) the product of
// the two operands' largest.
double magnitude(const OpInfo &op, const std::vector<HostArray> &operands, const oracle::OpArgs &args) {
  // The compositions' rounding sensitivity, which the oracle works out from the values and options.
  if (op.sig == OpSig::LayerNorm || op.sig == OpSig::Attention || op.sig == OpSig::BatchNorm) return oracle::reference_magnitude(op.id, operands, args);
  std::vector<double> largest;
  for (const HostArray &h : operands) {
    if (dtype_category(h.dtype) != DTypeCategory::Float) continue;
    double m = 0;
    for (double v : h.values) {
      if (std::isfinite(v)) m = std::max(m, std::fabs(v));
    }
    largest.push_back(m);
  }
  double out = op.sig == OpSig::Binary ? 1 : 0;
  for (double m : largest) out = op.sig == OpSig::Binary ? out * m : std::max(out, m);
  return largest.empty() ? 0 : out;
}

// The attempt raised catalog entry `id`, naming op `name` where the entry's template starts with the
// op (the registry's ops and the composed ones past it alike).
void check_panic(std::string_view name, const Attempt<DispatchTensor> &a, const std::string &id, Outcome &out) {
  const std::string what(name);
  if (!a.panic) fail(what + ": the reference expects panic " + id + " but the call succeeded");
  const std::string got(panic_id_name(a.panic->id()));
  if (got != id) fail(what + ": the reference expects panic " + id + ", got " + got + " \"" + a.panic->message() + "\"");
  // attempt() has matched the message against the catalog pattern; where the catalog's template
  // starts with the op's name, it must name this op.
  const std::string prefix = what + " ";
  if (panic_template(a.panic->id()).rfind("{op} ", 0) == 0 && a.panic->message().rfind(prefix, 0) != 0)
    fail(what + ": panic " + id + " names another op: \"" + a.panic->message() + "\"");
  out.panics.insert(a.panic->id());
  out.log.push_back(what + " -> panic " + id + ": " + a.panic->message());
}

void check_value(const OpArgsCase &c, const OpInfo &op, const Call &in, const oracle::ReferenceResult &ref,
                 const DispatchTensor &r) {
  const std::string what(op.name);
  const PrimitiveKind want = expected_primitive(op.result, c.tracked);
  if (oracle::primitive_of(r.kind) != want || oracle::autodiff_depth_of(r.kind) != (c.tracked ? 1u : 0u) ||
      oracle::backend_of(r.kind) != c.backend) {
    fail(what + ": result kind " + debug(r.kind) + ", expected " + std::string(primitive_kind_name(want)) +
         (c.tracked ? " on an autodiff device" : "") + " of backend " + std::to_string(c.backend));
  }
  if (ref.kind != op.result) fail(what + ": the reference gives another result kind than the registry");
  const TensorData got = data_of(op.result, r);
  if (got.shape().dims() != ref.value.shape || got.dtype() != ref.value.dtype) {
    fail(what + ": result shape " + got.shape().to_string() + " dtype " + oracle::render_dtype(got.dtype()) +
         ", reference " + oracle::render_shape(ref.value.shape) + " " + oracle::render_dtype(ref.value.dtype));
  }
  const std::vector<double> values = values_of(got);
  if (op.result != OpKind::Float) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (values[i] != ref.value.values[i])
        fail(what + ": element " + std::to_string(i) + " is " + number(values[i]) + ", reference " +
             number(ref.value.values[i]));
    }
    return;
  }
  const DType dtype = ref.value.dtype;
  const oracle::Bound bound =
      oracle::bound_for_receiver(op.id, dtype, oracle::reference_reduction_length(op.id, in.reference_operands, in.args),
                                 magnitude(op, in.reference_operands, in.args),
                                 in.reference_operands.empty() ? std::vector<double>{} : in.reference_operands[0].values);
  if (!bound.exact) {
    require(oracle::compare_values(reference_data(ref.value), got, bound, what));
    return;
  }
  // Exact ops: the same bits (values of F32 data are exact doubles), NaN compared as a class.
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double x = values[i], y = ref.value.values[i];
    if (std::isnan(x) && std::isnan(y)) continue;
    if (std::bit_cast<std::uint64_t>(x) != std::bit_cast<std::uint64_t>(y))
      fail(what + ": element " + std::to_string(i) + " is " + number(x) + ", reference " + number(y) +
           " (an exact op: bits must agree)");
  }
}

// ctc_loss with raw operands: the oracle's panic where it names one (the catalog entry, a message of
// ctc_loss's), else the loss of the definition, and on a tracked device a gradient of log_probs'
// shape that equals the definition's. Values are compared where every log-probability is finite
// and at most 1e4 in magnitude (beyond, F32 sums overflow where the oracle's long doubles do not);
// elsewhere only the result's kind, shape and dtype.
void run_ctc_loss(const OpArgsCase &c, Outcome &out) {
  const CtcLossCall call = ctc_loss_call(c);
  const DispatchDevice dev =
      oracle::dispatch_device(c.backend, oracle::all_backends().at(c.backend).default_device, c.tracked);
  const DispatchTensor log_probs = engine_tensor(call.log_probs, dev);
  const DispatchTensor targets = engine_tensor(call.targets, dev), input_lengths = engine_tensor(call.input_lengths, dev),
                       target_lengths = engine_tensor(call.target_lengths, dev);
  const oracle::CtcOperands operands{call.log_probs.shape,        call.targets.shape,           call.input_lengths.shape,
                                     call.target_lengths.shape,    oracle::int_values(call.targets),  oracle::int_values(call.input_lengths),
                                     oracle::int_values(call.target_lengths), call.blank};
  const std::optional<std::string> panic = oracle::ctc_loss_panic(operands);
  const Attempt<DispatchTensor> a =
      attempt([&] { return Dispatch::ctc_loss(log_probs, targets, input_lengths, target_lengths, call.blank); });
  if (panic) {
    check_panic("ctc_loss", a, *panic, out);
    return;
  }
  const DispatchTensor loss = expect_value(a, "ctc_loss");
  const std::size_t time = call.log_probs.shape[0], batch = call.log_probs.shape[1], classes = call.log_probs.shape[2];
  if (oracle::primitive_of(loss.kind) != (c.tracked ? PrimitiveKind::Autodiff : PrimitiveKind::Float) ||
      oracle::backend_of(loss.kind) != c.backend)
    fail("ctc_loss: result kind " + debug(loss.kind) + " on backend " + std::to_string(c.backend));
  const TensorData got = Dispatch::float_into_data(loss);
  if (got.shape() != Shape{batch} || got.dtype() != call.log_probs.dtype)
    fail("ctc_loss: result shape " + got.shape().to_string() + " dtype " + oracle::render_dtype(got.dtype()) + ", expected [" +
         std::to_string(batch) + "] " + oracle::render_dtype(call.log_probs.dtype));
  const bool comparable = std::all_of(call.log_probs.values.begin(), call.log_probs.values.end(),
                                      [](double v) { return std::isfinite(v) && std::fabs(v) <= 1e4; });
  if (!comparable) {
    out.log.push_back("ctc_loss -> " + got.shape().to_string() + ": non-finite or huge log_probs, values not compared");
    return;
  }
  oracle::CtcCase ref_case{time, batch, classes, operands.targets_shape[1], call.log_probs.values, operands.targets,
                           operands.input_lengths, operands.target_lengths, call.blank};
  const oracle::CtcReference want = oracle::ctc_reference(ref_case);
  // Each step adds a log-probability and a log_add: rounding grows with the steps and the values.
  double scale = 1;
  for (double v : call.log_probs.values) scale = std::max(scale, std::fabs(v));
  const double tolerance = (c.f64 ? 1e-12 : 1e-5) * static_cast<double>(time + 1) * scale;
  const auto check = [&](const std::vector<double> &values, const std::vector<double> &reference, const std::string &what) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      const bool same_inf = std::isinf(reference[i]) && values[i] == reference[i];
      if (!same_inf && !(std::fabs(values[i] - reference[i]) <= tolerance))
        fail("ctc_loss: " + what + " element " + std::to_string(i) + " is " + number(values[i]) + ", the definition " +
             number(reference[i]) + " (tolerance " + number(tolerance) + ")");
    }
  };
  check(got.to_f64(), want.loss, "loss");
  out.log.push_back("ctc_loss -> " + got.shape().to_string() + ": agrees with the definition");
  if (!c.tracked) return;
  const std::optional<DispatchTensor> g =
      Dispatch::grad(log_probs, Dispatch::backward(Dispatch::float_sum(Dispatch::float_mask_fill(loss, Dispatch::float_is_inf(loss), 0.0))));
  const std::vector<double> gradient = g ? Dispatch::float_into_data(*g).to_f64() : std::vector<double>(want.gradient.size(), 0.0);
  if (g && Dispatch::float_shape(*g).dims() != call.log_probs.shape)
    fail("ctc_loss: the gradient has shape " + Dispatch::float_shape(*g).to_string() + ", log_probs " +
         oracle::render_shape(call.log_probs.shape));
  check(gradient, want.gradient, "gradient");
  out.log.push_back("backward of the finite losses' sum: agrees with the definition's alpha-beta gradient");
}

// deform_conv2d with raw operands and options. Its checks are conv2d's of x, weight and bias (the
// oracle's conv2d reference names that panic), then the offset groups and the offset's and mask's
// shapes; a value is compared with the definition where every operand is finite and at most 1e4
// in magnitude, and a tracked call must give x a gradient of its shape.
void run_deform_conv2d(const OpArgsCase &c, Outcome &out) {
  const DeformConv2dCall call = deform_conv2d_call(c);
  const std::size_t operand_elements = call.x.values.size() + call.offset.values.size() + call.weight.values.size() +
                                       (call.mask ? call.mask->values.size() : 0);
  if (operand_elements > 4096) {
    out.not_applicable = "deform_conv2d operands of over 4096 elements";
    out.log.push_back("not applicable here (" + *out.not_applicable + ")");
    return;
  }
  const DispatchDevice dev =
      oracle::dispatch_device(c.backend, oracle::all_backends().at(c.backend).default_device, c.tracked);
  const DispatchTensor x = engine_tensor(call.x, dev), offset = engine_tensor(call.offset, dev), weight = engine_tensor(call.weight, dev);
  const std::optional<DispatchTensor> mask = call.mask ? std::optional(engine_tensor(*call.mask, dev)) : std::nullopt;
  const std::optional<DispatchTensor> bias = call.bias ? std::optional(engine_tensor(*call.bias, dev)) : std::nullopt;
  // The panic the checks name: conv2d's first, then deform_conv2d's own.
  std::optional<std::string> panic;
  const ReferenceCall conv = reference_call(call.conv2d);
  const oracle::ReferenceResult conv_ref = oracle::reference_op(OpId::conv2d, conv.operands, conv.args);
  std::size_t out_h = 0, out_w = 0;
  if (conv_ref.panic_id) {
    panic = *conv_ref.panic_id;
  } else {
    out_h = conv_ref.value.shape[2];
    out_w = conv_ref.value.shape[3];
    const std::size_t channels = call.x.shape[1], groups = call.options.offset_groups;
    const std::size_t taps = groups * call.weight.shape[2] * call.weight.shape[3];
    if (groups == 0 || channels % groups != 0)
      panic = "deform-offset-groups";
    else if (call.offset.shape != std::vector<std::size_t>{call.x.shape[0], 2 * taps, out_h, out_w} ||
             (call.mask && call.mask->shape != std::vector<std::size_t>{call.x.shape[0], taps, out_h, out_w}))
      panic = "deform-operand-shape";
  }
  const Attempt<DispatchTensor> a = attempt([&] { return Dispatch::deform_conv2d(x, offset, weight, mask, bias, call.options); });
  if (panic) {
    check_panic("deform_conv2d", a, *panic, out);
    return;
  }
  const DispatchTensor r = expect_value(a, "deform_conv2d");
  const TensorData got = Dispatch::float_into_data(r);
  if (got.shape().dims() != conv_ref.value.shape || got.dtype() != call.x.dtype)
    fail("deform_conv2d: result shape " + got.shape().to_string() + " dtype " + oracle::render_dtype(got.dtype()) +
         ", expected conv2d's " + oracle::render_shape(conv_ref.value.shape) + " " + oracle::render_dtype(call.x.dtype));
  double scale_x = 0, scale_w = 0, scale_m = 1, scale_b = 0;
  bool comparable = true;
  const auto scan = [&](const HostArray &h, double &scale) {
    for (double v : h.values) {
      comparable = comparable && std::isfinite(v) && std::fabs(v) <= 1e4;
      scale = std::max(scale, std::fabs(v));
    }
  };
  scan(call.x, scale_x);
  scan(call.weight, scale_w);
  double scale_o = 0;
  scan(call.offset, scale_o);
  if (call.mask) scan(*call.mask, scale_m);
  if (call.bias) scan(*call.bias, scale_b);
  if (comparable) {
    const std::vector<std::size_t> &xs = call.x.shape, &ws = call.weight.shape;
    oracle::DeformConv2dCase ref{xs[0], xs[1], xs[2], xs[3], ws[0], ws[2], ws[3],
                                 call.options.stride[0], call.options.stride[1], call.options.padding[0], call.options.padding[1],
                                 call.options.dilation[0], call.options.dilation[1], call.options.weight_groups,
                                 call.options.offset_groups, call.x.values, call.offset.values, call.weight.values,
                                 call.mask ? std::optional(call.mask->values) : std::nullopt,
                                 call.bias ? std::optional(call.bias->values) : std::nullopt};
    const std::vector<double> want = oracle::deform_conv2d_reference(ref);
    // Each output sums channels_in / weight_groups * taps products of at most |x| |w| |m|, each
    // read through four bilinear terms.
    const double terms = static_cast<double>(ws[1] * ws[2] * ws[3]) * 4 + 1;
    const double tolerance = (c.f64 ? 1e-14 : 1e-6) * terms * (scale_x * scale_w * scale_m + scale_b + 1) * (scale_o + 2);
    const std::vector<double> values = got.to_f64();
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!(std::fabs(values[i] - want[i]) <= tolerance))
        fail("deform_conv2d: element " + std::to_string(i) + " is " + number(values[i]) + ", the definition " + number(want[i]) +
             " (tolerance " + number(tolerance) + ")");
    }
    out.log.push_back("deform_conv2d -> " + got.shape().to_string() + ": agrees with the definition");
  } else {
    out.log.push_back("deform_conv2d -> " + got.shape().to_string() + ": non-finite or huge operands, values not compared");
  }
  if (!c.tracked) return;
  const Gradients grads = Dispatch::backward(Dispatch::float_sum(r));
  const std::optional<DispatchTensor> g = Dispatch::grad(x, grads);
  if (g && Dispatch::float_shape(*g).dims() != call.x.shape)
    fail("deform_conv2d: x's gradient has shape " + Dispatch::float_shape(*g).to_string() + ", x " + oracle::render_shape(call.x.shape));
  out.log.push_back("backward of the result's sum: x's gradient fits x");
}

void run(Bytes bytes, Outcome &out) {
  const Decoded<OpArgsCase> decoded =
      decode_noting_uses<OpArgsCase>(bytes, [](auto &io, auto &x) { op_args::schema(io, x); });
  if (skip_unless_applicable(decoded.uses, out)) return;
  const OpArgsCase &c = decoded.scenario;
  if (is_ctc_loss(c)) {
    run_ctc_loss(c, out);
    return;
  }
  if (is_deform_conv2d(c)) {
    run_deform_conv2d(c, out);
    return;
  }
  if (!is_op(c)) {
    // One reason for every reserved code, so tallies group them.
    out.not_applicable = "op code past the registry's last op";
    out.log.push_back("not applicable here (op code " + std::to_string(c.op_code) + ": not a registry op)");
    return;
  }
  const OpInfo &op = op_of(c);
  const DispatchDevice dev =
      oracle::dispatch_device(c.backend, oracle::all_backends().at(c.backend).default_device, c.tracked);
  const Call in = build(c, op, dev);
  const oracle::ReferenceResult ref = oracle::reference_op(op.id, in.reference_operands, in.args);
  const Attempt<DispatchTensor> a = attempt([&] { return dispatch(op.id, in); });
  if (ref.panic_id) {
    check_panic(op.name, a, *ref.panic_id, out);
    return;
  }
  const DispatchTensor r = expect_value(a, op.name);
  check_value(c, op, in, ref, r);
  out.log.push_back(std::string(op.name) + " -> " + debug(r.kind) + ": agrees with the reference");
  if (!c.tracked || op.rule != OpRule::Backward) return;
  const Gradients grads = Dispatch::backward(Dispatch::float_sum(r));
  const std::optional<DispatchTensor> g = Dispatch::grad(in.tensors[0], grads);
  if (!g) fail(std::string(op.name) + ": backward gave the tracked receiver no gradient");
  if (Dispatch::float_shape(*g).dims() != c.tensors[0].shape)
    fail(std::string(op.name) + ": the receiver's gradient has shape " + Dispatch::float_shape(*g).to_string() +
         ", the receiver " + oracle::render_shape(c.tensors[0].shape));
  out.log.push_back("backward of the result's sum: receiver gradient of shape " +
                    Dispatch::float_shape(*g).to_string());
}

std::string describe_bytes(Bytes bytes) {
  return describe(decode_with<OpArgsCase>(bytes, [](auto &io, auto &x) { op_args::schema(io, x); }));
}

}  // namespace

const Target kOpArgsTarget{"op_args_fuzzer", &describe_bytes, &run};

}  // namespace crossgrad::fuzz
