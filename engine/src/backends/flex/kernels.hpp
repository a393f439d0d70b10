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
#include <cstdint>

namespace crossgrad::backends::flex {

// Register tile of the GEMM micro-kernels: MR rows of A by NR columns of B (Note [Flex tuning]).
// The AVX2 micro-kernels hold exactly this tile in registers.
inline constexpr std::size_t kSgemmMR = kTuning.gemm_f32.mr, kSgemmNR = kTuning.gemm_f32.nr;
inline constexpr std::size_t kDgemmMR = kTuning.gemm_f64.mr, kDgemmNR = kTuning.gemm_f64.nr;
static_assert(kSgemmMR == 6 && kSgemmNR == 16 && kDgemmMR == 6 && kDgemmNR == 8,
              "kernels_avx2.cpp's micro-kernels are written for 6x16 floats and 6x8 doubles");

// The transcendental entries of a table besides F32 exp (log, log1p, tanh, sigmoid, pow, the
// UnaryMath functions, and exp for F64): the portable table's libm loops (kernels_portable.cpp), and the AVX2 table's
// (kernels_avx2_math.cpp: SLEEF's vector functions when built with it, else the same libm loops).
template <class T>
struct MathKernels {
  void (*exp)(const T* in, T* out, std::size_t n);
  void (*log)(const T* in, T* out, std::size_t n);
  void (*log1p)(const T* in, T* out, std::size_t n);
  void (*tanh)(const T* in, T* out, std::size_t n);
  void (*sigmoid)(const T* in, T* out, std::size_t n);
  void (*powf)(const T* in, T exponent, T* out, std::size_t n);
  void (*unary[kUnaryMathOps])(const T* in, T* out, std::size_t n);  // by UnaryMath
};
template <class T> MathKernels<T> portable_math();
template <class T> MathKernels<T> avx2_math();  // only call when the CPU supports AVX2 and FMA
const char* avx2_math_library();                // "sleef" or "libm": what avx2_math() runs on

// Inner loops that stream the rows of a matrix: the GEMV paths of gemm.cpp (gemv.cpp) and the
// long-dim reductions of reduce.cpp. Internal, so not in the public table of flex_testing.hpp;
// chosen the same way: the AVX2/FMA versions (row_kernels_avx2.cpp) whenever kernels() is the
// AVX2 table, else the portable ones (row_kernels.cpp), so force_portable_kernels and
// CROSSGRAD_FLEX_ISA=portable switch both.
template <class T>
struct RowKernels {
  // c[j] += sum over p < k of a[p] * b[p * ldb + j], for j < n (B rows read front to back).
  void (*row_times_matrix)(std::size_t k, std::size_t n, const T* a, const T* b, std::size_t ldb, T* c);
  // sum over p < k of a[p] * x[p].
  T (*dot)(std::size_t k, const T* a, const T* x);
  // acc[j] += in[r * ld + j] for r < rows, j < n, in double, adding the rows in order.
  void (*accumulate_rows)(const T* in, std::size_t ld, std::size_t rows, double* acc, std::size_t n);
};
// A tile transpose of elements moved as bits (4 or 8 bytes): b[r * ldb + c] = a[c * lda + r] for
// r < rows, c < cols. The permute / swap_dims copies of Note [Flex strided gather] run it on each
// cache tile; the AVX2 versions move 8x8 (4x4) blocks through registers, where the plain loop
// reads one element per strided load.
template <class U>
using TransposeTile = void (*)(const U* a, std::size_t lda, U* b, std::size_t ldb, std::size_t rows, std::size_t cols);
// The plain loop: the portable table's entry, and the AVX2 one's edges (any element size).
template <class U>
inline void transpose_tile(const U* a, std::size_t lda, U* b, std::size_t ldb, std::size_t rows, std::size_t cols) {
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) b[r * ldb + c] = a[c * lda + r];
  }
}
struct RowKernelTable {
  RowKernels<float> f32;
  RowKernels<double> f64;
  TransposeTile<std::uint32_t> transpose32;
  TransposeTile<std::uint64_t> transpose64;
};
const RowKernelTable& portable_row_kernels();
const RowKernelTable& avx2_row_kernels();  // only call when the CPU supports AVX2 and FMA
const RowKernelTable& row_kernel_table();  // follows kernels()

template <class T> const RowKernels<T>& row_kernels();
template <> inline const RowKernels<float>& row_kernels<float>() { return row_kernel_table().f32; }
template <> inline const RowKernels<double>& row_kernels<double>() { return row_kernel_table().f64; }

}  // namespace crossgrad::backends::flex
