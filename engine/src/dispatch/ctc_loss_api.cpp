// Note [CTC loss as a composition]
// Burn's ModuleOps::ctc_loss has a default body (ctc::ctc_loss_default) made of tensor ops, and
// burn-dispatch keeps has_ctc_loss_backward false so that Autodiff differentiates that body. Here
// the same: the alpha recursion of Graves et al. (2006) in log space, one step per time step, of
// registry ops (gather, slice, cat, mask_where, exp, log1p, ...), so every backend runs it with its
// own kernels and a tracked log_probs gets its gradient from those ops' backward rules. The
// checks and the index and mask tensors come from the host (core/ctc_rules.hpp): the int operands
// are read once, so no unchecked label reaches a gather.
//
// Two places differ from Burn's body, both for the gradient:
// - log_add(x, y) is max + log1p(exp(min - max)) with the min and max picked by one comparison, so
//   a tie x == y gives each side half the gradient; Burn's max + log1p(exp(-|x - y|)) gives one
//   side all of it there (abs' derivative at 0 is 0), which is wrong wherever two paths have equal
//   probability (a uniform log_probs).
// - a sample with no alignment (+inf loss) gets a zero gradient, as Burn's closed-form backward
//   gives it, instead of the path-dependent numbers the recursion's masks would leave.
#include "dispatch/dispatch_arms.hpp"

#include <crossgrad/core/ctc_rules.hpp>
#include <crossgrad/core/shape_rules.hpp>
#include <crossgrad/dispatch/dispatch.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace crossgrad {
using namespace dispatch_detail;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Kinds and backends first (op-kind-mismatch, op-backend-mismatch), then the shapes and the blank,
// then the values: the plan.
rules::CtcPlan checked_plan(std::string_view op, const DispatchTensor& log_probs, const DispatchTensor& targets,
                            const DispatchTensor& input_lengths, const DispatchTensor& target_lengths, std::size_t blank) {
  const FloatView v = receiver_view<PrimitiveKind::Float>(op, log_probs);
  for (const DispatchTensor* t : {&targets, &input_lengths, &target_lengths}) {
    const std::optional<FloatView> vi = primitive_view(t->kind, PrimitiveKind::Int);
    if (!vi) kind_mismatch(op, primitive_kind_name(PrimitiveKind::Int), t->kind);
    check_same_backend(op, log_probs, v, *t, *vi);
  }
  const Shape lp_shape = Dispatch::float_shape(log_probs);
  const Shape targets_shape = Dispatch::int_shape(targets);
  rules::check_ctc_shapes(op, lp_shape, targets_shape, Dispatch::int_shape(input_lengths), Dispatch::int_shape(target_lengths),
                          blank);
  const std::vector<std::int64_t> tg = Dispatch::int_into_data(targets).to_i64();
  const std::vector<std::int64_t> il = Dispatch::int_into_data(input_lengths).to_i64();
  const std::vector<std::int64_t> tl = Dispatch::int_into_data(target_lengths).to_i64();
  return rules::plan_ctc_loss(op, lp_shape, targets_shape, blank, tg, il, tl);
}

// log(exp(x) + exp(y)), element by element; -inf where both are -inf, with no NaN on the way (an
// -inf minimum is taken out of the subtraction, whose gradient is then masked to 0).
DispatchTensor log_add(const DispatchTensor& x, const DispatchTensor& y) {
  const DispatchTensor x_below = Dispatch::float_lower(x, y);
  const DispatchTensor hi = Dispatch::float_mask_where(x, x_below, y);
  const DispatchTensor lo = Dispatch::float_mask_where(y, x_below, x);
  const DispatchTensor lo_is_neg_inf = Dispatch::float_equal_elem(lo, -kInf);
  const DispatchTensor gap = Dispatch::float_sub(Dispatch::float_mask_fill(lo, lo_is_neg_inf, 0.0),
                                                 Dispatch::float_mask_fill(hi, lo_is_neg_inf, 0.0));
  const DispatchTensor safe_gap = Dispatch::float_mask_fill(gap, lo_is_neg_inf, -kInf);
  return Dispatch::float_add(hi, Dispatch::float_log1p(Dispatch::float_exp(safe_gap)));
}

