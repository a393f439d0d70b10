#pragma once
// Numeric references: per-op, per-dtype error bounds against the reference backend, value
// comparison with NaN/inf/±0 rules, central finite differences in F64 on a bounded sample of
// elements, and a record of how tight each bound turned out to be.
#include <crossgrad/oracle/graph.hpp>

#include <crossgrad/core/tensor_data.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace crossgrad::oracle {

// Finite values: |actual - reference| <= abs + rel * |reference|; `exact` means equal values
// (±0 equal). Non-finite values always compare as classes: a NaN reference needs a NaN, an
// infinite one the same-sign infinity, a finite one a finite value; the one exception is
// `overflow_may_change_class` (see bound_for).
struct Bound {
  double abs = 0;
  double rel = 0;
  bool exact = true;
  // An accumulation whose finite terms can overflow (n * max|term| beyond the dtype's largest
  // finite value): whether a partial sum overflows, and so inf vs finite vs NaN, then depends on
  // the summation order, which backends may choose. Only then may the classes differ.
  bool overflow_may_change_class = false;
  // Gradients of a graph whose forward reaches a non-finite value (log at 0, x / 0, ...) or a point
  // where a finite op has an infinite partial (sqrt or x^p with p < 1 at 0): backward multiplies an infinite
  // partial by a factor that is 0 or a rounding residue depending on the summation order (sum of a
  // softmax row: 1 - 1 is 0 on one backend, 1e-8 on another), so NaN and +-inf may trade places.
  // Non-finite still needs non-finite; only which non-finite class may differ.
  bool singular_may_change_class = false;
  // Gradients through a divisor known to no better than its own size (Conditioning::gradient_rel
  // >= 1): one backend may compute it as exactly 0 and another as a tiny finite value, so any
  // class may meet any other; the numbers are not compared either (abs is the largest double).
  // Also a graph value computed from an operand that may reach its op's pole or domain edge
  // (Conditioning::may_change_class): there only the classes go uncompared.
  bool divisor_may_reach_zero = false;
};
double epsilon_of(DType dtype);
double largest_finite_of(DType dtype);
// reduction_length: elements summed per output (matmul: k); magnitude: the largest |input| among
// the finite inputs (matmul: product of the operands' largest finite magnitudes). A non-finite
// input does not widen the bound: an output it reaches is non-finite and compared as a class.
Bound bound_for(Op op, DType dtype, std::size_t reduction_length, double magnitude);
// The bound of `op` applied to these operands (rhs ignored by unary ops): bound_for with the
// reduction length of lhs's shape and the magnitude of their finite values.
Bound bound_for_inputs(const OpSpec& op, DType dtype, const TensorData& lhs, const TensorData& rhs);
// bound_for, then widened where an op's bound depends on more of its receiver's values than their
// magnitude (float_cumprod: the range its partial products can reach). Every check that judges
// one op's values calls this one.
Bound bound_for_receiver(Op op, DType dtype, std::size_t reduction_length, double magnitude,
                         const std::vector<double>& receiver);
// A graph: the bound of its loosest op, scaled by its depth.
Bound bound_for_graph(const GraphSpec& normalized_graph, DType dtype);
// bound_for_graph with its absolute part scaled by the largest finite |value| of `reference` (at
// least 1): values of a graph compared against a reference run of it.
Bound scaled_graph_bound(const GraphSpec& normalized_graph, const TensorData& reference);

// Ops whose partial derivative is infinite at 0 while their value there is finite (sqrt, x^p for
// p < 1). log at 0, log1p at -1 and x / 0 need no rule of their own: their value is non-finite.
bool infinite_partial_at_zero(const OpSpec& op);
// The other points where an op's partial derivative is infinite while its value is finite: acos
// and asin at +-1, acosh at 1 (atanh's +-1 give +-inf values, non-finite already).
std::vector<double> infinite_partial_at(const OpSpec& op);
// The height of a step op's jumps (round, floor, ceil, trunc: 1; sign: 2), 0 for every other op.
double step_jump(Op op);

