// NdArray: ops that pick or place parts of a tensor: cat, slice, select, select_assign /
// select_add / select_or, gather, scatter_add / scatter_or, scatter (gather_nd and scatter_nd:
// composites.cpp).
// Every op views tensors as [outer, len, inner] around the dim it works on: outer is the product
// of the dims before it, inner of the dims after it, and element (i, r, j) is at
// (i * len + r) * inner + j.
#include "common.hpp"
#include "../kind_members.hpp"

#include <cstdint>
#include <vector>

namespace crossgrad::backends {
namespace {

using ndarray_detail::make_tensor;
using ndarray_detail::StridedWalk;
using ndarray_detail::with_float_type;
using ndarray_detail::with_element_bits;


// The index values of an I64 or I32 tensor (check_select / check_gather have checked its dtype),
// each checked against 0 <= v < size in row-major order, so the first bad one is the one
// reported. Negative indices are errors, never wrapped.
std::vector<std::size_t> checked_indices(const NdArrayTensor& indices, std::size_t dim,
                                         std::size_t size, std::string_view op) {
  const std::size_t k = indices.num_elements();
  std::vector<std::size_t> out(k);
  for (std::size_t j = 0; j < k; ++j) {
    const long long v = indices.dtype == DType::I64
                            ? static_cast<long long>(indices.data<std::int64_t>()[j])
                            : static_cast<long long>(indices.data<std::int32_t>()[j]);
    if (v < 0 || static_cast<unsigned long long>(v) >= size) rules::index_out_of_range(op, v, dim, size);
    out[j] = static_cast<std::size_t>(v);
  }
  return out;
}

NdArrayTensor cat_elements(const std::vector<NdArrayTensor>& tensors, std::size_t dim, OpId op) {
  std::vector<Shape> shapes;
  shapes.reserve(tensors.size());
  for (const NdArrayTensor& t : tensors) shapes.push_back(t.shape);
  const Shape out_shape = rules::cat_shape(shapes, dim, op_info(op).name);
  // As in the binary ops: a piece of another kind is reported before a dtype mismatch.
  std::vector<DType> dtypes;
  for (const NdArrayTensor& t : tensors) dtypes.push_back(t.dtype);
  rules::check_cat_dtypes(dtypes, operand_category(op), op_info(op).name);
  NdArrayTensor out = make_tensor(out_shape, tensors.front().dtype);
  if (out.num_elements() == 0) return out;
  const rules::DimSplit split = rules::split_at_dim(out_shape, dim);
  const std::size_t outer = split.outer, out_len = split.len, inner = split.inner;
  with_element_bits(out.dtype, [&]<class T>(T) {
    T* o = out.mutable_data<T>();
    std::size_t start = 0;  // where the current piece begins along dim
    for (const NdArrayTensor& t : tensors) {
      const std::size_t len = t.shape[dim];
      const T* x = t.data<T>();
      for (std::size_t i = 0; i < outer; ++i) {
        for (std::size_t r = 0; r < len; ++r) {
          for (std::size_t j = 0; j < inner; ++j) {
            o[(i * out_len + start + r) * inner + j] = x[(i * len + r) * inner + j];
          }
        }
      }
      start += len;
    }
  });
  return out;
}

NdArrayTensor slice_elements(const NdArrayTensor& tensor, const std::vector<Range>& ranges, OpId op) {
  rules::check_kind_dtype(tensor.dtype, operand_category(op), op_info(op).name);
  const std::vector<Range> full = rules::full_ranges(tensor.shape, ranges, op_info(op).name);
  const Shape out_shape = rules::sliced_shape(full);
  NdArrayTensor out = make_tensor(out_shape, tensor.dtype);
  if (out.num_elements() == 0) return out;
  // Output element (i0, i1, ..) is input element (i0 + start0, i1 + start1, ..): the input's own
  // strides walked over the output shape, from the offset of (start0, start1, ..).
  const std::vector<std::size_t> strides = rules::contiguous_strides(tensor.shape);
  std::size_t base = 0;
  for (std::size_t d = 0; d < full.size(); ++d) base += full[d].start * strides[d];
  with_element_bits(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    T* o = out.mutable_data<T>();
    StridedWalk<1> walk(out_shape);
    walk.set_steps(0, strides);
    walk.for_each([&](std::size_t i, const auto& at) { o[i] = x[base + at[0]]; });
  });
  return out;
}

NdArrayTensor select_elements(const NdArrayTensor& tensor, std::size_t dim, const NdArrayTensor& indices, OpId op) {
  const std::string_view name = op_info(op).name;
  rules::check_kind_dtype(tensor.dtype, operand_category(op), name);
  rules::check_select(tensor.shape, dim, indices.shape, indices.dtype, name);
  const std::size_t size = tensor.shape[dim];
  const std::vector<std::size_t> idx = checked_indices(indices, dim, size, name);
  const Shape out_shape = rules::selected_shape(tensor.shape, dim, idx.size());
  NdArrayTensor out = make_tensor(out_shape, tensor.dtype);
  if (out.num_elements() == 0) return out;
  const rules::DimSplit split = rules::split_at_dim(tensor.shape, dim);
  const std::size_t outer = split.outer, inner = split.inner;
  const std::size_t k = idx.size();
  with_element_bits(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    T* o = out.mutable_data<T>();
    for (std::size_t i = 0; i < outer; ++i) {
      for (std::size_t j = 0; j < k; ++j) {
        for (std::size_t r = 0; r < inner; ++r) {
          o[(i * k + j) * inner + r] = x[(i * size + idx[j]) * inner + r];
        }
      }
    }
  });
  return out;
}

}  // namespace

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(NdArray, cat, Cat, cat_elements)
CROSSGRAD_KIND_MEMBERS(NdArray, slice, Ranges, slice_elements)
CROSSGRAD_KIND_MEMBERS(NdArray, select, Select, select_elements)

