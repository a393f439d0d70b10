#pragma once
// A sequential emulation of a CUDA launch for the kernel emulation tests whose kernels use no
// block-level synchronisation (cuda_dim_kernels_emulation_test.cpp,
// cuda_pool_kernels_emulation_test.cpp): every thread of every block runs one after another, with
// threadIdx / blockIdx / blockDim / gridDim as plain globals. Include it, then the kernel header,
// then #undef the four index names before including anything else (gtest uses such names).
#include <functional>

namespace emu_seq {
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};
inline dim3 thread_index, block_index, block_dim, grid_dim;

// Runs kernel() for every thread of a grid x block launch, one at a time.
inline void launch(unsigned blocks, unsigned threads, const std::function<void()>& kernel) {
  grid_dim = {blocks, 1, 1};
  block_dim = {threads, 1, 1};
  for (unsigned b = 0; b < blocks; ++b) {
    for (unsigned t = 0; t < threads; ++t) {
      block_index = {b, 0, 0};
      thread_index = {t, 0, 0};
      kernel();
    }
  }
}
}  // namespace emu_seq

#define __global__
#define __device__
#define __host__
#define __launch_bounds__(...)
#define __shared__ static
#define threadIdx (::emu_seq::thread_index)
#define blockIdx (::emu_seq::block_index)
#define blockDim (::emu_seq::block_dim)
#define gridDim (::emu_seq::grid_dim)
// Only in kernel_support.cuh's block sums, which these kernels do not use.
#define __syncthreads() ((void)0)
#define __shfl_down_sync(mask, v, offset) (v)
