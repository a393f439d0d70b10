// LibTorch: element-wise ops and comparisons. Each checks the contract with the shared rules in
// NdArray's order, then runs the plugin's op (aten/ops.cpp adapts ATen to crossgrad's semantics).
#include "plugin.hpp"

namespace crossgrad::backends {
namespace {

using libtorch::Call;
using libtorch::op_code;

// Binary float ops with NumPy broadcasting: a non-float operand is reported before a mismatch.
LibTorchTensor binary(OpId op, const LibTorchTensor& lhs, const LibTorchTensor& rhs, bool compares) {
  const std::string_view name = op_info(op).name;
  rules::check_float_dtype(lhs.dtype, name);
  rules::check_float_dtype(rhs.dtype, name);
  rules::check_same_dtype(lhs.dtype, rhs.dtype, name);
  Shape out = rules::broadcast_shapes(lhs.shape, rhs.shape, name);
  return libtorch::run(Call{op_code(op), {&lhs, &rhs}, {}, {}}, std::move(out),
                       compares ? DType::Bool : lhs.dtype);
}

LibTorchTensor unary(OpId op, const LibTorchTensor& tensor, std::vector<double> scalars = {}) {
  rules::check_float_dtype(tensor.dtype, op_info(op).name);
  return libtorch::run(Call{op_code(op), {&tensor}, std::move(scalars), {}}, tensor.shape, tensor.dtype);
}

}  // namespace

#define CROSSGRAD_LIBTORCH_BINARY(name)                                               \
  LibTorchTensor LibTorch::name(const LibTorchTensor& lhs, const LibTorchTensor& rhs) { \
    return binary(OpId::name, lhs, rhs, false);                                  \
  }
CROSSGRAD_LIBTORCH_BINARY(float_add)
CROSSGRAD_LIBTORCH_BINARY(float_sub)
CROSSGRAD_LIBTORCH_BINARY(float_mul)
CROSSGRAD_LIBTORCH_BINARY(float_div)
CROSSGRAD_LIBTORCH_BINARY(float_remainder)
CROSSGRAD_LIBTORCH_BINARY(float_powf)
CROSSGRAD_LIBTORCH_BINARY(float_atan2)
CROSSGRAD_LIBTORCH_BINARY(float_hypot)
CROSSGRAD_LIBTORCH_BINARY(prelu)
#undef CROSSGRAD_LIBTORCH_BINARY

#define CROSSGRAD_LIBTORCH_COMPARE(name)                                              \
  LibTorchTensor LibTorch::name(const LibTorchTensor& lhs, const LibTorchTensor& rhs) { \
    return binary(OpId::name, lhs, rhs, true);                                  \
  }
CROSSGRAD_LIBTORCH_COMPARE(float_greater)
CROSSGRAD_LIBTORCH_COMPARE(float_lower)
CROSSGRAD_LIBTORCH_COMPARE(float_equal)
CROSSGRAD_LIBTORCH_COMPARE(float_greater_equal)
CROSSGRAD_LIBTORCH_COMPARE(float_lower_equal)
CROSSGRAD_LIBTORCH_COMPARE(float_not_equal)
#undef CROSSGRAD_LIBTORCH_COMPARE

#define CROSSGRAD_LIBTORCH_UNARY(name) \
  LibTorchTensor LibTorch::name(const LibTorchTensor& tensor) { return unary(OpId::name, tensor); }
CROSSGRAD_LIBTORCH_UNARY(float_neg)
CROSSGRAD_LIBTORCH_UNARY(float_exp)
CROSSGRAD_LIBTORCH_UNARY(float_log)
CROSSGRAD_LIBTORCH_UNARY(float_sqrt)
CROSSGRAD_LIBTORCH_UNARY(float_tanh)
CROSSGRAD_LIBTORCH_UNARY(float_log1p)
CROSSGRAD_LIBTORCH_UNARY(float_abs)
CROSSGRAD_LIBTORCH_UNARY(relu)
CROSSGRAD_LIBTORCH_UNARY(sigmoid)
CROSSGRAD_LIBTORCH_UNARY(float_cos)
CROSSGRAD_LIBTORCH_UNARY(float_sin)
CROSSGRAD_LIBTORCH_UNARY(float_tan)
CROSSGRAD_LIBTORCH_UNARY(float_cosh)
CROSSGRAD_LIBTORCH_UNARY(float_sinh)
CROSSGRAD_LIBTORCH_UNARY(float_acos)
CROSSGRAD_LIBTORCH_UNARY(float_acosh)
CROSSGRAD_LIBTORCH_UNARY(float_asin)
CROSSGRAD_LIBTORCH_UNARY(float_asinh)
CROSSGRAD_LIBTORCH_UNARY(float_atan)
CROSSGRAD_LIBTORCH_UNARY(float_atanh)
CROSSGRAD_LIBTORCH_UNARY(float_erf)
CROSSGRAD_LIBTORCH_UNARY(float_recip)
CROSSGRAD_LIBTORCH_UNARY(float_round)
CROSSGRAD_LIBTORCH_UNARY(float_floor)
CROSSGRAD_LIBTORCH_UNARY(float_ceil)
CROSSGRAD_LIBTORCH_UNARY(float_trunc)
CROSSGRAD_LIBTORCH_UNARY(float_sign)
CROSSGRAD_LIBTORCH_UNARY(log_sigmoid)
CROSSGRAD_LIBTORCH_UNARY(gelu)
#undef CROSSGRAD_LIBTORCH_UNARY

#define CROSSGRAD_LIBTORCH_SCALAR(name)                                          \
  LibTorchTensor LibTorch::name(const LibTorchTensor& tensor, double scalar) { \
    return unary(OpId::name, tensor, {scalar});                                \
  }
CROSSGRAD_LIBTORCH_SCALAR(float_powf_scalar)
CROSSGRAD_LIBTORCH_SCALAR(float_add_scalar)
CROSSGRAD_LIBTORCH_SCALAR(float_mul_scalar)
CROSSGRAD_LIBTORCH_SCALAR(float_sub_scalar)
CROSSGRAD_LIBTORCH_SCALAR(float_div_scalar)
CROSSGRAD_LIBTORCH_SCALAR(float_clamp_min)
CROSSGRAD_LIBTORCH_SCALAR(float_clamp_max)
CROSSGRAD_LIBTORCH_SCALAR(leaky_relu)
CROSSGRAD_LIBTORCH_SCALAR(float_remainder_scalar)
#undef CROSSGRAD_LIBTORCH_SCALAR

// A float tensor to a Bool tensor of its shape: against a scalar, or a predicate of each element.
#define CROSSGRAD_LIBTORCH_COMPARE_SCALAR(name)                                                              \
  LibTorchTensor LibTorch::name(const LibTorchTensor& tensor, double scalar) {                             \
    rules::check_float_dtype(tensor.dtype, #name);                                                         \
    return libtorch::run(Call{op_code(OpId::name), {&tensor}, {scalar}, {}}, tensor.shape, DType::Bool); \
  }
CROSSGRAD_LIBTORCH_COMPARE_SCALAR(float_greater_scalar)
CROSSGRAD_LIBTORCH_COMPARE_SCALAR(float_greater_equal_elem)
CROSSGRAD_LIBTORCH_COMPARE_SCALAR(float_lower_elem)
CROSSGRAD_LIBTORCH_COMPARE_SCALAR(float_lower_equal_elem)
CROSSGRAD_LIBTORCH_COMPARE_SCALAR(float_equal_elem)
CROSSGRAD_LIBTORCH_COMPARE_SCALAR(float_not_equal_elem)
#undef CROSSGRAD_LIBTORCH_COMPARE_SCALAR

#define CROSSGRAD_LIBTORCH_CLASSIFY(name)                                                                 \
  LibTorchTensor LibTorch::name(const LibTorchTensor& tensor) {                                         \
    rules::check_float_dtype(tensor.dtype, #name);                                                      \
    return libtorch::run(Call{op_code(OpId::name), {&tensor}, {}, {}}, tensor.shape, DType::Bool); \
  }
CROSSGRAD_LIBTORCH_CLASSIFY(float_is_nan)
CROSSGRAD_LIBTORCH_CLASSIFY(float_is_inf)
#undef CROSSGRAD_LIBTORCH_CLASSIFY

LibTorchTensor LibTorch::float_clamp(const LibTorchTensor& tensor, double min, double max) {
  rules::check_clamp(tensor.dtype, min, max);
  return libtorch::run(Call{op_code(OpId::float_clamp), {&tensor}, {min, max}, {}}, tensor.shape, tensor.dtype);
}

namespace {
LibTorchTensor matmul(OpId op, const LibTorchTensor& lhs, const LibTorchTensor& rhs) {
  const std::string_view name = op_info(op).name;
  rules::MatmulPlan plan = rules::check_matmul(lhs.shape, lhs.dtype, rhs.shape, rhs.dtype, operand_category(op), name);
  return libtorch::run(Call{op_code(op), {&lhs, &rhs}, {}, {}}, std::move(plan.out), lhs.dtype);
}
}  // namespace

LibTorchTensor LibTorch::float_matmul(const LibTorchTensor& lhs, const LibTorchTensor& rhs) {
  return matmul(OpId::float_matmul, lhs, rhs);
}
LibTorchTensor LibTorch::int_matmul(const LibTorchTensor& lhs, const LibTorchTensor& rhs) {
  return matmul(OpId::int_matmul, lhs, rhs);
}

}  // namespace crossgrad::backends
