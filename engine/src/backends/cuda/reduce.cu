// Cuda backend: sums and means, over everything (shape [1]) or along one dim (kept with size 1).
//
// As NdArray, every reduction accumulates in double whatever the dtype and rounds once to the
// tensor's dtype at the end (a mean divides the double sum by the count first, so 0 elements give
// 0/0 = NaN). The order is a fixed tree rather than NdArray's sequential loop, so F64 results may
// differ from NdArray's in the last ulps; F32 results almost always round to the same float. The
// tree depends only on the shape (never on the GPU model), so results are reproducible.
#include "map_kernels.cuh"

namespace crossgrad::backends {
namespace {

using cuda_detail::activate;
using cuda_detail::block_sum;
using cuda_detail::check_launch;
using cuda_detail::data_of;
using cuda_detail::kPack;
using cuda_detail::kThreads;
using cuda_detail::make_tensor;
using cuda_detail::Pack;
using cuda_detail::with_float_type;

constexpr unsigned kMaxPartials = 1024;

// Pass 1 of a full reduction: each block sums a grid-strided share into partial[blockIdx.x].
template <class T>
__global__ void __launch_bounds__(kThreads) sum_partial_kernel(const T* __restrict__ x, std::size_t n,
                                                               double* __restrict__ partial) {
  const std::size_t packs = n / kPack;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const auto* xp = reinterpret_cast<const Pack<T, kPack>*>(x);
  double acc = 0.0;
  for (std::size_t p = first; p < packs; p += stride) {
    const Pack<T, kPack> a = xp[p];
#pragma unroll
    for (int w = 0; w < kPack; ++w) acc += static_cast<double>(a.v[w]);
  }
  const std::size_t tail = packs * kPack + first;
  if (tail < n) acc += static_cast<double>(x[tail]);
  acc = block_sum(acc);
  if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

// Pass 2: one block adds the partials and writes the [1]-shaped result.
template <class T>
__global__ void __launch_bounds__(kThreads) sum_final_kernel(const double* __restrict__ partial,
                                                             unsigned count, T* __restrict__ out,
                                                             std::size_t n, bool mean) {
  double acc = 0.0;
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x) acc += partial[i];
  acc = block_sum(acc);
  if (threadIdx.x == 0) {
    if (mean) acc /= static_cast<double>(n);
    out[0] = static_cast<T>(acc);
  }
}

// Along a dim whose elements are contiguous (inner == 1): one block per row of `len` elements.
template <class T>
__global__ void rows_kernel(const T* __restrict__ x, T* __restrict__ out, std::size_t rows,
                            std::size_t len, bool mean) {
  for (std::size_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* p = x + row * len;
    double acc = 0.0;
    for (std::size_t j = threadIdx.x; j < len; j += blockDim.x) acc += static_cast<double>(p[j]);
    acc = block_sum(acc);
    if (threadIdx.x == 0) {
      if (mean) acc /= static_cast<double>(len);
      out[row] = static_cast<T>(acc);
    }
  }
}

// Along a strided dim (inner > 1): a block of 32 x 8 threads owns 32 consecutive outputs; the 8
// rows of threads split the reduced dim and meet in shared memory. Reads are coalesced along inner.
constexpr int kColsX = 32;
constexpr int kColsY = 8;

template <class T>
__global__ void __launch_bounds__(kColsX * kColsY) cols_kernel(const T* __restrict__ x, T* __restrict__ out,
                                                               std::size_t total, std::size_t len,
                                                               std::size_t inner, bool mean) {
  __shared__ double part[kColsY][kColsX + 1];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  for (std::size_t base = static_cast<std::size_t>(blockIdx.x) * kColsX; base < total;
       base += static_cast<std::size_t>(gridDim.x) * kColsX) {
    const std::size_t t = base + tx;
    double acc = 0.0;
    if (t < total) {
      const std::size_t o = t / inner;
      const std::size_t j = t - o * inner;
      const T* p = x + o * len * inner + j;
      for (std::size_t r = ty; r < len; r += kColsY) acc += static_cast<double>(p[r * inner]);
    }
    part[ty][tx] = acc;
    __syncthreads();
    if (ty == 0 && t < total) {
      double s = 0.0;
#pragma unroll
      for (int k = 0; k < kColsY; ++k) s += part[k][tx];
      if (mean) s /= static_cast<double>(len);
      out[t] = static_cast<T>(s);
    }
    __syncthreads();
  }
}

CudaTensor reduce_all(const CudaTensor& tensor, const char* name, bool mean) {
  rules::check_float_dtype(tensor.dtype, name);
  CudaTensor out = make_tensor(Shape{1}, tensor.dtype, tensor.dev);
  const int device = tensor.dev.index;
  const std::size_t n = tensor.shape.num_elements();
  // Partials depend on n only; at least one block, so 0 elements still write 0 (or 0/0 = NaN).
  const std::size_t wanted = (n + kThreads * 16 - 1) / (kThreads * 16);
  const unsigned blocks = static_cast<unsigned>(wanted == 0 ? 1 : (wanted < kMaxPartials ? wanted : kMaxPartials));
  const auto partial = cuda_detail::allocate(device, blocks * sizeof(double));
  auto* partial_data = static_cast<double*>(partial->data());
  with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    const cudaStream_t stream = activate(device);
    sum_partial_kernel<T><<<blocks, kThreads, 0, stream>>>(data_of<T>(tensor), n, partial_data);
    check_launch("sum_partial_kernel");
    sum_final_kernel<T><<<1, kThreads, 0, stream>>>(partial_data, blocks, data_of<T>(out), n, mean);
    check_launch("sum_final_kernel");
  });
  // `partial` returns to the cache here; its next user is ordered after these kernels.
  return out;
}

