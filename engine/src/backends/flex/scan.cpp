// Flex cumsum, cumprod, cummin and cummax along one dim, float and int (the steps are
// host::ScanSum ..., NdArray's). Each lane is accumulated in T in index order, exactly as
// NdArray's loop does (docs/OPS.md), so Flex's bits equal the reference's; the speed comes from
// running lanes side by side, never from reassociating one lane. The tensor is seen as
// [outer, len, inner]: inner == 1 runs rows in groups of eight side by side; otherwise a task takes one
// [outer, column chunk] block and carries a row of running values down the len rows, so the inner
// loop is a contiguous, vectorisable row update.
#include "common.hpp"
#include "thread_pool.hpp"

#include <crossgrad/backends/host_formulas.hpp>

#include <algorithm>
#include <string_view>

namespace crossgrad::backends {
namespace {

// Rows in groups of kRows: one lane's fold is a chain of dependent operations, so kRows lanes are
// stepped together, each element of a group one more independent operation in flight (a lone
// lane runs at the add's latency, not its throughput).
template <class T, class Step>
void scan_rows(const T* in, T* out, std::size_t outer, std::size_t len, Step step) {
  constexpr std::size_t kRows = 8;
  const std::size_t groups = (outer + kRows - 1) / kRows;
  const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / (len * kRows));
  flex::parallel_range(groups, grain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t group = begin; group < end; ++group) {
      const std::size_t first = group * kRows, rows = std::min(kRows, outer - first);
      const T* x = in + first * len;
      T* y = out + first * len;
      if (rows < kRows) {
        for (std::size_t o = 0; o < rows; ++o) {
          T acc = x[o * len];
          y[o * len] = acc;
          for (std::size_t r = 1; r < len; ++r) y[o * len + r] = acc = step(acc, x[o * len + r]);
        }
        continue;
      }
      T acc[kRows];
      for (std::size_t o = 0; o < kRows; ++o) y[o * len] = acc[o] = x[o * len];
      for (std::size_t r = 1; r < len; ++r) {
        for (std::size_t o = 0; o < kRows; ++o) y[o * len + r] = acc[o] = step(acc[o], x[o * len + r]);
      }
    }
  });
}

template <class T, class Step>
void scan_columns(const T* in, T* out, std::size_t outer, std::size_t len, std::size_t inner, Step step) {
  constexpr std::size_t kChunk = flex::kTuning.reduce_column_chunk;
  const std::size_t chunks = (inner + kChunk - 1) / kChunk;
  const std::size_t per_task = len * std::min(inner, kChunk);
  const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / per_task);
  flex::parallel_range(outer * chunks, grain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t task = begin; task < end; ++task) {
      const std::size_t o = task / chunks, lo = (task % chunks) * kChunk;
      const std::size_t width = std::min(kChunk, inner - lo);
      const T* x = in + o * len * inner + lo;
      T* y = out + o * len * inner + lo;
      std::copy(x, x + width, y);
      // The previous output row is the running value: y[r] = step(y[r - 1], x[r]) lane by lane.
      for (std::size_t r = 1; r < len; ++r) {
        const T* prev = y + (r - 1) * inner;
        const T* xr = x + r * inner;
        T* yr = y + r * inner;
        for (std::size_t i = 0; i < width; ++i) yr[i] = step(prev[i], xr[i]);
      }
    }
  });
}

template <class Step>
FlexTensor scan_along(const FlexTensor& t, std::size_t dim, OpId op, Step step) {
  const std::string_view name = op_info(op).name;
  rules::check_kind_dtype(t.dtype, operand_category(op), name);
  rules::check_dim(dim, t.shape.rank(), name);
  FlexTensor out = flex::make_tensor(t.shape, t.dtype);
  if (out.num_elements() == 0) return out;
  const rules::DimSplit split = rules::split_at_dim(t.shape, dim);
  host::with_element_type(t.dtype, [&](auto zero) {
    using T = decltype(zero);
    if (split.inner == 1) scan_rows(t.data<T>(), out.mutable_data<T>(), split.outer, split.len, step);
    else scan_columns(t.data<T>(), out.mutable_data<T>(), split.outer, split.len, split.inner, step);
  });
  return out;
}

}  // namespace

// The extremes' steps are written without a branch (host_formulas.hpp), so the row update
// vectorises.
#define CROSSGRAD_FLEX_SCAN(name, Step) \
  FlexTensor Flex::name(const FlexTensor& t, std::size_t dim) { return scan_along(t, dim, OpId::name, host::Step{}); }
CROSSGRAD_FLEX_SCAN(float_cumsum, ScanSum)
CROSSGRAD_FLEX_SCAN(float_cumprod, ScanProd)
CROSSGRAD_FLEX_SCAN(float_cummin, ScanMin)
CROSSGRAD_FLEX_SCAN(float_cummax, ScanMax)
CROSSGRAD_FLEX_SCAN(int_cumsum, ScanSum)
CROSSGRAD_FLEX_SCAN(int_cumprod, ScanProd)
CROSSGRAD_FLEX_SCAN(int_cummin, ScanMin)
CROSSGRAD_FLEX_SCAN(int_cummax, ScanMax)
#undef CROSSGRAD_FLEX_SCAN

}  // namespace crossgrad::backends
