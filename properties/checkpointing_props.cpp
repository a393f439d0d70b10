// The checkpointing strategy every op's result carries (issue 10, item 4), over random graphs whose
// leaves and intermediates hold mixed strategies (none, Disabled, Balanced).
//
// CONTRACT section 2 says only that `checkpointing` is optional, that "absent means not tracked",
// and that a gradient's strategy never matters to grad_replace. The engine states the rest in
// kind.hpp ("for tracked tensors, a checkpointing strategy") and in Note [Checkpointing of op
// results] (dispatch_arms.hpp). The rule tested here:
//   R1  x_from_data on Autodiff(device) gives Disabled; on a plain device, none.
//   R2  an op whose result kind is Autodiff(...) gives it the strategy of its receiver (the tensor
//       argument, the lhs of a binary op), or Disabled when the receiver has none. This covers
//       every float op on tracked tensors, float_to_device between devices of one backend and
//       between backends (a tracked move to another backend keeps the graph: CONTRACT section 7),
//       quantize / dequantize of an autodiff kind, and from_inner (which starts tracking).
//   R3  an op whose result kind is not Autodiff(...) gives none: ops on plain tensors, inner,
//       grad, a move to a plain device, quantize / dequantize of a plain kind.
//   R4  whether the result is tracked: from_inner -> tracked, inner and grad -> plain, every
//       other op -> as its receiver.
// And a strategy never changes a value: the same program with every strategy removed computes
// bit-identical values, panics and gradients.
#include "gen/api_programs.hpp"
#include "support/prop.hpp"
#include "support/step_enum.hpp"

#include <crossgrad/oracle/expect.hpp>

using namespace crossgrad;
using namespace crossgrad::properties;
namespace og = crossgrad::oracle;

