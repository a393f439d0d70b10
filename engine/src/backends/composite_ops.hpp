#pragma once
// Ops that are other ops of the same backend with a different name and contract, written once for
// every backend B (each backend's member is a one-line call): the checks run first under the op's
// own name, so a panic names the op that was called, then B's kernels do the work.
#include <crossgrad/core/host_buffer.hpp>
#include <crossgrad/core/shape_rules.hpp>
#include <crossgrad/core/tensor_data.hpp>

#include "kind_members.hpp"

#include <algorithm>
#include <cstdint>
#include <cstddef>
#include <numeric>
#include <vector>

namespace crossgrad::backends::composite {

// transpose (float_, int_, bool_transpose: `op`): the last two dims swapped; a tensor of rank 0
// or 1 is copied unchanged (PyTorch's t()), so every tensor has a transpose.
template <class B>
typename B::Tensor transpose(const typename B::Tensor& t, OpId op) {
  const OpKind kind = op_info(op).operand;
  rules::check_kind_dtype(B::dtype(t), operand_category(op), op_info(op).name);
  const std::size_t rank = B::shape(t).rank();
  if (rank < 2) {
    std::vector<std::size_t> same(rank);
    std::iota(same.begin(), same.end(), std::size_t{0});
    return kind_moves::permute<B>(kind, t, same);
  }
  return kind_moves::swap_dims<B>(kind, t, rank - 2, rank - 1);
}

// softmin(x) = softmax(-x) along dim, bit for bit (negation is exact).
template <class B>
typename B::Tensor softmin(const typename B::Tensor& t, std::size_t dim) {
  rules::check_float_dtype(B::dtype(t), "softmin");
  rules::check_dim(dim, B::shape(t).rank(), "softmin");
  return B::softmax(B::float_neg(t), dim);
}

// hard_sigmoid(x) = clamp(alpha * x + beta, 0, 1), each step rounded in the dtype (the scalars
// rounded to it first): Burn's composition, without its detour through F32 for an F64 tensor.
template <class B>
typename B::Tensor hard_sigmoid(const typename B::Tensor& t, double alpha, double beta) {
  rules::check_float_dtype(B::dtype(t), "hard_sigmoid");
  return B::float_clamp(B::float_add_scalar(B::float_mul_scalar(t, alpha), beta), 0.0, 1.0);
}

// repeat_dim: the block along dim repeated `times` times ([a, b] twice along 0 is [a, b, a, b]):
// [outer, 1, len * inner] broadcast to [outer, times, len * inner].
template <class B>
typename B::Tensor repeat_dim(const typename B::Tensor& t, std::size_t dim, std::size_t times, OpId id) {
  const std::string_view op = op_info(id).name;
  const OpKind kind = op_info(id).operand;
  rules::check_kind_dtype(B::dtype(t), operand_category(id), op);
  const Shape shape = B::shape(t);
  rules::check_dim(dim, shape.rank(), op);
  const Shape out = rules::repeated_shape(shape, dim, times);
  checked_tensor_bytes(out, B::dtype(t));  // before the expand allocates under its own name
  const rules::DimSplit split = rules::split_at_dim(shape, dim);
  const std::size_t row = split.len * split.inner;
  const auto reshape = [&](const typename B::Tensor& x, const Shape& to) { return kind_moves::reshape<B>(kind, x, to); };
  return reshape(kind_moves::expand<B>(kind, reshape(t, Shape{split.outer, 1, row}), Shape{split.outer, times, row}), out);
}

// cross along dim: c = a[1, 2, 0] * b[2, 0, 1] - a[2, 0, 1] * b[1, 2, 0] (components rotated by
// two selects each), each product and the difference rounded in the dtype: the same bits on every
// backend.
template <class B>
typename B::Tensor cross(const typename B::Tensor& a, const typename B::Tensor& b, std::size_t dim) {
  rules::check_cross(B::shape(a), B::dtype(a), B::shape(b), B::dtype(b), dim);
  const auto rotation = [&](std::int64_t first) {
    return B::from_data(TensorData::from_i64({first, (first + 1) % 3, (first + 2) % 3}, Shape{3}), B::device(a));
  };
  const typename B::Tensor next = rotation(1), after = rotation(2);
  return B::float_sub(B::float_mul(B::float_select(a, dim, next), B::float_select(b, dim, after)),
                      B::float_mul(B::float_select(a, dim, after), B::float_select(b, dim, next)));
}

// float_unfold's layout, shared with its backward rule: the positions along dim of every window,
// window-major (w * step + k); the selected tensor seen as [.., windows, size, ..]; the axes that
// move the size dim last (and, inverted, back).
struct UnfoldPlan {
  std::vector<std::int64_t> positions;
  Shape split;
  std::vector<std::size_t> to_last;
  UnfoldPlan(const Shape& shape, std::size_t dim, std::size_t windows, std::size_t size, std::size_t step) {
    positions.reserve(windows * size);
    for (std::size_t w = 0; w < windows; ++w) {
      for (std::size_t k = 0; k < size; ++k) positions.push_back(static_cast<std::int64_t>(w * step + k));
    }
    std::vector<std::size_t> dims = shape.dims();
    dims[dim] = windows;
    dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(dim) + 1, size);
    split = Shape(dims);
    for (std::size_t d = 0; d < dims.size(); ++d) {
      if (d != dim + 1) to_last.push_back(d);
    }
    to_last.push_back(dim + 1);
  }
  template <class B>
  typename B::Tensor index(const Device& device) const {
    return B::from_data(TensorData::from_i64(positions, Shape{positions.size()}), device);
  }
};

