// The calls into SLEEF (sleef_shim.hpp), compiled with -mavx2 -mfma (engine/CMakeLists.txt).
//
// Why a file of its own, through memory: a __m256 argument is passed in a ymm register only when
// the caller's compiler believes AVX is on. GCC decides that per function (the target attribute
// on Flex's kernels), clang for the whole file: its calls from kernels_avx2_math.cpp passed the
// vectors on the stack while SLEEF read ymm0 and ymm1 (pow got its exponent from a stale register,
// found by fuzz-smoke.op_args_fuzzer in the clang build). Here AVX2 is on for the whole file, so
// sleef.h declares its vector functions and every compiler passes them in registers. The file
// holds nothing else: no inline function with external linkage is emitted here, so no AVX2 code
// can be picked by the linker for a caller that runs on a CPU without it.
#if defined(CROSSGRAD_FLEX_SLEEF)
#include "sleef_shim.hpp"

#include <immintrin.h>
#include <sleef.h>

namespace crossgrad::backends::flex::sleef {

void exp8(const float* in, float* out) { _mm256_storeu_ps(out, Sleef_expf8_u10avx2(_mm256_loadu_ps(in))); }
void log8(const float* in, float* out) { _mm256_storeu_ps(out, Sleef_logf8_u10avx2(_mm256_loadu_ps(in))); }
void log1p8(const float* in, float* out) { _mm256_storeu_ps(out, Sleef_log1pf8_u10avx2(_mm256_loadu_ps(in))); }
void tanh8(const float* in, float* out) { _mm256_storeu_ps(out, Sleef_tanhf8_u10avx2(_mm256_loadu_ps(in))); }
void pow8(const float* in, float p, float* out) {
  _mm256_storeu_ps(out, Sleef_powf8_u10avx2(_mm256_loadu_ps(in), _mm256_set1_ps(p)));
}
void exp4(const double* in, double* out) { _mm256_storeu_pd(out, Sleef_expd4_u10avx2(_mm256_loadu_pd(in))); }
void log4(const double* in, double* out) { _mm256_storeu_pd(out, Sleef_logd4_u10avx2(_mm256_loadu_pd(in))); }
void log1p4(const double* in, double* out) { _mm256_storeu_pd(out, Sleef_log1pd4_u10avx2(_mm256_loadu_pd(in))); }
void tanh4(const double* in, double* out) { _mm256_storeu_pd(out, Sleef_tanhd4_u10avx2(_mm256_loadu_pd(in))); }
void pow4(const double* in, double p, double* out) {
  _mm256_storeu_pd(out, Sleef_powd4_u10avx2(_mm256_loadu_pd(in), _mm256_set1_pd(p)));
}

// The batches: a plain loop, so nothing but this file's own functions is emitted with AVX2.
#define CROSSGRAD_SLEEF_MANY(name, f8, f4)                                                    \
  void name##_many8(const float* in, float* out, std::size_t vectors) {                       \
    for (std::size_t v = 0; v < vectors; ++v) _mm256_storeu_ps(out + 8 * v, f8(_mm256_loadu_ps(in + 8 * v)));  \
  }                                                                                           \
  void name##_many4(const double* in, double* out, std::size_t vectors) {                     \
    for (std::size_t v = 0; v < vectors; ++v) _mm256_storeu_pd(out + 4 * v, f4(_mm256_loadu_pd(in + 4 * v)));  \
  }
CROSSGRAD_SLEEF_MANY(exp, Sleef_expf8_u10avx2, Sleef_expd4_u10avx2)
CROSSGRAD_SLEEF_MANY(log, Sleef_logf8_u10avx2, Sleef_logd4_u10avx2)
CROSSGRAD_SLEEF_MANY(log1p, Sleef_log1pf8_u10avx2, Sleef_log1pd4_u10avx2)
CROSSGRAD_SLEEF_MANY(tanh, Sleef_tanhf8_u10avx2, Sleef_tanhd4_u10avx2)
#define CROSSGRAD_SLEEF_UNARY_MANY(name) CROSSGRAD_SLEEF_MANY(name, Sleef_##name##f8_u10avx2, Sleef_##name##d4_u10avx2)
CROSSGRAD_FLEX_UNARY_MATH(CROSSGRAD_SLEEF_UNARY_MANY)
#undef CROSSGRAD_SLEEF_UNARY_MANY
#undef CROSSGRAD_SLEEF_MANY
#define CROSSGRAD_SLEEF_MANY_ENTRY8(name) name##_many8,
#define CROSSGRAD_SLEEF_MANY_ENTRY4(name) name##_many4,
const VectorMany8 kUnaryMany8[kUnaryMathOps] = {CROSSGRAD_FLEX_UNARY_MATH(CROSSGRAD_SLEEF_MANY_ENTRY8)};
const VectorMany4 kUnaryMany4[kUnaryMathOps] = {CROSSGRAD_FLEX_UNARY_MATH(CROSSGRAD_SLEEF_MANY_ENTRY4)};
#undef CROSSGRAD_SLEEF_MANY_ENTRY8
#undef CROSSGRAD_SLEEF_MANY_ENTRY4

#define CROSSGRAD_SLEEF_UNARY(name)                                                                          \
  void name##8(const float* in, float* out) { _mm256_storeu_ps(out, Sleef_##name##f8_u10avx2(_mm256_loadu_ps(in))); } \
  void name##4(const double* in, double* out) { _mm256_storeu_pd(out, Sleef_##name##d4_u10avx2(_mm256_loadu_pd(in))); }
CROSSGRAD_FLEX_UNARY_MATH(CROSSGRAD_SLEEF_UNARY)
#undef CROSSGRAD_SLEEF_UNARY
#define CROSSGRAD_SLEEF_ENTRY8(name) name##8,
#define CROSSGRAD_SLEEF_ENTRY4(name) name##4,
const Vector8 kUnary8[kUnaryMathOps] = {CROSSGRAD_FLEX_UNARY_MATH(CROSSGRAD_SLEEF_ENTRY8)};
const Vector4 kUnary4[kUnaryMathOps] = {CROSSGRAD_FLEX_UNARY_MATH(CROSSGRAD_SLEEF_ENTRY4)};
#undef CROSSGRAD_SLEEF_ENTRY8
#undef CROSSGRAD_SLEEF_ENTRY4

}  // namespace crossgrad::backends::flex::sleef
#endif
