#pragma once
// Flex's inner loops, each in a portable version (kernels_portable.cpp, plain C++) and an
// AVX2/FMA version (kernels_avx2.cpp, compiled with target attributes). The table is chosen once
// at run time with __builtin_cpu_supports; no -march flag is needed for the shipped build.
//
// The table's types and accessors (TypedKernels, KernelTable, kernels(), typed_kernels<T>()) and
// the rule every kernel follows are declared in <crossgrad/backends/flex_testing.hpp>, public so
// that the kernel tests and benchmarks call the same micro-kernels without including engine/src.
// What only the implementations need stays here.
#include <crossgrad/backends/flex_testing.hpp>
#include <crossgrad/backends/flex_tuning.hpp>

#include <cstddef>

namespace crossgrad::backends::flex {

// Register tile of the GEMM micro-kernels: MR rows of A by NR columns of B (Note [Flex tuning]).
// The AVX2 micro-kernels hold exactly this tile in registers.
inline constexpr std::size_t kSgemmMR = kTuning.gemm_f32.mr, kSgemmNR = kTuning.gemm_f32.nr;
inline constexpr std::size_t kDgemmMR = kTuning.gemm_f64.mr, kDgemmNR = kTuning.gemm_f64.nr;
static_assert(kSgemmMR == 6 && kSgemmNR == 16 && kDgemmMR == 6 && kDgemmNR == 8,
              "kernels_avx2.cpp's micro-kernels are written for 6x16 floats and 6x8 doubles");

}  // namespace crossgrad::backends::flex
