// MPFR evaluation of the element-wise float ops (crossgrad/oracle/correctly_rounded.hpp).
#include <crossgrad/oracle/correctly_rounded.hpp>
#include <crossgrad/oracle/ulp_bounds.hpp>

#include <mpfr.h>

#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace crossgrad::oracle {
namespace {

// Working precision: far beyond F64's 53 bits, so one final rounding of the 256-bit value is the
// correctly rounded one except for arguments whose value lies within 2^-200 relative of a
// rounding boundary (none is known among the elementary functions' hard cases at these widths).
constexpr mpfr_prec_t kPrecision = 256;

class Mp {
 public:
  Mp() { mpfr_init2(v_, kPrecision); }
  explicit Mp(double x) : Mp() { mpfr_set_d(v_, x, MPFR_RNDN); }
  ~Mp() { mpfr_clear(v_); }
  Mp(const Mp&) = delete;
  Mp& operator=(const Mp&) = delete;
  mpfr_ptr get() { return v_; }

 private:
  mpfr_t v_;
};

double round_to(DType dtype, double v) { return dtype == DType::F32 ? static_cast<double>(static_cast<float>(v)) : v; }

double to_dtype(Mp& v, DType dtype) {
  if (dtype == DType::F32) return static_cast<double>(mpfr_get_flt(v.get(), MPFR_RNDN));
  return mpfr_get_d(v.get(), MPFR_RNDN);
}

}  // namespace

