// NdArray: comparisons to a bool tensor, bool/int tensors back to float and floats into ints (relu's backward is
// built from float_greater_scalar and bool_into_float).
#include "common.hpp"
#include <crossgrad/core/int_conversion.hpp>

#include <cmath>
#include <cstdint>
#include <string_view>

namespace crossgrad::backends {

using ndarray_detail::make_tensor;
using ndarray_detail::StridedWalk;
using ndarray_detail::with_float_type;

namespace {

// Two float tensors with NumPy broadcasting to a Bool tensor; `op` compares in T (so any
// comparison with NaN is false, except that != is true: float_not_equal).
template <class Op>
NdArrayTensor compare(const NdArrayTensor& lhs, const NdArrayTensor& rhs, std::string_view name,
                      Op op) {
  // As in the arithmetic binary ops: a non-float operand is reported before a dtype mismatch.
  rules::check_float_dtype(lhs.dtype, name);
  rules::check_float_dtype(rhs.dtype, name);
  rules::check_same_dtype(lhs.dtype, rhs.dtype, name);
  const Shape out_shape = rules::broadcast_shapes(lhs.shape, rhs.shape, name);
  NdArrayTensor out = make_tensor(out_shape, DType::Bool);
  with_float_type(lhs.dtype, [&]<class T>(T) {
    const T* a = lhs.data<T>();
    const T* b = rhs.data<T>();
    std::uint8_t* o = out.mutable_data<std::uint8_t>();
    StridedWalk<2> walk(out_shape);
    walk.set_broadcast(0, lhs.shape);
    walk.set_broadcast(1, rhs.shape);
    walk.for_each([&](std::size_t i, const auto& at) { o[i] = op(a[at[0]], b[at[1]]) ? 1 : 0; });
  });
  return out;
}

using host::with_int_type;

}  // namespace

NdArrayTensor NdArray::float_greater(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return compare(lhs, rhs, "float_greater", [](auto a, auto b) { return a > b; });
}
NdArrayTensor NdArray::float_lower(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return compare(lhs, rhs, "float_lower", [](auto a, auto b) { return a < b; });
}
NdArrayTensor NdArray::float_equal(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  // IEEE equality: NaN == NaN is false, -0 == +0 is true.
  return compare(lhs, rhs, "float_equal", [](auto a, auto b) { return a == b; });
}

NdArrayTensor NdArray::float_greater_equal(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return compare(lhs, rhs, "float_greater_equal", [](auto a, auto b) { return a >= b; });
}
NdArrayTensor NdArray::float_lower_equal(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return compare(lhs, rhs, "float_lower_equal", [](auto a, auto b) { return a <= b; });
}
NdArrayTensor NdArray::float_not_equal(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  // The negation of IEEE equality: true wherever an operand is NaN, -0 != +0 is false.
  return compare(lhs, rhs, "float_not_equal", [](auto a, auto b) { return a != b; });
}

namespace {

// A float tensor against one scalar to a Bool tensor. The scalar is converted to T first and the
// comparison is in T, like the other scalar ops (docs/OPS.md "Scalar arguments"). Bool storage is
// one byte holding exactly 0 or 1 (TensorData rejects anything else).
template <class Op>
NdArrayTensor compare_scalar(const NdArrayTensor& tensor, double scalar, std::string_view name, Op op) {
  rules::check_float_dtype(tensor.dtype, name);
  NdArrayTensor out = make_tensor(tensor.shape, DType::Bool);
  with_float_type(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    std::uint8_t* o = out.mutable_data<std::uint8_t>();
    const T s = static_cast<T>(scalar);
    const std::size_t n = tensor.num_elements();
    for (std::size_t i = 0; i < n; ++i) o[i] = op(x[i], s) ? 1 : 0;
  });
  return out;
}

// A predicate of each element of a float tensor to a Bool tensor.
template <class Op>
NdArrayTensor classify(const NdArrayTensor& tensor, std::string_view name, Op op) {
  rules::check_float_dtype(tensor.dtype, name);
  NdArrayTensor out = make_tensor(tensor.shape, DType::Bool);
  with_float_type(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    std::uint8_t* o = out.mutable_data<std::uint8_t>();
    const std::size_t n = tensor.num_elements();
    for (std::size_t i = 0; i < n; ++i) o[i] = op(x[i]) ? 1 : 0;
  });
  return out;
}

}  // namespace

