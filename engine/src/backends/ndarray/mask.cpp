// NdArray: mask_where and mask_fill of every kind, element by element over the NumPy broadcast of
// their operands (docs/OPS.md): out = mask ? value : tensor, the chosen element's bits copied
// unchanged (mask_fill's scalar converted to the kind's element first).
#include "common.hpp"
#include "../kind_members.hpp"

#include <cstdint>
#include <string_view>

namespace crossgrad::backends {

using ndarray_detail::make_tensor;
using ndarray_detail::StridedWalk;
using ndarray_detail::with_float_type;
using ndarray_detail::with_element_bits;

namespace {

NdArrayTensor mask_where_elements(const NdArrayTensor& tensor, const NdArrayTensor& mask, const NdArrayTensor& value, OpId op) {
  const Shape out_shape = rules::check_masked(tensor.shape, tensor.dtype, mask.shape, mask.dtype, &value.shape,
                                              value.dtype, op_info(op).name, operand_category(op));
  NdArrayTensor out = make_tensor(out_shape, tensor.dtype);
  if (out.num_elements() == 0) return out;
  with_element_bits(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    const std::uint8_t* m = mask.data<std::uint8_t>();
    const T* v = value.data<T>();
    T* o = out.mutable_data<T>();
    StridedWalk<3> walk(out_shape);
    walk.set_broadcast(0, tensor.shape);
    walk.set_broadcast(1, mask.shape);
    walk.set_broadcast(2, value.shape);
    walk.for_each([&](std::size_t i, const auto& at) { o[i] = m[at[1]] != 0 ? v[at[2]] : x[at[0]]; });
  });
  return out;
}

}  // namespace

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(NdArray, mask_where, MaskWhere, mask_where_elements)

namespace {

// The scalar as an element of the tensor's kind (fill_element): float_, int_ and bool_mask_fill.
NdArrayTensor mask_fill_elements(const NdArrayTensor& tensor, const NdArrayTensor& mask, double value, OpId op) {
  const Shape out_shape = rules::check_masked(tensor.shape, tensor.dtype, mask.shape, mask.dtype, nullptr, tensor.dtype,
                                              op_info(op).name, operand_category(op));
  NdArrayTensor out = make_tensor(out_shape, tensor.dtype);
  if (out.num_elements() == 0) return out;
  host::with_element_type(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    const std::uint8_t* m = mask.data<std::uint8_t>();
    const T fill = fill_element<T>(value, tensor.dtype == DType::Bool);
    T* o = out.mutable_data<T>();
    StridedWalk<2> walk(out_shape);
    walk.set_broadcast(0, tensor.shape);
    walk.set_broadcast(1, mask.shape);
    walk.for_each([&](std::size_t i, const auto& at) { o[i] = m[at[1]] != 0 ? fill : x[at[0]]; });
  });
  return out;
}

}  // namespace

CROSSGRAD_KIND_MEMBERS(NdArray, mask_fill, MaskFill, mask_fill_elements)

}  // namespace crossgrad::backends
