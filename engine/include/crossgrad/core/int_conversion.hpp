#pragma once
// float_into_int's conversion of one element (docs/OPS.md "float_into_int"), for every backend's
// host loops and device kernels: Rust's `as` (Burn's semantics), so no input is undefined
// behaviour: toward zero, NaN to 0, saturating at the target's ends (+-inf included).
#include <crossgrad/core/host_device.hpp>

#include <cstdint>
#include <limits>

namespace crossgrad {

template <class I, class T>
CROSSGRAD_HOST_DEVICE constexpr I saturating_int(T x) {
  // 2^(bits-1) (2^bits unsigned) and the lowest value are exact in every float format, so the
  // comparisons are exact; what lies between converts by truncation, which C++ defines there.
  constexpr T above = static_cast<T>(std::numeric_limits<I>::max() / 2 + 1) * static_cast<T>(2);
  constexpr T lowest = static_cast<T>(std::numeric_limits<I>::lowest());
  if (x != x) return I{0};
  if (x >= above) return std::numeric_limits<I>::max();
  if (x <= lowest - static_cast<T>(1)) return std::numeric_limits<I>::lowest();
  return static_cast<I>(x);
}

}  // namespace crossgrad