// unfold: window w of dim is elements w * step .. w * step + size - 1, moved to a new last dim:
// one select of every window's positions (window-major), then [.., windows, size, inner..] with
// the size dim moved last.
template <class B>
typename B::Tensor unfold(const typename B::Tensor& t, std::size_t dim, std::size_t size, std::size_t step, OpId id) {
  const std::string_view op = op_info(id).name;
  const OpKind kind = op_info(id).operand;
  rules::check_kind_dtype(B::dtype(t), operand_category(id), op);
  const Shape shape = B::shape(t);
  rules::check_dim(dim, shape.rank(), op);
  const Shape out = rules::unfolded_shape(shape, dim, size, step, op);
  checked_tensor_bytes(out, B::dtype(t));  // before the index list is built
  const UnfoldPlan plan(shape, dim, out[dim], size, step);
  const typename B::Tensor windows = kind_moves::select<B>(kind, t, dim, plan.index<B>(B::device(t)));
  return kind_moves::permute<B>(kind, kind_moves::reshape<B>(kind, windows, plan.split), plan.to_last);
}

namespace detail {
// x (already cut to the block in dims before d) with its block in dims d.. replaced by values.
template <class B>
typename B::Tensor assign_block(OpKind kind, const typename B::Tensor& x, const std::vector<Range>& full,
                                const typename B::Tensor& values, std::size_t d) {
  if (d == full.size()) return values;
  const Shape shape = B::shape(x);
  std::vector<Range> cut;
  for (std::size_t k = 0; k < d; ++k) cut.push_back(Range{0, shape[k]});
  const auto along = [&](Range r) {
    std::vector<Range> ranges = cut;
    ranges.push_back(r);
    return kind_moves::slice<B>(kind, x, ranges);
  };
  const Range r = full[d];
  if (r.start == 0 && r.end == shape[d]) return assign_block<B>(kind, x, full, values, d + 1);
  std::vector<typename B::Tensor> pieces;
  if (r.start > 0) pieces.push_back(along(Range{0, r.start}));
  pieces.push_back(assign_block<B>(kind, along(r), full, values, d + 1));
  if (r.end < shape[d]) pieces.push_back(along(Range{r.end, shape[d]}));
  return pieces.size() == 1 ? pieces[0] : kind_moves::cat<B>(kind, pieces, d);
}
}  // namespace detail

// slice_assign: x with the block `ranges` cuts out replaced by values. Along each dim whose range
// is not the whole dim, the part before the block, the block (the same again for the next dims)
// and the part after are concatenated: slices and cats of B's own ops, pure copies, so every
// backend gives the same bits.
template <class B>
typename B::Tensor slice_assign(const typename B::Tensor& t, const std::vector<Range>& ranges,
                                const typename B::Tensor& values, OpId op) {
  const std::vector<Range> full = rules::check_slice_assign(B::shape(t), B::dtype(t), ranges, B::shape(values),
                                                            B::dtype(values), operand_category(op), op_info(op).name);
  return detail::assign_block<B>(op_info(op).operand, t, full, values, 0);
}

