// LibTorch: ops that rearrange elements (reshape, swap_dims, permute, expand, flip).
#include "plugin.hpp"

namespace crossgrad::backends {
namespace {

using libtorch::Call;
using libtorch::op_code;

std::vector<int64_t> as_ints(const std::vector<std::size_t>& values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

}  // namespace

LibTorchTensor LibTorch::float_reshape(const LibTorchTensor& tensor, const Shape& shape) {
  rules::check_float_dtype(tensor.dtype, "float_reshape");
  rules::check_reshape(tensor.shape, shape);
  return libtorch::run(Call{op_code(OpId::float_reshape), {&tensor}, {}, as_ints(shape.dims())}, shape, tensor.dtype);
}

LibTorchTensor LibTorch::float_swap_dims(const LibTorchTensor& tensor, std::size_t dim0, std::size_t dim1) {
  rules::check_float_dtype(tensor.dtype, "float_swap_dims");
  Shape out = rules::swapped_shape(tensor.shape, dim0, dim1, "float_swap_dims");
  return libtorch::run(
      Call{op_code(OpId::float_swap_dims), {&tensor}, {}, {static_cast<int64_t>(dim0), static_cast<int64_t>(dim1)}},
      std::move(out), tensor.dtype);
}

LibTorchTensor LibTorch::float_permute(const LibTorchTensor& tensor, const std::vector<std::size_t>& axes) {
  rules::check_float_dtype(tensor.dtype, "float_permute");
  Shape out = rules::permuted_shape(tensor.shape, axes);
  return libtorch::run(Call{op_code(OpId::float_permute), {&tensor}, {}, as_ints(axes)}, std::move(out), tensor.dtype);
}

LibTorchTensor LibTorch::float_expand(const LibTorchTensor& tensor, const Shape& shape) {
  rules::check_float_dtype(tensor.dtype, "float_expand");
  rules::check_expand(tensor.shape, shape);
  return libtorch::run(Call{op_code(OpId::float_expand), {&tensor}, {}, as_ints(shape.dims())}, shape, tensor.dtype);
}

LibTorchTensor LibTorch::float_flip(const LibTorchTensor& tensor, const std::vector<std::size_t>& axes) {
  rules::check_float_dtype(tensor.dtype, "float_flip");
  rules::check_flip_axes(tensor.shape, axes);
  return libtorch::run(Call{op_code(OpId::float_flip), {&tensor}, {}, as_ints(axes)}, tensor.shape, tensor.dtype);
}

}  // namespace crossgrad::backends
