// NdArray: permute, expand and flip, materialised as contiguous copies (layout.cpp has reshape,
// swap_dims, to_device and cast). Both walk the output shape with the input's strides re-arranged.
#include "common.hpp"
#include "../kind_members.hpp"

namespace crossgrad::backends {
namespace {

using ndarray_detail::make_tensor;
using ndarray_detail::StridedWalk;
using ndarray_detail::with_element_bits;

// out[i] = x[offset of the walk], the output written contiguously.
NdArrayTensor gather(const NdArrayTensor& tensor, const Shape& out_shape,
                     std::vector<std::size_t> read_strides) {
  NdArrayTensor out = make_tensor(out_shape, tensor.dtype);
  if (out.num_elements() == 0) return out;
  with_element_bits(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    T* o = out.mutable_data<T>();
    StridedWalk<1> walk(out_shape);
    walk.set_steps(0, read_strides);
    walk.for_each([&](std::size_t i, const auto& at) { o[i] = x[at[0]]; });
  });
  return out;
}

NdArrayTensor permute_elements(const NdArrayTensor& tensor, const std::vector<std::size_t>& axes, OpId op) {
  rules::check_kind_dtype(tensor.dtype, operand_category(op), op_info(op).name);
  const Shape out_shape = rules::permuted_shape(tensor.shape, axes, op_info(op).name);
  // Output dim i is input dim axes[i], so stepping output dim i steps input dim axes[i].
  const std::vector<std::size_t> in_strides = rules::contiguous_strides(tensor.shape);
  std::vector<std::size_t> read(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i) read[i] = in_strides[axes[i]];
  return gather(tensor, out_shape, std::move(read));
}

// Output element i reads the input at i's coordinates with each flipped dim d's coordinate c
// replaced by size_d - 1 - c: an odometer over the output, one coordinate table per element.
NdArrayTensor flip_elements(const NdArrayTensor& tensor, const std::vector<std::size_t>& axes, OpId op) {
  rules::check_kind_dtype(tensor.dtype, operand_category(op), op_info(op).name);
  rules::check_flip_axes(tensor.shape, axes, op_info(op).name);
  NdArrayTensor out = make_tensor(tensor.shape, tensor.dtype);
  const std::size_t n = out.num_elements();
  if (n == 0) return out;
  const std::size_t rank = tensor.shape.rank();
  std::vector<bool> flipped(rank, false);
  for (std::size_t a : axes) flipped[a] = true;
  const std::vector<std::size_t> strides = rules::contiguous_strides(tensor.shape);
  with_element_bits(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    T* o = out.mutable_data<T>();
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t rest = i, from = 0;
      for (std::size_t d = 0; d < rank; ++d) {
        const std::size_t c = rest / strides[d];
        rest %= strides[d];
        from += (flipped[d] ? tensor.shape[d] - 1 - c : c) * strides[d];
      }
      o[i] = x[from];
    }
  });
  return out;
}

NdArrayTensor expand_elements(const NdArrayTensor& tensor, const Shape& shape, OpId op) {
  rules::check_kind_dtype(tensor.dtype, operand_category(op), op_info(op).name);
  rules::check_expand(tensor.shape, shape, op_info(op).name);
  // Broadcast dims (size 1 in the input, or missing on the left) have stride 0: re-read.
  return gather(tensor, shape, rules::broadcast_strides(tensor.shape, shape));
}

}  // namespace

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(NdArray, permute, Axes, permute_elements)
CROSSGRAD_KIND_MEMBERS(NdArray, flip, Axes, flip_elements)
CROSSGRAD_KIND_MEMBERS(NdArray, expand, ToShape, expand_elements)

}  // namespace crossgrad::backends