// sort (float_sort, int_sort: `op`): each lane along dim gathered in its kind's argsort order, so
// values and positions agree on every backend (NaN last ascending, first descending; ties in index
// order).
template <class B>
typename B::Tensor sort(const typename B::Tensor& t, std::size_t dim, bool descending, OpId op) {
  rules::check_sort(B::shape(t), B::dtype(t), operand_category(op), dim, op_info(op).name);
  const OpKind kind = op_info(op).operand;
  return kind_moves::gather<B>(kind, t, dim, kind_moves::argsort<B>(kind, t, dim, descending));
}

// topk (float_topk, int_topk): the k largest of each lane along dim, in sort(t, dim, true)'s order
// (Burn's definition), gathered at its kind's argtopk positions.
template <class B>
typename B::Tensor topk(const typename B::Tensor& t, std::size_t dim, std::size_t k, OpId op) {
  rules::check_topk(B::shape(t), B::dtype(t), operand_category(op), dim, k, op_info(op).name);
  const OpKind kind = op_info(op).operand;
  return kind_moves::gather<B>(kind, t, dim, kind_moves::argtopk<B>(kind, t, dim, k));
}

// Note [Index rows of gather_nd and scatter_nd]
// Indices [.., k] hold one row of k coordinates per element of the tensor's first k dims. Seen as
// [rows, row] (rows: the product of the first k dims, row: of the rest), a coordinate row names one
// row, so gather_nd is a float_select of those rows and scatter_nd a float_scatter along dim 0 of
// the rows (each index repeated across the row): B's own kernels, so every backend has the same
// bits and the same update order (index rows in row-major order). The coordinates are read on the
// host and checked in row-major order, component c against dim c (index-out-of-range).
struct IndexRows {
  Shape gathered;                  // indices' shape without its last dim, then the tensor's dims from k
  std::size_t rows = 1, row = 1;   // the tensor as [rows, row]
  std::vector<std::int64_t> at;    // the row each index row names
};

template <class B>
IndexRows index_rows(const Shape& shape, const typename B::Tensor& indices, std::string_view op) {
  const Shape ishape = B::shape(indices);
  IndexRows plan;
  plan.gathered = rules::check_gather_nd(shape, ishape, B::dtype(indices), op);
  const std::size_t k = ishape[ishape.rank() - 1];
  for (std::size_t d = 0; d < shape.rank(); ++d) (d < k ? plan.rows : plan.row) *= shape[d];
  std::size_t count = 1;
  for (std::size_t d = 0; d + 1 < ishape.rank(); ++d) count *= ishape[d];
  const std::vector<std::int64_t> coordinates = B::into_data(indices).to_i64();
  plan.at.resize(count);
  for (std::size_t m = 0; m < count; ++m) {
    std::int64_t linear = 0;
    for (std::size_t c = 0; c < k; ++c) {
      const std::int64_t v = coordinates[m * k + c];
      if (v < 0 || static_cast<std::uint64_t>(v) >= shape[c]) rules::index_out_of_range(op, v, c, shape[c]);
      linear = linear * static_cast<std::int64_t>(shape[c]) + v;
    }
    plan.at[m] = linear;
  }
  return plan;
}

// gather_nd: the named rows, in index order, shaped as Note [Index rows of gather_nd and scatter_nd].
template <class B>
typename B::Tensor gather_nd(const typename B::Tensor& t, const typename B::Tensor& indices, OpId id) {
  const std::string_view op = op_info(id).name;
  const OpKind kind = op_info(id).operand;
  rules::check_kind_dtype(B::dtype(t), operand_category(id), op);
  const IndexRows plan = index_rows<B>(B::shape(t), indices, op);
  checked_tensor_bytes(plan.gathered, B::dtype(t));  // a row named many times: before the select allocates
  const typename B::Tensor at = B::from_data(TensorData::from_i64(plan.at, Shape{plan.at.size()}), B::device(t));
  const typename B::Tensor rows = kind_moves::select<B>(kind, kind_moves::reshape<B>(kind, t, Shape{plan.rows, plan.row}), 0, at);
  return kind_moves::reshape<B>(kind, rows, plan.gathered);
}