// What a graph's forward rounding does to comparisons of its values and gradients against a
// reference run (Note [Conditioning of a graph] in numeric.cpp), estimated from the reference
// run's values (leaves first, then one per op).
struct Conditioning {
  // Per value: the absolute error any backend's elements may carry from the roundings of the
  // value and of everything it is computed from (infinite: not comparable as numbers).
  std::vector<double> value_error;
  // The relative error gradients may carry because backward formulas divide by values known only
  // to within value_error (>= 1: gradients not comparable as numbers).
  double gradient_rel = 0;
  // The forward holds a non-finite value or feeds an op at a point where its partial is infinite:
  // Bound::singular_may_change_class for the gradients.
  bool singular = false;
  // Per value: computed, at some step, from an operand known to no better than its distance to
  // the op's pole or domain edge (a divisor, log's or sqrt's argument, log1p's at -1, x^p's base
  // for p < 1 or not an integer): one backend may land on the other side, so the value's class (finite, inf,
  // NaN) may differ between correct backends. Bound::divisor_may_reach_zero for the value.
  std::vector<bool> may_change_class;
  // Some op the root reads has such an operand (a value that may_change_class starts from, other
  // than remainder's inexact operands): the graph's function itself is not known to within
  // rounding there, so neither are its slopes (judge_graph_finite_differences does not judge it).
  bool pole_within_error = false;
  // Per leaf: a bound on the terms backward sums into the leaf's gradient (the products of the
  // ops' largest partials along every path from the root, rounding_gain in numeric.cpp; the same
  // estimate as FdPoint::backward_rounding's). Two correct runs may sum those terms in different
  // orders (a hop, another backend's kernels), and their gradients then differ by a few eps times
  // the terms, however small the gradient: atan2(x, x) at x = 1e-30 has partials +-5e29 that
  // cancel, and adding -1 before or after they cancel gives 0 or -1.
  std::vector<double> backward_terms;
};
Conditioning conditioning_of(const GraphSpec& normalized_graph, const std::vector<TensorData>& values);
// Value `value` of a graph run against the reference run: scaled_graph_bound plus twice the
// value's error estimate.
Bound graph_value_bound(const GraphSpec& normalized_graph, const TensorData& reference, const Conditioning& c,
                        std::size_t value);
// Leaf `leaf`'s gradient against the reference gradient: scaled_graph_bound widened by
// gradient_rel and by the rounding of the terms backward sums into that leaf (backward_terms),
// with singular_may_change_class from the forward.
Bound graph_gradient_bound(const GraphSpec& normalized_graph, const TensorData& reference_gradient,
                           const Conditioning& c, std::size_t leaf);

// `tightness_key` (optional): the row of the bound-tightness record this comparison counts in.
std::optional<std::string> compare_values(const TensorData& reference, const TensorData& actual,
                                          const Bound& bound, std::string_view what,
                                          std::string_view tightness_key = {});
// compare_values without the "what: " prefix: nullopt, or what differs.
std::optional<std::string> value_mismatch(const TensorData& reference, const TensorData& actual, const Bound& bound,
                                          std::string_view tightness_key = {});
// compare_values with the name built by make_what() only when the values differ (a name costs
// more than comparing a few elements).
template <class MakeWhat>
  requires std::is_invocable_r_v<std::string, MakeWhat&>
std::optional<std::string> compare_values(const TensorData& reference, const TensorData& actual, const Bound& bound,
                                          MakeWhat&& make_what, std::string_view tightness_key = {}) {
  std::optional<std::string> diff = value_mismatch(reference, actual, bound, tightness_key);
  if (diff) return make_what() + ": " + *diff;
  return diff;
}

// Bound tightness, per (check, dtype), over this process: the largest |error| / allowed error
// seen among finite comparisons with a finite, non-zero allowance. A bound far above what is
// ever seen lets real bugs through, so the property run prints this table.
struct Tightness {
  std::size_t compared = 0;   // finite element comparisons counted
  double max_ratio = 0;       // largest |error| / allowed
  double max_error = 0;       // largest |error|
  double allowed_at_max = 0;  // the allowance of the element with the largest ratio
};
using TightnessTable = std::map<std::pair<std::string, std::string>, Tightness>;  // (check, dtype)
void record_tightness(std::string_view check, DType dtype, double error, double allowed);
TightnessTable tightness_table();
std::string render_tightness_table(const TightnessTable& table);

// f(leaf values) = sum of the root's elements, computed in F64 on the reference backend.
double graph_objective_f64(const GraphSpec& normalized_graph, const std::vector<std::vector<double>>& leaves);

