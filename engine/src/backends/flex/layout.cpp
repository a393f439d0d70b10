// Flex layout ops (of every kind). Tensors are immutable, so reshape shares the buffer; swap_dims
// writes a contiguous copy through the strided gather that permute uses (Note [Flex strided
// gather]): whole runs where the innermost dim stays, a threaded, cache-blocked transpose where
// it moves.
#include "common.hpp"
#include "../kind_members.hpp"
#include "strided_gather.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace crossgrad::backends {
namespace {

FlexTensor reshape_elements(const FlexTensor& t, const Shape& shape, OpId op) {
  rules::check_kind_dtype(t.dtype, operand_category(op), op_info(op).name);
  rules::check_reshape(t.shape, shape, op_info(op).name);
  FlexTensor out = t;
  out.shape = shape;
  return out;
}

FlexTensor swap_dims_elements(const FlexTensor& t, std::size_t dim0, std::size_t dim1, OpId op) {
  rules::check_kind_dtype(t.dtype, operand_category(op), op_info(op).name);
  Shape shape = rules::swapped_shape(t.shape, dim0, dim1, op_info(op).name);
  FlexTensor out = flex::make_tensor(shape, t.dtype);
  // A permute that exchanges two dims: the input's strides with those two exchanged.
  std::vector<std::size_t> strides = rules::contiguous_strides(t.shape);
  std::swap(strides[dim0], strides[dim1]);
  flex::gather_elements(t, 0, out, strides);
  return out;
}

}  // namespace

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(Flex, reshape, ToShape, reshape_elements)
CROSSGRAD_KIND_MEMBERS(Flex, swap_dims, DimPair, swap_dims_elements)

}  // namespace crossgrad::backends
