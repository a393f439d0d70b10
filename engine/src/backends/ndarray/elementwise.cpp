// NdArray: element-wise float ops (binary with NumPy broadcasting, unary, with a scalar).
// Arithmetic is done in the tensor's own dtype: float for F32, double for F64; a double scalar is
// converted to that dtype first (docs/OPS.md "Scalar arguments").
// Accuracy (docs/OPS.md "Accuracy in ulps", the oracle's one table in oracle/src/ulp_bounds.cpp,
// measured against MPFR by properties/ulp_accuracy_props.cpp): glibc's functions, exp, log and
// log1p within 1 ulp, tanh 2, pow 1 (the table's F32 exp 2 and powf 4 are CUDA's); sqrt, neg,
// relu and the scalar ops correctly rounded (0); sigmoid within 4 ulp in F32, 3 in F64.
#include "common.hpp"

#include <cmath>

namespace crossgrad::backends {
namespace {

using ndarray_detail::make_tensor;
using ndarray_detail::StridedWalk;
using ndarray_detail::binary;
using ndarray_detail::unary;
using ndarray_detail::with_float_type;

}  // namespace

NdArrayTensor NdArray::float_add(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return binary(lhs, rhs, "float_add", [](auto a, auto b) { return a + b; });
}
NdArrayTensor NdArray::float_sub(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return binary(lhs, rhs, "float_sub", [](auto a, auto b) { return a - b; });
}
NdArrayTensor NdArray::float_mul(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  return binary(lhs, rhs, "float_mul", [](auto a, auto b) { return a * b; });
}
NdArrayTensor NdArray::float_div(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  // IEEE division: x/0 is +-inf and 0/0 is NaN, as every backend must reproduce.
  return binary(lhs, rhs, "float_div", [](auto a, auto b) { return a / b; });
}

NdArrayTensor NdArray::float_neg(const NdArrayTensor& tensor) {
  return unary(tensor, "float_neg", [](auto x) { return -x; });
}
NdArrayTensor NdArray::float_exp(const NdArrayTensor& tensor) {
  return unary(tensor, "float_exp", [](auto x) { return std::exp(x); });
}
NdArrayTensor NdArray::float_log(const NdArrayTensor& tensor) {
  return unary(tensor, "float_log", [](auto x) { return std::log(x); });
}
NdArrayTensor NdArray::float_sqrt(const NdArrayTensor& tensor) {
  return unary(tensor, "float_sqrt", [](auto x) { return std::sqrt(x); });
}
NdArrayTensor NdArray::float_log1p(const NdArrayTensor& tensor) {
  return unary(tensor, "float_log1p", [](auto x) { return std::log1p(x); });
}

NdArrayTensor NdArray::float_tanh(const NdArrayTensor& tensor) {
  return unary(tensor, "float_tanh", [](auto x) { return std::tanh(x); });
}
NdArrayTensor NdArray::relu(const NdArrayTensor& tensor) {
  // NaN propagates (x != x), and -0.0 becomes +0.0 like every other non-positive input.
  return unary(tensor, "relu", [](auto x) {
    using T = decltype(x);
    return x > T(0) ? x : (x != x ? x : T(0));
  });
}
NdArrayTensor NdArray::sigmoid(const NdArrayTensor& tensor) {
  // Below 0 as e / (1 + e) with e = exp(x): the textbook 1 / (1 + exp(-x)) gives +0 as soon as
  // exp(-x) overflows (x < -ln(max)), where the true value is still a subnormal (docs/OPS.md).
  return unary(tensor, "sigmoid", [](auto x) {
    using T = decltype(x);
    if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
    const T e = std::exp(x);
    return e / (T(1) + e);
  });
}

NdArrayTensor NdArray::float_powf_scalar(const NdArrayTensor& tensor, double exponent) {
  return unary(tensor, "float_powf_scalar", [exponent](auto x) {
    using T = decltype(x);
    return std::pow(x, static_cast<T>(exponent));
  });
}
NdArrayTensor NdArray::float_add_scalar(const NdArrayTensor& tensor, double scalar) {
  return unary(tensor, "float_add_scalar", [scalar](auto x) {
    using T = decltype(x);
    return x + static_cast<T>(scalar);
  });
}
NdArrayTensor NdArray::float_mul_scalar(const NdArrayTensor& tensor, double scalar) {
  return unary(tensor, "float_mul_scalar", [scalar](auto x) {
    using T = decltype(x);
    return x * static_cast<T>(scalar);
  });
}

}  // namespace crossgrad::backends