// scatter_nd: values (of gather_nd's shape) combined into the named rows by `update`, index row by
// index row.
template <class B>
typename B::Tensor scatter_nd(const typename B::Tensor& t, const typename B::Tensor& indices,
                              const typename B::Tensor& values, IndexingUpdateOp update, OpId id) {
  const std::string_view op = op_info(id).name;
  const OpKind kind = op_info(id).operand;
  rules::check_kind_dtype(B::dtype(t), operand_category(id), op);
  const Shape shape = B::shape(t);
  const IndexRows plan = index_rows<B>(shape, indices, op);
  rules::check_assign_values(plan.gathered, B::shape(values), B::dtype(t), B::dtype(values), op, operand_category(id));
  std::vector<std::int64_t> at(plan.at.size() * plan.row);
  for (std::size_t m = 0; m < plan.at.size(); ++m) std::fill_n(at.begin() + static_cast<std::ptrdiff_t>(m * plan.row), plan.row, plan.at[m]);
  const Shape rows{plan.at.size(), plan.row};
  const typename B::Tensor index = B::from_data(TensorData::from_i64(std::move(at), rows), B::device(t));
  const typename B::Tensor scattered = kind == OpKind::Int
                                           ? B::int_scatter(B::int_reshape(t, Shape{plan.rows, plan.row}), 0, index,
                                                            B::int_reshape(values, rows), update)
                                           : B::float_scatter(B::float_reshape(t, Shape{plan.rows, plan.row}), 0, index,
                                                              B::float_reshape(values, rows), update);
  return kind_moves::reshape<B>(kind, scattered, shape);
}

// bool_argwhere: the coordinates of every true element in row-major order, one row each (I64
// [n, rank]); the mask is read on the host, as mask_select's: the result's length depends on it.
template <class B>
typename B::Tensor argwhere(const typename B::Tensor& t, OpId id) {
  rules::check_kind_dtype(B::dtype(t), operand_category(id), op_info(id).name);
  const Shape shape = B::shape(t);
  const std::vector<bool> m = B::into_data(t).to_bool();
  std::vector<std::int64_t> at;
  std::size_t n = 0;
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (!m[i]) continue;
    std::size_t rest = i;
    const std::size_t first = at.size();
    at.resize(first + shape.rank());
    for (std::size_t d = shape.rank(); d-- > 0;) {
      at[first + d] = static_cast<std::int64_t>(rest % shape[d]);
      rest /= shape[d];
    }
    ++n;
  }
  return B::from_data(TensorData::from_i64(std::move(at), Shape{n, shape.rank()}), B::device(t));
}

// mask_select's picks: the row-major positions where the mask holds true, as an index tensor on
// `device` (the mask read on the host: the result's length depends on it).
template <class B>
typename B::Tensor mask_positions(const typename B::Tensor& mask, const Device& device) {
  const std::vector<bool> m = B::into_data(mask).to_bool();
  std::vector<std::int64_t> at;
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (m[i]) at.push_back(static_cast<std::int64_t>(i));
  }
  const std::size_t count = at.size();
  return B::from_data(TensorData::from_i64(std::move(at), Shape{count}), device);
}

// mask_select: the elements where the mask is true, in row-major order, as a 1-D tensor (Burn's
// default: argwhere, then a select of the flat tensor).
template <class B>
typename B::Tensor mask_select(const typename B::Tensor& t, const typename B::Tensor& mask, OpId id) {
  const Shape shape = B::shape(t);
  const OpKind kind = op_info(id).operand;
  rules::check_mask_select(shape, B::dtype(t), B::shape(mask), B::dtype(mask), operand_category(id), op_info(id).name);
  const typename B::Tensor flat = kind_moves::reshape<B>(kind, t, Shape{shape.num_elements()});
  return kind_moves::select<B>(kind, flat, 0, mask_positions<B>(mask, B::device(t)));
}

}  // namespace crossgrad::backends::composite
