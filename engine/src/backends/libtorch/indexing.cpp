// LibTorch: cat, slice, select, select_assign / select_add / select_or, gather, scatter_add /
// scatter_or / scatter, mask_where, mask_fill, of every kind the registry names. Index values are checked here, on their host copy,
// in index order (the first bad one is reported), before ATen sees them: ATen would wrap negative
// indices, which crossgrad rejects.
#include "plugin.hpp"
#include "../kind_members.hpp"

#include <crossgrad/backends/host_common.hpp>
#include <crossgrad/core/indexing_update.hpp>

#include <cstdint>

namespace crossgrad::backends {
namespace {

using libtorch::Call;
using libtorch::op_code;

std::size_t checked_index_count(const LibTorchTensor& indices, std::size_t dim, std::size_t size,
                                std::string_view op) {
  const std::vector<std::int64_t> values = libtorch::to_host(indices).to_i64();
  for (const std::int64_t v : values) {
    if (v < 0 || static_cast<unsigned long long>(v) >= size) rules::index_out_of_range(op, v, dim, size);
  }
  return values.size();
}

LibTorchTensor cat_elements(const std::vector<LibTorchTensor>& tensors, std::size_t dim, OpId op) {
  std::vector<Shape> shapes;
  shapes.reserve(tensors.size());
  for (const LibTorchTensor& t : tensors) shapes.push_back(t.shape);
  Shape out = rules::cat_shape(shapes, dim, op_info(op).name);
  // As in the binary ops: a piece of another kind is reported before a dtype mismatch.
  std::vector<DType> dtypes;
  for (const LibTorchTensor& t : tensors) dtypes.push_back(t.dtype);
  rules::check_cat_dtypes(dtypes, operand_category(op), op_info(op).name);
  Call c{op_code(op), {}, {}, {static_cast<int64_t>(dim)}};
  for (const LibTorchTensor& t : tensors) c.inputs.push_back(&t);
  return libtorch::run(c, std::move(out), tensors.front().dtype);
}

LibTorchTensor slice_elements(const LibTorchTensor& tensor, const std::vector<Range>& ranges, OpId op) {
  rules::check_kind_dtype(tensor.dtype, operand_category(op), op_info(op).name);
  // crossgrad's bound rules (full_ranges) decide every [start, end); ATen only cuts them out, so
  // its own clamping of out-of-range bounds never applies.
  const std::vector<Range> full = rules::full_ranges(tensor.shape, ranges, op_info(op).name);
  Shape out = rules::sliced_shape(full);
  Call c{op_code(op), {&tensor}, {}, {}};
  for (const Range& r : full) {
    c.ints.push_back(static_cast<int64_t>(r.start));
    c.ints.push_back(static_cast<int64_t>(r.end));
  }
  return libtorch::run(c, std::move(out), tensor.dtype);
}

LibTorchTensor select_elements(const LibTorchTensor& tensor, std::size_t dim, const LibTorchTensor& indices, OpId op) {
  const std::string_view name = op_info(op).name;
  rules::check_kind_dtype(tensor.dtype, operand_category(op), name);
  rules::check_select(tensor.shape, dim, indices.shape, indices.dtype, name);
  const std::size_t k = checked_index_count(indices, dim, tensor.shape[dim], name);
  return libtorch::run(Call{op_code(op), {&tensor, &indices}, {}, {static_cast<int64_t>(dim)}},
                       rules::selected_shape(tensor.shape, dim, k), tensor.dtype);
}

}  // namespace

namespace {

// select_assign and select_add: the same op under Burn's two names, float and int;
// bool_select_or.
LibTorchTensor select_add(const LibTorchTensor& tensor, std::size_t dim, const LibTorchTensor& indices,
                          const LibTorchTensor& values, OpId id) {
  const std::string_view op = op_info(id).name;
  const DTypeCategory kind = operand_category(id);
  rules::check_kind_dtype(tensor.dtype, kind, op);
  rules::check_select(tensor.shape, dim, indices.shape, indices.dtype, op);
  const std::size_t k = checked_index_count(indices, dim, tensor.shape[dim], op);
  rules::check_assign_values(rules::selected_shape(tensor.shape, dim, k), values.shape, tensor.dtype, values.dtype, op, kind);
  return libtorch::run(Call{op_code(id), {&tensor, &indices, &values}, {}, {static_cast<int64_t>(dim)}}, tensor.shape,
                       tensor.dtype);
}

}  // namespace

CROSSGRAD_KIND_MEMBER(LibTorch, float_select_assign, SelectAssign, select_add)
CROSSGRAD_KIND_MEMBER(LibTorch, float_select_add, SelectAssign, select_add)
CROSSGRAD_KIND_MEMBER(LibTorch, int_select_assign, SelectAssign, select_add)
CROSSGRAD_KIND_MEMBER(LibTorch, int_select_add, SelectAssign, select_add)
CROSSGRAD_KIND_MEMBER(LibTorch, bool_select_or, SelectAssign, select_add)

namespace {

LibTorchTensor slice_assign_elements(const LibTorchTensor& tensor, const std::vector<Range>& ranges,
                                     const LibTorchTensor& values, OpId op) {
  const std::vector<Range> full = rules::check_slice_assign(tensor.shape, tensor.dtype, ranges, values.shape, values.dtype,
                                                            operand_category(op), op_info(op).name);
  Call c{op_code(op), {&tensor, &values}, {}, {}};
  for (const Range& r : full) {
    c.ints.push_back(static_cast<int64_t>(r.start));
    c.ints.push_back(static_cast<int64_t>(r.end));
  }
  return libtorch::run(c, tensor.shape, tensor.dtype);
}

}  // namespace

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(LibTorch, cat, Cat, cat_elements)
CROSSGRAD_KIND_MEMBERS(LibTorch, slice, Ranges, slice_elements)
CROSSGRAD_KIND_MEMBERS(LibTorch, select, Select, select_elements)
CROSSGRAD_KIND_MEMBERS(LibTorch, slice_assign, RangesAssign, slice_assign_elements)

namespace {

LibTorchTensor gather_elements(const LibTorchTensor& tensor, std::size_t dim, const LibTorchTensor& indices, OpId op) {
  const std::string_view name = op_info(op).name;
  rules::check_kind_dtype(tensor.dtype, operand_category(op), name);
  rules::check_gather(tensor.shape, dim, indices.shape, indices.dtype, name);
  checked_index_count(indices, dim, tensor.shape[dim], name);
  return libtorch::run(Call{op_code(op), {&tensor, &indices}, {}, {static_cast<int64_t>(dim)}}, indices.shape, tensor.dtype);
}

LibTorchTensor mask_where_elements(const LibTorchTensor& tensor, const LibTorchTensor& mask, const LibTorchTensor& value,
                                   OpId op) {
  Shape out = rules::check_masked(tensor.shape, tensor.dtype, mask.shape, mask.dtype, &value.shape, value.dtype,
                                  op_info(op).name, operand_category(op));
  return libtorch::run(Call{op_code(op), {&tensor, &mask, &value}, {}, {}}, std::move(out), tensor.dtype);
}

}  // namespace

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(LibTorch, gather, Gather, gather_elements)
CROSSGRAD_KIND_MEMBERS(LibTorch, mask_where, MaskWhere, mask_where_elements)

namespace {

// scatter_add / scatter_or / scatter of every kind the registry names; the update travels as an
// integer (scatter_add's and scatter_or's are implied by the op).
LibTorchTensor scatter(const LibTorchTensor& tensor, std::size_t dim, const LibTorchTensor& indices,
                       const LibTorchTensor& values, IndexingUpdateOp update, OpId id) {
  const std::string_view op = op_info(id).name;
  const DTypeCategory kind = operand_category(id);
  rules::check_kind_dtype(tensor.dtype, kind, op);
  rules::check_gather(tensor.shape, dim, indices.shape, indices.dtype, op);
  checked_index_count(indices, dim, tensor.shape[dim], op);
  rules::check_assign_values(indices.shape, values.shape, tensor.dtype, values.dtype, op, kind);
  return libtorch::run(Call{op_code(id), {&tensor, &indices, &values}, {},
                            {static_cast<int64_t>(dim), static_cast<int64_t>(update)}},
                       tensor.shape, tensor.dtype);
}
LibTorchTensor scatter_add(const LibTorchTensor& tensor, std::size_t dim, const LibTorchTensor& indices,
                           const LibTorchTensor& values, OpId id) {
  return scatter(tensor, dim, indices, values, IndexingUpdateOp::Add, id);
}

// The fill arrives as a double for floats (rounded to the dtype by ATen, as every float scalar) and
// as the converted element (fill_element, an int64) for ints and Bool.
LibTorchTensor mask_fill_elements(const LibTorchTensor& tensor, const LibTorchTensor& mask, double value, OpId id) {
  Shape out = rules::check_masked(tensor.shape, tensor.dtype, mask.shape, mask.dtype, nullptr, tensor.dtype,
                                  op_info(id).name, operand_category(id));
  const bool is_bool = tensor.dtype == DType::Bool;
  const std::int64_t element = operand_category(id) == DTypeCategory::Float
                                   ? 0
                                   : host::with_element_type(tensor.dtype, [&](auto zero) {
                                       return static_cast<std::int64_t>(fill_element<decltype(zero)>(value, is_bool));
                                     });
  return libtorch::run(Call{op_code(id), {&tensor, &mask}, {value}, {element}}, std::move(out), tensor.dtype);
}

}  // namespace

CROSSGRAD_KIND_MEMBER(LibTorch, float_scatter_add, Scatter, scatter_add)
CROSSGRAD_KIND_MEMBER(LibTorch, int_scatter_add, Scatter, scatter_add)
CROSSGRAD_KIND_MEMBER(LibTorch, bool_scatter_or, Scatter, scatter_add)
CROSSGRAD_KIND_MEMBER(LibTorch, float_scatter, ScatterUpdate, scatter)
CROSSGRAD_KIND_MEMBER(LibTorch, int_scatter, ScatterUpdate, scatter)
CROSSGRAD_KIND_MEMBERS(LibTorch, mask_fill, MaskFill, mask_fill_elements)

}  // namespace crossgrad::backends
