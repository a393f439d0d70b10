// Cuda backend: float_max_dim, float_argmax, float_min_dim and float_argmin. One thread per output
// element scans its slice in index order with the spec's rule (the first NaN, else the first
// maximum / minimum), so values, NaN payloads and tie-breaking (-0 before +0 keeps -0) are exactly
// NdArray's.
#include "map_kernels.cuh"

#include <crossgrad/backends/cuda_kernels/dim_kernels.cuh>

namespace crossgrad::backends {

using namespace cuda_detail;  // this backend's internals (cuda_common.cuh, kernels.cuh)
namespace {

// Writes the max (kMin: min) value (values) and/or its index (indices) of every slice along dim.
template <class T, bool kMin>
void launch_scan_dim(const CudaTensor& tensor, std::size_t dim, T* values, std::int64_t* indices, const char* name) {
  const DimLayout l = dim_layout(tensor.shape.dims(), dim);
  const std::size_t slices = l.outer * l.inner;
  const int device = tensor.dev.index;
  max_dim_kernel<T, kMin><<<grid_for(slices, device), kThreads, 0, activate(device)>>>(data_of<T>(tensor), values, indices,
                                                                                slices, l.len, l.inner);
  check_launch(name);
}

template <bool kMin>
CudaTensor scan_dim(const CudaTensor& tensor, std::size_t dim, bool want_index, const char* name) {
  rules::check_float_dtype(tensor.dtype, name);
  rules::check_nonempty_reduction(tensor.shape, dim, name);
  CudaTensor out = make_tensor(rules::reduced_shape(tensor.shape, dim), want_index ? DType::I64 : tensor.dtype, tensor.dev);
  // No slice (a 0 dim other than `dim`): nothing to launch, and no outer * inner of a huge dim
  // with a zero one.
  if (out.shape.num_elements() == 0) return out;
  with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    if (want_index) launch_scan_dim<T, kMin>(tensor, dim, nullptr, data_of<std::int64_t>(out), name);
    else launch_scan_dim<T, kMin>(tensor, dim, data_of<T>(out), nullptr, name);
  });
  return out;
}

}  // namespace

CudaTensor Cuda::float_max_dim(const CudaTensor& tensor, std::size_t dim) {
  return scan_dim<false>(tensor, dim, false, "float_max_dim");
}
CudaTensor Cuda::float_argmax(const CudaTensor& tensor, std::size_t dim) {
  return scan_dim<false>(tensor, dim, true, "float_argmax");
}
CudaTensor Cuda::float_min_dim(const CudaTensor& tensor, std::size_t dim) {
  return scan_dim<true>(tensor, dim, false, "float_min_dim");
}
CudaTensor Cuda::float_argmin(const CudaTensor& tensor, std::size_t dim) {
  return scan_dim<true>(tensor, dim, true, "float_argmin");
}

}  // namespace crossgrad::backends