DispatchTensor bools(const std::vector<bool>& values, const Shape& shape, const DispatchDevice& device) {
  return Dispatch::bool_from_data(TensorData::from_bool(values, shape), device);
}

// x[:, 0 .. cols - shift] behind `shift` columns of -inf: alpha[s - shift] at column s.
DispatchTensor shifted(const DispatchTensor& alpha, std::size_t shift, const DispatchTensor& neg_inf_column, std::size_t rows,
                       std::size_t cols) {
  if (cols <= shift) return Dispatch::float_slice(neg_inf_column, {Range{0, rows}, Range{0, cols}});
  std::vector<DispatchTensor> parts;
  parts.push_back(Dispatch::float_slice(neg_inf_column, {Range{0, rows}, Range{0, shift}}));
  parts.push_back(Dispatch::float_slice(alpha, {Range{0, rows}, Range{0, cols - shift}}));
  return Dispatch::float_cat(parts, 1);
}

DispatchTensor composed_ctc_loss(const DispatchTensor& log_probs, const rules::CtcPlan& p, std::size_t blank) {
  const DispatchDevice device = Dispatch::float_device(log_probs);
  const DType dtype = Dispatch::float_dtype(log_probs);
  const std::size_t N = p.batch, L = p.extended_length();
  const Shape row_shape{N, L};
  const auto at = [&](std::size_t n, std::size_t s) { return p.extended[n * L + s]; };
  const auto live = [&](std::size_t n, std::size_t s) { return s < 2 * static_cast<std::size_t>(p.target_lengths[n]) + 1; };

  // log_probs[t, n, l'[n, s]] for every step at once: [time, batch, L].
  std::vector<std::int64_t> gather_index(p.time * N * L);
  for (std::size_t t = 0; t < p.time; ++t) std::copy(p.extended.begin(), p.extended.end(), gather_index.begin() + t * N * L);
  const DispatchTensor emissions = Dispatch::float_gather(
      log_probs, 2, Dispatch::int_from_data(TensorData::from_i64(std::move(gather_index), Shape{p.time, N, L}), device));
  const auto emission = [&](std::size_t t) {
    return Dispatch::float_reshape(Dispatch::float_slice(emissions, {Range{t, t + 1}, Range{0, N}, Range{0, L}}), row_shape);
  };

  const DispatchTensor neg_inf = Dispatch::float_full(row_shape, -kInf, device, dtype);
  const DispatchTensor neg_inf_columns = Dispatch::float_full(Shape{N, 2}, -kInf, device, dtype);
  std::vector<bool> start(N * L), skip(N * L);
  std::int64_t steps = 0;
  for (std::size_t n = 0; n < N; ++n) {
    steps = std::max(steps, p.input_lengths[n]);
    for (std::size_t s = 0; s < L; ++s) {
      start[n * L + s] = s < 2 && live(n, s) && p.input_lengths[n] > 0;
      // The skip from s - 2: a label that differs from the label before the blank between them.
      skip[n * L + s] = s >= 2 && at(n, s) != static_cast<std::int64_t>(blank) && at(n, s) != at(n, s - 2);
    }
  }
  DispatchTensor alpha = steps > 0 ? Dispatch::float_mask_where(neg_inf, bools(start, row_shape, device), emission(0)) : neg_inf;
  const DispatchTensor skip_mask = bools(skip, row_shape, device);
  for (std::size_t t = 1; t < static_cast<std::size_t>(steps); ++t) {
    std::vector<bool> active(N * L);
    for (std::size_t n = 0; n < N; ++n) {
      for (std::size_t s = 0; s < L; ++s) active[n * L + s] = static_cast<std::int64_t>(t) < p.input_lengths[n] && live(n, s);
    }
    const DispatchTensor stay_or_advance = log_add(alpha, shifted(alpha, 1, neg_inf_columns, N, L));
    const DispatchTensor with_skip = log_add(stay_or_advance, shifted(alpha, 2, neg_inf_columns, N, L));
    const DispatchTensor reached = Dispatch::float_mask_where(stay_or_advance, skip_mask, with_skip);
    // A sample whose input has ended keeps its last row: alpha at t = input_length - 1.
    alpha = Dispatch::float_mask_where(alpha, bools(active, row_shape, device), Dispatch::float_add(reached, emission(t)));
  }

  // The alignment ends on the last blank (s = 2 target_length) or the last label (s - 1).
  std::vector<std::int64_t> last_blank(N), last_label(N);
  std::vector<bool> no_label(N), empty_and_empty(N);
  for (std::size_t n = 0; n < N; ++n) {
    last_blank[n] = 2 * p.target_lengths[n];
    last_label[n] = std::max<std::int64_t>(2 * p.target_lengths[n] - 1, 0);
    no_label[n] = p.target_lengths[n] == 0;
    empty_and_empty[n] = p.input_lengths[n] == 0 && p.target_lengths[n] == 0;
  }
  const auto pick = [&](std::vector<std::int64_t> columns) {
    return Dispatch::float_gather(alpha, 1, Dispatch::int_from_data(TensorData::from_i64(std::move(columns), Shape{N, 1}), device));
  };
  const DispatchTensor end_label = Dispatch::float_mask_fill(pick(last_label), bools(no_label, Shape{N, 1}, device), -kInf);
  const DispatchTensor loss = Dispatch::float_reshape(Dispatch::float_neg(log_add(pick(last_blank), end_label)), Shape{N});
  // No alignment: +inf with a zero gradient. An empty input for an empty target: probability 1.
  const DispatchTensor unreachable = Dispatch::float_equal_elem(loss, kInf);
  return Dispatch::float_mask_fill(Dispatch::float_mask_fill(loss, unreachable, kInf), bools(empty_and_empty, Shape{N}, device), 0.0);
}

}  // namespace