// Every op of the ulp table has a case; the others were answered by ulp_bound, hence the default.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wswitch-enum"
std::optional<double> correctly_rounded(OpId op, double x, const ElementArgs& args, DType dtype) {
  if (!ulp_bound(op)) return std::nullopt;
  Mp in(x), out;
  switch (op) {
    case OpId::float_neg: mpfr_neg(out.get(), in.get(), MPFR_RNDN); break;
    case OpId::float_abs: mpfr_abs(out.get(), in.get(), MPFR_RNDN); break;
    case OpId::relu:
      // max(x, 0): +0 for every x <= 0 (also -0), NaN stays NaN (docs/OPS.md).
      if (std::isnan(x)) return x;
      return x > 0 ? x : 0.0;
    case OpId::float_clamp: {
      if (std::isnan(x)) return x;
      const double lo = round_to(dtype, args.min), hi = round_to(dtype, args.max);
      return x < lo ? lo : (x > hi ? hi : x);
    }
    case OpId::float_sqrt: mpfr_sqrt(out.get(), in.get(), MPFR_RNDN); break;
    case OpId::float_add_scalar: {
      Mp s(round_to(dtype, args.scalar));
      mpfr_add(out.get(), in.get(), s.get(), MPFR_RNDN);
      // An exact zero sum is +0 in round-to-nearest (x + -x), -0 only for -0 + -0.
      break;
    }
    case OpId::float_mul_scalar: {
      Mp s(round_to(dtype, args.scalar));
      mpfr_mul(out.get(), in.get(), s.get(), MPFR_RNDN);
      break;
    }
    case OpId::float_sub_scalar: {
      Mp s(round_to(dtype, args.scalar));
      mpfr_sub(out.get(), in.get(), s.get(), MPFR_RNDN);
      break;
    }
    case OpId::float_div_scalar: {
      Mp s(round_to(dtype, args.scalar));
      mpfr_div(out.get(), in.get(), s.get(), MPFR_RNDN);
      break;
    }
    // max(x, s) / min(x, s) with a NaN x passing and a NaN bound giving NaN (docs/OPS.md); x keeps
    // its own zero's sign at a zero bound.
    case OpId::float_clamp_min: {
      const double lo = round_to(dtype, args.scalar);
      if (std::isnan(lo) || std::isnan(x)) return std::isnan(lo) ? lo : x;
      return x < lo ? lo : x;
    }
    case OpId::float_clamp_max: {
      const double hi = round_to(dtype, args.scalar);
      if (std::isnan(hi) || std::isnan(x)) return std::isnan(hi) ? hi : x;
      return x > hi ? hi : x;
    }
    // x - floor(x / s) s: fmod (exact at this precision), plus s where it is non-zero and of the
    // other sign; one rounding to the dtype. MPFR's fmod gives NaN for s = 0 or x = inf, x for s = inf.
    case OpId::float_remainder_scalar: {
      Mp s(round_to(dtype, args.scalar));
      mpfr_fmod(out.get(), in.get(), s.get(), MPFR_RNDN);
      if (!mpfr_nan_p(out.get()) && !mpfr_zero_p(out.get()) && (mpfr_signbit(out.get()) != 0) != (mpfr_signbit(s.get()) != 0)) {
        mpfr_add(out.get(), out.get(), s.get(), MPFR_RNDN);
      }
      break;
    }
    case OpId::float_exp: mpfr_exp(out.get(), in.get(), MPFR_RNDN); break;
    case OpId::float_log: mpfr_log(out.get(), in.get(), MPFR_RNDN); break;
    case OpId::float_log1p: mpfr_log1p(out.get(), in.get(), MPFR_RNDN); break;
    case OpId::float_tanh: mpfr_tanh(out.get(), in.get(), MPFR_RNDN); break;
    case OpId::float_cos: mpfr_cos(out.get(), in.get(), MPFR_RNDN); break;
    case OpId::float_sin: mpfr_sin(out.get(), in.get(), MPFR_RNDN); break;
    case OpId::float_tan: mpfr_tan(out.get(), in.get(), MPFR_RNDN); break;
    case OpId::float_cosh: mpfr_cosh(out.get(), in.get(), MPFR_RNDN); break;
    case OpId::float_sinh: mpfr_sinh(out.get(), in.get(), MPFR_RNDN); break;
    case OpId::float_acos: mpfr_acos(out.get(), in.get(), MPFR_RNDN); break;
    case OpId::float_acosh: mpfr_acosh(out.get(), in.get(), MPFR_RNDN); break;
    case OpId::float_asin: mpfr_asin(out.get(), in.get(), MPFR_RNDN); break;
    case OpId::float_asinh: mpfr_asinh(out.get(), in.get(), MPFR_RNDN); break;
    case OpId::float_atan: mpfr_atan(out.get(), in.get(), MPFR_RNDN); break;
    case OpId::float_atanh: mpfr_atanh(out.get(), in.get(), MPFR_RNDN); break;
    case OpId::float_erf: mpfr_erf(out.get(), in.get(), MPFR_RNDN); break;
    case OpId::float_recip: mpfr_ui_div(out.get(), 1, in.get(), MPFR_RNDN); break;
    // mpfr_rint in round-to-nearest: ties to even; a zero result keeps the input's sign.
    case OpId::float_round: mpfr_rint(out.get(), in.get(), MPFR_RNDN); break;
    case OpId::float_floor: mpfr_floor(out.get(), in.get()); break;
    case OpId::float_ceil: mpfr_ceil(out.get(), in.get()); break;
    case OpId::float_trunc: mpfr_trunc(out.get(), in.get()); break;
    // +1 above 0, -1 below, +0 for +-0 and NaN (docs/OPS.md).
    case OpId::float_sign:
      if (std::isnan(x) || x == 0) return 0.0;
      return x > 0 ? 1.0 : -1.0;
    case OpId::sigmoid: {
      // 1 / (1 + exp(-x)).
      Mp e;
      mpfr_neg(e.get(), in.get(), MPFR_RNDN);
      mpfr_exp(e.get(), e.get(), MPFR_RNDN);
      mpfr_add_ui(e.get(), e.get(), 1, MPFR_RNDN);
      mpfr_ui_div(out.get(), 1, e.get(), MPFR_RNDN);
      break;
    }
    case OpId::leaky_relu: {
      // x above 0, x * s otherwise, s rounded to the dtype (NaN: NaN * s).
      if (std::isnan(x)) return x;
      if (x > 0) return x;
      Mp s(round_to(dtype, args.scalar));
      mpfr_mul(out.get(), in.get(), s.get(), MPFR_RNDN);
      break;
    }
    case OpId::log_sigmoid: {
      // -log(1 + exp(-x)) = min(x, 0) - log1p(exp(-|x|)), each step at 256 bits.
      if (std::isnan(x)) return x;
      Mp e;
      mpfr_abs(e.get(), in.get(), MPFR_RNDN);
      mpfr_neg(e.get(), e.get(), MPFR_RNDN);
      mpfr_exp(e.get(), e.get(), MPFR_RNDN);
      mpfr_log1p(e.get(), e.get(), MPFR_RNDN);
      if (x < 0) {
        mpfr_sub(out.get(), in.get(), e.get(), MPFR_RNDN);
      } else {
        mpfr_neg(out.get(), e.get(), MPFR_RNDN);
      }
      break;
    }
    case OpId::gelu: {
      // x/2 erfc(-x / sqrt 2) (= x/2 (1 + erf(x / sqrt 2))).
      Mp s;
      mpfr_sqrt_ui(s.get(), 2, MPFR_RNDN);
      mpfr_div(out.get(), in.get(), s.get(), MPFR_RNDN);
      mpfr_neg(out.get(), out.get(), MPFR_RNDN);
      mpfr_erfc(out.get(), out.get(), MPFR_RNDN);
      mpfr_mul(out.get(), out.get(), in.get(), MPFR_RNDN);
      mpfr_div_2ui(out.get(), out.get(), 1, MPFR_RNDN);
      break;
    }
    case OpId::float_powf_scalar: {
      // MPFR's pow follows C's pow for the special cases (pow(x, +-0) = 1, pow(1, y) = 1, ...).
      Mp p(round_to(dtype, args.scalar));
      mpfr_pow(out.get(), in.get(), p.get(), MPFR_RNDN);
      break;
    }
    default: throw std::logic_error("correctly_rounded: an op of the ulp table without an MPFR formula");
  }
  return to_dtype(out, dtype);
}
#pragma GCC diagnostic pop

namespace {
// The representable values in order as integers: -0 just below +0.
std::int64_t ordered(double v, DType dtype) {
  if (dtype == DType::F32) {
    const auto b = static_cast<std::int64_t>(std::bit_cast<std::uint32_t>(static_cast<float>(v)));
    return b & 0x80000000LL ? -(b & 0x7FFFFFFFLL) - 1 : b;
  }
  const auto u = std::bit_cast<std::uint64_t>(v);
  const auto mag = static_cast<std::int64_t>(u & 0x7FFFFFFFFFFFFFFFULL);
  return (u >> 63) != 0 ? -mag - 1 : mag;
}
}  // namespace

double ulp_distance(double got, double want, DType dtype) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want) ? 0 : std::numeric_limits<double>::infinity();
  const std::int64_t a = ordered(got, dtype), b = ordered(want, dtype);
  return static_cast<double>(a > b ? a - b : b - a);
}

}  // namespace crossgrad::oracle
