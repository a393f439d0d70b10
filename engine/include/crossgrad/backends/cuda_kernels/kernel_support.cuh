#pragma once
// The device-side building blocks of the Cuda backend's kernels: fixed-width packs, the strided
// index walk, warp and block sums. No CUDA runtime API here, so that the kernels (kernels.cuh) can
// also be compiled as plain C++ by the CPU emulation test (tests/unit/cuda_kernel_emulation_test.cpp),
// which supplies threadIdx, __syncthreads, __shfl_down_sync and friends itself. Not engine API
// (see kernels.cuh).
#include <cstddef>
#include <cstdint>
#include <vector>

// `#pragma unroll` for nvcc; nothing for the host compiler of the emulation test.
#ifdef __CUDACC__
#define CROSSGRAD_UNROLL _Pragma("unroll")
#else
#define CROSSGRAD_UNROLL
#endif

namespace crossgrad::backends::cuda_detail {

inline constexpr int kThreads = 256;

// A fixed group of W elements, aligned so that one thread loads or stores it in one (or two)
// vector instructions. Buffers start at cudaMalloc's 256-byte alignment and are never offset.
template <class T, int W>
struct alignas(sizeof(T) * W) Pack {
  T v[W];
};

// Enough for any collapsed shape: after dropping size-1 dims every dim is >= 2, and no tensor
// has more than 2^34 elements (kMaxTensorBytes), so no collapsed shape has more than 34 dims.
inline constexpr int kMaxDims = 40;

// A row-major walk over `dims` that finds, for each linear output index, the element offset of
// each of N operands with its own strides (0 on broadcast dims). Passed to kernels by value.
template <class Index, int N>
struct Strided {
  int rank = 0;
  Index dims[kMaxDims];
  Index strides[N][kMaxDims];

  __host__ __device__ void offsets(Index linear, Index (&out)[N]) const {
    for (int o = 0; o < N; ++o) out[o] = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const Index q = linear / dims[d];
      const Index c = linear - q * dims[d];
      linear = q;
      for (int o = 0; o < N; ++o) out[o] += c * strides[o][d];
    }
  }
};

// Dims and per-operand strides with size-1 dims dropped and adjacent dims merged wherever every
// operand walks them as one (outer stride == inner stride * inner dim). A contiguous same-shape
// walk collapses to one dim with stride 1; a scalar to no dim at all. Host code.
struct Collapsed {
  std::vector<std::size_t> dims;
  std::vector<std::vector<std::size_t>> strides;  // [operand][dim]
};

inline Collapsed collapse(const std::vector<std::size_t>& dims,
                          const std::vector<std::vector<std::size_t>>& strides) {
  Collapsed c;
  c.strides.resize(strides.size());
  for (std::size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    if (!c.dims.empty()) {
      bool merge = true;
      for (std::size_t o = 0; o < strides.size(); ++o) {
        if (c.strides[o].back() != strides[o][d] * dims[d]) merge = false;
      }
      if (merge) {
        c.dims.back() *= dims[d];
        for (std::size_t o = 0; o < strides.size(); ++o) c.strides[o].back() = strides[o][d];
        continue;
      }
    }
    c.dims.push_back(dims[d]);
    for (std::size_t o = 0; o < strides.size(); ++o) c.strides[o].push_back(strides[o][d]);
  }
  return c;
}

// Copies a collapsed walk into the kernel-argument form; false when it has too many dims.
template <class Index, int N>
bool fill_strided(const Collapsed& c, Strided<Index, N>& s) {
  if (c.dims.size() > static_cast<std::size_t>(kMaxDims)) return false;
  s.rank = static_cast<int>(c.dims.size());
  for (int d = 0; d < s.rank; ++d) {
    s.dims[d] = static_cast<Index>(c.dims[d]);
    for (int o = 0; o < N; ++o) s.strides[o][d] = static_cast<Index>(c.strides[o][d]);
  }
  return true;
}

// ---- block reductions -----------------------------------------------------------------------

template <class Acc>
__device__ inline Acc warp_sum(Acc v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Sum over the block (blockDim.x a multiple of 32, at most 1024); the result is valid in thread 0.
// Every thread of the block must call it (it synchronises). Deterministic: the combination order
// depends only on the block size.
template <class Acc>
__device__ inline Acc block_sum(Acc v) {
  __shared__ Acc warp_partials[32];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  __syncthreads();  // a previous call's readers are done with warp_partials
  v = warp_sum(v);
  if (lane == 0) warp_partials[warp] = v;
  __syncthreads();
  const int warps = static_cast<int>(blockDim.x) / 32;
  v = static_cast<int>(threadIdx.x) < warps ? warp_partials[threadIdx.x] : Acc(0);
  if (warp == 0) v = warp_sum(v);
  return v;
}

}  // namespace crossgrad::backends::cuda_detail