DispatchTensor Dispatch::ctc_loss(const DispatchTensor& log_probs, const DispatchTensor& targets, const DispatchTensor& input_lengths,
                                  const DispatchTensor& target_lengths, std::size_t blank) {
  const rules::CtcPlan plan = checked_plan("ctc_loss", log_probs, targets, input_lengths, target_lengths, blank);
  return composed_ctc_loss(log_probs, plan, blank);
}

bool Dispatch::has_ctc_loss_backward() { return false; }

DispatchTensor Dispatch::ctc_loss_backward(const DispatchTensor& log_probs, const DispatchTensor& targets,
                                           const DispatchTensor& input_lengths, const DispatchTensor& target_lengths,
                                           const DispatchTensor& grad_loss, std::size_t blank) {
  constexpr std::string_view op = "ctc_loss_backward";
  const rules::CtcPlan plan = checked_plan(op, log_probs, targets, input_lengths, target_lengths, blank);
  const FloatView v = receiver_view<PrimitiveKind::Float>(op, log_probs);
  check_same_backend(op, log_probs, v, grad_loss, receiver_view<PrimitiveKind::Float>(op, grad_loss));
  rules::check_same_dtype(float_dtype(log_probs), float_dtype(grad_loss), op);
  if (float_shape(grad_loss) != Shape{plan.batch}) {
    panic(PanicId::PoolGradShape, {{"op", std::string(op)}, {"expected", Shape{plan.batch}.to_string()},
                                   {"got", float_shape(grad_loss).to_string()}});
  }
  if (v.tracked) panic(PanicId::NotDifferentiable, {{"op", std::string(op)}});
  // The backward pass through the composition, on Autodiff of log_probs' own backend.
  const DispatchTensor leaf = from_inner(log_probs);
  const DispatchTensor loss = composed_ctc_loss(leaf, plan, blank);
  const Gradients grads = backward(float_sum(float_mul(loss, from_inner(grad_loss))));
  std::optional<DispatchTensor> g = grad(leaf, grads);
  return g ? *g : float_zeros(float_shape(log_probs), float_device(log_probs), float_dtype(log_probs));
}

}  // namespace crossgrad
