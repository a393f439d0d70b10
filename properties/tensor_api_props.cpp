// The high-level crossgrad::Tensor against the low-level Dispatch API (issue 10, item 4). One random
// program (leaves of rank 0..4, then up to 8 steps over every Tensor method) runs twice: through
// Tensor and through Dispatch::*. tensor.hpp promises "every call is one Dispatch call; panics are
// the same", so after every step the two runs must agree bit for bit: the result's data (shape,
// dtype, bytes), device, kind structure (debug rendering, node ids renumbered per run) and
// checkpointing; or both panic with the same catalog id and message. Then backward, every value's
// grad, and a grad_replace must agree too. Bad inputs come from the generator: int data, nested
// autodiff devices, mixed backends or tracking, dims out of range, reshape / matmul mismatches,
// casts to an int dtype.
#include "gen/api_programs.hpp"
#include "support/prop.hpp"
#include "support/step_enum.hpp"

#include <crossgrad/oracle/expect.hpp>
#include <crossgrad/tensor.hpp>

#include <algorithm>

using namespace crossgrad;
using namespace crossgrad::properties;
namespace og = crossgrad::oracle;

namespace {

#define TENSOR_API_STEPS(X)                                                                                  \
  X(Add) X(Sub) X(Mul) X(Div) X(AddScalar) X(MulScalar) X(Neg) X(Matmul) X(Exp) X(Log) X(Sqrt) X(Tanh) X(Relu) \
  X(Sigmoid) X(Powf) X(Sum) X(Mean) X(SumDim) X(MeanDim) X(Reshape) X(SwapDims) X(Transpose) X(ToDevice)     \
  X(Cast) X(Inner) X(FromInner)

CG_STEP_ENUM(TENSOR_API_STEPS)

enum class Target { SameTracking, Plain, Autodiff, Nested };

struct Step {
  StepOp op = StepOp::Neg;
  std::size_t lhs = 0, rhs = 0;  // value indices, modulo the values so far
  double scalar = 2.0;
  std::size_t dim = 0, dim1 = 0;
  bool wrap_dims = true;       // dims modulo the rank (else as drawn: may be out of range)
  int reshape_mode = 0;        // 0 [n], 1 reversed dims, 2 [n, 1], 3 `reshape_to` as drawn
  std::vector<std::size_t> reshape_to;
  bool transpose_rhs = false;  // Matmul: lhs.matmul(rhs.transpose())
  std::size_t target_backend = 0;
  Target target = Target::SameTracking;
  DType dtype = DType::F64;
};

struct Program {
  std::vector<gen::LeafSpec> leaves;
  std::vector<Step> steps;
  std::size_t replace_value = 0;  // grad_replace target (modulo the values)
  gen::LeafSpec replacement;      // the gradient given to grad_replace (a plain tensor)
};

std::ostream& operator<<(std::ostream& os, const Step& s) {
  using enum StepOp;
  const StepOp op = s.op;
  os << step_name(op) << "(v" << s.lhs;
  if (op == Add || op == Sub || op == Mul || op == Div) os << ", v" << s.rhs;
  if (op == Matmul) os << ", v" << s.rhs << (s.transpose_rhs ? ".transpose()" : "");
  if (op == AddScalar || op == MulScalar || op == Powf) os << ", " << s.scalar;
  if (op == SumDim || op == MeanDim) os << ", " << s.dim << (s.wrap_dims ? " mod rank" : "");
  if (op == SwapDims) os << ", " << s.dim << ", " << s.dim1 << (s.wrap_dims ? " mod rank" : "");
  if (op == Reshape) os << ", mode " << s.reshape_mode << " " << og::render_shape(s.reshape_to);
  if (op == ToDevice) os << ", backend#" << s.target_backend << " target " << static_cast<int>(s.target);
  if (op == Cast) os << ", " << og::render_dtype(s.dtype);
  return os << ")";
}
std::ostream& operator<<(std::ostream& os, const Program& p) {
  os << "Program{\n";
  for (std::size_t i = 0; i < p.leaves.size(); ++i) os << "  leaf " << i << ": " << p.leaves[i] << "\n";
  for (const Step& s : p.steps) os << "  " << s << "\n";
  return os << "  grad_replace(v" << p.replace_value << ", " << p.replacement << ")\n}";
}

rc::Gen<Step> step() {
  return rc::gen::map(
      rc::gen::tuple(rc::gen::elementOf(all_steps()), rc::gen::inRange<std::size_t>(0, 12), rc::gen::inRange<std::size_t>(0, 12),
                     rc::gen::elementOf(std::vector<double>{2.0, -1.0, 0.5, 3.0, 0.0, -2.5}),
                     rc::gen::inRange<std::size_t>(0, 5), rc::gen::inRange<std::size_t>(0, 5),
                     rc::gen::weightedOneOf<bool>({{6, rc::gen::just(true)}, {1, rc::gen::just(false)}}),
                     rc::gen::weightedOneOf<int>({{3, rc::gen::inRange(0, 3)}, {1, rc::gen::just(3)}}), gen::api_shape(),
                     rc::gen::arbitrary<bool>(), gen::backend(),
                     rc::gen::weightedOneOf<Target>({{6, rc::gen::just(Target::SameTracking)},
                                                     {1, rc::gen::elementOf(std::vector<Target>{Target::Plain, Target::Autodiff, Target::Nested})}}),
                     rc::gen::weightedOneOf<DType>({{4, rc::gen::elementOf(std::vector<DType>{DType::F32, DType::F64})},
                                                    {1, rc::gen::elementOf(std::vector<DType>{DType::I64, DType::I32, DType::Bool})}})),
      [](const auto& t) {
        Step s;
        std::tie(s.op, s.lhs, s.rhs, s.scalar, s.dim, s.dim1, s.wrap_dims, s.reshape_mode, s.reshape_to, s.transpose_rhs,
                 s.target_backend, s.target, s.dtype) = t;
        return s;
      });
}

rc::Gen<Program> program() {
  return rc::gen::mapcat(gen::leaves(), [](std::vector<gen::LeafSpec> leaves) {
    const gen::LeafSpec first = leaves.front();
    return rc::gen::map(
        rc::gen::tuple(rc::gen::resize(40, rc::gen::container<std::vector<Step>>(step())), rc::gen::inRange<std::size_t>(0, 12),
                       gen::leaf(first.backend, gen::DeviceKind::Plain, first.dtype, first.shape, true)),
        [leaves](const auto& t) {
          Program p;
          p.leaves = leaves;
          p.steps = std::get<0>(t);
          if (p.steps.size() > 8) p.steps.resize(8);
          p.replace_value = std::get<1>(t);
          p.replacement = std::get<2>(t);
          return p;
        });
  });
}

// ---- the two runs ------------------------------------------------------------------------------

// Arguments resolved once, from the low-level run's operand, and given to both runs.
struct Resolved {
  std::size_t dim = 0, dim1 = 0;
  Shape reshape_to;
  DispatchDevice device = DispatchDevice::NdArray();
};

Resolved resolve(const Step& s, const DispatchTensor& lhs) {
  Resolved r;
  const Shape shape = Dispatch::float_shape(lhs);
  const std::size_t rank = shape.rank();
  r.dim = s.wrap_dims && rank > 0 ? s.dim % rank : s.dim;
  r.dim1 = s.wrap_dims && rank > 0 ? s.dim1 % rank : s.dim1;
  const std::size_t n = shape.num_elements();
  std::vector<std::size_t> dims;
  for (std::size_t i = 0; i < rank; ++i) dims.push_back(shape[i]);
  if (s.reshape_mode == 0) r.reshape_to = Shape{n};
  if (s.reshape_mode == 1) r.reshape_to = Shape(std::vector<std::size_t>(dims.rbegin(), dims.rend()));
  if (s.reshape_mode == 2) r.reshape_to = Shape{n, 1};
  if (s.reshape_mode == 3) r.reshape_to = Shape(s.reshape_to);
  const bool tracked = lhs.kind.is_autodiff();
  const DispatchDevice plain = og::dispatch_device(s.target_backend, og::all_backends().at(s.target_backend).default_device);
  switch (s.target) {
    case Target::SameTracking: r.device = tracked ? DispatchDevice::Autodiff(plain) : plain; break;
    case Target::Plain: r.device = plain; break;
    case Target::Autodiff: r.device = DispatchDevice::Autodiff(plain); break;
    case Target::Nested: r.device = DispatchDevice::Autodiff(DispatchDevice::Autodiff(plain)); break;
  }
  return r;
}

Tensor run_high(const Step& s, const Resolved& r, const Tensor& a, const Tensor& b) {
  switch (s.op) {
    case StepOp::Add: return a + b;
    case StepOp::Sub: return a - b;
    case StepOp::Mul: return a * b;
    case StepOp::Div: return a / b;
    case StepOp::AddScalar: return a + s.scalar;
    case StepOp::MulScalar: return a * s.scalar;
    case StepOp::Neg: return -a;
    case StepOp::Matmul: return a.matmul(s.transpose_rhs ? b.transpose() : b);
    case StepOp::Exp: return a.exp();
    case StepOp::Log: return a.log();
    case StepOp::Sqrt: return a.sqrt();
    case StepOp::Tanh: return a.tanh();
    case StepOp::Relu: return a.relu();
    case StepOp::Sigmoid: return a.sigmoid();
    case StepOp::Powf: return a.powf(s.scalar);
    case StepOp::Sum: return a.sum();
    case StepOp::Mean: return a.mean();
    case StepOp::SumDim: return a.sum_dim(r.dim);
    case StepOp::MeanDim: return a.mean_dim(r.dim);
    case StepOp::Reshape: return a.reshape(r.reshape_to);
    case StepOp::SwapDims: return a.swap_dims(r.dim, r.dim1);
    case StepOp::Transpose: return a.transpose();
    case StepOp::ToDevice: return a.to_device(r.device);
    case StepOp::Cast: return a.cast(s.dtype);
    case StepOp::Inner: return a.inner();
    case StepOp::FromInner: return Tensor::from_inner(a);
  }
  return a;
}

// The low-level meaning of each Tensor method, from tensor.hpp's comments: one Dispatch call.
DispatchTensor run_low(const Step& s, const Resolved& r, const DispatchTensor& a, const DispatchTensor& b) {
  switch (s.op) {
    case StepOp::Add: return Dispatch::float_add(a, b);
    case StepOp::Sub: return Dispatch::float_sub(a, b);
    case StepOp::Mul: return Dispatch::float_mul(a, b);
    case StepOp::Div: return Dispatch::float_div(a, b);
    case StepOp::AddScalar: return Dispatch::float_add_scalar(a, s.scalar);
    case StepOp::MulScalar: return Dispatch::float_mul_scalar(a, s.scalar);
    case StepOp::Neg: return Dispatch::float_neg(a);
    case StepOp::Matmul: return Dispatch::float_matmul(a, s.transpose_rhs ? Dispatch::float_transpose(b) : b);
    case StepOp::Exp: return Dispatch::float_exp(a);
    case StepOp::Log: return Dispatch::float_log(a);
    case StepOp::Sqrt: return Dispatch::float_sqrt(a);
    case StepOp::Tanh: return Dispatch::float_tanh(a);
    case StepOp::Relu: return Dispatch::relu(a);
    case StepOp::Sigmoid: return Dispatch::sigmoid(a);
    case StepOp::Powf: return Dispatch::float_powf_scalar(a, s.scalar);
    case StepOp::Sum: return Dispatch::float_sum(a);
    case StepOp::Mean: return Dispatch::float_mean(a);
    case StepOp::SumDim: return Dispatch::float_sum_dim(a, r.dim);
    case StepOp::MeanDim: return Dispatch::float_mean_dim(a, r.dim);
    case StepOp::Reshape: return Dispatch::float_reshape(a, r.reshape_to);
    case StepOp::SwapDims: return Dispatch::float_swap_dims(a, r.dim, r.dim1);
    case StepOp::Transpose: return Dispatch::float_transpose(a);
    case StepOp::ToDevice: return Dispatch::float_to_device(a, r.device);
    case StepOp::Cast: return Dispatch::float_cast(a, s.dtype);
    case StepOp::Inner: return Dispatch::inner(a);
    case StepOp::FromInner: return Dispatch::from_inner(a);
  }
  return a;
}

std::vector<DispatchTensor> dispatch_of(const std::vector<Tensor>& values) {
  std::vector<DispatchTensor> out;
  for (const Tensor& t : values) out.push_back(t.dispatch());
  return out;
}

// Both outcomes, panic messages with node ids renumbered per run.
void require_same_outcome(const std::string& what, const og::Outcome& high, const std::vector<DispatchTensor>& high_values,
                          const og::Outcome& low, const std::vector<DispatchTensor>& low_values) {
  const og::Outcome h{high.panic_id, gen::canonical_nodes(high.message, high_values)};
  const og::Outcome l{low.panic_id, gen::canonical_nodes(low.message, low_values)};
  if (!(h == l)) RC_FAIL(what + ": Tensor gave " + og::describe(h) + ", Dispatch gave " + og::describe(l));
}

// The two results of one call are the same tensor: data bytes, shape, dtype, device, structure.
void require_same_tensor(const std::string& what, const DispatchTensor& high, const std::vector<DispatchTensor>& high_values,
                         const DispatchTensor& low, const std::vector<DispatchTensor>& low_values) {
  const std::string hk = gen::canonical_nodes(debug(high.kind), high_values);
  const std::string lk = gen::canonical_nodes(debug(low.kind), low_values);
  if (hk != lk) RC_FAIL(what + ": kinds differ: Tensor " + hk + " vs Dispatch " + lk);
  if (high.checkpointing != low.checkpointing) {
    RC_FAIL(what + ": checkpointing " + gen::strategy_name(high.checkpointing) + " vs " + gen::strategy_name(low.checkpointing));
  }
  if (!(Dispatch::float_shape(high) == Dispatch::float_shape(low))) RC_FAIL(what + ": shapes differ");
  if (Dispatch::float_dtype(high) != Dispatch::float_dtype(low)) RC_FAIL(what + ": dtypes differ");
  if (!(Dispatch::float_into_data(high) == Dispatch::float_into_data(low))) RC_FAIL(what + ": data differ (bitwise)");
}

}  // namespace

