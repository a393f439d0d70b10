// The one definition of the per-tensor symmetric int8 scheme's scale and rounding. Every backend
// calls these (Cuda on the host, with the max |x| its device reduction found), so the rules below
// hold identically everywhere; see docs/OPS.md "quantize / dequantize".
#include <crossgrad/backends/quantized.hpp>
#include <crossgrad/core/panic.hpp>

#include <charconv>
#include <cfloat>
#include <cmath>
#include <limits>
#include <sstream>

namespace crossgrad::backends {
namespace {

// 127 * FLT_MAX is exact in double (FLT_MAX has 24 significant bits, 127 has 7), so comparing
// max|x| with it decides exactly whether max|x| / 127 fits in F32.
constexpr double kMaxQuantizable = 127.0 * static_cast<double>(FLT_MAX);

// Shortest scientific text that reads back as the same double ("4.321585802309317e+40", "1e+41"):
// near the limit the default 6 digits would print a value just above it as the limit itself.
std::string shortest(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  return std::string(buf, r.ptr);
}

// The scale for a tensor whose largest magnitude is max_abs (finite, >= 0).
float scale_for_max(double max_abs) {
  // Over the limit the F32 scale would be inf: every value would quantize to 0 and dequantize
  // to NaN. Refuse instead of returning garbage.
  if (max_abs > kMaxQuantizable) panic(PanicId::QuantizeScaleOverflow, {{"value", shortest(max_abs)}});
  // All zeros: any scale represents them exactly; 1 keeps dequantize trivial.
  if (max_abs == 0.0) return 1.0f;
  // max|x| / 127 <= FLT_MAX here, so the conversion is finite (round to nearest, as Burn).
  float scale = static_cast<float>(max_abs / 127.0);
  // A subnormal (or zero) scale has few significant bits: rounding to nearest could make
  // max|x| / scale exceed 127.5 (the clamp would cut the largest values) or reach 0 (every value
  // would become 0). Round up instead: the smallest F32 with 127 * scale >= max|x| (that product
  // is exact in double for a subnormal scale).
  if (scale < FLT_MIN && 127.0 * static_cast<double>(scale) < max_abs) {
    scale = std::nextafter(scale, std::numeric_limits<float>::infinity());
  }
  return scale;
}

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
  return scale_for_max(max_abs);
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
