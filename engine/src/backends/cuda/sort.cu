// Cuda backend: float_argsort and float_argtopk (float_sort and float_topk gather through them,
// composites.cu), rank_sort_kernel in dim_kernels.cuh: each element's place in its lane's stable
// order, so the positions are NdArray's exactly.
#include "map_kernels.cuh"

#include <crossgrad/backends/cuda_kernels/dim_kernels.cuh>

#include <cstdint>

namespace crossgrad::backends {

using namespace cuda_detail;  // this backend's internals (cuda_common.cuh, kernels.cuh)
namespace {

CudaTensor sorted_positions(const CudaTensor& tensor, std::size_t dim, bool descending, std::size_t k,
                            const Shape& shape, const char* name) {
  CudaTensor out = make_tensor(shape, DType::I64, tensor.dev);
  if (out.shape.num_elements() == 0) return out;
  const DimLayout l = dim_layout(tensor.shape.dims(), dim);
  const std::size_t n = tensor.shape.num_elements();
  const int device = tensor.dev.index;
  with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    rank_sort_kernel<T><<<grid_for(n, device), kThreads, 0, activate(device)>>>(
        data_of<T>(tensor), data_of<std::int64_t>(out), n, l.len, l.inner, k, descending);
    check_launch(name);
  });
  return out;
}

}  // namespace

CudaTensor Cuda::float_argsort(const CudaTensor& tensor, std::size_t dim, bool descending) {
  rules::check_sort(tensor.shape, tensor.dtype, dim, "float_argsort");
  return sorted_positions(tensor, dim, descending, tensor.shape[dim], tensor.shape, "float_argsort");
}

CudaTensor Cuda::float_argtopk(const CudaTensor& tensor, std::size_t dim, std::size_t k) {
  const Shape out = rules::check_topk(tensor.shape, tensor.dtype, dim, k, "float_argtopk");
  return sorted_positions(tensor, dim, /*descending=*/true, k, out, "float_argtopk");
}

}  // namespace crossgrad::backends