namespace {

// select_assign and select_add: the same op under Burn's two names, for floats and ints (which
// wrap); bool_select_or ors (add_of_kind).
NdArrayTensor select_add(const NdArrayTensor& tensor, std::size_t dim, const NdArrayTensor& indices,
                         const NdArrayTensor& values, OpId id) {
  const std::string_view op = op_info(id).name;
  const DTypeCategory kind = operand_category(id);
  rules::check_kind_dtype(tensor.dtype, kind, op);
  rules::check_select(tensor.shape, dim, indices.shape, indices.dtype, op);
  const std::size_t size = tensor.shape[dim];
  const std::vector<std::size_t> idx = checked_indices(indices, dim, size, op);
  const std::size_t k = idx.size();
  rules::check_assign_values(rules::selected_shape(tensor.shape, dim, k), values.shape, tensor.dtype, values.dtype, op, kind);
  NdArrayTensor out = make_tensor(tensor.shape, tensor.dtype);
  if (out.num_elements() == 0) return out;
  const rules::DimSplit split = rules::split_at_dim(tensor.shape, dim);
  const std::size_t outer = split.outer, inner = split.inner;
  const IndexingUpdateOp add = add_of_kind(kind == DTypeCategory::Bool);
  host::with_element_type(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    const T* v = values.data<T>();
    T* o = out.mutable_data<T>();
    const std::size_t n = out.num_elements();
    for (std::size_t e = 0; e < n; ++e) o[e] = x[e];
    // j in increasing order: duplicate indices accumulate in that order (part of the contract,
    // so every backend rounds the same way).
    for (std::size_t i = 0; i < outer; ++i) {
      for (std::size_t j = 0; j < k; ++j) {
        for (std::size_t r = 0; r < inner; ++r) {
          T& target = o[(i * size + idx[j]) * inner + r];
          target = apply_update(add, target, v[(i * k + j) * inner + r]);
        }
      }
    }
  });
  return out;
}

}  // namespace

CROSSGRAD_KIND_MEMBER(NdArray, float_select_assign, SelectAssign, select_add)
CROSSGRAD_KIND_MEMBER(NdArray, float_select_add, SelectAssign, select_add)
CROSSGRAD_KIND_MEMBER(NdArray, int_select_assign, SelectAssign, select_add)
CROSSGRAD_KIND_MEMBER(NdArray, int_select_add, SelectAssign, select_add)
CROSSGRAD_KIND_MEMBER(NdArray, bool_select_or, SelectAssign, select_add)

