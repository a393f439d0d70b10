#include <crossgrad/oracle/ctc_reference.hpp>

#include <cmath>
#include <limits>

namespace crossgrad::oracle {
namespace {

using Real = long double;
constexpr Real kNegInf = -std::numeric_limits<Real>::infinity();

Real log_add(Real a, Real b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const Real hi = std::fmax(a, b), lo = std::fmin(a, b);
  return hi + std::log1p(std::exp(lo - hi));
}

}  // namespace

CtcReference ctc_reference(const CtcCase& c) {
  CtcReference r;
  r.loss.assign(c.batch, 0.0);
  r.gradient.assign(c.time * c.batch * c.classes, 0.0);
  const auto lp = [&](std::size_t t, std::size_t n, std::int64_t k) -> Real {
    return c.log_probs[(t * c.batch + n) * c.classes + static_cast<std::size_t>(k)];
  };
  for (std::size_t n = 0; n < c.batch; ++n) {
    const std::size_t T = static_cast<std::size_t>(c.input_lengths[n]);
    const std::size_t S = static_cast<std::size_t>(c.target_lengths[n]);
    // l': blank, y_1, blank, y_2, ..., y_S, blank.
    std::vector<std::int64_t> l(2 * S + 1, static_cast<std::int64_t>(c.blank));
    for (std::size_t j = 0; j < S; ++j) l[2 * j + 1] = c.targets[n * c.max_target + j];
    const std::size_t L = l.size();
    if (T == 0) {
      r.loss[n] = S == 0 ? 0.0 : std::numeric_limits<double>::infinity();
      continue;
    }
    const auto may_skip = [&](std::size_t s) { return s >= 2 && l[s] != static_cast<std::int64_t>(c.blank) && l[s] != l[s - 2]; };
    std::vector<std::vector<Real>> alpha(T, std::vector<Real>(L, kNegInf)), beta(T, std::vector<Real>(L, kNegInf));
    alpha[0][0] = lp(0, n, l[0]);
    if (L > 1) alpha[0][1] = lp(0, n, l[1]);
    for (std::size_t t = 1; t < T; ++t) {
      for (std::size_t s = 0; s < L; ++s) {
        Real a = alpha[t - 1][s];
        if (s >= 1) a = log_add(a, alpha[t - 1][s - 1]);
        if (may_skip(s)) a = log_add(a, alpha[t - 1][s - 2]);
        alpha[t][s] = a == kNegInf ? kNegInf : a + lp(t, n, l[s]);
      }
    }
    beta[T - 1][L - 1] = lp(T - 1, n, l[L - 1]);
    if (L > 1) beta[T - 1][L - 2] = lp(T - 1, n, l[L - 2]);
    for (std::size_t t = T - 1; t-- > 0;) {
      for (std::size_t s = 0; s < L; ++s) {
        Real b = beta[t + 1][s];
        if (s + 1 < L) b = log_add(b, beta[t + 1][s + 1]);
        if (s + 2 < L && may_skip(s + 2)) b = log_add(b, beta[t + 1][s + 2]);
        beta[t][s] = b == kNegInf ? kNegInf : b + lp(t, n, l[s]);
      }
    }
    const Real log_p = L > 1 ? log_add(alpha[T - 1][L - 1], alpha[T - 1][L - 2]) : alpha[T - 1][L - 1];
    r.loss[n] = static_cast<double>(-log_p);
    if (log_p == kNegInf) continue;
    // d(-log P)/d lp[t, k] = -(1/P) sum over s with l'[s] = k of alpha_t(s) beta_t(s) / y_t(k), where
    // alpha and beta both hold y_t(l'[s]): in logs, alpha + beta - lp.
    for (std::size_t t = 0; t < T; ++t) {
      std::vector<Real> mass(c.classes, kNegInf);
      for (std::size_t s = 0; s < L; ++s) {
        if (alpha[t][s] == kNegInf || beta[t][s] == kNegInf) continue;
        const auto k = static_cast<std::size_t>(l[s]);
        mass[k] = log_add(mass[k], alpha[t][s] + beta[t][s] - lp(t, n, l[s]));
      }
      for (std::size_t k = 0; k < c.classes; ++k) {
        if (mass[k] == kNegInf) continue;
        r.gradient[(t * c.batch + n) * c.classes + k] = static_cast<double>(-std::exp(mass[k] - log_p));
      }
    }
  }
  return r;
}

std::optional<std::string> ctc_loss_panic(const CtcOperands& o) {
  const auto& lp = o.log_probs_shape;
  if (lp.size() != 3 || o.targets_shape.size() != 2 || o.input_lengths_shape.size() != 1 || o.target_lengths_shape.size() != 1 ||
      o.targets_shape[0] != lp[1] || o.input_lengths_shape[0] != lp[1] || o.target_lengths_shape[0] != lp[1])
    return "ctc-shape";
  if (o.blank >= lp[2]) return "ctc-blank";
  const auto within = [](std::int64_t v, std::size_t max) { return v >= 0 && static_cast<std::uint64_t>(v) <= max; };
  for (std::int64_t v : o.input_lengths)
    if (!within(v, lp[0])) return "ctc-length";
  for (std::int64_t v : o.target_lengths)
    if (!within(v, o.targets_shape[1])) return "ctc-length";
  for (std::size_t n = 0; n < lp[1]; ++n) {
    for (std::int64_t j = 0; j < o.target_lengths[n]; ++j) {
      const std::int64_t label = o.targets[n * o.targets_shape[1] + static_cast<std::size_t>(j)];
      if (label < 0 || static_cast<std::uint64_t>(label) >= lp[2] || static_cast<std::uint64_t>(label) == o.blank)
        return "ctc-target-label";
    }
  }
  return std::nullopt;
}

}  // namespace crossgrad::oracle
