// NdArray: comparison to a bool tensor and back (relu's backward is built from these).
#include "common.hpp"

#include <cstdint>

namespace crossgrad::backends {

using ndarray_detail::make_tensor;
using ndarray_detail::with_float_type;

NdArrayTensor NdArray::float_greater_scalar(const NdArrayTensor& tensor, double scalar) {
  rules::check_float_dtype(tensor.dtype, "float_greater_scalar");
  NdArrayTensor out = make_tensor(tensor.shape, DType::Bool);
  with_float_type(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    // Bool storage is one byte holding exactly 0 or 1 (TensorData rejects anything else).
    std::uint8_t* o = out.mutable_data<std::uint8_t>();
    const T s = static_cast<T>(scalar);
    const std::size_t n = tensor.num_elements();
    // The comparison is in T, like the other scalar ops; NaN compares false.
    for (std::size_t i = 0; i < n; ++i) o[i] = x[i] > s ? 1 : 0;
  });
  return out;
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

}  // namespace crossgrad::backends
