// Flex quantize / dequantize: the per-tensor symmetric int8 scheme of backends/quantized.hpp,
// using the shared scale and rounding so every backend stores the same bytes.
#include "common.hpp"
#include "thread_pool.hpp"

#include <cstdint>
#include <span>

namespace crossgrad::backends {

Flex::Quantized Flex::quantize(const FlexTensor& tensor) {
  rules::check_float_dtype(tensor.dtype, "quantize");
  const std::size_t n = tensor.num_elements();
  Quantized out{flex::make_tensor(tensor.shape, DType::QInt8), 1.0f};
  std::int8_t* dst = out.values.mutable_data<std::int8_t>();
  flex::with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* src = tensor.data<T>();
    out.scale = quantization_scale(std::span<const T>(src, n));
    const float scale = out.scale;
    flex::parallel_range(n, flex::kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) dst[i] = quantize_one(static_cast<double>(src[i]), scale);
    });
  });
  return out;
}

FlexTensor Flex::dequantize(const Quantized& tensor) {
  if (tensor.values.dtype != DType::QInt8) {
    panic(PanicId::UnsupportedDtype,
          {{"dtype", std::string(dtype_name(tensor.values.dtype))}, {"what", "dequantize"}});
  }
  FlexTensor out = flex::make_tensor(tensor.values.shape, DType::F32);
  const std::size_t n = out.num_elements();
  const std::int8_t* src = tensor.values.data<std::int8_t>();
  float* dst = out.mutable_data<float>();
  const float scale = tensor.scale;
  flex::parallel_range(n, flex::kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) dst[i] = static_cast<float>(src[i]) * scale;
  });
  return out;
}

}  // namespace crossgrad::backends