namespace {

// out[i, j, r] = x[i, idx[i, j, r], r]: idx has x's shape but any length k along dim.
NdArrayTensor gather_elements(const NdArrayTensor& tensor, std::size_t dim, const NdArrayTensor& indices, OpId op) {
  const std::string_view name = op_info(op).name;
  rules::check_kind_dtype(tensor.dtype, operand_category(op), name);
  rules::check_gather(tensor.shape, dim, indices.shape, indices.dtype, name);
  const std::size_t size = tensor.shape[dim];
  const std::vector<std::size_t> idx = checked_indices(indices, dim, size, name);
  NdArrayTensor out = make_tensor(indices.shape, tensor.dtype);
  if (out.num_elements() == 0) return out;
  const rules::DimSplit split = rules::split_at_dim(indices.shape, dim);
  const std::size_t outer = split.outer, k = split.len, inner = split.inner;
  with_element_bits(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    T* o = out.mutable_data<T>();
    for (std::size_t i = 0; i < outer; ++i) {
      for (std::size_t j = 0; j < k; ++j) {
        for (std::size_t r = 0; r < inner; ++r) {
          const std::size_t e = (i * k + j) * inner + r;
          o[e] = x[(i * size + idx[e]) * inner + r];
        }
      }
    }
  });
  return out;
}

}  // namespace

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(NdArray, gather, Gather, gather_elements)

namespace {
// A copy of x, then out[i, idx[i, j, r], r] = update(out[.], values[i, j, r]) in row-major order
// of idx, so duplicates along a lane combine in increasing j (every backend rounds the same way,
// and the last Assign wins). Floats, ints (wrapping) and, for bool_scatter_or, Bool bytes by or.
NdArrayTensor scatter(const NdArrayTensor& tensor, std::size_t dim, const NdArrayTensor& indices,
                      const NdArrayTensor& values, IndexingUpdateOp update, OpId id) {
  const std::string_view op = op_info(id).name;
  const DTypeCategory kind = operand_category(id);
  rules::check_kind_dtype(tensor.dtype, kind, op);
  rules::check_gather(tensor.shape, dim, indices.shape, indices.dtype, op);
  const std::size_t size = tensor.shape[dim];
  const std::vector<std::size_t> idx = checked_indices(indices, dim, size, op);
  rules::check_assign_values(indices.shape, values.shape, tensor.dtype, values.dtype, op, kind);
  NdArrayTensor out = make_tensor(tensor.shape, tensor.dtype);
  if (out.num_elements() == 0) return out;
  const rules::DimSplit split = rules::split_at_dim(indices.shape, dim);
  const std::size_t outer = split.outer, k = split.len, inner = split.inner;
  host::with_element_type(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    const T* v = values.data<T>();
    T* o = out.mutable_data<T>();
    const std::size_t n = out.num_elements();
    for (std::size_t e = 0; e < n; ++e) o[e] = x[e];
    with_update(update, [&](auto how) {
      for (std::size_t i = 0; i < outer; ++i) {
        for (std::size_t j = 0; j < k; ++j) {
          for (std::size_t r = 0; r < inner; ++r) {
            const std::size_t e = (i * k + j) * inner + r;
            T& target = o[(i * size + idx[e]) * inner + r];
            target = apply_update(how.value, target, v[e]);
          }
        }
      }
    });
  });
  return out;
}

NdArrayTensor scatter_add(const NdArrayTensor& tensor, std::size_t dim, const NdArrayTensor& indices,
                          const NdArrayTensor& values, OpId id) {
  return scatter(tensor, dim, indices, values, add_of_kind(operand_category(id) == DTypeCategory::Bool), id);
}
}  // namespace

CROSSGRAD_KIND_MEMBER(NdArray, float_scatter_add, Scatter, scatter_add)
CROSSGRAD_KIND_MEMBER(NdArray, int_scatter_add, Scatter, scatter_add)
CROSSGRAD_KIND_MEMBER(NdArray, bool_scatter_or, Scatter, scatter_add)
CROSSGRAD_KIND_MEMBER(NdArray, float_scatter, ScatterUpdate, scatter)
CROSSGRAD_KIND_MEMBER(NdArray, int_scatter, ScatterUpdate, scatter)

}  // namespace crossgrad::backends