// NaN compares false, except for not_equal (true); -0 equals +0.
NdArrayTensor NdArray::float_greater_scalar(const NdArrayTensor& tensor, double scalar) {
  return compare_scalar(tensor, scalar, "float_greater_scalar", [](auto x, auto s) { return x > s; });
}
NdArrayTensor NdArray::float_greater_equal_elem(const NdArrayTensor& tensor, double scalar) {
  return compare_scalar(tensor, scalar, "float_greater_equal_elem", [](auto x, auto s) { return x >= s; });
}
NdArrayTensor NdArray::float_lower_elem(const NdArrayTensor& tensor, double scalar) {
  return compare_scalar(tensor, scalar, "float_lower_elem", [](auto x, auto s) { return x < s; });
}
NdArrayTensor NdArray::float_lower_equal_elem(const NdArrayTensor& tensor, double scalar) {
  return compare_scalar(tensor, scalar, "float_lower_equal_elem", [](auto x, auto s) { return x <= s; });
}
NdArrayTensor NdArray::float_equal_elem(const NdArrayTensor& tensor, double scalar) {
  return compare_scalar(tensor, scalar, "float_equal_elem", [](auto x, auto s) { return x == s; });
}
NdArrayTensor NdArray::float_not_equal_elem(const NdArrayTensor& tensor, double scalar) {
  return compare_scalar(tensor, scalar, "float_not_equal_elem", [](auto x, auto s) { return x != s; });
}

NdArrayTensor NdArray::float_is_nan(const NdArrayTensor& tensor) {
  return classify(tensor, "float_is_nan", [](auto x) { return x != x; });
}
NdArrayTensor NdArray::float_is_inf(const NdArrayTensor& tensor) {
  return classify(tensor, "float_is_inf", [](auto x) { return std::isinf(x); });
}

NdArrayTensor NdArray::bool_into_float(const NdArrayTensor& tensor, DType dtype) {
  if (tensor.dtype != DType::Bool) {
    panic(PanicId::UnsupportedDtype,
          {{"dtype", std::string(dtype_name(tensor.dtype))}, {"what", "bool_into_float"}});
  }
  rules::check_float_dtype(dtype, "bool_into_float");
  NdArrayTensor out = make_tensor(tensor.shape, dtype);
  with_float_type(dtype, [&]<class T>(T) {
    const std::uint8_t* x = tensor.data<std::uint8_t>();
    T* o = out.mutable_data<T>();
    const std::size_t n = tensor.num_elements();
    for (std::size_t i = 0; i < n; ++i) o[i] = x[i] != 0 ? T(1) : T(0);
  });
  return out;
}

NdArrayTensor NdArray::int_into_float(const NdArrayTensor& tensor, DType dtype) {
  if (!is_int(tensor.dtype)) {
    panic(PanicId::UnsupportedDtype,
          {{"dtype", std::string(dtype_name(tensor.dtype))}, {"what", "int_into_float"}});
  }
  rules::check_float_dtype(dtype, "int_into_float");
  NdArrayTensor out = make_tensor(tensor.shape, dtype);
  with_int_type(tensor.dtype, [&]<class I>(I) {
    with_float_type(dtype, [&]<class T>(T) {
      const I* x = tensor.data<I>();
      T* o = out.mutable_data<T>();
      const std::size_t n = tensor.num_elements();
      // Rounds to nearest for large I64 values (exact up to 2^24 in F32, 2^53 in F64).
      for (std::size_t i = 0; i < n; ++i) o[i] = static_cast<T>(x[i]);
    });
  });
  return out;
}

// Rust's `as` per element (core/int_conversion.hpp).
NdArrayTensor NdArray::float_into_int(const NdArrayTensor& tensor, DType dtype) {
  rules::check_into_int(tensor.dtype, dtype);
  NdArrayTensor out = make_tensor(tensor.shape, dtype);
  with_float_type(tensor.dtype, [&]<class T>(T) {
    with_int_type(dtype, [&]<class I>(I) {
      const T* x = tensor.data<T>();
      I* o = out.mutable_data<I>();
      const std::size_t n = tensor.num_elements();
      for (std::size_t i = 0; i < n; ++i) o[i] = saturating_int<I>(x[i]);
    });
  });
  return out;
}

}  // namespace crossgrad::backends
