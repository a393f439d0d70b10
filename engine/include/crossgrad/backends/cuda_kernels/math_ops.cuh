#pragma once
// The element functions of the Cuda backend's math ops (issue 36: trigonometric, hyperbolic, erf,
// reciprocal, rounding, sign), one functor per registry op for map_kernel (kernels.cuh). Device code
// only, like kernels.cuh, so tests/unit/cuda_kernel_emulation_test.cpp compiles these same functors
// as plain C++ (with the host's libm behind the same names) and checks them against NdArray.
// CUDA's precise math (no --use_fast_math): the documented maximum errors are docs/OPS.md's
// "Accuracy in ulps" values for Cuda; recip is an IEEE division (-prec-div=true, nvcc's default),
// rintf/rint round half to even, and floor, ceil, trunc and sign are exact. The activations
// log_sigmoid and gelu are here too (unary, NdArray's formulas).
//
// X(registry name, functor, F32 expression, F64 expression), the element named x.
#define CROSSGRAD_CUDA_MATH_OPS(X)                                                        \
  X(float_cos, CosOp, cosf(x), cos(x))                                                    \
  X(float_sin, SinOp, sinf(x), sin(x))                                                    \
  X(float_tan, TanOp, tanf(x), tan(x))                                                    \
  X(float_cosh, CoshOp, coshf(x), cosh(x))                                                \
  X(float_sinh, SinhOp, sinhf(x), sinh(x))                                                \
  X(float_acos, AcosOp, acosf(x), acos(x))                                                \
  X(float_acosh, AcoshOp, acoshf(x), acosh(x))                                            \
  X(float_asin, AsinOp, asinf(x), asin(x))                                                \
  X(float_asinh, AsinhOp, asinhf(x), asinh(x))                                            \
  X(float_atan, AtanOp, atanf(x), atan(x))                                                \
  X(float_atanh, AtanhOp, atanhf(x), atanh(x))                                            \
  X(float_erf, ErfOp, erff(x), erf(x))                                                    \
  X(float_recip, RecipOp, 1.0f / x, 1.0 / x)                                              \
  X(float_round, RoundOp, rintf(x), rint(x))                                              \
  X(float_floor, FloorOp, floorf(x), floor(x))                                            \
  X(float_ceil, CeilOp, ceilf(x), ceil(x))                                                \
  X(float_trunc, TruncOp, truncf(x), trunc(x))                                            \
  X(float_sign, SignOp, x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f), x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : 0.0))  \
  X(log_sigmoid, LogSigmoidOp, x < 0.0f ? x - log1pf(expf(x)) : -log1pf(expf(-x)),              \
    x < 0.0 ? x - log1p(exp(x)) : -log1p(exp(-x)))                                             \
  X(gelu, GeluOp, static_cast<float>(gelu_of(static_cast<double>(x))), gelu_of(x))

// The scalar ops of issue 36: X(registry name, functor, expression of the element x and the
// scalar s, already converted to the element's type). One IEEE operation or a choice: the same bits
// as NdArray on every device (IEEE division, -prec-div=true being nvcc's default).
#define CROSSGRAD_CUDA_SCALAR_OPS(X)                                   \
  X(float_sub_scalar, SubScalarOp, x - s)                              \
  X(float_div_scalar, DivScalarOp, x / s)                              \
  X(float_clamp_min, ClampMinOp, s != s ? s : (x < s ? s : x))         \
  X(float_clamp_max, ClampMaxOp, s != s ? s : (x > s ? s : x))        \
  X(float_remainder_scalar, RemainderScalarOp, cg_remainder(x, s))

// The binary ops of issue 36: X(registry name, functor, expression of the elements a and b).
#define CROSSGRAD_CUDA_BINARY_OPS(X) \
  X(float_remainder, RemainderOp, cg_remainder(a, b))  \
  X(float_powf, PowOp, cg_pow(a, b))                   \
  X(float_atan2, Atan2Op, cg_atan2(a, b))             \
  X(float_hypot, HypotOp, cg_hypot(a, b))             \
  X(prelu, PreluOp, a > decltype(a)(0) ? a : a * b)

namespace crossgrad::backends::cuda_detail {

// gelu (NdArray's formula, docs/OPS.md): gelu(x) = x/2 (1 + erf(x / sqrt 2)) written as x/2 erfc(-x / sqrt 2), which has no cancellation
// for x < 0 (1 + erf there loses every digit below about -5), in double for both dtypes. -x / sqrt 2
// is z + dz with z = -x c rounded and dz its rounding error (an FMA) plus -x times the error of c,
// and erfc(z + dz) = erfc(z) - dz 2/sqrt(pi) exp(-z^2) to first order: without dz, erfc's relative
// sensitivity of about 2 z^2 to z turns half an ulp of z into hundreds of ulps in F64's tail.
// gelu(+inf) = +inf, gelu(-inf) = NaN (-inf * 0, as Burn and PyTorch), NaN stays NaN.
__device__ inline double gelu_of(double x) {
  const double c = 0x1.6a09e667f3bcdp-1;              // 1/sqrt(2) rounded to double
  const double c_lo = -0x1.bdd3413b26456p-55;         // 1/sqrt(2) - c
  const double two_over_sqrt_pi = 0x1.20dd750429b6dp+0;
  const double z = -x * c;
  const double dz = fma(-x, c, -z) + -x * c_lo;
  const double slope = dz * two_over_sqrt_pi * exp(-z * z);
  // slope - slope == 0 exactly when slope is finite (at x = +-inf, dz is NaN: no correction).
  const double e = erfc(z) - (slope - slope == 0.0 ? slope : 0.0);
  return 0.5 * x * e;
}


__device__ inline float cg_fmod(float a, float b) { return fmodf(a, b); }
__device__ inline double cg_fmod(double a, double b) { return fmod(a, b); }
__device__ inline float cg_pow(float a, float b) { return powf(a, b); }
__device__ inline double cg_pow(double a, double b) { return pow(a, b); }
__device__ inline float cg_atan2(float a, float b) { return atan2f(a, b); }
__device__ inline double cg_atan2(double a, double b) { return atan2(a, b); }
__device__ inline float cg_hypot(float a, float b) { return hypotf(a, b); }
__device__ inline double cg_hypot(double a, double b) { return hypot(a, b); }
// PyTorch's remainder, NdArray's formula: fmod (exact) plus b where a non-zero fmod has the other sign.
template <class T>
__device__ inline T cg_remainder(T a, T b) {
  T m = cg_fmod(a, b);
  if (m != T(0) && ((b < T(0)) != (m < T(0)))) m += b;
  return m;
}

#define CROSSGRAD_X(name, Functor, f32, f64)                  \
  struct Functor {                                            \
    __device__ float operator()(float x) const { return f32; } \
    __device__ double operator()(double x) const { return f64; } \
  };
CROSSGRAD_CUDA_MATH_OPS(CROSSGRAD_X)
#undef CROSSGRAD_X

#define CROSSGRAD_X(name, Functor, expr)          \
  template <class T>                              \
  struct Functor {                                \
    T s;                                          \
    __device__ T operator()(T x) const { return expr; } \
  };
CROSSGRAD_CUDA_SCALAR_OPS(CROSSGRAD_X)
#undef CROSSGRAD_X

#define CROSSGRAD_X(name, Functor, expr)                                  \
  struct Functor {                                                        \
    template <class T>                                                    \
    __device__ T operator()(T a, T b) const { return expr; }              \
  };
CROSSGRAD_CUDA_BINARY_OPS(CROSSGRAD_X)
#undef CROSSGRAD_X

}  // namespace crossgrad::backends::cuda_detail
