#pragma once
// Scalar formulas the CPU backends (NdArray, Flex, and the LibTorch plugin, which computes these
// element by element instead of calling ATen) share, so that they give the same bits; Cuda's
// device copies live in cuda_kernels/math_ops.cuh. The oracle checks them independently (its own
// reference formulas, MPFR, PyTorch).
#include <crossgrad/core/int_arithmetic.hpp>

#include <cmath>
#include <type_traits>

namespace crossgrad::backends::host {

// gelu(x) = x/2 (1 + erf(x / sqrt 2)) written as x/2 erfc(-x / sqrt 2), which has no cancellation
// for x < 0 (1 + erf there loses every digit below about -5), in double for both dtypes. -x / sqrt 2
// is z + dz with z = -x c rounded and dz its rounding error (an FMA) plus -x times the error of c,
// and erfc(z + dz) = erfc(z) - dz 2/sqrt(pi) exp(-z^2) to first order: without dz, erfc's relative
// sensitivity of about 2 z^2 to z turns half an ulp of z into hundreds of ulps in F64's tail.
// gelu(+inf) = +inf, gelu(-inf) = NaN (-inf * 0, as Burn and PyTorch), NaN stays NaN.
inline double gelu_of(double x) {
  const double c = 0x1.6a09e667f3bcdp-1;              // 1/sqrt(2) rounded to double
  const double c_lo = -0x1.bdd3413b26456p-55;         // 1/sqrt(2) - c
  const double two_over_sqrt_pi = 0x1.20dd750429b6dp+0;
  const double z = -x * c;
  const double dz = std::fma(-x, c, -z) + -x * c_lo;
  const double slope = dz * two_over_sqrt_pi * std::exp(-z * z);
  // slope - slope == 0 exactly when slope is finite (at x = +-inf, dz is NaN: no correction).
  const double e = std::erfc(z) - (slope - slope == 0.0 ? slope : 0.0);
  return 0.5 * x * e;
}

// PyTorch's remainder, the result with the divisor's sign: fmod (exact), plus b where a non-zero
// fmod has the other sign (one rounding). A zero result keeps fmod's sign, the dividend's; b = +-0
// or a = +-inf give NaN; b = +-inf gives a, or b where a is non-zero and of the other sign.
template <class T>
T remainder_of(T a, T b) {
  T m = std::fmod(a, b);
  if (m != T(0) && ((b < T(0)) != (m < T(0)))) m += b;
  return m;
}

// The order of float_argsort / float_sort (docs/OPS.md, "Sorting"): true when a goes strictly
// before b. Ascending puts NaN after +inf, descending before it (PyTorch's order); all NaNs are
// equal, and so are -0 and +0, so a stable sort keeps them in index order. Cuda's device copy is
// in cuda_kernels/dim_kernels.cuh.
// Ints (int_argsort, int_sort) have no NaN: plain value order.
template <class T>
bool sorts_before(T a, T b, bool descending) {
  if constexpr (std::is_integral_v<T>) {
    return descending ? a > b : a < b;
  } else {
    if (descending) return !std::isnan(b) && (std::isnan(a) || a > b);
    return !std::isnan(a) && (std::isnan(b) || a < b);
  }
}

// The steps of cumsum, cumprod, cummin and cummax (docs/OPS.md "Scans"): y_r = step(y_{r-1}, x_r)
// in index order. For floats the running extreme takes x_r on a tie (so the sign of a zero and
// the gradient's position are the later element's) and on a NaN, and once it is NaN no number
// replaces it; for ints the sum and product wrap (core/int_arithmetic.hpp).
struct ScanSum {
  template <class T>
  T operator()(T acc, T v) const {
    if constexpr (std::is_integral_v<T>) return wrapping_add<T>(acc, v);
    else return acc + v;
  }
};
struct ScanProd {
  template <class T>
  T operator()(T acc, T v) const {
    if constexpr (std::is_integral_v<T>) return wrapping_mul<T>(acc, v);
    else return acc * v;
  }
};
struct ScanMin {
  template <class T>
  T operator()(T acc, T v) const {
    if constexpr (std::is_integral_v<T>) return v < acc ? v : acc;
    else return v <= acc || v != v ? v : acc;
  }
};
struct ScanMax {
  template <class T>
  T operator()(T acc, T v) const {
    if constexpr (std::is_integral_v<T>) return v > acc ? v : acc;
    else return v >= acc || v != v ? v : acc;
  }
};

}  // namespace crossgrad::backends::host
