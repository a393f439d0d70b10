// LibTorch: the int ops (add, sub, mul, div, remainder, neg, abs, sign, the comparisons, the
// bitwise ops and shifts, the _scalar and _elem forms, int_cast) and the bool ops (not, and, or,
// xor, equal, not_equal, bool_into_int). The contract's checks run here in NdArray's order, the zero
// divisor included (the divisor is read back and scanned: ATen's own check raises a C++ error,
// not the catalog panic); the plugin (aten/ops.cpp) computes with ATen. A scalar is converted to
// the tensor's dtype here (core/int_arithmetic.hpp int_scalar) and passed as an int argument.
#include "plugin.hpp"

#include <crossgrad/core/int_arithmetic.hpp>

#include <cstdint>
#include <limits>
#include <utility>

namespace crossgrad::backends {
namespace {

using libtorch::Call;
using libtorch::op_code;

LibTorchTensor int_binary(OpId op, const LibTorchTensor& lhs, const LibTorchTensor& rhs, bool divides) {
  const std::string_view name = op_info(op).name;
  Shape out = rules::check_int_binary(lhs.shape, lhs.dtype, rhs.shape, rhs.dtype, name);
  if (divides && out.num_elements() != 0) {
    for (const std::int64_t v : LibTorch::into_data(rhs).to_i64()) {
      if (v == 0) rules::int_division_by_zero(name);
    }
  }
  return libtorch::run(Call{op_code(op), {&lhs, &rhs}, {}, {}}, std::move(out), lhs.dtype);
}

LibTorchTensor int_unary(OpId op, const LibTorchTensor& tensor) {
  rules::check_int_dtype(tensor.dtype, op_info(op).name);
  return libtorch::run(Call{op_code(op), {&tensor}, {}, {}}, tensor.shape, tensor.dtype);
}

// The scalar as an element of the tensor's dtype, widened to int64 for the plugin.
std::int64_t scalar_in(DType dtype, double scalar) {
  if (dtype == DType::I64) return int_scalar<std::int64_t>(scalar);
  if (dtype == DType::I32) return int_scalar<std::int32_t>(scalar);
  if (dtype == DType::I8) return int_scalar<std::int8_t>(scalar);
  return int_scalar<std::uint8_t>(scalar);
}

LibTorchTensor int_with_scalar(OpId op, const LibTorchTensor& tensor, double scalar) {
  rules::check_int_dtype(tensor.dtype, op_info(op).name);
  return libtorch::run(Call{op_code(op), {&tensor}, {}, {scalar_in(tensor.dtype, scalar)}}, tensor.shape, tensor.dtype);
}

LibTorchTensor int_compare(OpId op, const LibTorchTensor& lhs, const LibTorchTensor& rhs) {
  Shape out = rules::check_int_binary(lhs.shape, lhs.dtype, rhs.shape, rhs.dtype, op_info(op).name);
  return libtorch::run(Call{op_code(op), {&lhs, &rhs}, {}, {}}, std::move(out), DType::Bool);
}

LibTorchTensor int_compare_scalar(OpId op, const LibTorchTensor& tensor, double scalar) {
  rules::check_int_dtype(tensor.dtype, op_info(op).name);
  return libtorch::run(Call{op_code(op), {&tensor}, {}, {scalar_in(tensor.dtype, scalar)}}, tensor.shape, DType::Bool);
}

LibTorchTensor bool_binary(OpId op, const LibTorchTensor& lhs, const LibTorchTensor& rhs) {
  Shape out = rules::check_bool_binary(lhs.shape, lhs.dtype, rhs.shape, rhs.dtype, op_info(op).name);
  return libtorch::run(Call{op_code(op), {&lhs, &rhs}, {}, {}}, std::move(out), DType::Bool);
}

}  // namespace

LibTorchTensor LibTorch::int_add(const LibTorchTensor& lhs, const LibTorchTensor& rhs) { return int_binary(OpId::int_add, lhs, rhs, false); }
LibTorchTensor LibTorch::int_sub(const LibTorchTensor& lhs, const LibTorchTensor& rhs) { return int_binary(OpId::int_sub, lhs, rhs, false); }
LibTorchTensor LibTorch::int_mul(const LibTorchTensor& lhs, const LibTorchTensor& rhs) { return int_binary(OpId::int_mul, lhs, rhs, false); }
LibTorchTensor LibTorch::int_div(const LibTorchTensor& lhs, const LibTorchTensor& rhs) { return int_binary(OpId::int_div, lhs, rhs, true); }
LibTorchTensor LibTorch::int_remainder(const LibTorchTensor& lhs, const LibTorchTensor& rhs) {
  return int_binary(OpId::int_remainder, lhs, rhs, true);
}
LibTorchTensor LibTorch::int_neg(const LibTorchTensor& tensor) { return int_unary(OpId::int_neg, tensor); }
LibTorchTensor LibTorch::int_abs(const LibTorchTensor& tensor) { return int_unary(OpId::int_abs, tensor); }
LibTorchTensor LibTorch::int_sign(const LibTorchTensor& tensor) { return int_unary(OpId::int_sign, tensor); }
LibTorchTensor LibTorch::int_add_scalar(const LibTorchTensor& tensor, double scalar) {
  return int_with_scalar(OpId::int_add_scalar, tensor, scalar);
}
LibTorchTensor LibTorch::int_sub_scalar(const LibTorchTensor& tensor, double scalar) {
  return int_with_scalar(OpId::int_sub_scalar, tensor, scalar);
}
LibTorchTensor LibTorch::int_mul_scalar(const LibTorchTensor& tensor, double scalar) {
  return int_with_scalar(OpId::int_mul_scalar, tensor, scalar);
}
LibTorchTensor LibTorch::int_div_scalar(const LibTorchTensor& tensor, double scalar) {
  rules::check_int_scalar_divisor(tensor.dtype, scalar, "int_div_scalar");
  return int_with_scalar(OpId::int_div_scalar, tensor, scalar);
}
LibTorchTensor LibTorch::int_remainder_scalar(const LibTorchTensor& tensor, double scalar) {
  rules::check_int_scalar_divisor(tensor.dtype, scalar, "int_remainder_scalar");
  return int_with_scalar(OpId::int_remainder_scalar, tensor, scalar);
}
LibTorchTensor LibTorch::bool_not(const LibTorchTensor& tensor) {
  rules::check_bool_dtype(tensor.dtype, "bool_not");
  return libtorch::run(Call{op_code(OpId::bool_not), {&tensor}, {}, {}}, tensor.shape, DType::Bool);
}
LibTorchTensor LibTorch::bool_and(const LibTorchTensor& lhs, const LibTorchTensor& rhs) { return bool_binary(OpId::bool_and, lhs, rhs); }
LibTorchTensor LibTorch::bool_or(const LibTorchTensor& lhs, const LibTorchTensor& rhs) { return bool_binary(OpId::bool_or, lhs, rhs); }
LibTorchTensor LibTorch::bool_xor(const LibTorchTensor& lhs, const LibTorchTensor& rhs) { return bool_binary(OpId::bool_xor, lhs, rhs); }

#define CROSSGRAD_LIBTORCH_INT_COMPARE(name)                                                     \
  LibTorchTensor LibTorch::name(const LibTorchTensor& lhs, const LibTorchTensor& rhs) {         \
    return int_compare(OpId::name, lhs, rhs);                                                  \
  }                                                                                            \
  LibTorchTensor LibTorch::name##_elem(const LibTorchTensor& tensor, double scalar) {           \
    return int_compare_scalar(OpId::name##_elem, tensor, scalar);                              \
  }
CROSSGRAD_LIBTORCH_INT_COMPARE(int_equal)
CROSSGRAD_LIBTORCH_INT_COMPARE(int_not_equal)
CROSSGRAD_LIBTORCH_INT_COMPARE(int_greater)
CROSSGRAD_LIBTORCH_INT_COMPARE(int_greater_equal)
CROSSGRAD_LIBTORCH_INT_COMPARE(int_lower)
CROSSGRAD_LIBTORCH_INT_COMPARE(int_lower_equal)
#undef CROSSGRAD_LIBTORCH_INT_COMPARE

LibTorchTensor LibTorch::bool_equal(const LibTorchTensor& lhs, const LibTorchTensor& rhs) { return bool_binary(OpId::bool_equal, lhs, rhs); }
LibTorchTensor LibTorch::bool_not_equal(const LibTorchTensor& lhs, const LibTorchTensor& rhs) {
  return bool_binary(OpId::bool_not_equal, lhs, rhs);
}

#define CROSSGRAD_LIBTORCH_BITWISE(name)                                                        \
  LibTorchTensor LibTorch::name(const LibTorchTensor& lhs, const LibTorchTensor& rhs) {         \
    return int_binary(OpId::name, lhs, rhs, false);                                            \
  }                                                                                            \
  LibTorchTensor LibTorch::name##_scalar(const LibTorchTensor& tensor, double scalar) {         \
    return int_with_scalar(OpId::name##_scalar, tensor, scalar);                               \
  }
CROSSGRAD_LIBTORCH_BITWISE(bitwise_and)
CROSSGRAD_LIBTORCH_BITWISE(bitwise_or)
CROSSGRAD_LIBTORCH_BITWISE(bitwise_xor)
CROSSGRAD_LIBTORCH_BITWISE(bitwise_left_shift)
CROSSGRAD_LIBTORCH_BITWISE(bitwise_right_shift)
#undef CROSSGRAD_LIBTORCH_BITWISE
LibTorchTensor LibTorch::bitwise_not(const LibTorchTensor& tensor) { return int_unary(OpId::bitwise_not, tensor); }

LibTorchTensor LibTorch::int_cast(const LibTorchTensor& tensor, DType dtype) {
  rules::check_int_target(tensor.dtype, dtype, "int_cast");
  return libtorch::run(Call{op_code(OpId::int_cast), {&tensor}, {}, {}, libtorch::dtype_code(dtype)}, tensor.shape, dtype);
}
LibTorchTensor LibTorch::bool_into_int(const LibTorchTensor& tensor, DType dtype) {
  rules::check_int_target(tensor.dtype, dtype, "bool_into_int");
  return libtorch::run(Call{op_code(OpId::bool_into_int), {&tensor}, {}, {}, libtorch::dtype_code(dtype)}, tensor.shape, dtype);
}

// The clamp bounds saturated into the dtype here (int_bound), passed as int arguments; a missing
// end is the dtype's own.
namespace {
std::pair<std::int64_t, std::int64_t> bounds_in(DType dtype, double min, double max) {
  if (dtype == DType::I64) return {int_bound<std::int64_t>(min), int_bound<std::int64_t>(max)};
  if (dtype == DType::I32) return {int_bound<std::int32_t>(min), int_bound<std::int32_t>(max)};
  if (dtype == DType::I8) return {int_bound<std::int8_t>(min), int_bound<std::int8_t>(max)};
  return {int_bound<std::uint8_t>(min), int_bound<std::uint8_t>(max)};
}
LibTorchTensor int_clamp_call(OpId op, const LibTorchTensor& tensor, double min, double max) {
  const auto [lo, hi] = bounds_in(tensor.dtype, min, max);
  return libtorch::run(Call{op_code(op), {&tensor}, {}, {lo, hi}}, tensor.shape, tensor.dtype);
}
}  // namespace
LibTorchTensor LibTorch::int_clamp(const LibTorchTensor& tensor, double min, double max) {
  rules::check_int_clamp(tensor.dtype, min, max);
  return int_clamp_call(OpId::int_clamp, tensor, min, max);
}
LibTorchTensor LibTorch::int_clamp_min(const LibTorchTensor& tensor, double min) {
  rules::check_int_dtype(tensor.dtype, "int_clamp_min");
  return int_clamp_call(OpId::int_clamp_min, tensor, min, std::numeric_limits<double>::infinity());
}
LibTorchTensor LibTorch::int_clamp_max(const LibTorchTensor& tensor, double max) {
  rules::check_int_dtype(tensor.dtype, "int_clamp_max");
  return int_clamp_call(OpId::int_clamp_max, tensor, -std::numeric_limits<double>::infinity(), max);
}
LibTorchTensor LibTorch::int_square(const LibTorchTensor& tensor) { return int_unary(OpId::int_square, tensor); }
LibTorchTensor LibTorch::int_powi(const LibTorchTensor& lhs, const LibTorchTensor& rhs) {
  return int_binary(OpId::int_powi, lhs, rhs, false);
}
LibTorchTensor LibTorch::int_powi_scalar(const LibTorchTensor& tensor, double scalar) {
  return int_with_scalar(OpId::int_powi_scalar, tensor, scalar);
}

}  // namespace crossgrad::backends