namespace {

#define CHECKPOINTING_STEPS(X)                                                                                   \
  X(Add) X(Sub) X(Mul) X(Div) X(Matmul) X(Neg) X(Exp) X(Log) X(Sqrt) X(Tanh) X(Relu) X(Sigmoid) X(Powf) X(AddScalar) \
  X(MulScalar) X(Sum) X(Mean) X(SumDim) X(MeanDim) X(Reshape) X(SwapDims) X(ToDevice) X(Cast) X(Quantize)          \
  X(Dequantize) X(Inner) X(FromInner) X(Grad) X(SetStrategy)

CG_STEP_ENUM(CHECKPOINTING_STEPS)

struct Step {
  StepOp op = StepOp::Neg;
  std::size_t lhs = 0, rhs = 0;
  std::size_t dim = 0, dim1 = 0;  // modulo the rank
  bool to_plain = false;          // ToDevice: to the plain device of the target backend (else the receiver's kind)
  std::optional<std::size_t> to_backend;  // ToDevice: the target backend (registry index); none: the receiver's
  std::optional<CheckpointingStrategy> strategy;  // SetStrategy
};

struct Program {
  std::vector<gen::LeafSpec> leaves;
  std::vector<Step> steps;
};

std::ostream& operator<<(std::ostream& os, const Step& s) {
  os << step_name(s.op) << "(v" << s.lhs << ", v" << s.rhs << ", dims " << s.dim << " " << s.dim1;
  if (s.op == StepOp::ToDevice) {
    os << (s.to_plain ? ", plain" : ", same kind") << ", to " << (s.to_backend ? og::all_backends().at(*s.to_backend).name : "its backend");
  }
  if (s.op == StepOp::SetStrategy) os << ", " << gen::strategy_name(s.strategy);
  return os << ")";
}
std::ostream& operator<<(std::ostream& os, const Program& p) {
  os << "Program{\n";
  for (std::size_t i = 0; i < p.leaves.size(); ++i) os << "  leaf " << i << ": " << p.leaves[i] << "\n";
  for (const Step& s : p.steps) os << "  " << s << "\n";
  return os << "}";
}

// Every step op, ToDevice three times as often as the others: a tracked move to another backend
// needs a tracked receiver, another target backend and a tracked target, so it is rare otherwise.
const std::vector<StepOp>& step_ops() {
  static const std::vector<StepOp> ops = [] {
    std::vector<StepOp> v = all_steps();
    v.insert(v.end(), 2, StepOp::ToDevice);
    return v;
  }();
  return ops;
}

rc::Gen<Step> step() {
  return rc::gen::map(rc::gen::tuple(rc::gen::elementOf(step_ops()), rc::gen::inRange<std::size_t>(0, 16),
                                     rc::gen::inRange<std::size_t>(0, 16), rc::gen::inRange<std::size_t>(0, 4),
                                     rc::gen::inRange<std::size_t>(0, 4), rc::gen::arbitrary<bool>(), gen::checkpointing(),
                                     rc::gen::weightedOneOf<std::optional<std::size_t>>(
                                         {{1, rc::gen::just(std::optional<std::size_t>())},
                                          {1, rc::gen::map(gen::backend(), [](std::size_t b) { return std::optional<std::size_t>(b); })}})),
                      [](const auto& t) {
                        Step s;
                        std::tie(s.op, s.lhs, s.rhs, s.dim, s.dim1, s.to_plain, s.strategy, s.to_backend) = t;
                        return s;
                      });
}

rc::Gen<Program> program() {
  return rc::gen::map(rc::gen::tuple(gen::leaves(), rc::gen::resize(60, rc::gen::container<std::vector<Step>>(step()))),
                      [](const auto& t) {
                        Program p{std::get<0>(t), std::get<1>(t)};
                        if (p.steps.size() > 12) p.steps.resize(12);
                        return p;
                      });
}

// ---- running a program -------------------------------------------------------------------------

struct NoEntry : std::exception {};

std::size_t rank_of(const DispatchTensor& t) {
  std::size_t rank = 0;
  (void)og::outcome_of([&] { rank = Dispatch::float_shape(t).rank(); });
  return rank;
}

// The step's receiver: whose strategy R2 passes on.
std::size_t receiver_of(const Step& s, const std::vector<DispatchTensor>& values) {
  if (s.op == StepOp::Grad) return s.rhs % values.size();
  if (s.op == StepOp::Dequantize) {
    // The latest quantized value, so dequantize mostly has something to work on.
    for (std::size_t i = values.size(); i-- > 0;) {
      if (og::autodiff_depth_of(values[i].kind) <= 1 && og::primitive_of(values[i].kind) == PrimitiveKind::Quantized) return i;
    }
  }
  return s.lhs % values.size();
}

DispatchTensor apply(const Step& s, const std::vector<DispatchTensor>& v, std::size_t r) {
  const DispatchTensor& a = v[r];
  const DispatchTensor& b = v[s.rhs % v.size()];  // the other operand (unused by Grad, whose receiver it is)
  const std::size_t rank = rank_of(a);
  const std::size_t d0 = rank ? s.dim % rank : 0, d1 = rank ? s.dim1 % rank : 0;
  switch (s.op) {
    case StepOp::Add: return Dispatch::float_add(a, b);
    case StepOp::Sub: return Dispatch::float_sub(a, b);
    case StepOp::Mul: return Dispatch::float_mul(a, b);
    case StepOp::Div: return Dispatch::float_div(a, b);
    case StepOp::Matmul: {
      const std::size_t rb = rank_of(b);
      return Dispatch::float_matmul(a, rb < 2 ? b : Dispatch::float_swap_dims(b, rb - 2, rb - 1));
    }
    case StepOp::Neg: return Dispatch::float_neg(a);
    case StepOp::Exp: return Dispatch::float_exp(a);
    case StepOp::Log: return Dispatch::float_log(a);
    case StepOp::Sqrt: return Dispatch::float_sqrt(a);
    case StepOp::Tanh: return Dispatch::float_tanh(a);
    case StepOp::Relu: return Dispatch::relu(a);
    case StepOp::Sigmoid: return Dispatch::sigmoid(a);
    case StepOp::Powf: return Dispatch::float_powf_scalar(a, 2.0);
    case StepOp::AddScalar: return Dispatch::float_add_scalar(a, 0.5);
    case StepOp::MulScalar: return Dispatch::float_mul_scalar(a, -1.5);
    case StepOp::Sum: return Dispatch::float_sum(a);
    case StepOp::Mean: return Dispatch::float_mean(a);
    case StepOp::SumDim: return Dispatch::float_sum_dim(a, d0);
    case StepOp::MeanDim: return Dispatch::float_mean_dim(a, d0);
    case StepOp::Reshape: return Dispatch::float_reshape(a, Shape{Dispatch::float_shape(a).num_elements()});
    case StepOp::SwapDims: return Dispatch::float_swap_dims(a, d0, d1);
    case StepOp::ToDevice: {
      // The receiver's own backend, or another one (a tracked tensor then stays tracked there).
      const std::size_t backend = s.to_backend ? *s.to_backend : og::backend_of(a.kind);
      const DispatchDevice plain = og::dispatch_device(backend, og::all_backends().at(backend).default_device);
      return Dispatch::float_to_device(a, a.kind.is_autodiff() && !s.to_plain ? DispatchDevice::Autodiff(plain) : plain);
    }
    case StepOp::Cast: return Dispatch::float_cast(a, Dispatch::float_dtype(a) == DType::F32 ? DType::F64 : DType::F32);
    case StepOp::Quantize: return Dispatch::quantize(a);
    case StepOp::Dequantize: return Dispatch::dequantize(a);
    case StepOp::Inner: return Dispatch::inner(a);
    case StepOp::FromInner: return Dispatch::from_inner(a);
    case StepOp::Grad: {
      // backward from v[lhs], then the receiver v[rhs]'s gradient.
      const Gradients grads = Dispatch::backward(v[s.lhs % v.size()]);
      auto g = Dispatch::grad(a, grads);
      if (!g) throw NoEntry{};  // nothing to check: a skipped step
      return *g;
    }
    case StepOp::SetStrategy: return DispatchTensor{a.kind, s.strategy};
  }
  return a;
}

// R4: is the result of `op` on `receiver` tracked?
bool expect_tracked(StepOp op, const DispatchTensor& receiver) {
  if (op == StepOp::FromInner) return true;
  if (op == StepOp::Inner || op == StepOp::Grad) return false;
  if (op == StepOp::ToDevice) return receiver.kind.is_autodiff();  // the property moves within the kind (any backend), or to plain
  return receiver.kind.is_autodiff();
}

// R2 / R3.
std::optional<CheckpointingStrategy> expected_strategy(const DispatchTensor& result, const DispatchTensor& receiver) {
  if (!result.kind.is_autodiff()) return std::nullopt;
  return receiver.checkpointing ? receiver.checkpointing : std::optional(CheckpointingStrategy::Disabled);
}

struct Trace {
  std::vector<std::string> outcomes;  // per leaf and step: "ok" or the panic id
  std::vector<TensorData> data;       // the float data of each value that has some
  std::vector<std::optional<TensorData>> grads;
  bool tracked_move_across = false;  // a tracked value moved to another backend (CONTRACT section 7)
};

// Runs the program; with `strip`, every strategy it sets is none. Checks R1-R4 on the way when
// `check_rules` (RC_FAIL on a violation).
Trace run(const Program& p, bool strip, bool check_rules) {
  Trace trace;
  std::vector<DispatchTensor> values;
  const auto record = [&](const DispatchTensor& t) {
    std::optional<TensorData> d;
    if (og::outcome_of([&] { d = Dispatch::float_into_data(t); }).ok()) trace.data.push_back(*d);
  };
  for (std::size_t i = 0; i < p.leaves.size(); ++i) {
    const gen::LeafSpec& l = p.leaves[i];
    std::optional<DispatchTensor> t;
    const og::Outcome o = og::outcome_of([&] { t = Dispatch::float_from_data(gen::leaf_data(l), gen::leaf_device(l)); });
    trace.outcomes.push_back(o.ok() ? "ok" : *o.panic_id);
    if (!o.ok()) continue;
    const std::optional<CheckpointingStrategy> r1 =
        l.device == gen::DeviceKind::Plain ? std::nullopt : std::optional(CheckpointingStrategy::Disabled);
    if (check_rules && t->checkpointing != r1) {
      RC_FAIL("R1: float_from_data(leaf " + std::to_string(i) + ") gave " + gen::strategy_name(t->checkpointing) + ", expected " +
              gen::strategy_name(r1));
    }
    t->checkpointing = strip ? std::nullopt : l.checkpointing;
    values.push_back(*t);
    record(*t);
  }
  RC_PRE(!values.empty());
  for (const Step& s : p.steps) {
    const std::size_t r = receiver_of(s, values);
    Step st = s;
    if (strip) st.strategy.reset();
    std::optional<DispatchTensor> result;
    const og::Outcome o = og::outcome_of([&] { result = apply(st, values, r); });
    trace.outcomes.push_back(o.ok() ? "ok" : *o.panic_id);
    if (!o.ok()) continue;
    if (check_rules && s.op != StepOp::SetStrategy) {
      const DispatchTensor& receiver = values[r];
      std::ostringstream what;
      what << "v" << values.size() << " = " << s << " on v" << r << " (" << gen::canonical_nodes(debug(receiver.kind), values)
           << ", checkpointing " << gen::strategy_name(receiver.checkpointing) << ")";
      if (result->kind.is_autodiff() != expect_tracked(s.op, receiver)) {
        RC_FAIL("R4: " + what.str() + " gave " + (result->kind.is_autodiff() ? "a tracked" : "a plain") + " result");
      }
      const auto want = expected_strategy(*result, receiver);
      if (result->checkpointing != want) {
        RC_FAIL(std::string(want ? "R2: " : "R3: ") + what.str() + " gave checkpointing " + gen::strategy_name(result->checkpointing) +
                ", expected " + gen::strategy_name(want));
      }
    }
    trace.tracked_move_across |= s.op == StepOp::ToDevice && result->kind.is_autodiff() &&
                                 og::backend_of(result->kind) != og::backend_of(values[r].kind);
    values.push_back(*result);
    record(*result);
  }
  std::optional<Gradients> grads;
  if (og::outcome_of([&] { grads = Dispatch::backward(values.back()); }).ok()) {
    for (const DispatchTensor& v : values) {
      std::optional<DispatchTensor> g;
      (void)og::outcome_of([&] { g = Dispatch::grad(v, *grads); });
      trace.grads.push_back(g ? std::optional(Dispatch::float_into_data(*g)) : std::nullopt);
    }
  }
  return trace;
}

}  // namespace

CG_PROP(Checkpointing, EveryResultCarriesTheDocumentedStrategy, 1000, ()) {
  const Trace trace = run(*rc::gen::resize(100, program()), false, true);  // full size from the first case
  RC_CLASSIFY(trace.tracked_move_across, "a tracked move to another backend");
}

CG_PROP(Checkpointing, StrategiesNeverChangeValues, 500, ()) {
  const Program p = *rc::gen::resize(100, program());  // full size from the first case: inRange scales with size
  const Trace with = run(p, false, false);
  const Trace without = run(p, true, false);
  RC_CLASSIFY(with.tracked_move_across, "a tracked move to another backend");
  RC_ASSERT(with.outcomes == without.outcomes);
  RC_ASSERT(with.data == without.data);
  RC_ASSERT(with.grads == without.grads);
}
