// Cuda: the ops written once for every backend as compositions of its own ops (composite_ops.hpp).
#include "map_kernels.cuh"
#include "../composite_ops.hpp"

namespace crossgrad::backends {

CudaTensor Cuda::float_transpose(const CudaTensor& tensor) { return composite::transpose<Cuda>(tensor); }
CudaTensor Cuda::softmin(const CudaTensor& tensor, std::size_t dim) { return composite::softmin<Cuda>(tensor, dim); }
CudaTensor Cuda::hard_sigmoid(const CudaTensor& tensor, double alpha, double beta) {
  return composite::hard_sigmoid<Cuda>(tensor, alpha, beta);
}
CudaTensor Cuda::float_repeat_dim(const CudaTensor& tensor, std::size_t dim, std::size_t times) {
  return composite::repeat_dim<Cuda>(tensor, dim, times);
}
CudaTensor Cuda::float_unfold(const CudaTensor& tensor, std::size_t dim, std::size_t size, std::size_t step) {
  return composite::unfold<Cuda>(tensor, dim, size, step);
}

CudaTensor Cuda::float_cross(const CudaTensor& lhs, const CudaTensor& rhs, std::size_t dim) {
  return composite::cross<Cuda>(lhs, rhs, dim);
}

CudaTensor Cuda::float_sort(const CudaTensor& tensor, std::size_t dim, bool descending) {
  return composite::sort<Cuda>(tensor, dim, descending);
}
CudaTensor Cuda::float_topk(const CudaTensor& tensor, std::size_t dim, std::size_t k) {
  return composite::topk<Cuda>(tensor, dim, k);
}

CudaTensor Cuda::float_slice_assign(const CudaTensor& tensor, const std::vector<Range>& ranges, const CudaTensor& values) {
  return composite::slice_assign<Cuda>(tensor, ranges, values);
}

CudaTensor Cuda::float_gather_nd(const CudaTensor& tensor, const CudaTensor& indices) {
  return composite::gather_nd<Cuda>(tensor, indices);
}
CudaTensor Cuda::float_scatter_nd(const CudaTensor& tensor, const CudaTensor& indices, const CudaTensor& values, IndexingUpdateOp update) {
  return composite::scatter_nd<Cuda>(tensor, indices, values, update);
}

CudaTensor Cuda::float_mask_select(const CudaTensor& tensor, const CudaTensor& mask) {
  return composite::mask_select<Cuda>(tensor, mask);
}

}  // namespace crossgrad::backends
