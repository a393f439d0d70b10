#pragma once
// The max scan of float_max_dim, float_argmax and softmax's row maximum (docs: NEW ops spec):
// in increasing index, `best` is replaced by x when best is not NaN and x is NaN or greater. So
// the first NaN wins, and among equal maxima (-0 and +0) the first one is kept.
#include <cmath>

namespace crossgrad::backends::flex {

template <class T>
inline bool max_scan_replaces(T best, T x) {
  return !std::isnan(best) && (std::isnan(x) || x > best);
}

}  // namespace crossgrad::backends::flex
