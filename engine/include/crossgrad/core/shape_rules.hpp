#pragma once
// Shape and dtype rules every backend applies before its kernels, so that all backends raise the
// same catalog panics for the same bad input. Kernels stay the backends' own.
#include <crossgrad/core/dtype.hpp>
#include <crossgrad/core/indexing_update.hpp>
#include <crossgrad/core/panic.hpp>
#include <crossgrad/core/shape.hpp>

#include <cstddef>
#include <string_view>
#include <vector>

namespace crossgrad::rules {

// NumPy broadcasting of two shapes; panics broadcast-mismatch.
Shape broadcast_shapes(const Shape& lhs, const Shape& rhs, std::string_view op);

// Element strides of `in` when read as `out` (rank(out) >= rank(in)): 0 on broadcast dims.
std::vector<std::size_t> broadcast_strides(const Shape& in, const Shape& out);
std::vector<std::size_t> contiguous_strides(const Shape& shape);

// Panics dtype-mismatch unless both are the same dtype.
void check_same_dtype(DType lhs, DType rhs, std::string_view op);
// Panics unsupported-dtype unless dtype is F32 or F64.
void check_float_dtype(DType dtype, std::string_view op);
// The receiver check of an op that exists for every kind (the layout ops: float_flip, int_flip,
// bool_flip): check_float_dtype, check_int_dtype or check_bool_dtype by `kind`.
void check_kind_dtype(DType dtype, DTypeCategory kind, std::string_view op);

// [..., m, k] x [..., k, n] with broadcast batch dims.
struct MatmulPlan {
  Shape out;                 // broadcast batch dims + [m, n]
  Shape batch;               // broadcast batch dims
  std::size_t batch_count;   // product of batch dims; 0 when `out` is empty (nothing to compute)
  std::size_t m, k, n;
  std::vector<std::size_t> lhs_batch_strides;  // in matrices (m*k) units, 0 when broadcast
  std::vector<std::size_t> rhs_batch_strides;  // in matrices (k*n) units
};
// Panics matmul-rank, matmul-inner-dim, broadcast-mismatch (batch dims).
MatmulPlan plan_matmul(const Shape& lhs, const Shape& rhs, std::string_view op);
// float_matmul / int_matmul (`kind`): both operands of the kind (unsupported-dtype), of one dtype
// (dtype-mismatch), then plan_matmul's checks. Every backend's matmul starts here.
MatmulPlan check_matmul(const Shape& lhs, DType lhs_dtype, const Shape& rhs, DType rhs_dtype, DTypeCategory kind,
                        std::string_view op);

// Panics dim-out-of-range.
void check_dim(std::size_t dim, std::size_t rank, std::string_view op);
// A tensor viewed as [outer, len, inner] around `dim` (< rank): the products of the dims before
// and after it. Kernels that reduce, normalise or index along one dim walk this view.
struct DimSplit {
  std::size_t outer = 1;
  std::size_t len = 1;
  std::size_t inner = 1;
};
inline DimSplit split_at_dim(const Shape& shape, std::size_t dim) {
  DimSplit s;
  for (std::size_t d = 0; d < dim; ++d) s.outer *= shape[d];
  s.len = shape[dim];
  for (std::size_t d = dim + 1; d < shape.rank(); ++d) s.inner *= shape[d];
  return s;
}
// Shape with `dim` set to 1.
Shape reduced_shape(const Shape& shape, std::size_t dim);
// Panics reshape-mismatch.
void check_reshape(const Shape& from, const Shape& to, std::string_view op);
// Shape with dims d0 and d1 exchanged (both checked).
Shape swapped_shape(const Shape& shape, std::size_t d0, std::size_t d1, std::string_view op);

// Panics unsupported-dtype unless dtype is I64 or I32 (index tensors).
void check_index_dtype(DType dtype, std::string_view op);
// Panics clamp-bounds unless min <= max (so neither is NaN).
void check_clamp_bounds(double min, double max, std::string_view op);
// float_clamp's whole check, in the one order every backend uses: the tensor's float dtype, then
// the bounds.
void check_clamp(DType dtype, double min, double max);
// Panics dim-out-of-range, then empty-reduction when the reduced dim has size 0 (max has no value).
void check_nonempty_reduction(const Shape& shape, std::size_t dim, std::string_view op);
// The same for a reduction over every element (float_max, float_min, float_max_abs): an empty
// tensor has no result; the message names its first dim of size 0, the dim that empties it.
void check_nonempty_full_reduction(const Shape& shape, std::string_view op);

// float_cat (int_cat, bool_cat: `op`): non-empty list (cat-empty), one rank, dim < rank, every
// other dim equal (cat-mismatch). Returns the output shape.
Shape cat_shape(const std::vector<Shape>& shapes, std::size_t dim, std::string_view op = "float_cat");
// The cat dtype rule after cat_shape: every piece of the op's kind (unsupported-dtype, first
// offender), then every piece the first one's dtype (dtype-mismatch).
void check_cat_dtypes(const std::vector<DType>& dtypes, DTypeCategory kind = DTypeCategory::Float,
                      std::string_view op = "float_cat");
// float_slice: at most rank ranges (dim-out-of-range), start <= end <= size (slice-out-of-range);
// dims without a range are kept whole. Returns the ranges completed to the full rank.
std::vector<Range> full_ranges(const Shape& shape, const std::vector<Range>& ranges, std::string_view op = "float_slice");
Shape sliced_shape(const std::vector<Range>& full);
// float_select / float_select_assign: dim < rank, a 1-D index tensor (select-index-rank) of I64 or
// I32. Index values are checked by the kernels as they read them (index-out-of-range).
void check_select(const Shape& shape, std::size_t dim, const Shape& indices, DType index_dtype, std::string_view op);
[[noreturn]] void index_out_of_range(std::string_view op, long long index, std::size_t dim, std::size_t size);
// Shape of the selected values: `shape` with dim set to the index count.
Shape selected_shape(const Shape& shape, std::size_t dim, std::size_t count);
// float_select_assign: values must have selected_shape (assign-shape-mismatch).
void check_assign_values(const Shape& expected, const Shape& values, std::string_view op);
// The checks of an assign's values (select_assign, select_add, scatter_add) once the index values
// are checked: shape (`expected`: the selected shape, or the indices' for scatter_add), float
// dtype, the tensor's dtype. Every backend calls it in this place of the order: float dtype of
// the tensor, check_select / check_gather, the index values, then this.
void check_assign_values(const Shape& expected, const Shape& values, DType tensor_dtype, DType values_dtype,
                         std::string_view op, DTypeCategory kind = DTypeCategory::Float);
// float_gather / float_scatter_add: dim < rank, indices of the tensor's rank with its sizes in
// every other dim (gather-index-shape), of I64 or I32. Index values are checked by the kernels
// as they read them, in row-major order (index-out-of-range).
void check_gather(const Shape& shape, std::size_t dim, const Shape& indices, DType index_dtype, std::string_view op);
// float_gather_nd / float_scatter_nd: indices of rank 1 or more whose last dim k is at most the
// tensor's rank (gather-nd-index-shape), of I64 or I32. Returns the shape of the gathered values
// (the scattered values' for scatter_nd): the indices' shape without its last dim, then the
// tensor's dims from k on. Index values are checked by the caller, in row-major order, component c
// against dim c.
Shape check_gather_nd(const Shape& shape, const Shape& indices, DType index_dtype, std::string_view op);
// float_scatter / float_scatter_nd on a tracked operand: only Assign and Add have a backward rule
// (scatter-update-gradient).
void check_scatter_update_tracked(IndexingUpdateOp update, std::string_view op);
// float_mask_where / float_mask_fill: a float tensor, a Bool mask (unsupported-dtype otherwise) and,
// for mask_where (`value` not null), a value tensor of the tensor's float dtype; the result is the
// NumPy broadcast of the tensor, the mask and the value (broadcast-mismatch). Returns its shape.
Shape check_masked(const Shape& tensor, DType tensor_dtype, const Shape& mask, DType mask_dtype, const Shape* value,
                   DType value_dtype, std::string_view op,
                   DTypeCategory kind = DTypeCategory::Float);
// float_into_int: a float tensor and an int target dtype (I64, I32, I8, U8; unsupported-dtype
// otherwise, naming the target).
void check_into_int(DType dtype, DType target);
// The int ops (docs/OPS.md "Integer arithmetic"): unsupported-dtype unless the receiver is an
// int dtype (I64, I32, I8, U8); binary ones also dtype-mismatch and the broadcast rule, in that
// order. Returns the result's shape.
void check_int_dtype(DType dtype, std::string_view op);
Shape check_int_binary(const Shape& lhs, DType lhs_dtype, const Shape& rhs, DType rhs_dtype, std::string_view op);
// The bool ops: unsupported-dtype unless Bool; binary ones the broadcast rule too.
void check_bool_dtype(DType dtype, std::string_view op);
Shape check_bool_binary(const Shape& lhs, DType lhs_dtype, const Shape& rhs, DType rhs_dtype, std::string_view op);
// int_cast / bool_into_int: an int (Bool) receiver (unsupported-dtype naming the op) and an int
// target (unsupported-dtype naming "<op> targets").
void check_int_target(DType dtype, DType target, std::string_view op);
// The int and bool reductions: the receiver's dtype (int; Bool for bool_any / bool_all), the dim
// (dim-out-of-range), and for a mean, maximum or minimum (or its index) a non-empty lane
// (empty-reduction). Returns the result's shape: [1] over every element, dim kept with size 1.
Shape check_int_reduction(const Shape& shape, DType dtype, const std::size_t* dim, bool needs_an_element, std::string_view op);
// int_clamp: an int receiver and bounds with min <= max as given (clamp-bounds; NaN fails it).
void check_int_clamp(DType dtype, double min, double max);
// int-division-by-zero. The tensor forms raise it when their result is non-empty and a divisor
// element is 0 (each backend scans the divisor); the scalar forms when the scalar, converted to
// the dtype (core/int_arithmetic.hpp int_scalar), is 0.
[[noreturn]] void int_division_by_zero(std::string_view op);
void check_int_scalar_divisor(DType dtype, double scalar, std::string_view op);
// float_mask_select: a float tensor, a Bool mask (unsupported-dtype otherwise) of the tensor's
// shape (mask-select-shape).
void check_mask_select(const Shape& tensor, DType tensor_dtype, const Shape& mask, DType mask_dtype,
                       DTypeCategory kind = DTypeCategory::Float, std::string_view op = "float_mask_select");
// float_repeat_dim: `shape` with dim (< rank, checked by the caller) `times` as long; a size past
// SIZE_MAX saturates, so the caller's checked_tensor_bytes reports it (tensor-too-large).
Shape repeated_shape(const Shape& shape, std::size_t dim, std::size_t times);
// float_unfold: the number of complete windows of `size` along a dim of `len`, one every `step`
// (unfold-step for step 0): (len + step - size) / step, 0 when size > len (Burn's rule).
std::size_t unfold_windows(std::size_t len, std::size_t size, std::size_t step, std::string_view op);
// float_unfold's result: dim holds the windows, a last dim of `size` is appended.
Shape unfolded_shape(const Shape& shape, std::size_t dim, std::size_t size, std::size_t step, std::string_view op);
// float_cross: float operands of one dtype, dim below lhs's rank (dim-out-of-range), one rank and 3
// elements along dim in both (cross-dim), the other dims broadcasting (broadcast-mismatch). Returns
// the result's shape.
Shape check_cross(const Shape& lhs, DType lhs_dtype, const Shape& rhs, DType rhs_dtype, std::size_t dim);
// float_argsort / float_sort (int_argsort, int_sort: `kind` Int): a tensor of the kind and dim
// below its rank; the result has its shape.
void check_sort(const Shape& shape, DType dtype, DTypeCategory kind, std::size_t dim, std::string_view op);
// float_argtopk / float_topk (int_: `kind`): as check_sort, and k at most the size of dim
// (topk-k). Returns the result's shape: dim holds k.
Shape check_topk(const Shape& shape, DType dtype, DTypeCategory kind, std::size_t dim, std::size_t k, std::string_view op);
// float_slice_assign (int_slice_assign, bool_slice_assign: `kind`, `op`): a tensor of the kind,
// ranges as float_slice's (full_ranges, under this op's name), values of the tensor's dtype with
// the sliced shape (assign-shape-mismatch). Returns the full ranges.
std::vector<Range> check_slice_assign(const Shape& shape, DType dtype, const std::vector<Range>& ranges,
                                      const Shape& values, DType values_dtype,
                                      DTypeCategory kind = DTypeCategory::Float,
                                      std::string_view op = "float_slice_assign");
// float_permute: axes is a permutation of 0..rank-1 (permute-invalid). Returns the output shape.
Shape permuted_shape(const Shape& shape, const std::vector<std::size_t>& axes, std::string_view op);
// float_flip: every axis below the rank, none named twice (flip-invalid); [] is allowed.
void check_flip_axes(const Shape& shape, const std::vector<std::size_t>& axes, std::string_view op);
// float_expand: rank(to) >= rank(from), aligned from the right, each dim equal or 1 in `from`
// (expand-mismatch). `to` must fit (shape-overflow).
void check_expand(const Shape& from, const Shape& to, std::string_view op);

}  // namespace crossgrad::rules
