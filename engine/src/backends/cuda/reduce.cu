// Cuda backend: sums and means, over everything (shape [1]) or along one dim (kept with size 1).
//
// As NdArray, every reduction accumulates in double whatever the dtype and rounds once to the
// tensor's dtype at the end (a mean divides the double sum by the count first, so 0 elements give
// 0/0 = NaN). The order is a fixed tree rather than NdArray's sequential loop, so F64 results may
// differ from NdArray's in the last ulps; F32 results almost always round to the same float. The
// tree depends only on the shape (never on the GPU model), so results are reproducible.
#include "map_kernels.cuh"

namespace crossgrad::backends {

using namespace cuda_detail;  // this backend's internals (cuda_common.cuh, kernels.cuh)
namespace {

constexpr unsigned kMaxPartials = 1024;

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
  const rules::DimSplit split = rules::split_at_dim(tensor.shape, dim);
  const std::size_t outer = split.outer, len = split.len, inner = split.inner;
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
