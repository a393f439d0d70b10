// NdArray: permute and expand, materialised as contiguous copies (layout.cpp has reshape,
// swap_dims, to_device and cast). Both walk the output shape with the input's strides re-arranged.
#include "common.hpp"

namespace crossgrad::backends {
namespace {

using ndarray_detail::make_tensor;
using ndarray_detail::StridedWalk;
using ndarray_detail::with_float_type;

// out[i] = x[offset of the walk], the output written contiguously.
NdArrayTensor gather(const NdArrayTensor& tensor, const Shape& out_shape,
                     std::vector<std::size_t> read_strides) {
  NdArrayTensor out = make_tensor(out_shape, tensor.dtype);
  if (out.num_elements() == 0) return out;
  with_float_type(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    T* o = out.mutable_data<T>();
    StridedWalk<1> walk(out_shape);
    walk.set_steps(0, read_strides);
    walk.for_each([&](std::size_t i, const auto& at) { o[i] = x[at[0]]; });
  });
  return out;
}

}  // namespace

NdArrayTensor NdArray::float_permute(const NdArrayTensor& tensor,
                                     const std::vector<std::size_t>& axes) {
  rules::check_float_dtype(tensor.dtype, "float_permute");
  const Shape out_shape = rules::permuted_shape(tensor.shape, axes);
  // Output dim i is input dim axes[i], so stepping output dim i steps input dim axes[i].
  const std::vector<std::size_t> in_strides = rules::contiguous_strides(tensor.shape);
  std::vector<std::size_t> read(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i) read[i] = in_strides[axes[i]];
  return gather(tensor, out_shape, std::move(read));
}

NdArrayTensor NdArray::float_expand(const NdArrayTensor& tensor, const Shape& shape) {
  rules::check_float_dtype(tensor.dtype, "float_expand");
  rules::check_expand(tensor.shape, shape);
  // Broadcast dims (size 1 in the input, or missing on the left) have stride 0: re-read.
  return gather(tensor, shape, rules::broadcast_strides(tensor.shape, shape));
}

}  // namespace crossgrad::backends
