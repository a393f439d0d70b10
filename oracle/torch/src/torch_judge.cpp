#include <crossgrad/oracle/numeric.hpp>
#include <crossgrad/oracle/pytorch_differences.hpp>
#include <crossgrad/oracle/render.hpp>
#include <crossgrad/oracle/spec.hpp>
#include <crossgrad/oracle/torch_judge.hpp>
#include <crossgrad/oracle/torch_reference.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <optional>
#include <limits>
#include <sstream>

namespace crossgrad::oracle {
namespace {

std::string show(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}
std::string show(const HostArray& h) {
  std::string s = render_dtype(h.dtype) + render_shape(h.shape) + " [";
  for (std::size_t i = 0; i < h.values.size(); ++i) s += (i ? ", " : "") + show(h.values[i]);
  return s + "]";
}

bool same_bits(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y);
}

// Within the oracle's bound for the op: classes equal for non-finite values (or allowed to change
// by the bound's flags), finite ones within abs + rel * |torch|; exact ops bit for bit.
bool agrees(double mine, double theirs, const Bound& b) {
  if (b.exact) return same_bits(mine, theirs);
  if (std::isnan(mine) || std::isnan(theirs) || std::isinf(mine) || std::isinf(theirs)) {
    if (b.overflow_may_change_class && (!std::isfinite(mine) || !std::isfinite(theirs))) return true;
    return same_bits(mine, theirs) || (std::isnan(mine) && std::isnan(theirs));
  }
  return std::fabs(mine - theirs) <= b.abs + b.rel * std::fabs(theirs);
}

double largest_finite(const HostArray& h) {
  double m = 0;
  for (double v : h.values) if (std::isfinite(v)) m = std::fmax(m, std::fabs(v));
  return m;
}

// An upper bound on |d result / d operand| over the elements, for the terms a broadcast
// operand's gradient sums (their sum may cancel, so the summed gradient's size says nothing):
// 1 (add, sub), the other operand (mul), 1 / |b| and |y| / |b| (div), else the operands and result.
// The largest product of max(1, |x|) over the finite elements of a lane along dim (every element
// for float_prod): no product of a lane's elements with some left out is larger, so it bounds
// prod's and cumprod's partials even where the lane's own product is 0 (a zero in the lane:
// cumprod's gradient at the zero sums products of the elements after it, which can cancel).
double largest_lane_product(const HostArray& x, std::optional<std::size_t> dim) {
  std::size_t outer = 1, len = x.values.size(), inner = 1;
  if (dim && *dim < x.shape.size()) {
    outer = 1;
    for (std::size_t d = 0; d < *dim; ++d) outer *= x.shape[d];
    len = x.shape[*dim];
    inner = 1;
    for (std::size_t d = *dim + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
  }
  double best = 1;
  for (std::size_t a = 0; a < outer; ++a) {
    for (std::size_t b = 0; b < inner; ++b) {
      double p = 1;
      for (std::size_t r = 0; r < len; ++r) {
        const double v = x.values[(a * len + r) * inner + b];
        if (std::isfinite(v)) p *= std::max(1.0, std::fabs(v));
      }
      best = std::max(best, p);
    }
  }
  return best;
}

double largest_partial(OpId op, const std::vector<HostArray>& operands, const OpArgs& args, const HostArray& value) {
  double m = std::max(1.0, largest_finite(value));
  for (const HostArray& h : operands) m = std::max(m, largest_finite(h));
  if (!operands.empty() && op == OpId::float_prod) m = std::max(m, largest_lane_product(operands[0], std::nullopt));
  if (!operands.empty() && (op == OpId::float_cumprod || op == OpId::float_prod_dim)) {
    m = std::max(m, largest_lane_product(operands[0], args.dim));
  }
  if (op == OpId::float_div && operands.size() == 2) {
    double smallest = std::numeric_limits<double>::infinity();
    for (double b : operands[1].values) if (b != 0 && std::isfinite(b)) smallest = std::min(smallest, std::fabs(b));
    if (std::isfinite(smallest)) m *= std::max(1.0, 1 / smallest);
  }
  return m;
}

struct Judged {
  OpId op;
  const std::vector<HostArray>& operands;
  const OpArgs& args;
  TorchTally& tally;
};

std::optional<std::string> compare(const Judged& j, int output, const std::vector<double>& mine, const HostArray& theirs,
                                   const HostArray* cotangent, const Bound& bound) {
  const std::string what = output < 0 ? std::string("value") : "gradient of operand " + std::to_string(output);
  if (mine.size() != theirs.values.size()) {
    return what + ": " + std::to_string(mine.size()) + " elements, PyTorch " + show(theirs);
  }
  for (std::size_t i = 0; i < mine.size(); ++i) {
    ++j.tally.elements;
    if (agrees(mine[i], theirs.values[i], bound)) continue;
    const double cot = cotangent && output >= 0 && i < cotangent->values.size() ? cotangent->values[i] : 0.0;
    const Disagreement d{j.op, j.operands, j.args, output, i, cot, mine[i], theirs.values[i]};
    const std::string_view id = documented_difference(d);
    if (!id.empty()) {
      ++j.tally.excused[std::string(id)];
      continue;
    }
    return what + " element " + std::to_string(i) + ": crossgrad " + show(mine[i]) + ", PyTorch " +
           show(theirs.values[i]) + (bound.exact ? " (exact op: bit for bit)" : "") + "\n  crossgrad " +
           show(HostArray{theirs.shape, theirs.dtype, mine}) + "\n  PyTorch   " + show(theirs);
  }
  return std::nullopt;
}

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

HostArray torch_cotangent(const HostArray& value, std::uint64_t seed) {
  static constexpr double kPowers[] = {1.0, -1.0, 0.5, 2.0, -0.25};
  HostArray c{value.shape, value.dtype, {}};
  c.values.reserve(value.values.size());
  for (std::size_t i = 0; i < value.values.size(); ++i) c.values.push_back(kPowers[splitmix(seed) % std::size(kPowers)]);
  return c;
}

std::optional<std::string> judge_against_torch(OpId op, const std::vector<HostArray>& operands, const OpArgs& args,
                                               bool non_contiguous, std::uint64_t cotangent_seed,
                                               const std::function<EngineAnswer(const HostArray* cotangent)>& run_engine,
                                               TorchTally& tally) {
  const OpInfo& info = op_info(op);
  const bool with_gradients = differentiable(op, args);
  const ReferenceResult ref = reference_op(op, operands, args);
  if (ref.panic_id) {
    ++tally.invalid;
    return std::nullopt;
  }
  ++tally.compared;
  const HostArray cot = torch_cotangent(ref.value, cotangent_seed);
  const TorchResult torch = torch_reference(op, operands, args, with_gradients ? &cot : nullptr, non_contiguous);
  if (torch.error) {
    const Disagreement refused{op, operands, args, kRefused, 0, 0, 0, 0};
    const std::string_view id = documented_difference(refused);
    if (id.empty()) return "PyTorch refused inputs crossgrad accepts: " + *torch.error;
    ++tally.excused[std::string(id)];
    return std::nullopt;
  }
  const EngineAnswer mine = run_engine(with_gradients ? &cot : nullptr);
  const Judged j{op, operands, args, tally};
  const DType dtype = operands.empty() ? DType::F32 : operands[0].dtype;
  const double magnitude = reference_magnitude(op, operands, args);
  Bound bound = bound_for_receiver(op, dtype, reference_reduction_length(op, operands, args), magnitude,
                                   operands.empty() ? std::vector<double>{} : operands[0].values);
  if (info.result != OpKind::Float) bound = Bound{};  // ints and bools: exact
  if (auto failed = compare(j, -1, mine.value, torch.value, nullptr, bound)) return failed;
  if (!with_gradients) return std::nullopt;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    if (k >= torch.gradients.size() || k >= mine.gradients.size() || !torch.gradients[k] || !mine.gradients[k]) continue;
    // A gradient is the op's partial times the cotangent (a power of two: exact), summed over the
    // dims the operand was broadcast along: bit for bit where the value is exact and nothing was
    // summed; otherwise the value's bound with room for one more rounding, plus the bound of a sum
    // of `folded` terms (crossgrad sums in double, ATen in the dtype).
    // interpolate's gradient scatters: a cell sums every output whose taps read it (weights of
    // both signs, which can cancel), the terms interpolate_backward sums.
    std::size_t folded = std::max<std::size_t>(1, element_count(ref.value.shape)) /
                         std::max<std::size_t>(1, element_count(operands[k].shape));
    if (op == OpId::interpolate) folded = std::max(folded, reference_reduction_length(OpId::interpolate_backward, operands, args));
    Bound grad_bound = bound;
    if (!bound.exact || folded > 1) {
      const Bound sum = bound_for(OpId::float_sum, dtype, std::max<std::size_t>(1, folded),
                                  largest_finite(cot) * largest_partial(op, operands, args, ref.value));
      grad_bound.exact = false;
      grad_bound.rel = 2 * bound.rel + sum.rel + 4 * epsilon_of(dtype);
      grad_bound.abs = 2 * bound.abs + sum.abs;
      grad_bound.overflow_may_change_class = bound.overflow_may_change_class || sum.overflow_may_change_class;
    }
    if (auto failed = compare(j, static_cast<int>(k), mine.gradients[k]->values, *torch.gradients[k], &cot, grad_bound))
      return failed;
  }
  return std::nullopt;
}

std::string render_torch_tallies(const std::map<std::string, TorchTally>& tallies, const std::string& summary_prefix) {
  std::string out;
  std::size_t cases = 0, excused = 0, invalid = 0;
  char line[512];
  for (const auto& [op, n] : tallies) {
    std::string ex;
    for (const auto& [id, k] : n.excused) {
      ex += " " + id + "=" + std::to_string(k);
      excused += k;
    }
    std::snprintf(line, sizeof line, "  %-22s %4zu compared, %3zu invalid, %6zu elements;%s\n", op.c_str(), n.compared,
                  n.invalid, n.elements, ex.empty() ? " none excused" : ex.c_str());
    out += line;
    cases += n.compared;
    invalid += n.invalid;
  }
  std::snprintf(line, sizeof line, "%zu ops, %zu cases compared, %zu invalid, %zu elements excused by a documented difference\n",
                tallies.size(), cases, invalid, excused);
  return out + summary_prefix + line;
}

}  // namespace crossgrad::oracle
