#include "decode/specs.hpp"

#include <bit>
#include <cstdint>
#include <limits>

namespace crossgrad::fuzz {

namespace {
constexpr double kSpecials[16] = {std::numeric_limits<double>::quiet_NaN(),
                                  std::numeric_limits<double>::infinity(),
                                  -std::numeric_limits<double>::infinity(),
                                  -0.0,
                                  1e30,
                                  -1e30,
                                  1e-30,
                                  3.4e38,
                                  1e300,
                                  1e-300,
                                  0.1,
                                  -0.1,
                                  1.0 / 3.0,
                                  65504.0,
                                  1e-7,
                                  4096.0};
}  // namespace

double value_of_code(std::size_t code) {
  code %= 256;
  if (code < 240) return (static_cast<double>(code) - 120.0) / 8.0;
  return kSpecials[code - 240];
}

std::size_t value_code(double v) {
  std::size_t best = 120;
  double best_err = std::numeric_limits<double>::infinity();
  for (std::size_t c = 0; c < 256; ++c) {
    const double x = value_of_code(c);
    if (std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(v)) return c;
    if (std::isnan(x) && std::isnan(v)) return c;
    const double err = std::fabs(x - v);
    if (err < best_err) {
      best_err = err;
      best = c;
    }
  }
  return best;
}

void sanitize_values(oracle::TensorSpec &spec) {
  for (double &v : spec.values) {
    switch (spec.primitive) {
      case PrimitiveKind::Bool:
        v = (std::isnan(v) || v == 0.0) ? 0.0 : 1.0;
        break;
      case PrimitiveKind::Quantized:
        if (!std::isfinite(v)) v = 0.0;
        break;
      case PrimitiveKind::Int:
      case PrimitiveKind::Float:
      case PrimitiveKind::Autodiff:
        break;
    }
  }
}

}  // namespace crossgrad::fuzz
