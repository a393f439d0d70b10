// LibTorch: ops that rearrange elements (reshape, swap_dims, permute, expand, flip), of every kind.
#include "plugin.hpp"
#include "../kind_members.hpp"

namespace crossgrad::backends {
namespace {

using libtorch::Call;
using libtorch::op_code;

std::vector<int64_t> as_ints(const std::vector<std::size_t>& values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

LibTorchTensor reshape_elements(const LibTorchTensor& tensor, const Shape& shape, OpId op) {
  rules::check_kind_dtype(tensor.dtype, operand_category(op), op_info(op).name);
  rules::check_reshape(tensor.shape, shape, op_info(op).name);
  return libtorch::run(Call{op_code(op), {&tensor}, {}, as_ints(shape.dims())}, shape, tensor.dtype);
}

LibTorchTensor swap_dims_elements(const LibTorchTensor& tensor, std::size_t dim0, std::size_t dim1, OpId op) {
  rules::check_kind_dtype(tensor.dtype, operand_category(op), op_info(op).name);
  Shape out = rules::swapped_shape(tensor.shape, dim0, dim1, op_info(op).name);
  return libtorch::run(Call{op_code(op), {&tensor}, {}, {static_cast<int64_t>(dim0), static_cast<int64_t>(dim1)}},
                       std::move(out), tensor.dtype);
}

LibTorchTensor permute_elements(const LibTorchTensor& tensor, const std::vector<std::size_t>& axes, OpId op) {
  rules::check_kind_dtype(tensor.dtype, operand_category(op), op_info(op).name);
  Shape out = rules::permuted_shape(tensor.shape, axes, op_info(op).name);
  return libtorch::run(Call{op_code(op), {&tensor}, {}, as_ints(axes)}, std::move(out), tensor.dtype);
}

LibTorchTensor expand_elements(const LibTorchTensor& tensor, const Shape& shape, OpId op) {
  rules::check_kind_dtype(tensor.dtype, operand_category(op), op_info(op).name);
  rules::check_expand(tensor.shape, shape, op_info(op).name);
  return libtorch::run(Call{op_code(op), {&tensor}, {}, as_ints(shape.dims())}, shape, tensor.dtype);
}

LibTorchTensor flip_elements(const LibTorchTensor& tensor, const std::vector<std::size_t>& axes, OpId op) {
  rules::check_kind_dtype(tensor.dtype, operand_category(op), op_info(op).name);
  rules::check_flip_axes(tensor.shape, axes, op_info(op).name);
  return libtorch::run(Call{op_code(op), {&tensor}, {}, as_ints(axes)}, tensor.shape, tensor.dtype);
}

}  // namespace

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(LibTorch, reshape, ToShape, reshape_elements)
CROSSGRAD_KIND_MEMBERS(LibTorch, swap_dims, DimPair, swap_dims_elements)
CROSSGRAD_KIND_MEMBERS(LibTorch, permute, Axes, permute_elements)
CROSSGRAD_KIND_MEMBERS(LibTorch, expand, ToShape, expand_elements)
CROSSGRAD_KIND_MEMBERS(LibTorch, flip, Axes, flip_elements)

}  // namespace crossgrad::backends
