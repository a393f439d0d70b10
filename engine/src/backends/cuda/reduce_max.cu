// Cuda backend: float_max_dim and float_argmax. One thread per output element scans its slice in
// index order with the spec's rule (the first NaN, else the first maximum), so values, NaN
// payloads and tie-breaking (-0 before +0 keeps -0) are exactly NdArray's.
#include "map_kernels.cuh"

#include <crossgrad/backends/cuda_kernels/dim_kernels.cuh>

namespace crossgrad::backends {

using namespace cuda_detail;  // this backend's internals (cuda_common.cuh, kernels.cuh)
namespace {

// Writes the max value (values) and/or its index (indices) of every slice along dim.
template <class T>
void launch_max_dim(const CudaTensor& tensor, std::size_t dim, T* values, std::int64_t* indices, const char* name) {
  const DimLayout l = dim_layout(tensor.shape.dims(), dim);
  const std::size_t slices = l.outer * l.inner;
  const int device = tensor.dev.index;
  max_dim_kernel<T><<<grid_for(slices, device), kThreads, 0, activate(device)>>>(data_of<T>(tensor), values, indices,
                                                                                slices, l.len, l.inner);
  check_launch(name);
}

}  // namespace

CudaTensor Cuda::float_max_dim(const CudaTensor& tensor, std::size_t dim) {
  rules::check_float_dtype(tensor.dtype, "float_max_dim");
  rules::check_nonempty_reduction(tensor.shape, dim, "float_max_dim");
  CudaTensor out = make_tensor(rules::reduced_shape(tensor.shape, dim), tensor.dtype, tensor.dev);
  // No slice (a 0 dim other than `dim`): nothing to launch, and no outer * inner of a huge dim
  // with a zero one.
  if (out.shape.num_elements() == 0) return out;
  with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    launch_max_dim<T>(tensor, dim, data_of<T>(out), nullptr, "float_max_dim");
  });
  return out;
}

CudaTensor Cuda::float_argmax(const CudaTensor& tensor, std::size_t dim) {
  rules::check_float_dtype(tensor.dtype, "float_argmax");
  rules::check_nonempty_reduction(tensor.shape, dim, "float_argmax");
  CudaTensor out = make_tensor(rules::reduced_shape(tensor.shape, dim), DType::I64, tensor.dev);
  if (out.shape.num_elements() == 0) return out;
  with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    launch_max_dim<T>(tensor, dim, nullptr, data_of<std::int64_t>(out), "float_argmax");
  });
  return out;
}

}  // namespace crossgrad::backends
