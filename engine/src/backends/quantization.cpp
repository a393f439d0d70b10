#include <crossgrad/backends/quantized.hpp>
#include <crossgrad/core/panic.hpp>

#include <cmath>
#include <sstream>

namespace crossgrad::backends {
namespace {

template <class T>
float scale_of(std::span<const T> values) {
  double max_abs = 0.0;
  for (T v : values) {
    if (!std::isfinite(v)) {
      std::ostringstream s;
      s << static_cast<double>(v);
      panic(PanicId::QuantizeNonFinite, {{"value", s.str()}});
    }
    max_abs = std::max(max_abs, std::fabs(static_cast<double>(v)));
  }
  // All zeros: any scale represents them exactly; 1 keeps dequantize trivial.
  const float scale = static_cast<float>(max_abs / 127.0);
  return scale > 0.0f ? scale : 1.0f;
}

}  // namespace

float quantization_scale(std::span<const float> values) { return scale_of(values); }
float quantization_scale(std::span<const double> values) { return scale_of(values); }

std::int8_t quantize_one(double value, float scale) {
  // std::round rounds half away from zero, as Burn's symmetric int8 scheme does.
  const double q = std::round(value / static_cast<double>(scale));
  return static_cast<std::int8_t>(std::fmax(-127.0, std::fmin(127.0, q)));
}

}  // namespace crossgrad::backends
