#pragma once
// The independent reference for the boundary properties: each element-wise op and its derivative
// computed from <cmath> in long double (x87, 64-bit significand), never by the engine's kernels,
// and the verdict that compares an engine result with it as a class (NaN, same-sign inf, signed
// zero) or within an ulp bound.
//
// IEEE basic operations (+ - * /, sqrt, negation) are required to be correctly rounded, so their
// reference is the same operation in T written here (x86-64 evaluates float in float); F64 sqrt
// uses double sqrt because sqrtl then rounding to double could round twice. Those ops must be
// bit-exact (bound 0 ulp, signs of zero included; NaN payloads are not compared).
#include "gen/boundary_values.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

namespace crossgrad::properties {

using LD = long double;

template <class T>
LD reference_value(gen::EdgeOp op, T x, T y) {
  using gen::EdgeOp;
  const LD X = x;
  switch (op) {
    case EdgeOp::Exp: return std::exp(X);
    case EdgeOp::Log: return std::log(X);
    case EdgeOp::Sqrt:
      if constexpr (std::is_same_v<T, double>) return std::sqrt(x);
      else return static_cast<T>(std::sqrt(X));  // 64 >= 2*24+2 bits: rounding sqrtl to float is innocuous
    case EdgeOp::Tanh: return std::tanh(X);
    case EdgeOp::Sigmoid: return 1.0L / (1.0L + std::exp(-X));
    case EdgeOp::Powf: return std::pow(X, static_cast<LD>(y));
    case EdgeOp::Neg: return -X;
    case EdgeOp::Relu: return x > T(0) || std::isnan(x) ? X : 0.0L;  // relu(-0) = +0 (backend_ops.hpp)
    case EdgeOp::AddScalar:
    case EdgeOp::Add: return static_cast<T>(x + y);
    case EdgeOp::Sub: return static_cast<T>(x - y);
    case EdgeOp::MulScalar:
    case EdgeOp::Mul: return static_cast<T>(x * y);
    case EdgeOp::Div: return static_cast<T>(x / y);
  }
  return std::numeric_limits<LD>::quiet_NaN();
}

// d op(x) / dx where the derivative is the calculus one (y: pow's exponent). pow's derivative
// with exponent 0 is 0 everywhere (x^0 = 1 is constant).
template <class T>
LD reference_derivative(gen::EdgeOp op, T x, T y) {
  using gen::EdgeOp;
  const LD X = x;
  switch (op) {
    case EdgeOp::Exp: return std::exp(X);
    case EdgeOp::Log: return 1.0L / X;
    case EdgeOp::Sqrt: return 0.5L / std::sqrt(X);
    case EdgeOp::Tanh: {
      const LD c = std::cosh(X);
      return 1.0L / (c * c);
    }
    case EdgeOp::Sigmoid: {
      // e^-|x| / (1 + e^-|x|)^2: no cancellation at either end.
      const LD e = std::exp(-std::fabs(X));
      return e / ((1.0L + e) * (1.0L + e));
    }
    case EdgeOp::Powf: return y == T(0) ? 0.0L : static_cast<LD>(y) * std::pow(X, static_cast<LD>(y) - 1.0L);
    case EdgeOp::Neg: return -1.0L;
    case EdgeOp::Relu: return x > T(0) ? 1.0L : 0.0L;  // 0 at the kink and below (backend_ops: mask x > 0)
    case EdgeOp::AddScalar:
    case EdgeOp::MulScalar:
    case EdgeOp::Add:
    case EdgeOp::Sub:
    case EdgeOp::Mul:
    case EdgeOp::Div: break;  // not checked backward here
  }
  return std::numeric_limits<LD>::quiet_NaN();
}

// The accepted error: within `ulps` ulps of the reference (ulp of T at the reference), or within
// `abs` absolutely; `flush`: where the reference is below min_normal, any result of its sign no
// larger than min_normal (subnormal results of a formula evaluated in T keep few bits).
struct UlpBound {
  LD ulps = 0;
  LD abs = 0;
  bool flush = false;
};

// Forward bounds, per op (the same for F32 and F64 unless stated):
//   exact (0 ulp): neg relu add sub mul div add_scalar mul_scalar sqrt — IEEE correctly rounded
//   exp: F32 2 ulp (Flex's vectorised expf, Note [Flex vectorised expf]), F64 1 ulp
//   log 1 ulp; pow 2 ulp; tanh 2 ulp (glibc's tanh/tanhf are within 2)
//   sigmoid 3 ulp (exp, add, divide); no flush: below 0 the engines compute e / (1 + e), which
//     keeps subnormal results (the textbook 1 / (1 + exp(-x)) gave +0 below -ln(max)).
template <class T>
UlpBound forward_bound(gen::EdgeOp op) {
  using gen::EdgeOp;
  if (op == EdgeOp::Exp) return {std::is_same_v<T, float> ? 2.0L : 1.0L, 0, false};
  if (op == EdgeOp::Log) return {1, 0, false};
  if (op == EdgeOp::Powf || op == EdgeOp::Tanh) return {2, 0, false};
  if (op == EdgeOp::Sigmoid) return {3, 0, false};
  return {0, 0, false};  // the IEEE operations
}

// Backward bounds: the engine's rules (autodiff_impl.hpp) evaluate the derivative from the
// forward result in T, so they add a rounding or two: exp g*exp(x) as forward; log g/x 1 ulp;
// sqrt 0.5*g/sqrt(x) 2 ulp; pow p*x^(p-1) 3 ulp. tanh (1 - t^2) and sigmoid s(1 - s) lose all
// relative accuracy where t or s is near 1 (the true derivative is tiny, the computed one 0 or a
// few eps), so they get an absolute 8 eps (2|dt| with |dt| <= 2 ulp(1), plus the roundings)
// beside 4 ulp; neg and relu are exact. Every backward bound has `flush`: a rule that takes
// x^(p-1) or exp(x) in T and then multiplies loses the bits of a subnormal intermediate.
template <class T>
UlpBound backward_bound(gen::EdgeOp op) {
  using gen::EdgeOp;
  const LD eps = std::numeric_limits<T>::epsilon();
  if (op == EdgeOp::Exp) return {forward_bound<T>(op).ulps, 0, true};
  if (op == EdgeOp::Log) return {1, 0, true};
  if (op == EdgeOp::Sqrt) return {2, 0, true};
  if (op == EdgeOp::Powf) return {3, 0, true};
  if (op == EdgeOp::Tanh || op == EdgeOp::Sigmoid) return {4, 8 * eps, true};
  return {0, 0, true};  // neg, relu
}

// Cuda evaluates with precise device math (elementwise.cu: no --use_fast_math); the CUDA Math API
// documents larger maxima for two functions than glibc gives: powf 4 ulp and pow 2 ulp, expf 2 ulp
// (so sigmoid F32 3 + 1). Those backends get these bounds; every other op keeps the bounds above.
// (Not measured here: this machine has no GPU.)
template <class T>
UlpBound device_math_bound(UlpBound b, gen::EdgeOp op, bool backward) {
  using gen::EdgeOp;
  const bool f32 = std::is_same_v<T, float>;
  if (op == EdgeOp::Powf) b.ulps = (f32 ? 4.0L : 2.0L) + (backward ? 1.0L : 0.0L);
  if (op == EdgeOp::Sigmoid && !backward && f32) b.ulps = 4;
  return b;
}

template <class T>
LD ulp_at(LD r) {
  using L = std::numeric_limits<T>;
  LD a = std::fabs(r);
  if (a < static_cast<LD>(L::min())) return L::denorm_min();
  if (a > static_cast<LD>(L::max())) a = L::max();
  return std::ldexp(1.0L, std::ilogb(a) - (L::digits - 1));
}

struct Verdict {
  bool ok = true;
  LD ulps = 0;           // the error in ulps where both are finite and non-zero (for the report)
  bool by_abs = false;   // accepted by `abs` only (the error in ulps is above `ulps`)
  bool flushed = false;  // accepted by `flush` (ulps then says nothing about the bound)
  std::string why;
};

// `actual` against the reference `r`, as classes and then within `b`. `signed_zeros`: the sign of a
// zero result is part of the op's definition (forward results: IEEE / C Annex F); a derivative
// that is zero has no meaningful sign (0 * x^-1 is -0 for x < 0), so backward passes false.
template <class T>
Verdict judge(LD r, T actual, const UlpBound& b, bool signed_zeros = true) {
  using L = std::numeric_limits<T>;
  if (std::isnan(r)) return {std::isnan(actual), 0, false, false, "reference is NaN"};
  if (std::isnan(actual)) return {false, 0, false, false, "NaN where the reference is a number"};
  if (std::isinf(r)) return {actual == static_cast<T>(r), 0, false, false, "reference is an infinity of this sign"};
  if (r == 0) {
    return {actual == T(0) && (!signed_zeros || std::signbit(actual) == std::signbit(r)), 0, false, false,
            signed_zeros ? "reference is a zero of this sign" : "reference is zero"};
  }
  if (std::signbit(actual) != std::signbit(r) && (signed_zeros || actual != T(0))) {
    return {false, 0, false, false, "sign differs from the reference"};
  }
  // A finite reference that rounds to an infinity in T: that infinity is the correctly rounded result.
  if (std::isinf(static_cast<T>(r)) && actual == static_cast<T>(r)) return {};
  // An infinity where the reference is finite counts as the first value past max (2^max_exponent).
  const LD a = std::isinf(actual) ? std::copysign(std::ldexp(1.0L, L::max_exponent), static_cast<LD>(actual))
                                  : static_cast<LD>(actual);
  const LD err = std::fabs(a - r);
  Verdict v{true, err / ulp_at<T>(r), false, false, ""};
  if (v.ulps <= b.ulps) return v;
  if (err <= b.abs) {
    v.by_abs = true;
    return v;
  }
  if (b.flush && std::fabs(r) < static_cast<LD>(L::min()) && std::fabs(a) <= static_cast<LD>(L::min())) {
    v.flushed = true;
    return v;
  }
  v.ok = false;
  v.why = "error above the bound";
  return v;
}

}  // namespace crossgrad::properties
