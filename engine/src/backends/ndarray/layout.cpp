// NdArray: ops that move or reinterpret elements without arithmetic: reshape, swap_dims,
// to_device, cast.
#include "common.hpp"
#include "../kind_members.hpp"

namespace crossgrad::backends {

using ndarray_detail::require_host_device;
using ndarray_detail::make_tensor;
using ndarray_detail::StridedWalk;
using ndarray_detail::with_float_type;
using ndarray_detail::with_element_bits;

namespace {

NdArrayTensor reshape_elements(const NdArrayTensor& tensor, const Shape& shape, OpId op) {
  rules::check_kind_dtype(tensor.dtype, operand_category(op), op_info(op).name);
  rules::check_reshape(tensor.shape, shape, op_info(op).name);
  // Row-major order is unchanged by a reshape, and buffers are immutable once built, so the new
  // tensor can share the old one's storage.
  return NdArrayTensor{HostTensor{shape, tensor.dtype, tensor.buffer}};
}

NdArrayTensor swap_dims_elements(const NdArrayTensor& tensor, std::size_t dim0, std::size_t dim1, OpId op) {
  rules::check_kind_dtype(tensor.dtype, operand_category(op), op_info(op).name);
  const Shape out_shape = rules::swapped_shape(tensor.shape, dim0, dim1, op_info(op).name);
  NdArrayTensor out = make_tensor(out_shape, tensor.dtype);
  if (out.num_elements() == 0) return out;
  // Output element (.., i, .., j, ..) is input element (.., j, .., i, ..): read the input with its
  // own strides exchanged, writing the output contiguously.
  std::vector<std::size_t> strides = rules::contiguous_strides(tensor.shape);
  std::swap(strides[dim0], strides[dim1]);
  with_element_bits(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    T* o = out.mutable_data<T>();
    StridedWalk<1> walk(out_shape);
    walk.set_steps(0, strides);
    walk.for_each([&](std::size_t i, const auto& at) { o[i] = x[at[0]]; });
  });
  return out;
}

}  // namespace

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(NdArray, reshape, ToShape, reshape_elements)
CROSSGRAD_KIND_MEMBERS(NdArray, swap_dims, DimPair, swap_dims_elements)

NdArrayTensor NdArray::float_to_device(const NdArrayTensor& tensor, const Device& device) {
  rules::check_float_dtype(tensor.dtype, "float_to_device");
  require_host_device(device, NdArray::name);
  // The only device is the one it is already on; immutable storage makes sharing a valid copy.
  return tensor;
}

NdArrayTensor NdArray::float_cast(const NdArrayTensor& tensor, DType dtype) {
  rules::check_float_dtype(tensor.dtype, "float_cast");
  rules::check_float_dtype(dtype, "float_cast");
  if (dtype == tensor.dtype) return tensor;
  NdArrayTensor out = make_tensor(tensor.shape, dtype);
  with_float_type(tensor.dtype, [&]<class From>(From) {
    with_float_type(dtype, [&]<class To>(To) {
      const From* x = tensor.data<From>();
      To* o = out.mutable_data<To>();
      const std::size_t n = tensor.num_elements();
      // F64 -> F32 rounds to nearest (overflowing to +-inf); F32 -> F64 is exact.
      for (std::size_t i = 0; i < n; ++i) o[i] = static_cast<To>(x[i]);
    });
  });
  return out;
}

}  // namespace crossgrad::backends
