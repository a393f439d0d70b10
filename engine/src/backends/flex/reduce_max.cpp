// Flex float_max_dim, float_argmax, float_min_dim and float_argmin: the max (min) scan of
// max_scan.hpp along one dim. The tensor is
// seen as [outer, d, inner]: with inner == 1 each output is one contiguous row scan; otherwise
// whole contiguous inner-rows are scanned into a running best row, in column chunks (one task per
// [outer, chunk]), so memory is read once, in order.
#include "common.hpp"
#include "max_scan.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>
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

}  // namespace

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
