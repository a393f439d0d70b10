#include <crossgrad/core/panic.hpp>
#include <crossgrad/core/shape_rules.hpp>

#include <algorithm>

namespace crossgrad::rules {
namespace {

// NumPy broadcasting of two shapes, without the size check (a matmul's batch shape alone may be
// too large while its output, with m or n = 0, is empty and fine).
Shape broadcast_unchecked(const Shape& lhs, const Shape& rhs, std::string_view op) {
  const std::size_t rank = std::max(lhs.rank(), rhs.rank());
  std::vector<std::size_t> out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    // Align from the right; a missing dim acts as 1.
    const std::size_t a = i < rank - lhs.rank() ? 1 : lhs[i - (rank - lhs.rank())];
    const std::size_t b = i < rank - rhs.rank() ? 1 : rhs[i - (rank - rhs.rank())];
    if (a != b && a != 1 && b != 1) {
      panic(PanicId::BroadcastMismatch,
            {{"op", std::string(op)}, {"lhs", lhs.to_string()}, {"rhs", rhs.to_string()}});
    }
    out[i] = a == 1 ? b : a;
  }
  return Shape(std::move(out));
}

}  // namespace

Shape broadcast_shapes(const Shape& lhs, const Shape& rhs, std::string_view op) {
  Shape result = broadcast_unchecked(lhs, rhs, op);
  result.num_elements();  // panics shape-overflow for an unrepresentable result
  return result;
}

std::vector<std::size_t> contiguous_strides(const Shape& shape) {
  std::vector<std::size_t> strides(shape.rank());
  std::size_t s = 1;
  for (std::size_t i = shape.rank(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

std::vector<std::size_t> broadcast_strides(const Shape& in, const Shape& out) {
  std::vector<std::size_t> strides(out.rank(), 0);
  const std::vector<std::size_t> own = contiguous_strides(in);
  const std::size_t offset = out.rank() - in.rank();
  for (std::size_t i = 0; i < in.rank(); ++i) {
    strides[offset + i] = in[i] == 1 ? 0 : own[i];
  }
  return strides;
}

void check_same_dtype(DType lhs, DType rhs, std::string_view op) {
  if (lhs != rhs) {
    panic(PanicId::DtypeMismatch, {{"op", std::string(op)},
                                   {"lhs", std::string(dtype_name(lhs))},
                                   {"rhs", std::string(dtype_name(rhs))}});
  }
}

void check_float_dtype(DType dtype, std::string_view op) {
  if (dtype != DType::F32 && dtype != DType::F64) {
    panic(PanicId::UnsupportedDtype, {{"dtype", std::string(dtype_name(dtype))}, {"what", std::string(op)}});
  }
}

void check_kind_dtype(DType dtype, DTypeCategory kind, std::string_view op) {
  if (kind == DTypeCategory::Int) return check_int_dtype(dtype, op);
  if (kind == DTypeCategory::Bool) return check_bool_dtype(dtype, op);
  check_float_dtype(dtype, op);
}

MatmulPlan plan_matmul(const Shape& lhs, const Shape& rhs, std::string_view op) {
  if (lhs.rank() < 2 || rhs.rank() < 2) {
    panic(PanicId::MatmulRank, {{"op", std::string(op)}, {"lhs", lhs.to_string()}, {"rhs", rhs.to_string()}});
  }
  MatmulPlan plan{};
  plan.m = lhs[lhs.rank() - 2];
  plan.k = lhs[lhs.rank() - 1];
  plan.n = rhs[rhs.rank() - 1];
  if (rhs[rhs.rank() - 2] != plan.k) {
    panic(PanicId::MatmulInnerDim, {{"op", std::string(op)}, {"lhs", lhs.to_string()}, {"rhs", rhs.to_string()}});
  }
  const Shape lhs_batch(std::vector<std::size_t>(lhs.dims().begin(), lhs.dims().end() - 2));
  const Shape rhs_batch(std::vector<std::size_t>(rhs.dims().begin(), rhs.dims().end() - 2));
  plan.batch = broadcast_unchecked(lhs_batch, rhs_batch, op);
  plan.lhs_batch_strides = broadcast_strides(lhs_batch, plan.batch);
  plan.rhs_batch_strides = broadcast_strides(rhs_batch, plan.batch);
  std::vector<std::size_t> out = plan.batch.dims();
  out.push_back(plan.m);
  out.push_back(plan.n);
  plan.out = Shape(std::move(out));
  // Only the output's size matters (panics shape-overflow): with m or n = 0 it is empty however
  // large the batch dims are, and there is no product to compute. Otherwise the batch count
  // divides the output's element count, so it fits too.
  const std::size_t out_elements = plan.out.num_elements();
  plan.batch_count = out_elements == 0 ? 0 : plan.batch.num_elements();
  return plan;
}

MatmulPlan check_matmul(const Shape& lhs, DType lhs_dtype, const Shape& rhs, DType rhs_dtype, DTypeCategory kind,
                        std::string_view op) {
  check_kind_dtype(lhs_dtype, kind, op);
  check_kind_dtype(rhs_dtype, kind, op);
  check_same_dtype(lhs_dtype, rhs_dtype, op);
  return plan_matmul(lhs, rhs, op);
}

void check_dim(std::size_t dim, std::size_t rank, std::string_view op) {
  if (dim >= rank) {
    panic(PanicId::DimOutOfRange,
          {{"op", std::string(op)}, {"dim", std::to_string(dim)}, {"rank", std::to_string(rank)}});
  }
}

Shape reduced_shape(const Shape& shape, std::size_t dim) {
  std::vector<std::size_t> dims = shape.dims();
  dims[dim] = 1;
  return Shape(std::move(dims));
}

void check_reshape(const Shape& from, const Shape& to, std::string_view op) {
  if (from.num_elements() != to.num_elements()) {
    panic(PanicId::ReshapeMismatch, {{"op", std::string(op)}, {"from", from.to_string()}, {"to", to.to_string()}});
  }
}

Shape swapped_shape(const Shape& shape, std::size_t d0, std::size_t d1, std::string_view op) {
  check_dim(d0, shape.rank(), op);
  check_dim(d1, shape.rank(), op);
  std::vector<std::size_t> dims = shape.dims();
  std::swap(dims[d0], dims[d1]);
  return Shape(std::move(dims));
}

}  // namespace crossgrad::rules
