#include "decode/specs.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <iterator>
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

namespace {

// The nearest code: the first of those at the least distance (a value off the codebook).
std::size_t nearest_code(double v) {
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

}  // namespace

// Note [value_code answers a codebook value without the search]
// The structure-aware mutator encodes every value it keeps, and nearly all of them are codebook
// values (decoded, or a special put in). Searching all 256 codes for each one was ~5% of a sanitized
// grad_replace_fuzzer run (every comparison traced). A grid value or a special, bit for bit, is
// answered directly, with the code the search would return (the first exact match: grid codes come
// first, and no special lies on the grid); a NaN is code 240, as in the search; anything else
// searches.
std::size_t value_code(double v) {
  if (std::isnan(v)) return 240;
  const double k = v * 8.0;  // exact: a power-of-two scaling
  if (k >= -120.0 && k <= 119.0 && k == std::floor(k)) {
    const auto c = static_cast<std::size_t>(k + 120.0);
    if (std::bit_cast<std::uint64_t>(value_of_code(c)) == std::bit_cast<std::uint64_t>(v)) return c;
  }
  for (std::size_t i = 0; i < std::size(kSpecials); ++i) {
    if (std::bit_cast<std::uint64_t>(kSpecials[i]) == std::bit_cast<std::uint64_t>(v)) return 240 + i;
  }
  return nearest_code(v);
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