// Finite differences cost 4 graph evaluations per element; a fuzzer must finish a scenario of
// 3 leaves x 1296 elements and 16 ops under ASan well inside its time limit (one evaluation of
// such a graph takes ~8 ms there), so only a bounded sample of elements is differentiated: at most
// max_points, and fewer when the graph is large, so that all evaluations together stay within
// max_work element operations (fd_work_per_evaluation), but never fewer than one per used leaf.
// The sample is drawn from the graph spec itself (a hash of it seeds the choice), so a scenario
// gets the same sample, and the same verdict, on every machine.
struct FdBudget {
  std::size_t max_points = 24;     // property graphs (<= 24 elements per leaf) stay below this
  std::size_t max_work = 1'400'000;  // the decoder's largest graphs (~57,000 per evaluation): 6 points
  double step = 1e-5;              // h = step * max(1, |x|)
};
// Element operations of one evaluation: every leaf element, and every op's output elements times
// the elements summed into each (matmul: k).
std::size_t fd_work_per_evaluation(const GraphSpec& normalized_graph);
// How many elements finite_differences samples under `budget`.
std::size_t fd_points_for(const GraphSpec& normalized_graph, const FdBudget& budget);
// One sampled element: central differences at h and h/2, and the one-sided slopes at h/2.
struct FdPoint {
  std::size_t leaf = 0;
  std::size_t index = 0;
  double d_h = 0;            // (f(x+h) - f(x-h)) / 2h
  double d_half = 0;         // the same at h/2
  double forward = 0;        // (f(x+h/2) - f(x)) / (h/2)
  double backward = 0;       // (f(x) - f(x-h/2)) / (h/2)
  double forward_h = 0;      // (f(x+h) - f(x)) / h
  double backward_h = 0;     // (f(x) - f(x-h)) / h
  double resolution = 0;     // the smallest slope the rounding of f lets these differences see
  // The rounding backward itself may show at this leaf: eps times a bound on the terms it sums
  // (products of the ops' largest partials along every path). v0 / v0 at v0 = 1e-30: backward
  // adds 1 / b = 1e30 and -a / b^2 = -1e30, exact sum 0, computed 2^48 (found by a 10-minute
  // ops_differential_fuzzer run); a wrong rule is off by O(1) of the slope however small this is.
  double backward_rounding = 0;
  double objective = 0;      // f(x), for messages (tolerances never depend on it)
  double richardson() const { return (4 * d_half - d_h) / 3; }
};
struct FiniteDifferences {
  std::vector<FdPoint> points;       // in (leaf, index) order
  std::size_t evaluations = 0;       // graph evaluations spent
};
// Samples the leaves the root uses (every element when they hold at most max_points, else at
// least one per used leaf and the rest drawn deterministically) and differentiates each.
FiniteDifferences finite_differences(const GraphSpec& normalized_graph, const FdBudget& budget = {});
FiniteDifferences finite_differences(const NormalizedGraph& graph, const FdBudget& budget = {});
// The same from `at_x`, run_graph(graph, reference_backend(), F64, untracked): the graph at its own
// leaf values, which a caller that has already run it passes in.
FiniteDifferences finite_differences(const NormalizedGraph& graph, const GraphRun& at_x, const FdBudget& budget = {});
std::uint64_t spec_hash(const GraphSpec& normalized_graph);

// Which sampled points can judge a gradient, and within what tolerance. A leaf's gradient scale
// is the largest |slope| sampled on it; a point is judged only where its own error estimate
// (|d_h - d_half| + resolution) is at most kConsistency * scale and the one-sided slopes agree
// (no kink within the step). Its tolerance scales with the gradient, never with the objective:
//   tol = kRelative * |slope| + kAbsolute * scale + 4 * error estimate (+ 4 * backward_rounding)
//      <= kRelative * |slope| + (kAbsolute + 4 * kConsistency) * scale (+ 4 * backward_rounding).
// The error estimate is the point's own: the disagreement of two step sizes plus the rounding
// resolution of f. A wrong backward rule is off by far more than 1e-6 of the gradient's scale;
// the factor 4 covers the estimate's own uncertainty (two noisy differences may agree by chance).
struct FdJudgement {
  bool judged = false;
  double slope = 0;
  double tolerance = 0;
  std::string why_not;  // when not judged
};
inline constexpr double kFdConsistency = 1e-6;
inline constexpr double kFdAbsolute = 1e-8;
inline constexpr double kFdRelative = 1e-8;
// The property run sees errors 15x (deep graphs) to ~1000x (single linear ops, whose differences
// are nearly exact) below these tolerances: the error estimate's resolution term assumes every
// root element's rounding reaches f, which the 1296-element graphs of the fuzzer need.
inline constexpr double kFdEstimateFactor = 4;
// An absolute floor. Where f is locally constant with no rounding (log(x / x): every slope and the
// error estimate are 0) backward still leaves a cancellation residual of a few eps times its
// intermediate terms (4.4e-16 there); 1e-10 allows that and stays nine orders of magnitude below
// the O(0.1) errors of a wrong rule. Found by a property run (13k cases) that failed with tol 0.
inline constexpr double kFdFloor = 1e-10;
std::vector<FdJudgement> judge_points(const FiniteDifferences& fd);

}  // namespace crossgrad::oracle
