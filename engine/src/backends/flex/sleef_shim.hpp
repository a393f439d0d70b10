#pragma once
// SLEEF's AVX2 u10 functions on one vector, taken and returned through memory: 8 floats or 4
// doubles at `in`, the results at `out` (in == out allowed). Defined in sleef_shim.cpp, the one
// Flex file compiled with -mavx2 -mfma (Note [Flex transcendental kernels on SLEEF]); only call
// them where the CPU has AVX2 and FMA (through the AVX2 kernel table).
#include <crossgrad/backends/flex_unary_math.hpp>

#include <cstddef>

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

// The same over `vectors` whole vectors (8 * vectors floats, 4 * vectors doubles): one call per
// batch instead of one per vector (the per-vector call, its trip through memory and the table
// lookup were 60% of SLEEF's own time in sin at 1M elements).
void exp_many8(const float* in, float* out, std::size_t vectors);
void log_many8(const float* in, float* out, std::size_t vectors);
void log1p_many8(const float* in, float* out, std::size_t vectors);
void tanh_many8(const float* in, float* out, std::size_t vectors);
void exp_many4(const double* in, double* out, std::size_t vectors);
void log_many4(const double* in, double* out, std::size_t vectors);
void log1p_many4(const double* in, double* out, std::size_t vectors);
void tanh_many4(const double* in, double* out, std::size_t vectors);

// The UnaryMath functions' u10 versions (SLEEF's name<f|d>N_u10avx2), indexed by UnaryMath.
using Vector8 = void (*)(const float* in, float* out);
using Vector4 = void (*)(const double* in, double* out);
extern const Vector8 kUnary8[kUnaryMathOps];
extern const Vector4 kUnary4[kUnaryMathOps];
using VectorMany8 = void (*)(const float* in, float* out, std::size_t vectors);
using VectorMany4 = void (*)(const double* in, double* out, std::size_t vectors);
extern const VectorMany8 kUnaryMany8[kUnaryMathOps];
extern const VectorMany4 kUnaryMany4[kUnaryMathOps];

}  // namespace crossgrad::backends::flex::sleef
