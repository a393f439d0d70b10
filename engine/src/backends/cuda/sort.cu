// Cuda backend: float_ and int_ argsort and argtopk (sort and topk gather through them,
// composites.cu), rank_sort_kernel in dim_kernels.cuh: each element's place in its lane's stable
// order, so the positions are NdArray's exactly.
#include "map_kernels.cuh"
#include "../kind_members.hpp"

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
  with_element_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    rank_sort_kernel<T><<<grid_for(n, device), kThreads, 0, activate(device)>>>(
        data_of<T>(tensor), data_of<std::int64_t>(out), n, l.len, l.inner, k, descending);
    check_launch(name);
  });
  return out;
}

CudaTensor argsort_positions(const CudaTensor& tensor, std::size_t dim, bool descending, OpId op) {
  const char* name = op_info(op).name.data();
  rules::check_sort(tensor.shape, tensor.dtype, operand_category(op), dim, name);
  return sorted_positions(tensor, dim, descending, tensor.shape[dim], tensor.shape, name);
}

CudaTensor argtopk_positions(const CudaTensor& tensor, std::size_t dim, std::size_t k, OpId op) {
  const char* name = op_info(op).name.data();
  const Shape out = rules::check_topk(tensor.shape, tensor.dtype, operand_category(op), dim, k, name);
  return sorted_positions(tensor, dim, /*descending=*/true, k, out, name);
}

}  // namespace

CROSSGRAD_KIND_MEMBER(Cuda, float_argsort, Sort, argsort_positions)
CROSSGRAD_KIND_MEMBER(Cuda, int_argsort, Sort, argsort_positions)
CROSSGRAD_KIND_MEMBER(Cuda, float_argtopk, TopK, argtopk_positions)
CROSSGRAD_KIND_MEMBER(Cuda, int_argtopk, TopK, argtopk_positions)

}  // namespace crossgrad::backends