CG_PROP(TensorApi, EqualsDispatchStepByStep, 1000, ()) {
  const Program p = *rc::gen::resize(100, program());  // full size from the first case: inRange scales with size
  std::vector<Tensor> high;
  std::vector<DispatchTensor> low;

  for (std::size_t i = 0; i < p.leaves.size(); ++i) {
    const TensorData data = gen::leaf_data(p.leaves[i]);
    const DispatchDevice device = gen::leaf_device(p.leaves[i]);
    std::optional<Tensor> h;
    std::optional<DispatchTensor> l;
    const og::Outcome ho = og::outcome_of([&] { h = Tensor::from_data(data, device); });
    const og::Outcome lo = og::outcome_of([&] { l = Dispatch::float_from_data(data, device); });
    require_same_outcome("from_data of leaf " + std::to_string(i), ho, {}, lo, {});
    if (!ho.ok()) continue;
    high.push_back(*h);
    low.push_back(*l);
    if (!(h->device() == Dispatch::float_device(*l))) RC_FAIL("device() of leaf " + std::to_string(i) + " differs");
    require_same_tensor("leaf " + std::to_string(i), h->dispatch(), dispatch_of(high), *l, low);
    if (!(h->into_data() == Dispatch::float_into_data(*l))) RC_FAIL("into_data() of leaf " + std::to_string(i) + " differs");
  }
  RC_PRE(!low.empty());

  std::size_t ok_steps = 0, max_rank = 0;
  for (const DispatchTensor& t : low) max_rank = std::max(max_rank, Dispatch::float_shape(t).rank());
  for (const Step& s : p.steps) {
    std::ostringstream what;
    what << "v" << low.size() << " = " << s;
    const std::size_t a = s.lhs % low.size(), b = s.rhs % low.size();
    const Resolved r = resolve(s, low[a]);
    std::optional<Tensor> h;
    std::optional<DispatchTensor> l;
    const og::Outcome ho = og::outcome_of([&] { h = run_high(s, r, high[a], high[b]); });
    const og::Outcome lo = og::outcome_of([&] { l = run_low(s, r, low[a], low[b]); });
    require_same_outcome(what.str(), ho, dispatch_of(high), lo, low);
    if (!ho.ok()) continue;
    high.push_back(*h);
    low.push_back(*l);
    require_same_tensor(what.str(), h->dispatch(), dispatch_of(high), *l, low);
    ++ok_steps;
    if (!(h->device() == Dispatch::float_device(*l))) RC_FAIL(what.str() + ": device() differs");
    if (!(h->into_data() == Dispatch::float_into_data(*l))) RC_FAIL(what.str() + ": into_data() differs");
  }

  RC_CLASSIFY(ok_steps >= 3, "3+ steps ran");
  RC_CLASSIFY(max_rank >= 3, "a leaf of rank 3-4");
  RC_CLASSIFY(low.back().kind.is_autodiff(), "tracked root");
  // backward from the last value, then every value's gradient, then one grad_replace.
  std::optional<Gradients> hg, lg;
  const og::Outcome hb = og::outcome_of([&] { hg = high.back().backward(); });
  const og::Outcome lb = og::outcome_of([&] { lg = Dispatch::backward(low.back()); });
  require_same_outcome("backward", hb, dispatch_of(high), lb, low);
  if (!hb.ok()) return;
  if (hg->size() != lg->size()) RC_FAIL("backward: " + std::to_string(hg->size()) + " vs " + std::to_string(lg->size()) + " entries");

  const auto same_grads = [&](const std::string& when) {
    for (std::size_t i = 0; i < low.size(); ++i) {
      std::optional<std::optional<Tensor>> hv;
      std::optional<std::optional<DispatchTensor>> lv;
      const og::Outcome ho = og::outcome_of([&] { hv = high[i].grad(*hg); });
      const og::Outcome lo = og::outcome_of([&] { lv = Dispatch::grad(low[i], *lg); });
      const std::string what = when + "grad(v" + std::to_string(i) + ")";
      require_same_outcome(what, ho, dispatch_of(high), lo, low);
      if (!ho.ok()) continue;
      if (hv->has_value() != lv->has_value()) RC_FAIL(what + ": present in one run only");
      if (hv->has_value()) require_same_tensor(what, (**hv).dispatch(), dispatch_of(high), **lv, low);
    }
  };
  same_grads("");

  const std::size_t j = p.replace_value % low.size();
  std::optional<DispatchTensor> g;
  if (!og::outcome_of([&] { g = Dispatch::float_from_data(gen::leaf_data(p.replacement), gen::leaf_device(p.replacement)); }).ok()) return;
  const og::Outcome hr = og::outcome_of([&] { high[j].grad_replace(*hg, Tensor(*g)); });
  const og::Outcome lr = og::outcome_of([&] { Dispatch::grad_replace(low[j], *lg, *g); });
  require_same_outcome("grad_replace(v" + std::to_string(j) + ")", hr, dispatch_of(high), lr, low);
  same_grads("after grad_replace: ");
  RC_CLASSIFY(hr.ok(), "replaced");
}
