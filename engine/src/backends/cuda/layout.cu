// Cuda backend: ops that move elements without arithmetic: reshape (shares storage) and
// swap_dims (a contiguous copy through a strided gather).
#include "map_kernels.cuh"
#include "../kind_members.hpp"

#include <utility>

namespace crossgrad::backends {

using namespace cuda_detail;  // this backend's internals (cuda_common.cuh, kernels.cuh)
namespace {

CudaTensor reshape_elements(const CudaTensor& tensor, const Shape& shape, OpId op) {
  rules::check_kind_dtype(tensor.dtype, operand_category(op), op_info(op).name);
  rules::check_reshape(tensor.shape, shape, op_info(op).name);
  // Row-major order is unchanged by a reshape and buffers are immutable once built, so the new
  // tensor shares the old one's storage.
  CudaTensor out = tensor;
  out.shape = shape;
  return out;
}

CudaTensor swap_dims_elements(const CudaTensor& tensor, std::size_t dim0, std::size_t dim1, OpId op) {
  const char* name = op_info(op).name.data();  // op names are string literals: NUL-terminated
  rules::check_kind_dtype(tensor.dtype, operand_category(op), name);
  const Shape out_shape = rules::swapped_shape(tensor.shape, dim0, dim1, name);
  const std::size_t n = out_shape.num_elements();
  // Output element (.., i, .., j, ..) is input element (.., j, .., i, ..): read the input with its
  // own strides exchanged.
  std::vector<std::size_t> strides = rules::contiguous_strides(tensor.shape);
  std::swap(strides[dim0], strides[dim1]);
  const cuda_detail::Collapsed c = n == 0 ? cuda_detail::Collapsed{} : cuda_detail::collapse(out_shape.dims(), {strides});
  if (n == 0 || c.dims.empty() || (c.dims.size() == 1 && c.strides[0][0] == 1)) {
    // The same row-major order (no elements, a swap with itself or with size-1 dims): share.
    CudaTensor out = tensor;
    out.shape = out_shape;
    return out;
  }
  CudaTensor out = make_tensor(out_shape, tensor.dtype, tensor.dev);
  const int device = tensor.dev.index;
  with_element_bits(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    const cudaStream_t stream = cuda_detail::activate(device);
    const unsigned blocks = cuda_detail::grid_for(n, device);
    if (n <= (std::size_t{1} << 31)) {
      gather_kernel<T><<<blocks, cuda_detail::kThreads, 0, stream>>>(
          data_of<T>(tensor), data_of<T>(out), static_cast<std::uint32_t>(n),
          cuda_detail::to_strided<std::uint32_t, 1>(c));
    } else {
      gather_kernel<T><<<blocks, cuda_detail::kThreads, 0, stream>>>(
          data_of<T>(tensor), data_of<T>(out), static_cast<std::uint64_t>(n),
          cuda_detail::to_strided<std::uint64_t, 1>(c));
    }
    cuda_detail::check_launch(name);
  });
  return out;
}

}  // namespace

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(Cuda, reshape, ToShape, reshape_elements)
CROSSGRAD_KIND_MEMBERS(Cuda, swap_dims, DimPair, swap_dims_elements)

}  // namespace crossgrad::backends
