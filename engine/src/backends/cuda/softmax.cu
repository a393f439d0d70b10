// Cuda backend: softmax and log_softmax along a dim. One thread per slice, in the tensor's dtype,
// with the spec's sequential formulas (max scan, sum of exponentials in index order): the sums
// repeat NdArray's additions, so results differ from it only by expf/exp and logf/log (CUDA's
// precise versions are within 2 ulp), i.e. by a few ulps.
#include "map_kernels.cuh"

#include <crossgrad/backends/cuda_kernels/dim_kernels.cuh>

namespace crossgrad::backends {

using namespace cuda_detail;  // this backend's internals (cuda_common.cuh, kernels.cuh)
namespace {

template <bool kLog>
CudaTensor softmax_along(const CudaTensor& tensor, std::size_t dim, const char* name) {
  rules::check_float_dtype(tensor.dtype, name);
  rules::check_dim(dim, tensor.shape.rank(), name);
  CudaTensor out = make_tensor(tensor.shape, tensor.dtype, tensor.dev);
  // No element (a 0 dim, `dim` included): an empty result, no launch.
  if (out.shape.num_elements() == 0) return out;
  const DimLayout l = dim_layout(tensor.shape.dims(), dim);
  const std::size_t slices = l.outer * l.inner;
  const int device = tensor.dev.index;
  with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    softmax_kernel<T, kLog><<<grid_for(slices, device), kThreads, 0, activate(device)>>>(
        data_of<T>(tensor), data_of<T>(out), slices, l.len, l.inner);
    check_launch(name);
  });
  return out;
}

}  // namespace

CudaTensor Cuda::softmax(const CudaTensor& tensor, std::size_t dim) {
  return softmax_along<false>(tensor, dim, "softmax");
}
CudaTensor Cuda::log_softmax(const CudaTensor& tensor, std::size_t dim) {
  return softmax_along<true>(tensor, dim, "log_softmax");
}

}  // namespace crossgrad::backends
