#pragma once
// The max scan of float_max_dim, float_argmax and softmax's row maximum (docs/OPS.md): in
// increasing index, `best` is replaced by x when best is not NaN and x is NaN or greater. So the
// first NaN wins, and among equal maxima (-0 and +0) the first one is kept. The min scan of
// float_min_dim and float_argmin is the same with "smaller". Either scan over the concatenation of
// blocks is the same scan over the blocks' kept elements in block order (a NaN kept by a block is
// that block's first NaN; otherwise the first block holding the extreme keeps its first one), so
// blocked full reductions keep exactly the element of the sequential scan.
#include <cmath>

namespace crossgrad::backends::flex {

template <class T>
inline bool max_scan_replaces(T best, T x) {
  return !std::isnan(best) && (std::isnan(x) || x > best);
}

template <class T>
inline bool min_scan_replaces(T best, T x) {
  return !std::isnan(best) && (std::isnan(x) || x < best);
}

// The two scans as types, for kernels written once for both.
struct MaxScan {
  template <class T>
  static bool replaces(T best, T x) { return max_scan_replaces(best, x); }
};
struct MinScan {
  template <class T>
  static bool replaces(T best, T x) { return min_scan_replaces(best, x); }
};
// float_max_abs(_dim): the max scan of |x|; the kernels keep |x| of the chosen element.
struct MaxAbsScan {
  template <class T>
  static bool replaces(T best, T x) { return max_scan_replaces(std::fabs(best), std::fabs(x)); }
};

}  // namespace crossgrad::backends::flex
