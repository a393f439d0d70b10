#pragma once
// Internal to the Cuda backend (engine/src/backends/cuda): device management, the caching
// allocator, error checking, launch helpers and index math shared by the op families. Nothing here
// is engine API; only the .cu files of this folder include it.
//
// Note [Cuda stream ordering]
// Every device has one stream (created on first use) and every kernel, memset and copy of that
// device goes on it. Blocks freed to the caching allocator are therefore safe to hand out again at
// once: any later use of the block is enqueued after every earlier use on the same stream. The only
// work that touches two devices is float_to_device, which synchronises before returning, so no
// block is ever read by another device's stream after it has been freed. into_data synchronises the
// stream before it hands host bytes back.
#include <crossgrad/backends/cuda.hpp>
#include <crossgrad/core/host_buffer.hpp>
#include <crossgrad/core/panic.hpp>
#include <crossgrad/core/shape_rules.hpp>

#include <cuda_runtime.h>

#include "cuda_hooks.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace crossgrad::backends {

// Device memory from the caching allocator. Immutable once written by the op that created it
// (tensors share buffers: reshape, same-dtype cast and same-device to_device return the input's
// buffer). Destruction returns the block to the cache without any CUDA call.
class CudaBuffer {
 public:
  CudaBuffer(void* ptr, std::size_t bytes, std::size_t capacity, int device)
      : ptr_(ptr), bytes_(bytes), capacity_(capacity), device_(device) {}
  ~CudaBuffer();
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;

  void* data() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }      // what the tensor needs
  std::size_t capacity() const { return capacity_; }  // what the block holds (rounded up)
  int device() const { return device_; }

 private:
  void* ptr_;
  std::size_t bytes_;
  std::size_t capacity_;
  int device_;
};

namespace cuda_detail {

// ---- errors ---------------------------------------------------------------------------------

// panic(cuda-error) with cudaGetErrorString's text. `call` names the runtime call or kernel.
[[noreturn]] void fail(cudaError_t error, const char* call);

inline void check(cudaError_t error, const char* call) {
  if (error != cudaSuccess) fail(error, call);
}

// After a kernel launch: a bad configuration or a sticky error from earlier work.
void check_launch(const char* kernel);

// ---- devices --------------------------------------------------------------------------------

// Panics device-unavailable unless `device` is a Cuda device with an index below the count.
void require_device(const Device& device);

// activate(device) (cuda_hooks.hpp) makes a device current and returns its stream.

// Multiprocessor count of a device (cached).
int sm_count(int device);

// ---- memory ---------------------------------------------------------------------------------

// `bytes` of device memory on `device` from the cache (bytes may be 0: no allocation).
std::shared_ptr<CudaBuffer> allocate(int device, std::size_t bytes);

// Uninitialised result tensor (panics tensor-too-large, like the CPU backends).
CudaTensor make_tensor(Shape shape, DType dtype, const Device& device);

template <class T>
T* data_of(const CudaTensor& tensor) {
  return tensor.buffer ? static_cast<T*>(tensor.buffer->data()) : nullptr;
}

// `tensor` itself when it is on `device`, else a copy moved there (float_to_device semantics).
CudaTensor on_device(const CudaTensor& tensor, const Device& device);

// ---- dtype dispatch -------------------------------------------------------------------------

// Calls fn(T{}) with T = float for F32, double otherwise (callers check the dtype first).
template <class Fn>
decltype(auto) with_float_type(DType dtype, Fn&& fn) {
  if (dtype == DType::F32) return fn(float{});
  return fn(double{});
}

// ---- launch helpers -------------------------------------------------------------------------

inline constexpr int kThreads = 256;

// Blocks for a grid-stride loop over `work` items: enough to fill the device a few times over,
// never 0 (callers return before launching when there is no work).
inline unsigned grid_for(std::size_t work, int device, int threads = kThreads) {
  const std::size_t wanted = (work + threads - 1) / threads;
  const std::size_t cap = static_cast<std::size_t>(sm_count(device)) * 32;
  const std::size_t blocks = wanted < cap ? wanted : cap;
  return static_cast<unsigned>(blocks == 0 ? 1 : blocks);
}

// A fixed group of W elements, aligned so that one thread loads or stores it in one (or two)
// vector instructions. Buffers start at cudaMalloc's 256-byte alignment and are never offset.
template <class T, int W>
struct alignas(sizeof(T) * W) Pack {
  T v[W];
};

// ---- strided index math ---------------------------------------------------------------------

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
// walk collapses to one dim with stride 1; a scalar to no dim at all.
struct Collapsed {
  std::vector<std::size_t> dims;
  std::vector<std::vector<std::size_t>> strides;  // [operand][dim]
};
Collapsed collapse(const std::vector<std::size_t>& dims,
                   const std::vector<std::vector<std::size_t>>& strides);

template <class Index, int N>
Strided<Index, N> to_strided(const Collapsed& c) {
  if (c.dims.size() > static_cast<std::size_t>(kMaxDims)) {
    // Unreachable for any tensor under kMaxTensorBytes (see kMaxDims).
    fail(cudaErrorInvalidValue, "collapse_dims");
  }
  Strided<Index, N> s;
  s.rank = static_cast<int>(c.dims.size());
  for (int d = 0; d < s.rank; ++d) {
    s.dims[d] = static_cast<Index>(c.dims[d]);
    for (int o = 0; o < N; ++o) s.strides[o][d] = static_cast<Index>(c.strides[o][d]);
  }
  return s;
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
  const int warps = blockDim.x / 32;
  v = threadIdx.x < warps ? warp_partials[threadIdx.x] : Acc(0);
  if (warp == 0) v = warp_sum(v);
  return v;
}

}  // namespace cuda_detail
}  // namespace crossgrad::backends
