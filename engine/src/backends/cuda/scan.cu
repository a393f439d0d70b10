// Cuda backend: cumsum, cumprod, cummin and cummax along a dim, float and int (one thread per slice, NdArray's
// operations in its order: bit-identical to it), and flip of every kind (a pure copy of each element's bits).
#include "map_kernels.cuh"
#include "../kind_members.hpp"

#include <crossgrad/backends/cuda_kernels/dim_kernels.cuh>

#include <cstdint>
#include <vector>

namespace crossgrad::backends {

using namespace cuda_detail;  // this backend's internals (cuda_common.cuh, kernels.cuh)
namespace {

template <ScanStep kStep>
CudaTensor scan_along(const CudaTensor& tensor, std::size_t dim, OpId op) {
  const char* name = op_info(op).name.data();  // op names are string literals: NUL-terminated
  rules::check_kind_dtype(tensor.dtype, operand_category(op), name);
  rules::check_dim(dim, tensor.shape.rank(), name);
  CudaTensor out = make_tensor(tensor.shape, tensor.dtype, tensor.dev);
  if (out.shape.num_elements() == 0) return out;
  const DimLayout l = dim_layout(tensor.shape.dims(), dim);
  const std::size_t slices = l.outer * l.inner;
  const int device = tensor.dev.index;
  with_element_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    scan_kernel<T, kStep><<<grid_for(slices, device), kThreads, 0, activate(device)>>>(
        data_of<T>(tensor), data_of<T>(out), slices, l.len, l.inner);
    check_launch(name);
  });
  return out;
}

}  // namespace

#define CROSSGRAD_CUDA_SCAN(name, Step) \
  CudaTensor Cuda::name(const CudaTensor& tensor, std::size_t dim) { return scan_along<ScanStep::Step>(tensor, dim, OpId::name); }
CROSSGRAD_CUDA_SCAN(float_cumsum, Sum)
CROSSGRAD_CUDA_SCAN(float_cumprod, Prod)
CROSSGRAD_CUDA_SCAN(float_cummin, Min)
CROSSGRAD_CUDA_SCAN(float_cummax, Max)
CROSSGRAD_CUDA_SCAN(int_cumsum, Sum)
CROSSGRAD_CUDA_SCAN(int_cumprod, Prod)
CROSSGRAD_CUDA_SCAN(int_cummin, Min)
CROSSGRAD_CUDA_SCAN(int_cummax, Max)
#undef CROSSGRAD_CUDA_SCAN

namespace {

CudaTensor flip_elements(const CudaTensor& tensor, const std::vector<std::size_t>& axes, OpId op) {
  rules::check_kind_dtype(tensor.dtype, operand_category(op), op_info(op).name);
  rules::check_flip_axes(tensor.shape, axes, op_info(op).name);
  CudaTensor out = make_tensor(tensor.shape, tensor.dtype, tensor.dev);
  const std::size_t n = out.shape.num_elements();
  if (n == 0) return out;
  std::vector<bool> flipped(tensor.shape.rank(), false);
  for (std::size_t a : axes) flipped[a] = true;
  FlipShape shape;
  for (std::size_t d = 0; d < tensor.shape.rank(); ++d) {
    if (tensor.shape[d] == 1) continue;
    shape.dims[shape.rank] = tensor.shape[d];
    shape.flipped[shape.rank] = flipped[d];
    ++shape.rank;
  }
  const int device = tensor.dev.index;
  const cudaStream_t stream = activate(device);
  with_element_bits(tensor.dtype, [&](auto zero) {
    using U = decltype(zero);
    flip_kernel<U><<<grid_for(n, device), kThreads, 0, stream>>>(data_of<U>(tensor), data_of<U>(out), n, shape);
  });
  check_launch(op_info(op).name.data());  // op names are string literals: NUL-terminated
  return out;
}

}  // namespace

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(Cuda, flip, Axes, flip_elements)

}  // namespace crossgrad::backends