CudaTensor reduce_dim(const CudaTensor& tensor, std::size_t dim, const char* name, bool mean) {
  rules::check_float_dtype(tensor.dtype, name);
  rules::check_dim(dim, tensor.shape.rank(), name);
  CudaTensor out = make_tensor(rules::reduced_shape(tensor.shape, dim), tensor.dtype, tensor.dev);
  // No output element: nothing to launch (and outer * inner below could multiply a huge dim
  // with a zero one).
  const std::size_t total = out.shape.num_elements();
  if (total == 0) return out;
  std::size_t outer = 1;
  for (std::size_t d = 0; d < dim; ++d) outer *= tensor.shape[d];
  std::size_t inner = 1;
  for (std::size_t d = dim + 1; d < tensor.shape.rank(); ++d) inner *= tensor.shape[d];
  const std::size_t len = tensor.shape[dim];
  const int device = tensor.dev.index;
  with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    const cudaStream_t stream = activate(device);
    if (inner == 1) {
      int threads = 32;
      while (threads < kThreads && static_cast<std::size_t>(threads) < len) threads *= 2;
      const std::size_t cap = static_cast<std::size_t>(cuda_detail::sm_count(device)) * 64;
      const unsigned blocks = static_cast<unsigned>(outer < cap ? outer : cap);
      rows_kernel<T><<<blocks, threads, 0, stream>>>(data_of<T>(tensor), data_of<T>(out), outer, len, mean);
      check_launch("rows_kernel");
    } else {
      const std::size_t tiles = (total + kColsX - 1) / kColsX;
      const std::size_t cap = static_cast<std::size_t>(cuda_detail::sm_count(device)) * 32;
      const unsigned blocks = static_cast<unsigned>(tiles < cap ? tiles : cap);
      cols_kernel<T><<<blocks, dim3(kColsX, kColsY), 0, stream>>>(data_of<T>(tensor), data_of<T>(out), total,
                                                                  len, inner, mean);
      check_launch("cols_kernel");
    }
  });
  return out;
}

}  // namespace

CudaTensor Cuda::float_sum(const CudaTensor& tensor) { return reduce_all(tensor, "float_sum", false); }
CudaTensor Cuda::float_mean(const CudaTensor& tensor) { return reduce_all(tensor, "float_mean", true); }
CudaTensor Cuda::float_sum_dim(const CudaTensor& tensor, std::size_t dim) {
  return reduce_dim(tensor, dim, "float_sum_dim", false);
}
CudaTensor Cuda::float_mean_dim(const CudaTensor& tensor, std::size_t dim) {
  return reduce_dim(tensor, dim, "float_mean_dim", true);
}

}  // namespace crossgrad::backends
