// NdArray: the int ops (add, sub, mul, div, remainder with NumPy broadcasting, neg, abs, sign, the
// comparisons, the bitwise ops and shifts, the _scalar and _elem forms) and the bool ops (not, and,
// or, xor, equal, not_equal), one element at a time in row-major order.
// The element rules are core/int_arithmetic.hpp's (docs/OPS.md "Integer arithmetic"): wrapping,
// truncating division, floor remainder, PyTorch's shifts; int-division-by-zero before any
// element is divided.
#include "common.hpp"

#include <crossgrad/core/int_arithmetic.hpp>

#include <cstdint>
#include <limits>
#include <utility>

namespace crossgrad::backends {
namespace {

using host::with_int_type;
using ndarray_detail::make_tensor;
using ndarray_detail::StridedWalk;

// Divides says whether a zero divisor must be refused first (int-division-by-zero): every
// divisor element reaches a non-empty result (broadcasting only repeats elements), so one scan of
// the divisor decides it.
template <bool Divides, class Op>
NdArrayTensor int_binary(const NdArrayTensor& lhs, const NdArrayTensor& rhs, std::string_view name, Op op) {
  const Shape out_shape = rules::check_int_binary(lhs.shape, lhs.dtype, rhs.shape, rhs.dtype, name);
  NdArrayTensor out = make_tensor(out_shape, lhs.dtype);
  with_int_type(lhs.dtype, [&]<class I>(I) {
    const I* a = lhs.data<I>();
    const I* b = rhs.data<I>();
    if constexpr (Divides) {
      if (out_shape.num_elements() != 0) {
        for (std::size_t i = 0, n = rhs.num_elements(); i < n; ++i) {
          if (b[i] == I{0}) rules::int_division_by_zero(name);
        }
      }
    }
    I* o = out.mutable_data<I>();
    StridedWalk<2> walk(out_shape);
    walk.set_broadcast(0, lhs.shape);
    walk.set_broadcast(1, rhs.shape);
    walk.for_each([&](std::size_t i, const auto& at) { o[i] = op(a[at[0]], b[at[1]]); });
  });
  return out;
}

template <class Op>
NdArrayTensor int_unary(const NdArrayTensor& tensor, std::string_view name, Op op) {
  rules::check_int_dtype(tensor.dtype, name);
  NdArrayTensor out = make_tensor(tensor.shape, tensor.dtype);
  with_int_type(tensor.dtype, [&]<class I>(I) {
    const I* x = tensor.data<I>();
    I* o = out.mutable_data<I>();
    for (std::size_t i = 0, n = tensor.num_elements(); i < n; ++i) o[i] = op(x[i]);
  });
  return out;
}

// op(x, s) with s the scalar as an element of the tensor's dtype.
template <class Op>
NdArrayTensor int_with_scalar(const NdArrayTensor& tensor, double scalar, std::string_view name, Op op) {
  rules::check_int_dtype(tensor.dtype, name);
  NdArrayTensor out = make_tensor(tensor.shape, tensor.dtype);
  with_int_type(tensor.dtype, [&]<class I>(I) {
    const I s = int_scalar<I>(scalar);
    const I* x = tensor.data<I>();
    I* o = out.mutable_data<I>();
    for (std::size_t i = 0, n = tensor.num_elements(); i < n; ++i) o[i] = op(x[i], s);
  });
  return out;
}

// pred(a, b) of two broadcast int operands, to a Bool tensor.
template <class Pred>
NdArrayTensor int_compare(const NdArrayTensor& lhs, const NdArrayTensor& rhs, std::string_view name, Pred pred) {
  const Shape out_shape = rules::check_int_binary(lhs.shape, lhs.dtype, rhs.shape, rhs.dtype, name);
  NdArrayTensor out = make_tensor(out_shape, DType::Bool);
  with_int_type(lhs.dtype, [&]<class I>(I) {
    const I* a = lhs.data<I>();
    const I* b = rhs.data<I>();
    auto* o = out.mutable_data<std::uint8_t>();
    StridedWalk<2> walk(out_shape);
    walk.set_broadcast(0, lhs.shape);
    walk.set_broadcast(1, rhs.shape);
    walk.for_each([&](std::size_t i, const auto& at) { o[i] = pred(a[at[0]], b[at[1]]) ? 1 : 0; });
  });
  return out;
}

// pred(x, s) with s the scalar as an element of the tensor's dtype, to a Bool tensor.
template <class Pred>
NdArrayTensor int_compare_scalar(const NdArrayTensor& tensor, double scalar, std::string_view name, Pred pred) {
  rules::check_int_dtype(tensor.dtype, name);
  NdArrayTensor out = make_tensor(tensor.shape, DType::Bool);
  with_int_type(tensor.dtype, [&]<class I>(I) {
    const I s = int_scalar<I>(scalar);
    const I* x = tensor.data<I>();
    auto* o = out.mutable_data<std::uint8_t>();
    for (std::size_t i = 0, n = tensor.num_elements(); i < n; ++i) o[i] = pred(x[i], s) ? 1 : 0;
  });
  return out;
}

// Bool storage is one byte, 0 or 1.
template <class Op>
NdArrayTensor bool_binary(const NdArrayTensor& lhs, const NdArrayTensor& rhs, std::string_view name, Op op) {
  const Shape out_shape = rules::check_bool_binary(lhs.shape, lhs.dtype, rhs.shape, rhs.dtype, name);
  NdArrayTensor out = make_tensor(out_shape, DType::Bool);
  const auto* a = lhs.data<std::uint8_t>();
  const auto* b = rhs.data<std::uint8_t>();
  auto* o = out.mutable_data<std::uint8_t>();
  StridedWalk<2> walk(out_shape);
  walk.set_broadcast(0, lhs.shape);
  walk.set_broadcast(1, rhs.shape);
  walk.for_each([&](std::size_t i, const auto& at) { o[i] = op(a[at[0]] != 0, b[at[1]] != 0) ? 1 : 0; });
  return out;
}

}  // namespace

NdArrayTensor NdArray::int_add(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return int_binary<false>(lhs, rhs, "int_add", []<class I>(I a, I b) { return wrapping_add<I>(a, b); });
}
NdArrayTensor NdArray::int_sub(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return int_binary<false>(lhs, rhs, "int_sub", []<class I>(I a, I b) { return wrapping_sub<I>(a, b); });
}
NdArrayTensor NdArray::int_mul(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return int_binary<false>(lhs, rhs, "int_mul", []<class I>(I a, I b) { return wrapping_mul<I>(a, b); });
}
NdArrayTensor NdArray::int_div(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return int_binary<true>(lhs, rhs, "int_div", []<class I>(I a, I b) { return trunc_div<I>(a, b); });
}
NdArrayTensor NdArray::int_remainder(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return int_binary<true>(lhs, rhs, "int_remainder", []<class I>(I a, I b) { return floor_mod<I>(a, b); });
}

NdArrayTensor NdArray::int_neg(const NdArrayTensor& tensor) {
  return int_unary(tensor, "int_neg", []<class I>(I x) { return wrapping_neg<I>(x); });
}
NdArrayTensor NdArray::int_abs(const NdArrayTensor& tensor) {
  return int_unary(tensor, "int_abs", []<class I>(I x) { return wrapping_abs<I>(x); });
}
NdArrayTensor NdArray::int_sign(const NdArrayTensor& tensor) {
  return int_unary(tensor, "int_sign", []<class I>(I x) { return signum<I>(x); });
}

NdArrayTensor NdArray::int_add_scalar(const NdArrayTensor& tensor, double scalar) {
  return int_with_scalar(tensor, scalar, "int_add_scalar", []<class I>(I x, I s) { return wrapping_add<I>(x, s); });
}
NdArrayTensor NdArray::int_sub_scalar(const NdArrayTensor& tensor, double scalar) {
  return int_with_scalar(tensor, scalar, "int_sub_scalar", []<class I>(I x, I s) { return wrapping_sub<I>(x, s); });
}
NdArrayTensor NdArray::int_mul_scalar(const NdArrayTensor& tensor, double scalar) {
  return int_with_scalar(tensor, scalar, "int_mul_scalar", []<class I>(I x, I s) { return wrapping_mul<I>(x, s); });
}
NdArrayTensor NdArray::int_div_scalar(const NdArrayTensor& tensor, double scalar) {
  rules::check_int_scalar_divisor(tensor.dtype, scalar, "int_div_scalar");
  return int_with_scalar(tensor, scalar, "int_div_scalar", []<class I>(I x, I s) { return trunc_div<I>(x, s); });
}
NdArrayTensor NdArray::int_remainder_scalar(const NdArrayTensor& tensor, double scalar) {
  rules::check_int_scalar_divisor(tensor.dtype, scalar, "int_remainder_scalar");
  return int_with_scalar(tensor, scalar, "int_remainder_scalar", []<class I>(I x, I s) { return floor_mod<I>(x, s); });
}

NdArrayTensor NdArray::bool_not(const NdArrayTensor& tensor) {
  rules::check_bool_dtype(tensor.dtype, "bool_not");
  NdArrayTensor out = make_tensor(tensor.shape, DType::Bool);
  const auto* x = tensor.data<std::uint8_t>();
  auto* o = out.mutable_data<std::uint8_t>();
  for (std::size_t i = 0, n = tensor.num_elements(); i < n; ++i) o[i] = x[i] == 0 ? 1 : 0;
  return out;
}
NdArrayTensor NdArray::bool_and(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return bool_binary(lhs, rhs, "bool_and", [](bool a, bool b) { return a && b; });
}
NdArrayTensor NdArray::bool_or(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return bool_binary(lhs, rhs, "bool_or", [](bool a, bool b) { return a || b; });
}
NdArrayTensor NdArray::bool_xor(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return bool_binary(lhs, rhs, "bool_xor", [](bool a, bool b) { return a != b; });
}

#define CROSSGRAD_NDARRAY_INT_COMPARE(name, expr)                                        \
  NdArrayTensor NdArray::name(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {       \
    return int_compare(lhs, rhs, #name, []<class I>(I a, I b) { return expr; });         \
  }                                                                                       \
  NdArrayTensor NdArray::name##_elem(const NdArrayTensor& tensor, double scalar) {         \
    return int_compare_scalar(tensor, scalar, #name "_elem", []<class I>(I a, I b) { return expr; }); \
  }
CROSSGRAD_NDARRAY_INT_COMPARE(int_equal, a == b)
CROSSGRAD_NDARRAY_INT_COMPARE(int_not_equal, a != b)
CROSSGRAD_NDARRAY_INT_COMPARE(int_greater, a > b)
CROSSGRAD_NDARRAY_INT_COMPARE(int_greater_equal, a >= b)
CROSSGRAD_NDARRAY_INT_COMPARE(int_lower, a < b)
CROSSGRAD_NDARRAY_INT_COMPARE(int_lower_equal, a <= b)
#undef CROSSGRAD_NDARRAY_INT_COMPARE

NdArrayTensor NdArray::bool_equal(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return bool_binary(lhs, rhs, "bool_equal", [](bool a, bool b) { return a == b; });
}
NdArrayTensor NdArray::bool_not_equal(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return bool_binary(lhs, rhs, "bool_not_equal", [](bool a, bool b) { return a != b; });
}

NdArrayTensor NdArray::bitwise_and(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return int_binary<false>(lhs, rhs, "bitwise_and", []<class I>(I a, I b) { return static_cast<I>(a & b); });
}
NdArrayTensor NdArray::bitwise_or(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return int_binary<false>(lhs, rhs, "bitwise_or", []<class I>(I a, I b) { return static_cast<I>(a | b); });
}
NdArrayTensor NdArray::bitwise_xor(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return int_binary<false>(lhs, rhs, "bitwise_xor", []<class I>(I a, I b) { return static_cast<I>(a ^ b); });
}
NdArrayTensor NdArray::bitwise_not(const NdArrayTensor& tensor) {
  return int_unary(tensor, "bitwise_not", []<class I>(I x) { return static_cast<I>(~x); });
}
NdArrayTensor NdArray::bitwise_left_shift(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return int_binary<false>(lhs, rhs, "bitwise_left_shift", []<class I>(I a, I b) { return shift_left<I>(a, b); });
}
NdArrayTensor NdArray::bitwise_right_shift(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return int_binary<false>(lhs, rhs, "bitwise_right_shift", []<class I>(I a, I b) { return shift_right<I>(a, b); });
}
NdArrayTensor NdArray::bitwise_and_scalar(const NdArrayTensor& tensor, double scalar) {
  return int_with_scalar(tensor, scalar, "bitwise_and_scalar", []<class I>(I x, I s) { return static_cast<I>(x & s); });
}
NdArrayTensor NdArray::bitwise_or_scalar(const NdArrayTensor& tensor, double scalar) {
  return int_with_scalar(tensor, scalar, "bitwise_or_scalar", []<class I>(I x, I s) { return static_cast<I>(x | s); });
}
NdArrayTensor NdArray::bitwise_xor_scalar(const NdArrayTensor& tensor, double scalar) {
  return int_with_scalar(tensor, scalar, "bitwise_xor_scalar", []<class I>(I x, I s) { return static_cast<I>(x ^ s); });
}
NdArrayTensor NdArray::bitwise_left_shift_scalar(const NdArrayTensor& tensor, double scalar) {
  return int_with_scalar(tensor, scalar, "bitwise_left_shift_scalar", []<class I>(I x, I s) { return shift_left<I>(x, s); });
}
NdArrayTensor NdArray::bitwise_right_shift_scalar(const NdArrayTensor& tensor, double scalar) {
  return int_with_scalar(tensor, scalar, "bitwise_right_shift_scalar", []<class I>(I x, I s) { return shift_right<I>(x, s); });
}

// int_cast: modulo 2^width into the target (C++20's conversion); bool_into_int: 0 or 1.
NdArrayTensor NdArray::int_cast(const NdArrayTensor& tensor, DType dtype) {
  rules::check_int_target(tensor.dtype, dtype, "int_cast");
  NdArrayTensor out = make_tensor(tensor.shape, dtype);
  with_int_type(tensor.dtype, [&]<class I>(I) {
    with_int_type(dtype, [&]<class J>(J) {
      const I* x = tensor.data<I>();
      J* o = out.mutable_data<J>();
      for (std::size_t i = 0, n = tensor.num_elements(); i < n; ++i) o[i] = static_cast<J>(x[i]);
    });
  });
  return out;
}
NdArrayTensor NdArray::bool_into_int(const NdArrayTensor& tensor, DType dtype) {
  rules::check_int_target(tensor.dtype, dtype, "bool_into_int");
  NdArrayTensor out = make_tensor(tensor.shape, dtype);
  with_int_type(dtype, [&]<class J>(J) {
    const auto* x = tensor.data<std::uint8_t>();
    J* o = out.mutable_data<J>();
    for (std::size_t i = 0, n = tensor.num_elements(); i < n; ++i) o[i] = x[i] != 0 ? J{1} : J{0};
  });
  return out;
}

// Clamps with the bounds saturated into the dtype (core/int_arithmetic.hpp int_bound); clamp_min
// and clamp_max are the clamp with the dtype's other end. bounds(I{}) gives {lo, hi} in I.
namespace {
template <class Bounds>
NdArrayTensor clamped(const NdArrayTensor& tensor, Bounds bounds) {
  NdArrayTensor out = make_tensor(tensor.shape, tensor.dtype);
  with_int_type(tensor.dtype, [&]<class I>(I) {
    const std::pair<I, I> range = bounds(I{});  // not a structured binding: clang 14 cannot capture one
    const I lo = range.first, hi = range.second;
    const I* x = tensor.data<I>();
    I* o = out.mutable_data<I>();
    for (std::size_t i = 0, n = tensor.num_elements(); i < n; ++i) o[i] = x[i] < lo ? lo : (x[i] > hi ? hi : x[i]);
  });
  return out;
}
}  // namespace
NdArrayTensor NdArray::int_clamp(const NdArrayTensor& tensor, double min, double max) {
  rules::check_int_clamp(tensor.dtype, min, max);
  return clamped(tensor, [&]<class I>(I) { return std::pair<I, I>{int_bound<I>(min), int_bound<I>(max)}; });
}
NdArrayTensor NdArray::int_clamp_min(const NdArrayTensor& tensor, double min) {
  rules::check_int_dtype(tensor.dtype, "int_clamp_min");
  return clamped(tensor, [&]<class I>(I) { return std::pair<I, I>{int_bound<I>(min), std::numeric_limits<I>::max()}; });
}
NdArrayTensor NdArray::int_clamp_max(const NdArrayTensor& tensor, double max) {
  rules::check_int_dtype(tensor.dtype, "int_clamp_max");
  return clamped(tensor, [&]<class I>(I) { return std::pair<I, I>{std::numeric_limits<I>::lowest(), int_bound<I>(max)}; });
}
NdArrayTensor NdArray::int_square(const NdArrayTensor& tensor) {
  return int_unary(tensor, "int_square", []<class I>(I x) { return wrapping_mul<I>(x, x); });
}
NdArrayTensor NdArray::int_powi(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return int_binary<false>(lhs, rhs, "int_powi", []<class I>(I a, I b) { return wrapping_pow<I>(a, b); });
}
NdArrayTensor NdArray::int_powi_scalar(const NdArrayTensor& tensor, double scalar) {
  return int_with_scalar(tensor, scalar, "int_powi_scalar", []<class I>(I x, I s) { return wrapping_pow<I>(x, s); });
}

}  // namespace crossgrad::backends
