// NdArray: per-tensor symmetric int8 quantization, through the shared host reference of the
// scheme (backends/quantized.hpp) so that NdArray is the scheme's oracle by construction.
#include "common.hpp"

#include <cstdint>
#include <span>

namespace crossgrad::backends {

using ndarray_detail::make_tensor;
using ndarray_detail::with_float_type;

NdArray::Quantized NdArray::quantize(const NdArrayTensor& tensor) {
  rules::check_float_dtype(tensor.dtype, "quantize");
  Quantized out{make_tensor(tensor.shape, DType::QInt8), 1.0f};
  with_float_type(tensor.dtype, [&]<class T>(T) {
    const std::size_t n = tensor.num_elements();
    const std::span<const T> values(tensor.data<T>(), n);
    // Panics quantize-non-finite before anything is written.
    out.scale = quantization_scale(values);
    std::int8_t* q = out.values.mutable_data<std::int8_t>();
    for (std::size_t i = 0; i < n; ++i) q[i] = quantize_one(static_cast<double>(values[i]), out.scale);
  });
  return out;
}

NdArrayTensor NdArray::dequantize(const Quantized& tensor) {
  if (tensor.values.dtype != DType::QInt8) {
    panic(PanicId::UnsupportedDtype,
          {{"dtype", std::string(dtype_name(tensor.values.dtype))}, {"what", "dequantize"}});
  }
  NdArrayTensor out = make_tensor(tensor.values.shape, DType::F32);
  const std::int8_t* q = tensor.values.data<std::int8_t>();
  float* o = out.mutable_data<float>();
  const std::size_t n = out.num_elements();
  for (std::size_t i = 0; i < n; ++i) o[i] = static_cast<float>(q[i]) * tensor.scale;
  return out;
}

}  // namespace crossgrad::backends
