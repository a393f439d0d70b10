#pragma once
// The SLEEF 3.x vector functions Flex's AVX2 table calls (libsleef, Debian's libsleef-dev), declared
// here instead of through <sleef.h>: sleef.h declares its __m256 functions only under __AVX__, i.e.
// only for a file compiled with -mavx, and Flex builds every file for the baseline ISA and enables
// AVX2 per function (Note [Flex transcendental kernels on SLEEF]). These are sleef.h 3.5.1's own
// prototypes but for its CONST, a const-qualified return type under GCC (meaningless on a by-value
// result, and a -Wignored-qualifiers warning), here the function attribute it means; checked by
// compiling both declarations in one file with -mavx2. SLEEF's names carry the vector width, ISA and accuracy (u10: within 1.0
// ulp of the exact value over the whole domain), and its ABI is stable across 3.x. Each carries
// the AVX2 target attribute, as the callers do: clang refuses to pass a __m256 to a function it
// believes compiled without AVX ("changes the ABI"); the library's functions are AVX2 code.
#include <immintrin.h>

#define CROSSGRAD_SLEEF_AVX2 __attribute__((target("avx2,fma"), const))

extern "C" {
CROSSGRAD_SLEEF_AVX2 __m256 Sleef_expf8_u10avx2(__m256);
CROSSGRAD_SLEEF_AVX2 __m256 Sleef_logf8_u10avx2(__m256);
CROSSGRAD_SLEEF_AVX2 __m256 Sleef_log1pf8_u10avx2(__m256);
CROSSGRAD_SLEEF_AVX2 __m256 Sleef_tanhf8_u10avx2(__m256);
CROSSGRAD_SLEEF_AVX2 __m256 Sleef_powf8_u10avx2(__m256, __m256);
CROSSGRAD_SLEEF_AVX2 __m256d Sleef_expd4_u10avx2(__m256d);
CROSSGRAD_SLEEF_AVX2 __m256d Sleef_logd4_u10avx2(__m256d);
CROSSGRAD_SLEEF_AVX2 __m256d Sleef_log1pd4_u10avx2(__m256d);
CROSSGRAD_SLEEF_AVX2 __m256d Sleef_tanhd4_u10avx2(__m256d);
CROSSGRAD_SLEEF_AVX2 __m256d Sleef_powd4_u10avx2(__m256d, __m256d);
}
