// Shape rules of the indexing and layout ops (cat, slice, select, permute, expand) and the
// argument rules of clamp and max_dim: applied by every backend before its kernel, so all raise
// the same catalog panic for the same bad input.
#include <crossgrad/core/panic.hpp>
#include <crossgrad/core/int_arithmetic.hpp>
#include <crossgrad/core/shape_rules.hpp>

#include <cmath>
#include <limits>
#include <sstream>

namespace crossgrad::rules {
namespace {

std::string number(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

std::string list(const std::vector<std::size_t>& xs) { return Shape(xs).to_string(); }

}  // namespace

void check_index_dtype(DType dtype, std::string_view op) {
  if (dtype != DType::I64 && dtype != DType::I32) {
    panic(PanicId::UnsupportedDtype, {{"dtype", std::string(dtype_name(dtype))}, {"what", std::string(op) + " indices"}});
  }
}

void check_clamp_bounds(double min, double max, std::string_view op) {
  if (!(min <= max)) panic(PanicId::ClampBounds, {{"op", std::string(op)}, {"min", number(min)}, {"max", number(max)}});
}

void check_clamp(DType dtype, double min, double max) {
  check_float_dtype(dtype, "float_clamp");
  check_clamp_bounds(min, max, "float_clamp");
}

void check_cat_dtypes(const std::vector<DType>& dtypes, DTypeCategory kind, std::string_view op) {
  for (DType d : dtypes) check_kind_dtype(d, kind, op);
  for (DType d : dtypes) check_same_dtype(dtypes.front(), d, op);
}

void check_assign_values(const Shape& expected, const Shape& values, DType tensor_dtype, DType values_dtype,
                         std::string_view op, DTypeCategory kind) {
  check_assign_values(expected, values, op);
  check_kind_dtype(values_dtype, kind, op);
  check_same_dtype(tensor_dtype, values_dtype, op);
}

void check_nonempty_reduction(const Shape& shape, std::size_t dim, std::string_view op) {
  check_dim(dim, shape.rank(), op);
  if (shape[dim] == 0) panic(PanicId::EmptyReduction, {{"op", std::string(op)}, {"dim", std::to_string(dim)}});
}

void check_nonempty_full_reduction(const Shape& shape, std::string_view op) {
  for (std::size_t d = 0; d < shape.rank(); ++d) {
    if (shape[d] == 0) panic(PanicId::EmptyReduction, {{"op", std::string(op)}, {"dim", std::to_string(d)}});
  }
}

Shape cat_shape(const std::vector<Shape>& shapes, std::size_t dim, std::string_view op) {
  if (shapes.empty()) panic(PanicId::CatEmpty, {{"op", std::string(op)}});
  const Shape& first = shapes.front();
  check_dim(dim, first.rank(), op);
  std::vector<std::size_t> out = first.dims();
  out[dim] = 0;
  for (const Shape& s : shapes) {
    bool same = s.rank() == first.rank();
    for (std::size_t d = 0; same && d < s.rank(); ++d) same = d == dim || s[d] == first[d];
    if (!same) {
      panic(PanicId::CatMismatch, {{"op", std::string(op)}, {"dim", std::to_string(dim)}, {"lhs", first.to_string()}, {"rhs", s.to_string()}});
    }
    out[dim] += s[dim];  // cannot wrap: each piece exists, and their sum is checked below
  }
  Shape result(std::move(out));
  result.num_elements();  // shape-overflow for an unrepresentable result
  return result;
}

std::vector<Range> full_ranges(const Shape& shape, const std::vector<Range>& ranges, std::string_view op) {
  if (ranges.size() > shape.rank()) check_dim(ranges.size() - 1, shape.rank(), op);
  std::vector<Range> full(shape.rank());
  for (std::size_t d = 0; d < shape.rank(); ++d) {
    full[d] = d < ranges.size() ? ranges[d] : Range{0, shape[d]};
    if (full[d].start > full[d].end || full[d].end > shape[d]) {
      panic(PanicId::SliceOutOfRange, {{"op", std::string(op)},
                                       {"start", std::to_string(full[d].start)},
                                       {"end", std::to_string(full[d].end)},
                                       {"dim", std::to_string(d)},
                                       {"size", std::to_string(shape[d])}});
    }
  }
  return full;
}

Shape sliced_shape(const std::vector<Range>& full) {
  std::vector<std::size_t> dims;
  dims.reserve(full.size());
  for (const Range& r : full) dims.push_back(r.end - r.start);
  return Shape(std::move(dims));
}

void check_select(const Shape& shape, std::size_t dim, const Shape& indices, DType index_dtype, std::string_view op) {
  check_dim(dim, shape.rank(), op);
  if (indices.rank() != 1) panic(PanicId::SelectIndexRank, {{"op", std::string(op)}, {"shape", indices.to_string()}});
  check_index_dtype(index_dtype, op);
}

void check_gather(const Shape& shape, std::size_t dim, const Shape& indices, DType index_dtype, std::string_view op) {
  check_dim(dim, shape.rank(), op);
  bool fits = indices.rank() == shape.rank();
  for (std::size_t d = 0; fits && d < shape.rank(); ++d) fits = d == dim || indices[d] == shape[d];
  if (!fits) {
    panic(PanicId::GatherIndexShape, {{"op", std::string(op)},
                                      {"expected", shape.to_string()},
                                      {"dim", std::to_string(dim)},
                                      {"got", indices.to_string()}});
  }
  check_index_dtype(index_dtype, op);
}

Shape check_gather_nd(const Shape& shape, const Shape& indices, DType index_dtype, std::string_view op) {
  const std::size_t k = indices.rank() == 0 ? 0 : indices[indices.rank() - 1];
  if (indices.rank() == 0 || k > shape.rank()) {
    panic(PanicId::GatherNdIndexShape,
          {{"op", std::string(op)}, {"rank", std::to_string(shape.rank())}, {"got", indices.to_string()}});
  }
  check_index_dtype(index_dtype, op);
  std::vector<std::size_t> dims(indices.dims().begin(), indices.dims().end() - 1);
  dims.insert(dims.end(), shape.dims().begin() + static_cast<std::ptrdiff_t>(k), shape.dims().end());
  return Shape(std::move(dims));
}

void check_scatter_update_tracked(IndexingUpdateOp update, std::string_view op) {
  if (update != IndexingUpdateOp::Assign && update != IndexingUpdateOp::Add) {
    panic(PanicId::ScatterUpdateGradient, {{"op", std::string(op)}, {"update", std::string(indexing_update_name(update))}});
  }
}

Shape check_masked(const Shape& tensor, DType tensor_dtype, const Shape& mask, DType mask_dtype, const Shape* value,
                   DType value_dtype, std::string_view op, DTypeCategory kind) {
  check_kind_dtype(tensor_dtype, kind, op);
  if (mask_dtype != DType::Bool) {
    panic(PanicId::UnsupportedDtype, {{"dtype", std::string(dtype_name(mask_dtype))}, {"what", std::string(op) + " masks"}});
  }
  if (value != nullptr) {
    check_kind_dtype(value_dtype, kind, op);
    check_same_dtype(tensor_dtype, value_dtype, op);
  }
  Shape out = broadcast_shapes(tensor, mask, op);
  if (value != nullptr) out = broadcast_shapes(out, *value, op);
  return out;
}

void check_into_int(DType dtype, DType target) {
  check_float_dtype(dtype, "float_into_int");
  if (!is_int(target)) {
    panic(PanicId::UnsupportedDtype, {{"dtype", std::string(dtype_name(target))}, {"what", "float_into_int targets"}});
  }
}

void check_int_dtype(DType dtype, std::string_view op) {
  if (!is_int(dtype)) panic(PanicId::UnsupportedDtype, {{"dtype", std::string(dtype_name(dtype))}, {"what", std::string(op)}});
}

Shape check_int_binary(const Shape& lhs, DType lhs_dtype, const Shape& rhs, DType rhs_dtype, std::string_view op) {
  check_int_dtype(lhs_dtype, op);
  check_int_dtype(rhs_dtype, op);
  check_same_dtype(lhs_dtype, rhs_dtype, op);
  return broadcast_shapes(lhs, rhs, op);
}

void check_bool_dtype(DType dtype, std::string_view op) {
  if (dtype != DType::Bool) panic(PanicId::UnsupportedDtype, {{"dtype", std::string(dtype_name(dtype))}, {"what", std::string(op)}});
}

Shape check_bool_binary(const Shape& lhs, DType lhs_dtype, const Shape& rhs, DType rhs_dtype, std::string_view op) {
  check_bool_dtype(lhs_dtype, op);
  check_bool_dtype(rhs_dtype, op);
  return broadcast_shapes(lhs, rhs, op);
}

void check_int_target(DType dtype, DType target, std::string_view op) {
  if (op == "bool_into_int") check_bool_dtype(dtype, op);
  else check_int_dtype(dtype, op);
  if (!is_int(target)) {
    panic(PanicId::UnsupportedDtype, {{"dtype", std::string(dtype_name(target))}, {"what", std::string(op) + " targets"}});
  }
}

Shape check_int_reduction(const Shape& shape, DType dtype, const std::size_t* dim, bool needs_an_element, std::string_view op) {
  if (op.starts_with("bool_")) check_bool_dtype(dtype, op);
  else check_int_dtype(dtype, op);
  if (dim == nullptr) {
    if (needs_an_element) check_nonempty_full_reduction(shape, op);
    return Shape{1};
  }
  if (needs_an_element) check_nonempty_reduction(shape, *dim, op);
  else check_dim(*dim, shape.rank(), op);
  return reduced_shape(shape, *dim);
}

void check_int_clamp(DType dtype, double min, double max) {
  check_int_dtype(dtype, "int_clamp");
  check_clamp_bounds(min, max, "int_clamp");
}

void int_division_by_zero(std::string_view op) { panic(PanicId::IntDivisionByZero, {{"op", std::string(op)}}); }

void check_int_scalar_divisor(DType dtype, double scalar, std::string_view op) {
  check_int_dtype(dtype, op);
  bool zero = false;
  if (dtype == DType::I64) zero = int_scalar<std::int64_t>(scalar) == 0;
  else if (dtype == DType::I32) zero = int_scalar<std::int32_t>(scalar) == 0;
  else if (dtype == DType::I8) zero = int_scalar<std::int8_t>(scalar) == 0;
  else zero = int_scalar<std::uint8_t>(scalar) == 0;
  if (zero) int_division_by_zero(op);
}

void check_mask_select(const Shape& tensor, DType tensor_dtype, const Shape& mask, DType mask_dtype, DTypeCategory kind,
                       std::string_view op) {
  check_kind_dtype(tensor_dtype, kind, op);
  if (mask_dtype != DType::Bool) {
    panic(PanicId::UnsupportedDtype, {{"dtype", std::string(dtype_name(mask_dtype))}, {"what", std::string(op) + " masks"}});
  }
  if (mask != tensor) {
    panic(PanicId::MaskSelectShape, {{"op", std::string(op)}, {"expected", tensor.to_string()}, {"got", mask.to_string()}});
  }
}

Shape repeated_shape(const Shape& shape, std::size_t dim, std::size_t times) {
  std::vector<std::size_t> dims = shape.dims();
  std::size_t n = 0;
  dims[dim] = __builtin_mul_overflow(dims[dim], times, &n) ? std::numeric_limits<std::size_t>::max() : n;
  return Shape(std::move(dims));
}

std::size_t unfold_windows(std::size_t len, std::size_t size, std::size_t step, std::string_view op) {
  if (step == 0) panic(PanicId::UnfoldStep, {{"op", std::string(op)}});
  // size <= len: at least the window at 0; the count cannot overflow (len - size is below len).
  return size > len ? 0 : (len - size) / step + 1;
}

Shape unfolded_shape(const Shape& shape, std::size_t dim, std::size_t size, std::size_t step, std::string_view op) {
  std::vector<std::size_t> dims = shape.dims();
  dims[dim] = unfold_windows(dims[dim], size, step, op);
  dims.push_back(size);
  return Shape(std::move(dims));
}

Shape check_cross(const Shape& lhs, DType lhs_dtype, const Shape& rhs, DType rhs_dtype, std::size_t dim) {
  constexpr std::string_view op = "float_cross";
  check_float_dtype(lhs_dtype, op);
  check_float_dtype(rhs_dtype, op);
  check_same_dtype(lhs_dtype, rhs_dtype, op);
  check_dim(dim, lhs.rank(), op);
  if (rhs.rank() != lhs.rank() || lhs[dim] != 3 || rhs[dim] != 3) {
    panic(PanicId::CrossDim, {{"dim", std::to_string(dim)}, {"lhs", lhs.to_string()}, {"rhs", rhs.to_string()}});
  }
  return broadcast_shapes(lhs, rhs, op);
}

std::vector<Range> check_slice_assign(const Shape& shape, DType dtype, const std::vector<Range>& ranges,
                                      const Shape& values, DType values_dtype, DTypeCategory kind,
                                      std::string_view op) {
  check_kind_dtype(dtype, kind, op);
  std::vector<Range> full = full_ranges(shape, ranges, op);
  check_assign_values(sliced_shape(full), values, dtype, values_dtype, op, kind);
  return full;
}

void check_sort(const Shape& shape, DType dtype, DTypeCategory kind, std::size_t dim, std::string_view op) {
  check_kind_dtype(dtype, kind, op);
  check_dim(dim, shape.rank(), op);
}

Shape check_topk(const Shape& shape, DType dtype, DTypeCategory kind, std::size_t dim, std::size_t k, std::string_view op) {
  check_sort(shape, dtype, kind, dim, op);
  if (k > shape[dim]) {
    panic(PanicId::TopkK, {{"op", std::string(op)},
                           {"size", std::to_string(shape[dim])},
                           {"dim", std::to_string(dim)},
                           {"k", std::to_string(k)}});
  }
  std::vector<std::size_t> dims = shape.dims();
  dims[dim] = k;
  return Shape(std::move(dims));
}

void index_out_of_range(std::string_view op, long long index, std::size_t dim, std::size_t size) {
  panic(PanicId::IndexOutOfRange, {{"op", std::string(op)},
                                   {"index", std::to_string(index)},
                                   {"dim", std::to_string(dim)},
                                   {"size", std::to_string(size)}});
}

Shape selected_shape(const Shape& shape, std::size_t dim, std::size_t count) {
  std::vector<std::size_t> dims = shape.dims();
  dims[dim] = count;
  Shape out(std::move(dims));
  out.num_elements();
  return out;
}

void check_assign_values(const Shape& expected, const Shape& values, std::string_view op) {
  if (!(expected == values)) {
    panic(PanicId::AssignShapeMismatch,
          {{"op", std::string(op)}, {"expected", expected.to_string()}, {"got", values.to_string()}});
  }
}

Shape permuted_shape(const Shape& shape, const std::vector<std::size_t>& axes, std::string_view op) {
  std::vector<bool> seen(shape.rank(), false);
  bool ok = axes.size() == shape.rank();
  for (std::size_t i = 0; ok && i < axes.size(); ++i) {
    ok = axes[i] < shape.rank() && !seen[axes[i]];
    if (ok) seen[axes[i]] = true;
  }
  if (!ok) panic(PanicId::PermuteInvalid, {{"op", std::string(op)}, {"rank", std::to_string(shape.rank())}, {"axes", list(axes)}});
  std::vector<std::size_t> dims(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i) dims[i] = shape[axes[i]];
  return Shape(std::move(dims));
}

void check_flip_axes(const Shape& shape, const std::vector<std::size_t>& axes, std::string_view op) {
  std::vector<bool> seen(shape.rank(), false);
  bool ok = true;
  for (std::size_t i = 0; ok && i < axes.size(); ++i) {
    ok = axes[i] < shape.rank() && !seen[axes[i]];
    if (ok) seen[axes[i]] = true;
  }
  if (!ok) panic(PanicId::FlipInvalid, {{"op", std::string(op)}, {"rank", std::to_string(shape.rank())}, {"axes", list(axes)}});
}

void check_expand(const Shape& from, const Shape& to, std::string_view op) {
  bool ok = to.rank() >= from.rank();
  for (std::size_t i = 0; ok && i < from.rank(); ++i) {
    const std::size_t f = from[from.rank() - 1 - i];
    ok = f == 1 || f == to[to.rank() - 1 - i];
  }
  if (!ok) panic(PanicId::ExpandMismatch, {{"op", std::string(op)}, {"from", from.to_string()}, {"to", to.to_string()}});
  to.num_elements();
}

}  // namespace crossgrad::rules
