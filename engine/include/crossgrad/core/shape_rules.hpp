#pragma once
// Shape and dtype rules every backend applies before its kernels, so that all backends raise the
// same catalog panics for the same bad input. Kernels stay the backends' own.
#include <crossgrad/core/dtype.hpp>
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
MatmulPlan plan_matmul(const Shape& lhs, const Shape& rhs);

// Panics dim-out-of-range.
void check_dim(std::size_t dim, std::size_t rank, std::string_view op);
// Shape with `dim` set to 1.
Shape reduced_shape(const Shape& shape, std::size_t dim);
// Panics reshape-mismatch.
void check_reshape(const Shape& from, const Shape& to);
// Shape with dims d0 and d1 exchanged (both checked).
Shape swapped_shape(const Shape& shape, std::size_t d0, std::size_t d1, std::string_view op);

}  // namespace crossgrad::rules
