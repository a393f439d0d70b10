#pragma once
// Device kernels of the Cuda backend's embedding and embedding_backward (docs/OPS.md "Module
// ops"); the launchers are in engine/src/backends/cuda/embedding.cu, which checks every index on the
// host before a launch. Device code only, as kernels.cuh, so
// tests/unit/cuda_embedding_kernels_emulation_test.cpp runs these very templates on the CPU. Not
// engine API.
//
// The forward kernel gives one thread to each output element (a copy). The backward kernel gives
// one thread to each of the d_model columns: it zeroes the column of every row, then adds the
// positions' gradients in position order, NdArray's additions in NdArray's order (no atomics), so
// the same bits whatever indices repeat.
#include "kernel_support.cuh"

#include <cstdint>

namespace crossgrad::backends::cuda_detail {

// embedding: y[q, c] = weights[indices[q], c] for the positions q of the flattened indices.
template <class T, class I>
__global__ void __launch_bounds__(kThreads)
    embedding_kernel(const T* __restrict__ weights, const I* __restrict__ indices, T* __restrict__ y,
                     std::int64_t positions, std::int64_t d_model) {
  const std::int64_t total = positions * d_model;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += stride) {
    const std::int64_t q = t / d_model;
    const std::int64_t c = t - q * d_model;
    y[t] = weights[static_cast<std::int64_t>(indices[q]) * d_model + c];
  }
}

// embedding_backward: dw[r, c] = sum, in position order, of grad[q, c] over the positions q whose
// index is r; zero for a row no index names.
template <class T, class I>
__global__ void __launch_bounds__(kThreads)
    embedding_backward_kernel(const T* __restrict__ grad, const I* __restrict__ indices, T* __restrict__ dw,
                              std::int64_t positions, std::int64_t n_embeddings, std::int64_t d_model) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < d_model; c += stride) {
    for (std::int64_t r = 0; r < n_embeddings; ++r) dw[r * d_model + c] = T(0);
    for (std::int64_t q = 0; q < positions; ++q) {
      dw[static_cast<std::int64_t>(indices[q]) * d_model + c] += grad[q * d_model + c];
    }
  }
}

}  // namespace crossgrad::backends::cuda_detail
