// Cuda backend: float_max_dim, float_argmax, float_min_dim, float_argmin, float_max_abs_dim,
// float_prod_dim, float_any_dim, float_all_dim and the whole-tensor float_max, float_min,
// float_max_abs, float_prod, float_any, float_all. One thread per output element scans its slice
// in index order with the spec's rule (the first NaN, else the first maximum / minimum; products
// in double in index order), so values, NaN payloads and tie-breaking (-0 before +0 keeps -0) are
// exactly NdArray's. A whole-tensor reduction is one slice of every element, so one thread: exact
// and slow for large tensors (no tree, since a tree changes the product's rounding and where it
// overflows, and the scan's kept element would need a second pass).
#include "map_kernels.cuh"

#include <crossgrad/backends/cuda_kernels/dim_kernels.cuh>

#include <cstdint>
#include <optional>

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

// The [outer, len, inner] view of a reduction along `dim`, or of the flat tensor as one slice.
DimLayout layout_of(const CudaTensor& tensor, std::optional<std::size_t> dim) {
  if (dim) return dim_layout(tensor.shape.dims(), *dim);
  DimLayout l;
  l.len = tensor.shape.num_elements();
  return l;
}

CudaTensor max_abs(const CudaTensor& tensor, std::optional<std::size_t> dim, const char* name) {
  rules::check_float_dtype(tensor.dtype, name);
  if (dim) rules::check_nonempty_reduction(tensor.shape, *dim, name);
  else rules::check_nonempty_full_reduction(tensor.shape, name);
  CudaTensor out = make_tensor(dim ? rules::reduced_shape(tensor.shape, *dim) : Shape{1}, tensor.dtype, tensor.dev);
  if (out.shape.num_elements() == 0) return out;
  const DimLayout l = layout_of(tensor, dim);
  const std::size_t slices = l.outer * l.inner;
  const int device = tensor.dev.index;
  with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    max_abs_dim_kernel<T><<<grid_for(slices, device), kThreads, 0, activate(device)>>>(data_of<T>(tensor), data_of<T>(out),
                                                                                     slices, l.len, l.inner);
    check_launch(name);
  });
  return out;
}

template <bool kMin>
CudaTensor scan_all(const CudaTensor& tensor, const char* name) {
  rules::check_float_dtype(tensor.dtype, name);
  rules::check_nonempty_full_reduction(tensor.shape, name);
  CudaTensor out = make_tensor(Shape{1}, tensor.dtype, tensor.dev);
  const DimLayout l = layout_of(tensor, std::nullopt);
  const int device = tensor.dev.index;
  with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    max_dim_kernel<T, kMin><<<1, kThreads, 0, activate(device)>>>(data_of<T>(tensor), data_of<T>(out), nullptr, 1, l.len, 1);
    check_launch(name);
  });
  return out;
}

CudaTensor prod(const CudaTensor& tensor, std::optional<std::size_t> dim, const char* name) {
  rules::check_float_dtype(tensor.dtype, name);
  if (dim) rules::check_dim(*dim, tensor.shape.rank(), name);
  CudaTensor out = make_tensor(dim ? rules::reduced_shape(tensor.shape, *dim) : Shape{1}, tensor.dtype, tensor.dev);
  if (out.shape.num_elements() == 0) return out;
  const DimLayout l = layout_of(tensor, dim);
  const std::size_t slices = l.outer * l.inner;
  const int device = tensor.dev.index;
  with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    prod_dim_kernel<T><<<grid_for(slices, device), kThreads, 0, activate(device)>>>(data_of<T>(tensor), data_of<T>(out),
                                                                                  slices, l.len, l.inner);
    check_launch(name);
  });
  return out;
}

template <bool kAll>
CudaTensor truth(const CudaTensor& tensor, std::optional<std::size_t> dim, const char* name) {
  rules::check_float_dtype(tensor.dtype, name);
  if (dim) rules::check_dim(*dim, tensor.shape.rank(), name);
  CudaTensor out = make_tensor(dim ? rules::reduced_shape(tensor.shape, *dim) : Shape{1}, DType::Bool, tensor.dev);
  if (out.shape.num_elements() == 0) return out;
  const DimLayout l = layout_of(tensor, dim);
  const std::size_t slices = l.outer * l.inner;
  const int device = tensor.dev.index;
  with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    truth_dim_kernel<T, kAll><<<grid_for(slices, device), kThreads, 0, activate(device)>>>(
        data_of<T>(tensor), data_of<std::uint8_t>(out), slices, l.len, l.inner);
    check_launch(name);
  });
  return out;
}

}  // namespace

CudaTensor Cuda::float_max(const CudaTensor& tensor) { return scan_all<false>(tensor, "float_max"); }
CudaTensor Cuda::float_min(const CudaTensor& tensor) { return scan_all<true>(tensor, "float_min"); }
CudaTensor Cuda::float_max_abs(const CudaTensor& tensor) { return max_abs(tensor, std::nullopt, "float_max_abs"); }
CudaTensor Cuda::float_max_abs_dim(const CudaTensor& tensor, std::size_t dim) {
  return max_abs(tensor, dim, "float_max_abs_dim");
}
CudaTensor Cuda::float_prod(const CudaTensor& tensor) { return prod(tensor, std::nullopt, "float_prod"); }
CudaTensor Cuda::float_prod_dim(const CudaTensor& tensor, std::size_t dim) { return prod(tensor, dim, "float_prod_dim"); }
CudaTensor Cuda::float_any(const CudaTensor& tensor) { return truth<false>(tensor, std::nullopt, "float_any"); }
CudaTensor Cuda::float_any_dim(const CudaTensor& tensor, std::size_t dim) { return truth<false>(tensor, dim, "float_any_dim"); }
CudaTensor Cuda::float_all(const CudaTensor& tensor) { return truth<true>(tensor, std::nullopt, "float_all"); }
CudaTensor Cuda::float_all_dim(const CudaTensor& tensor, std::size_t dim) { return truth<true>(tensor, dim, "float_all_dim"); }

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
