#pragma once
// Note [Flex tuning]
// Every size at which a Flex kernel changes code path, in one place. Flex's kernels read their
// thresholds from kTuning (engine/src/backends/flex/), and the size-tier tests (tests/sizes/)
// derive their shapes from it, so the tests straddle each threshold wherever a constant moves.
// The values are tuning, not contract: results do not depend on them beyond rounding (the
// reductions' block structure is fixed, so sums do not depend on the thread count).
//
// Below the constants: the run-time controls of the kernel table and thread count. The kernel
// table itself and the thread pool are in <crossgrad/backends/flex_testing.hpp> (tests, benchmarks).
#include <cstddef>

namespace crossgrad::backends::flex {

// Goto/BLIS blocking of one dtype's GEMM: an MR x NR register tile (fixed by the micro-kernels),
// MC rows of A and KC of the inner dim per packed A block, NC columns of B per packed B block.
struct GemmBlocking {
  std::size_t mr, nr, mc, kc, nc;
};

struct Tuning {
  // parallel_range(n, grain): serial while n < split_min_grains * grain (or one thread);
  // otherwise min(threads * chunks_per_thread, n / grain) chunks of n / chunks items, the first
  // n % chunks of them one longer.
  std::size_t split_min_grains;
  std::size_t chunks_per_thread;
  // Items per parallel chunk of the element-wise, data and quantize kernels; row-wise kernels
  // (broadcast binary rows, sum_dim rows and column chunks, swap_dims rows and matrices) use
  // grain / (elements per row), at least 1.
  std::size_t elementwise_grain;
  GemmBlocking gemm_f32;
  GemmBlocking gemm_f64;
  // GEMM path by m * n * k: below small_work a plain i-k-j loop; from it the blocked, packed
  // kernel; from threaded_work that kernel over threads (B packing too when there are at least
  // 2 * threads panels of NR columns).
  std::size_t gemm_small_work;
  std::size_t gemm_threaded_work;
  // Threaded products with m <= MC and k <= few_rows_max_k pack B in groups of NC / NR panels
  // shared over threads instead of splitting row blocks (there are too few rows to split).
  std::size_t gemm_few_rows_max_k;
  // m == 1 or n == 1 (memory-bound, gemv.cpp): a row vector times B in strips of gemv_strip
  // columns; threaded in parts of whole gemv_line-column lines, one part per gemv_threaded_work
  // multiply-adds (a column times A: rows over threads with that work per grain).
  std::size_t gemv_strip;
  std::size_t gemv_line;
  std::size_t gemv_threaded_work;
  // Batched float_matmul: with more than one batch entry, per-entry work below
  // batch_small_matrix_work and total work from batch_enough_work, entries are spread over
  // threads (each a serial GEMM); otherwise one (threaded) GEMM per entry in turn.
  std::size_t batch_small_matrix_work;
  std::size_t batch_enough_work;
  // float_sum / float_mean: from 2 * sum_block elements, partial sums of fixed sum_block-element
  // blocks (the last one shorter), added in block order; blocks are split over threads with a
  // grain of sum_block_grain blocks.
  std::size_t sum_block;
  std::size_t sum_block_grain;
  // float_sum_dim / float_mean_dim with elements after the reduced dim (inner > 1): outputs are
  // computed in column chunks of at most reduce_column_chunk (one task per [outer, chunk]).
  std::size_t reduce_column_chunk;
  // The same with a reduced dim longer than reduce_row_block: fixed blocks of that many rows
  // (the last shorter), each summed over column chunks of reduce_block_chunk into its own partial
  // row; the partials are then added in block order.
  std::size_t reduce_row_block;
  std::size_t reduce_block_chunk;
  // float_swap_dims of the two innermost dims: a transpose in square tiles of this side.
  std::size_t transpose_tile;

  constexpr const GemmBlocking& gemm(bool f64) const { return f64 ? gemm_f64 : gemm_f32; }
};

inline constexpr Tuning kTuning{
    /*split_min_grains=*/2,
    /*chunks_per_thread=*/4,
    /*elementwise_grain=*/std::size_t{1} << 15,
    // MC x KC of A: 288 KB (float) / 192 KB (double), within a 512 KB-1 MB L2; KC x NR of B in L1.
    /*gemm_f32=*/{6, 16, 192, 384, 3072},
    /*gemm_f64=*/{6, 8, 96, 256, 2048},
    /*gemm_small_work=*/std::size_t{64} * 64 * 64,
    /*gemm_threaded_work=*/std::size_t{128} * 128 * 64,
    /*gemm_few_rows_max_k=*/std::size_t{1} << 12,
    // A strip of C: 8 KiB of floats, in L1 while B's rows stream past; a line is 64 bytes of floats.
    /*gemv_strip=*/2048,
    /*gemv_line=*/16,
    /*gemv_threaded_work=*/std::size_t{1} << 16,
    /*batch_small_matrix_work=*/std::size_t{128} * 128 * 128,
    /*batch_enough_work=*/std::size_t{64} * 64 * 64,
    /*sum_block=*/std::size_t{1} << 16,
    /*sum_block_grain=*/2,
    /*reduce_column_chunk=*/2048,
    // 4096 doubles (32 KiB) of partial row stay in L1 while four rows of up to 16 KiB stream past.
    /*reduce_row_block=*/256,
    /*reduce_block_chunk=*/4096,
    /*transpose_tile=*/32,
};

// ---- run-time controls --------------------------------------------------------------------------
// Flex picks its kernel table (AVX2/FMA when the CPU has it, else portable; CROSSGRAD_FLEX_ISA=
// portable forces portable) and its thread count (CROSSGRAD_NUM_THREADS, else the hardware's)
// once per process. These let a program (a test running both tables and several thread counts, a
// benchmark matching another library's thread count) change or read them in one process.
// Not for use while another thread runs Flex ops.

// true: the portable table from now on; false: back to the default choice.
void force_portable_kernels(bool portable);
// "avx2" or "portable": the table ops use now.
const char* active_isa();

// Threads a parallel_for may use, the caller included (>= 1): the override when set, else the
// pool's size.
std::size_t num_threads();
// Sets the thread count the kernels plan their splits for (0: back to the pool's size). The pool
// itself keeps its workers: with more planned threads than workers, the extra tasks are picked
// up by whichever thread is free, so every split still runs completely and in any order; 1 runs
// everything on the calling thread.
void set_num_threads_override(std::size_t threads);
// The same as set_num_threads_override: the name the public API gives it (crossgrad::flex::).
void set_num_threads(std::size_t threads);

}  // namespace crossgrad::backends::flex

namespace crossgrad {
// crossgrad::flex::num_threads(), crossgrad::flex::set_num_threads(n), ...: the short name.
namespace flex = backends::flex;
}  // namespace crossgrad
