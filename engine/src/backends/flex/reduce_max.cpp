// Flex float_max_dim, float_argmax, float_min_dim, float_argmin and float_max_abs_dim: the max
// (min, max-of-|x|) scan of max_scan.hpp along one dim; float_max, float_min and float_max_abs:
// the same scan over every element in fixed blocks (max_scan.hpp: the blocked scan keeps the
// sequential scan's element). Along a dim the tensor is
// seen as [outer, d, inner]: with inner == 1 each output is one contiguous row scan; otherwise
// whole contiguous inner-rows are scanned into a running best row, in column chunks (one task per
// [outer, chunk]), so memory is read once, in order.
#include "common.hpp"
#include "isa_loops.hpp"
#include "max_scan.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <string_view>
#include <type_traits>
#include <vector>

namespace crossgrad::backends {
namespace {

// Writes the kept value (values != nullptr) or its index along the dim (indices != nullptr).
template <class Scan, class T>
void scan_along(const T* in, T* values, std::int64_t* indices, std::size_t outer, std::size_t d,
               std::size_t inner) {
  if (inner == 1) {
    const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / d);
    flex::parallel_range(outer, grain, [&](std::size_t begin, std::size_t end) {
      for (std::size_t o = begin; o < end; ++o) {
        const T* row = in + o * d;
        T best = row[0];
        std::size_t at = 0;
        for (std::size_t j = 1; j < d; ++j) {
          if (Scan::replaces(best, row[j])) {
            best = row[j];
            at = j;
          }
        }
        if (values) values[o] = best;
        if (indices) indices[o] = static_cast<std::int64_t>(at);
      }
    });
    return;
  }
  constexpr std::size_t kChunk = flex::kTuning.reduce_column_chunk;
  const std::size_t chunks = (inner + kChunk - 1) / kChunk;
  const std::size_t per_task = d * std::min(inner, kChunk);
  const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / per_task);
  flex::parallel_range(outer * chunks, grain, [&](std::size_t begin, std::size_t end) {
    std::vector<T> best(std::min(inner, kChunk));
    std::vector<std::int64_t> at(best.size());
    for (std::size_t task = begin; task < end; ++task) {
      const std::size_t o = task / chunks, lo = (task % chunks) * kChunk;
      const std::size_t width = std::min(kChunk, inner - lo);
      const T* base = in + o * d * inner + lo;
      std::copy(base, base + width, best.begin());
      std::fill(at.begin(), at.begin() + static_cast<std::ptrdiff_t>(width), 0);
      for (std::size_t j = 1; j < d; ++j) {
        const T* row = base + j * inner;
        for (std::size_t i = 0; i < width; ++i) {
          if (Scan::replaces(best[i], row[i])) {
            best[i] = row[i];
            at[i] = static_cast<std::int64_t>(j);
          }
        }
      }
      if (values) std::copy(best.begin(), best.begin() + static_cast<std::ptrdiff_t>(width), values + o * inner + lo);
      if (indices) std::copy(at.begin(), at.begin() + static_cast<std::ptrdiff_t>(width), indices + o * inner + lo);
    }
  });
}

template <class Scan>
FlexTensor scan_dim(const FlexTensor& t, std::size_t dim, bool want_index, std::string_view op) {
  rules::check_float_dtype(t.dtype, op);
  rules::check_nonempty_reduction(t.shape, dim, op);
  FlexTensor out = flex::make_tensor(rules::reduced_shape(t.shape, dim), want_index ? DType::I64 : t.dtype);
  if (out.num_elements() == 0) return out;
  const rules::DimSplit split = rules::split_at_dim(t.shape, dim);
  const std::size_t outer = split.outer, len = split.len, inner = split.inner;
  flex::with_float_type(t.dtype, [&](auto zero) {
    using T = decltype(zero);
    T* values = want_index ? nullptr : out.mutable_data<T>();
    std::int64_t* indices = want_index ? out.mutable_data<std::int64_t>() : nullptr;
    scan_along<Scan>(t.data<T>(), values, indices, outer, len, inner);
  });
  return out;
}

