// NdArray: the element-wise ops added with the op registry (abs, clamp). Arithmetic in the
// tensor's own dtype, like elementwise.cpp.
#include "common.hpp"

#include <cmath>

namespace crossgrad::backends {

using ndarray_detail::make_tensor;
using ndarray_detail::with_float_type;

NdArrayTensor NdArray::float_abs(const NdArrayTensor& tensor) {
  rules::check_float_dtype(tensor.dtype, "float_abs");
  NdArrayTensor out = make_tensor(tensor.shape, tensor.dtype);
  with_float_type(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    T* o = out.mutable_data<T>();
    const std::size_t n = tensor.num_elements();
    // fabs clears the sign bit: -0 -> +0, NaN stays NaN.
    for (std::size_t i = 0; i < n; ++i) o[i] = std::fabs(x[i]);
  });
  return out;
}

NdArrayTensor NdArray::float_clamp(const NdArrayTensor& tensor, double min, double max) {
  rules::check_clamp(tensor.dtype, min, max);
  NdArrayTensor out = make_tensor(tensor.shape, tensor.dtype);
  with_float_type(tensor.dtype, [&]<class T>(T) {
    const T lo = static_cast<T>(min);
    const T hi = static_cast<T>(max);
    const T* x = tensor.data<T>();
    T* o = out.mutable_data<T>();
    const std::size_t n = tensor.num_elements();
    // Both comparisons are false for NaN, so NaN passes through unchanged.
    for (std::size_t i = 0; i < n; ++i) o[i] = x[i] < lo ? lo : (x[i] > hi ? hi : x[i]);
  });
  return out;
}

}  // namespace crossgrad::backends
