#pragma once
// Shapes and element values: scalars, zero-size dims, a bounded element count; ordinary values and
// the special ones (±0, ±inf, NaN, subnormals, extremes).
#include <crossgrad/oracle/spec.hpp>

#include <rapidcheck.h>

#include <cmath>
#include <limits>
#include <vector>

namespace crossgrad::properties::gen {

inline constexpr std::size_t kMaxElements = 24;

inline std::vector<std::size_t> bounded(std::vector<std::size_t> dims, std::size_t max_elements = kMaxElements) {
  while (oracle::element_count(dims) > max_elements) {
    std::size_t* largest = &dims[0];
    for (std::size_t& d : dims) if (d > *largest) largest = &d;
    *largest /= 2;
  }
  return dims;
}

// Rank 0..max_rank; dims 0..4 (0 rarely), at most kMaxElements elements. Shrinks to [].
inline rc::Gen<std::vector<std::size_t>> shape(std::size_t max_rank = 3, bool zero_dims = true) {
  return rc::gen::map(
      rc::gen::mapcat(rc::gen::inRange<std::size_t>(0, max_rank + 1),
                      [zero_dims](std::size_t rank) {
                        return rc::gen::container<std::vector<std::size_t>>(
                            rank, rc::gen::weightedOneOf<std::size_t>({{zero_dims ? 1u : 0u, rc::gen::just<std::size_t>(0)},
                                                                       {4, rc::gen::just<std::size_t>(1)},
                                                                       {6, rc::gen::inRange<std::size_t>(2, 5)}}));
                      }),
      [](std::vector<std::size_t> dims) { return bounded(std::move(dims)); });
}

inline const std::vector<double>& special_values() {
  static const std::vector<double> v = {
      0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN,
      static_cast<double>(std::numeric_limits<float>::denorm_min()),
      -3.0 * static_cast<double>(std::numeric_limits<float>::denorm_min()),
      static_cast<double>(std::numeric_limits<float>::min()),
      static_cast<double>(std::numeric_limits<float>::max()),
      -static_cast<double>(std::numeric_limits<float>::lowest()) / 3.0,
      1e-30, 1e30};
  return v;
}

// Small multiples of 1/8 (exact in F32), some arbitrary floats and, when allowed, special values.
inline rc::Gen<double> float_value(bool specials) {
  return rc::gen::weightedOneOf<double>(
      // inRange shrinks towards its lower bound; zig-zag i -> 0, -1, 1, -2, ... so values shrink to 0.
      {{8, rc::gen::map(rc::gen::inRange(0, 129), [](int i) { return (i % 2 == 0 ? i / 2 : -(i + 1) / 2) / 8.0; })},
       {2, rc::gen::map(rc::gen::arbitrary<float>(), [](float f) { return std::isfinite(f) ? static_cast<double>(f) : 1.0; })},
       {specials ? 3u : 0u, rc::gen::elementOf(special_values())}});
}

// Moderate finite values away from zero-crossing trouble, for finite differences.
inline rc::Gen<double> positive_value() {
  return rc::gen::map(rc::gen::inRange(3, 21), [](int i) { return i / 10.0; });
}

inline rc::Gen<double> element_value(PrimitiveKind primitive, DType dtype, bool specials) {
  switch (primitive) {
    case PrimitiveKind::Bool: return rc::gen::map(rc::gen::inRange(0, 2), [](int i) { return double(i); });
    case PrimitiveKind::Quantized: return float_value(false);
    case PrimitiveKind::Float:
    case PrimitiveKind::Autodiff: return float_value(specials);
    case PrimitiveKind::Int: break;
  }
  if (dtype == DType::U8) return rc::gen::map(rc::gen::inRange(0, 256), [](int i) { return double(i); });
  if (dtype == DType::I8) return rc::gen::map(rc::gen::inRange(-128, 128), [](int i) { return double(i); });
  return rc::gen::map(rc::gen::inRange(-100000, 100000), [](int i) { return double(i); });
}

inline rc::Gen<std::vector<double>> values(PrimitiveKind primitive, DType dtype, std::size_t n, bool specials) {
  return rc::gen::container<std::vector<double>>(n, element_value(primitive, dtype, specials));
}

}  // namespace crossgrad::properties::gen
