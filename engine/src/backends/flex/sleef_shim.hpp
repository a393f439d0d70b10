#pragma once
// SLEEF's AVX2 u10 functions on one vector, taken and returned through memory: 8 floats or 4
// doubles at `in`, the results at `out` (in == out allowed). Defined in sleef_shim.cpp, the one
// Flex file compiled with -mavx2 -mfma (Note [Flex transcendental kernels on SLEEF]); only call
// them where the CPU has AVX2 and FMA (through the AVX2 kernel table).
#include <crossgrad/backends/flex_unary_math.hpp>

namespace crossgrad::backends::flex::sleef {

void exp8(const float* in, float* out);
void log8(const float* in, float* out);
void log1p8(const float* in, float* out);
void tanh8(const float* in, float* out);
void pow8(const float* in, float p, float* out);
void exp4(const double* in, double* out);
void log4(const double* in, double* out);
void log1p4(const double* in, double* out);
void tanh4(const double* in, double* out);
void pow4(const double* in, double p, double* out);

// The UnaryMath functions' u10 versions (SLEEF's name<f|d>N_u10avx2), indexed by UnaryMath.
using Vector8 = void (*)(const float* in, float* out);
using Vector4 = void (*)(const double* in, double* out);
extern const Vector8 kUnary8[kUnaryMathOps];
extern const Vector4 kUnary4[kUnaryMathOps];

}  // namespace crossgrad::backends::flex::sleef
