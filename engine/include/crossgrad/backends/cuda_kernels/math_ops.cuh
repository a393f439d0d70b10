#pragma once
// The element functions of the Cuda backend's math ops (issue 36: trigonometric, hyperbolic, erf,
// reciprocal, rounding, sign), one functor per registry op for map_kernel (kernels.cuh). Device code
// only, like kernels.cuh, so tests/unit/cuda_kernel_emulation_test.cpp compiles these same functors
// as plain C++ (with the host's libm behind the same names) and checks them against NdArray.
// CUDA's precise math (no --use_fast_math): the documented maximum errors are docs/OPS.md's
// "Accuracy in ulps" values for Cuda; recip is an IEEE division (-prec-div=true, nvcc's default),
// rintf/rint round half to even, and floor, ceil, trunc and sign are exact.
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
  X(float_sign, SignOp, x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f), x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : 0.0))

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
  X(float_atan2, Atan2Op, cg_atan2(a, b))

namespace crossgrad::backends::cuda_detail {

__device__ inline float cg_fmod(float a, float b) { return fmodf(a, b); }
__device__ inline double cg_fmod(double a, double b) { return fmod(a, b); }
__device__ inline float cg_pow(float a, float b) { return powf(a, b); }
__device__ inline double cg_pow(double a, double b) { return pow(a, b); }
__device__ inline float cg_atan2(float a, float b) { return atan2f(a, b); }
__device__ inline double cg_atan2(double a, double b) { return atan2(a, b); }
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
