#pragma once
// Per-tensor symmetric int8 quantization, shared by every backend's Quantized primitive:
// q = round(x / scale) (half away from zero) clamped to [-127, 127]; scale = max|x| / 127 rounded
// to F32 (1 when all values are 0; rounded up when subnormal, so never 0 for a non-zero tensor).
// Panics quantize-non-finite on inf/NaN and quantize-scale-overflow when max|x| > 127 * FLT_MAX
// (the scale would be inf). docs/OPS.md has the whole rule.
#include <cstdint>
#include <span>

namespace crossgrad::backends {

template <class Tensor>
struct QuantizedTensor {
  Tensor values;   // dtype QInt8, one int8 per element
  float scale = 1.0f;
};

// The scheme's one definition: every backend takes its scale from quantization_scale (a device
// backend passes just its max |x|, or its first non-finite value) and rounds as quantize_one does.
float quantization_scale(std::span<const float> values);
float quantization_scale(std::span<const double> values);
std::int8_t quantize_one(double value, float scale);

}  // namespace crossgrad::backends
