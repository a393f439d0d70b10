#pragma once
// Per-tensor symmetric int8 quantization, shared by every backend's Quantized primitive:
// q = round(x / scale) clamped to [-127, 127], scale = max|x| / 127 (1 when all values are 0).
#include <cstdint>
#include <span>

namespace crossgrad::backends {

template <class Tensor>
struct QuantizedTensor {
  Tensor values;   // dtype QInt8, one int8 per element
  float scale = 1.0f;
};

// Host reference of the scheme; panics quantize-non-finite. Backends may use it or their own kernel.
float quantization_scale(std::span<const float> values);
float quantization_scale(std::span<const double> values);
std::int8_t quantize_one(double value, float scale);

}  // namespace crossgrad::backends
