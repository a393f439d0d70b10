#pragma once
// Flex's inner loops, each in a portable version (kernels_portable.cpp, plain C++) and an
// AVX2/FMA version (kernels_avx2.cpp, compiled with target attributes). The table is chosen once
// at run time with __builtin_cpu_supports; no -march flag is needed for the shipped build.
//
// Every kernel computes each element with the same IEEE operation in the same dtype as the plain
// loop would (no FMA contraction, no reassociation) except the reductions, which accumulate in
// double, and the GEMM micro-kernels, which use FMA; so add/sub/mul/div/neg/sqrt/relu and the
// scalar ops are bit-identical whichever table runs.
#include <crossgrad/backends/flex_tuning.hpp>

#include <cstddef>

namespace crossgrad::backends::flex {

enum class BinaryOp { Add, Sub, Mul, Div };
inline constexpr std::size_t kBinaryOps = 4;

// Register tile of the GEMM micro-kernels: MR rows of A by NR columns of B (Note [Flex tuning]).
// The AVX2 micro-kernels hold exactly this tile in registers.
inline constexpr std::size_t kSgemmMR = kTuning.gemm_f32.mr, kSgemmNR = kTuning.gemm_f32.nr;
inline constexpr std::size_t kDgemmMR = kTuning.gemm_f64.mr, kDgemmNR = kTuning.gemm_f64.nr;
static_assert(kSgemmMR == 6 && kSgemmNR == 16 && kDgemmMR == 6 && kDgemmNR == 8,
              "kernels_avx2.cpp's micro-kernels are written for 6x16 floats and 6x8 doubles");

template <class T>
struct TypedKernels {
  // out[i] = a[i] op b[i]; a_scalar: a[0] for every i; b_scalar: b[0] for every i.
  using Binary = void (*)(const T* a, const T* b, T* out, std::size_t n);
  Binary binary_vv[kBinaryOps];
  Binary binary_vs[kBinaryOps];
  Binary binary_sv[kBinaryOps];
  void (*neg)(const T* in, T* out, std::size_t n);
  void (*relu)(const T* in, T* out, std::size_t n);
  void (*sqrt)(const T* in, T* out, std::size_t n);
  void (*add_scalar)(const T* in, T scalar, T* out, std::size_t n);
  void (*mul_scalar)(const T* in, T scalar, T* out, std::size_t n);
  // exp within 2 ulp of the correctly rounded result (see the implementations).
  void (*exp)(const T* in, T* out, std::size_t n);
  // Sum of in[0..n) in double.
  double (*sum)(const T* in, std::size_t n);
  // acc[i] += in[i] in double, for i < n.
  void (*accumulate)(const T* in, double* acc, std::size_t n);
  // C[MR x NR] (row stride ldc) = or += packed A (kc x MR, MR-interleaved) * packed B (kc x NR).
  void (*gemm_tile)(std::size_t kc, const T* a, const T* b, T* c, std::size_t ldc,
                    bool accumulate);
};

struct KernelTable {
  const char* isa;  // "avx2" or "portable"
  TypedKernels<float> f32;
  TypedKernels<double> f64;
};

const KernelTable& portable_kernels();
const KernelTable& avx2_kernels();  // only call when the CPU supports AVX2 and FMA
bool cpu_has_avx2_fma();

// The table in use: AVX2 when the CPU has it, unless CROSSGRAD_FLEX_ISA=portable, or
// force_portable_kernels(true) was called (flex_tuning.hpp; tests use it to check both paths).
const KernelTable& kernels();

template <class T> const TypedKernels<T>& typed_kernels();
template <> inline const TypedKernels<float>& typed_kernels<float>() { return kernels().f32; }
template <> inline const TypedKernels<double>& typed_kernels<double>() { return kernels().f64; }

}  // namespace crossgrad::backends::flex