// Index of the element the scan keeps over x[0..n), n >= 1, in two passes that have no branch on
// the data: the extreme (of |x| for max_abs) and whether a NaN occurs, in chunks the compiler
// vectorises (under AVX2 in a copy of its own, Note [Flex loops compiled twice]); then the first
// NaN, or else the first element equal to the extreme, which is the element the sequential scan
// keeps (it moves only to a NaN or to something strictly beyond; -0 == +0, so of equal zeros the
// first stays). The one-pass scan with a data-dependent branch per element ran float_max 1M at
// 0.55x NdArray.
template <class Scan, class T>
std::size_t scan_index(const T* x, std::size_t n) {
  constexpr bool kAbs = std::is_same_v<Scan, flex::MaxAbsScan>;
  constexpr bool kMin = std::is_same_v<Scan, flex::MinScan>;
  T best = kAbs ? std::fabs(x[0]) : x[0];
  bool nan = false;
  flex::run_loop([&] {
    constexpr std::size_t kLanes = 16;
    T lane[kLanes];
    bool lane_nan[kLanes];
    for (std::size_t l = 0; l < kLanes; ++l) {
      lane[l] = best;
      lane_nan[l] = false;
    }
    std::size_t j = 0;
    for (; j + kLanes <= n; j += kLanes) {
      for (std::size_t l = 0; l < kLanes; ++l) {
        const T v = kAbs ? std::fabs(x[j + l]) : x[j + l];
        lane_nan[l] |= v != v;
        lane[l] = (kMin ? v < lane[l] : v > lane[l]) ? v : lane[l];  // false on NaN: NaN never enters
      }
    }
    for (; j < n; ++j) {
      const T v = kAbs ? std::fabs(x[j]) : x[j];
      nan |= v != v;
      best = (kMin ? v < best : v > best) ? v : best;
    }
    for (std::size_t l = 0; l < kLanes; ++l) {
      nan |= lane_nan[l];
      best = (kMin ? lane[l] < best : lane[l] > best) ? lane[l] : best;
    }
  });
  if (best != best) nan = true;  // x[0] itself
  for (std::size_t j = 0; j < n; ++j) {
    const T v = kAbs ? std::fabs(x[j]) : x[j];
    if (nan ? v != v : v == best) return j;
  }
  return 0;  // not reached: x holds its extreme (or its NaN)
}

template <class Scan>
FlexTensor scan_all(const FlexTensor& t, std::string_view op) {
  rules::check_float_dtype(t.dtype, op);
  rules::check_nonempty_full_reduction(t.shape, op);
  FlexTensor out = flex::make_tensor(Shape{1}, t.dtype);
  const std::size_t n = t.num_elements();
  constexpr std::size_t kBlock = flex::kTuning.sum_block;
  flex::with_float_type(t.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = t.data<T>();
    std::size_t at = 0;
    if (n < 2 * kBlock) {
      at = scan_index<Scan>(x, n);
    } else {
      // Blocks depend on n only, never on the thread count.
      const std::size_t blocks = (n + kBlock - 1) / kBlock;
      std::vector<std::size_t> kept(blocks);
      flex::parallel_range(blocks, flex::kTuning.sum_block_grain, [&](std::size_t begin, std::size_t end) {
        for (std::size_t b = begin; b < end; ++b) {
          const std::size_t lo = b * kBlock;
          kept[b] = lo + scan_index<Scan>(x + lo, std::min(kBlock, n - lo));
        }
      });
      at = kept[0];
      for (std::size_t b = 1; b < blocks; ++b) {
        if (Scan::replaces(x[at], x[kept[b]])) at = kept[b];
      }
    }
    out.mutable_data<T>()[0] = std::is_same_v<Scan, flex::MaxAbsScan> ? std::fabs(x[at]) : x[at];
  });
  return out;
}

}  // namespace

FlexTensor Flex::float_max_abs_dim(const FlexTensor& t, std::size_t dim) {
  FlexTensor out = scan_dim<flex::MaxAbsScan>(t, dim, false, "float_max_abs_dim");
  // The scan kept the chosen elements themselves; the result is their magnitude.
  flex::with_float_type(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    T* o = out.mutable_data<T>();
    const std::size_t n = out.num_elements();
    for (std::size_t i = 0; i < n; ++i) o[i] = std::fabs(o[i]);
  });
  return out;
}
FlexTensor Flex::float_max(const FlexTensor& t) { return scan_all<flex::MaxScan>(t, "float_max"); }
FlexTensor Flex::float_min(const FlexTensor& t) { return scan_all<flex::MinScan>(t, "float_min"); }
FlexTensor Flex::float_max_abs(const FlexTensor& t) { return scan_all<flex::MaxAbsScan>(t, "float_max_abs"); }

FlexTensor Flex::float_max_dim(const FlexTensor& t, std::size_t dim) {
  return scan_dim<flex::MaxScan>(t, dim, false, "float_max_dim");
}
FlexTensor Flex::float_argmax(const FlexTensor& t, std::size_t dim) {
  return scan_dim<flex::MaxScan>(t, dim, true, "float_argmax");
}
FlexTensor Flex::float_min_dim(const FlexTensor& t, std::size_t dim) {
  return scan_dim<flex::MinScan>(t, dim, false, "float_min_dim");
}
FlexTensor Flex::float_argmin(const FlexTensor& t, std::size_t dim) {
  return scan_dim<flex::MinScan>(t, dim, true, "float_argmin");
}

}  // namespace crossgrad::backends
