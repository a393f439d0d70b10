// NdArray: the element-wise math ops of issue 36 (trigonometric, hyperbolic, erf, reciprocal,
// rounding, sign; the scalar ops sub_scalar, div_scalar, clamp_min, clamp_max), plain loops over the element calling the C library's function in the tensor's
// own dtype (float for F32, double for F64). Semantics and special values: docs/OPS.md "Op
// semantics"; accuracy: docs/OPS.md "Accuracy in ulps" (glibc's functions; recip, the roundings and
// sign are exact).
#include "common.hpp"

#include <crossgrad/backends/host_formulas.hpp>
#include <cmath>

namespace crossgrad::backends {

using ndarray_detail::make_tensor;
using ndarray_detail::StridedWalk;
using ndarray_detail::unary;
using ndarray_detail::with_float_type;

// One line per op: the C library's function of the element.
#define CROSSGRAD_NDARRAY_MAP(name, expr)                                  \
  NdArrayTensor NdArray::name(const NdArrayTensor& tensor) {               \
    return unary(tensor, #name, []<class T>(T x) -> T { return expr; });  \
  }

CROSSGRAD_NDARRAY_MAP(float_cos, std::cos(x))
CROSSGRAD_NDARRAY_MAP(float_sin, std::sin(x))
CROSSGRAD_NDARRAY_MAP(float_tan, std::tan(x))
CROSSGRAD_NDARRAY_MAP(float_cosh, std::cosh(x))
CROSSGRAD_NDARRAY_MAP(float_sinh, std::sinh(x))
CROSSGRAD_NDARRAY_MAP(float_acos, std::acos(x))
CROSSGRAD_NDARRAY_MAP(float_acosh, std::acosh(x))
CROSSGRAD_NDARRAY_MAP(float_asin, std::asin(x))
CROSSGRAD_NDARRAY_MAP(float_asinh, std::asinh(x))
CROSSGRAD_NDARRAY_MAP(float_atan, std::atan(x))
CROSSGRAD_NDARRAY_MAP(float_atanh, std::atanh(x))
CROSSGRAD_NDARRAY_MAP(float_erf, std::erf(x))
// IEEE division: 1 / +-0 is +-inf, 1 / +-inf is +-0.
CROSSGRAD_NDARRAY_MAP(float_recip, T(1) / x)
// Half to even (rint in the default rounding mode; nearbyint gives the same values but saves and
// restores the floating-point environment per call, 2-3x slower), as Burn and PyTorch: round(2.5) = 2, round(-0.5) = -0.
CROSSGRAD_NDARRAY_MAP(float_round, std::rint(x))
CROSSGRAD_NDARRAY_MAP(float_floor, std::floor(x))
CROSSGRAD_NDARRAY_MAP(float_ceil, std::ceil(x))
CROSSGRAD_NDARRAY_MAP(float_trunc, std::trunc(x))
// +1 above 0, -1 below, +0 for +-0 and NaN (Burn's and PyTorch's sign).
CROSSGRAD_NDARRAY_MAP(float_sign, x > T(0) ? T(1) : (x < T(0) ? T(-1) : T(0)))

// The activations (Burn's ActivationOps). log_sigmoid(x) = -softplus(-x): x - log1p(exp(x)) below 0,
// -log1p(exp(-x)) from 0 (exp of a non-positive argument only, never an overflow; the two terms
// below 0 have one sign, no cancellation). A zero result is -0 (log_sigmoid(+inf)); NaN stays NaN.
CROSSGRAD_NDARRAY_MAP(log_sigmoid, x < T(0) ? x - std::log1p(std::exp(x)) : -std::log1p(std::exp(-x)))
CROSSGRAD_NDARRAY_MAP(gelu, static_cast<T>(host::gelu_of(static_cast<double>(x))))

#undef CROSSGRAD_NDARRAY_MAP

// The scalar ops of issue 36: the scalar converted to the dtype first (docs/OPS.md "Scalar
// arguments"), then one IEEE operation or a choice, so every backend gives the same bits.
#define CROSSGRAD_NDARRAY_SCALAR_MAP(name, expr)                                                  \
  NdArrayTensor NdArray::name(const NdArrayTensor& tensor, double scalar) {                       \
    return unary(tensor, #name, [scalar]<class T>(T x) -> T {                                     \
      const T s = static_cast<T>(scalar);                                                         \
      return expr;                                                                                \
    });                                                                                           \
  }

CROSSGRAD_NDARRAY_SCALAR_MAP(float_sub_scalar, x - s)
// IEEE division: x / +-0 is +-inf (NaN for x = +-0 or NaN), x / +-inf is +-0.
CROSSGRAD_NDARRAY_SCALAR_MAP(float_div_scalar, x / s)
// max(x, s) as float_clamp's lower half: x < s ? s : x, so a NaN x passes through; a NaN bound
// makes every element NaN (as PyTorch's clamp_min). x keeps its own zero's sign at a zero bound.
CROSSGRAD_NDARRAY_SCALAR_MAP(float_clamp_min, s != s ? s : (x < s ? s : x))
CROSSGRAD_NDARRAY_SCALAR_MAP(float_clamp_max, s != s ? s : (x > s ? s : x))
CROSSGRAD_NDARRAY_SCALAR_MAP(float_remainder_scalar, host::remainder_of(x, s))

#undef CROSSGRAD_NDARRAY_SCALAR_MAP
// x above 0, x * slope otherwise (PyTorch's form: -0 gives -0 * slope, NaN stays NaN), the slope
// rounded to the dtype first.
NdArrayTensor NdArray::leaky_relu(const NdArrayTensor& tensor, double negative_slope) {
  return unary(tensor, "leaky_relu", [negative_slope]<class T>(T x) -> T {
    const T s = static_cast<T>(negative_slope);
    return x > T(0) ? x : x * s;
  });
}

// The binary ops of issue 36, with NumPy broadcasting.
NdArrayTensor NdArray::float_remainder(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return ndarray_detail::binary(lhs, rhs, "float_remainder", []<class T>(T a, T b) -> T { return host::remainder_of(a, b); });
}
// C's pow element by element, as float_powf_scalar with a per-element exponent.
NdArrayTensor NdArray::float_powf(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return ndarray_detail::binary(lhs, rhs, "float_powf", []<class T>(T a, T b) -> T { return std::pow(a, b); });
}
// atan2(a, b): the angle of (b, a) in [-pi, pi] (C library: atan2(+-0, -0) = +-pi, atan2(+-0, +0) = +-0).
NdArrayTensor NdArray::float_atan2(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return ndarray_detail::binary(lhs, rhs, "float_atan2", []<class T>(T a, T b) -> T { return std::atan2(a, b); });
}

// sqrt(a^2 + b^2) without intermediate overflow or underflow: C's hypot (hypot(+-inf, NaN) = +inf).
NdArrayTensor NdArray::float_hypot(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return ndarray_detail::binary(lhs, rhs, "float_hypot", []<class T>(T a, T b) -> T { return std::hypot(a, b); });
}
// leaky_relu with a slope per element (broadcast): x above 0, x * a otherwise (-0 gives -0 * a).
NdArrayTensor NdArray::prelu(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return ndarray_detail::binary(lhs, rhs, "prelu", []<class T>(T x, T a) -> T { return x > T(0) ? x : x * a; });
}

}  // namespace crossgrad::backends
