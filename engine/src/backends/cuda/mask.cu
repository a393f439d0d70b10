// Cuda backend: mask_where and mask_fill of every kind, one strided walk of the broadcast result
// (mask_kernel in dim_kernels.cuh): pure copies of the chosen elements, bit-identical to NdArray.
#include "map_kernels.cuh"
#include "../kind_members.hpp"

#include <crossgrad/backends/cuda_kernels/dim_kernels.cuh>

#include <cstdint>
#include <vector>

namespace crossgrad::backends {

using namespace cuda_detail;  // this backend's internals (cuda_common.cuh, kernels.cuh)
namespace {

// value_in null: mask_fill with `fill`. Operands on other devices of this backend are copied to the
// tensor's, as the binary ops copy their right operand.
CudaTensor masked(const CudaTensor& tensor, const CudaTensor& mask_in, const CudaTensor* value_in, double fill, OpId op) {
  const char* name = op_info(op).name.data();  // op names are string literals: NUL-terminated
  const Shape out_shape = rules::check_masked(tensor.shape, tensor.dtype, mask_in.shape, mask_in.dtype,
                                              value_in ? &value_in->shape : nullptr,
                                              value_in ? value_in->dtype : tensor.dtype, name, operand_category(op));
  CudaTensor out = make_tensor(out_shape, tensor.dtype, tensor.dev);
  const std::size_t n = out_shape.num_elements();
  if (n == 0) return out;
  const CudaTensor mask = on_device(mask_in, tensor.dev);
  const CudaTensor value = value_in ? on_device(*value_in, tensor.dev) : CudaTensor{};
  const Collapsed c = collapse(out_shape.dims(),
                               {rules::broadcast_strides(tensor.shape, out_shape), rules::broadcast_strides(mask.shape, out_shape),
                                value_in ? rules::broadcast_strides(value.shape, out_shape)
                                         : std::vector<std::size_t>(out_shape.rank(), 0)});
  const int device = tensor.dev.index;
  // mask_where moves elements of any kind as bits; mask_fill writes its scalar as an element of
  // the tensor's kind (fill_element).
  const auto run = [&](auto zero) {
    using T = decltype(zero);
    const cudaStream_t stream = activate(device);
    const unsigned blocks = grid_for(n, device);
    const T* v = value_in ? data_of<T>(value) : nullptr;
    const T f = value_in ? T{} : fill_element<T>(fill, tensor.dtype == DType::Bool);
    if (n <= (std::size_t{1} << 31)) {
      mask_kernel<T><<<blocks, kThreads, 0, stream>>>(data_of<T>(tensor), data_of<std::uint8_t>(mask), v, f,
                                                      data_of<T>(out), static_cast<std::uint32_t>(n),
                                                      to_strided<std::uint32_t, 3>(c));
    } else {
      mask_kernel<T><<<blocks, kThreads, 0, stream>>>(data_of<T>(tensor), data_of<std::uint8_t>(mask), v, f,
                                                      data_of<T>(out), static_cast<std::uint64_t>(n),
                                                      to_strided<std::uint64_t, 3>(c));
    }
    check_launch(name);
  };
  if (value_in) with_element_bits(tensor.dtype, run);
  else with_element_type(tensor.dtype, run);
  return out;
}

CudaTensor mask_where_elements(const CudaTensor& tensor, const CudaTensor& mask, const CudaTensor& value, OpId op) {
  return masked(tensor, mask, &value, 0.0, op);
}
CudaTensor mask_fill_elements(const CudaTensor& tensor, const CudaTensor& mask, double value, OpId op) {
  return masked(tensor, mask, nullptr, value, op);
}

}  // namespace

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(Cuda, mask_where, MaskWhere, mask_where_elements)
CROSSGRAD_KIND_MEMBERS(Cuda, mask_fill, MaskFill, mask_fill_elements)

}  // namespace crossgrad::backends
