// NdArray: the element-wise math ops of issue 36 (trigonometric, hyperbolic, erf, reciprocal,
// rounding, sign; the scalar ops sub_scalar, div_scalar, clamp_min, clamp_max), plain loops over the element calling the C library's function in the tensor's
// own dtype (float for F32, double for F64). Semantics and special values: docs/OPS.md "Op
// semantics"; accuracy: docs/OPS.md "Accuracy in ulps" (glibc's functions; recip, the roundings and
// sign are exact).
#include "common.hpp"

#include <cmath>

namespace crossgrad::backends {

using ndarray_detail::unary;

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

#undef CROSSGRAD_NDARRAY_SCALAR_MAP

}  // namespace crossgrad::backends
