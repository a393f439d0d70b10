// Flex reductions. Sums accumulate in double. float_sum/float_mean split the input into fixed
// blocks (independent of the thread count, so results do not depend on it) whose partial sums
// are added in order. float_sum_dim views the tensor as [outer, d, inner]: with inner == 1 each
// output is a contiguous row sum; otherwise whole contiguous inner-rows are accumulated into a
// double row (four rows per pass), so memory is read once, in order; reduced dims longer than
// kRowBlock are summed in fixed row blocks (Note [Flex dim reductions over long dims]).
// Products multiply in double from 1 in index order along each lane, as NdArray does (where an
// intermediate overflows depends on the order, so a blocked product could differ in class, not
// just in rounding): parallel over lanes, sequential within one; float_prod is one lane.
// any / all: x != 0 along each lane (NaN is true), or-ed / and-ed in a byte.
#include "common.hpp"
#include "kernels.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

namespace crossgrad::backends {
namespace {

constexpr std::size_t kSumBlock = flex::kTuning.sum_block;
// float_sum_dim / float_mean_dim with inner > 1: reduced dims longer than this are summed in
// blocks of this many rows (Note [Flex dim reductions over long dims]).
constexpr std::size_t kRowBlock = flex::kTuning.reduce_row_block;
// Columns per task in those blocks.
constexpr std::size_t kBlockChunk = flex::kTuning.reduce_block_chunk;

template <class T>
double total(const T* data, std::size_t n) {
  const auto sum = flex::typed_kernels<T>().sum;
  if (n < 2 * kSumBlock) return sum(data, n);  // one block: the kernel's own order
  const std::size_t blocks = (n + kSumBlock - 1) / kSumBlock;
  std::vector<double> partial(blocks);
  flex::parallel_range(blocks, flex::kTuning.sum_block_grain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t b = begin; b < end; ++b) {
      const std::size_t lo = b * kSumBlock;
      partial[b] = sum(data + lo, std::min(kSumBlock, n - lo));
    }
  });
  double acc = 0;
  for (double p : partial) acc += p;
  return acc;
}

FlexTensor full_reduce(const FlexTensor& t, bool mean, std::string_view op) {
  rules::check_float_dtype(t.dtype, op);
  FlexTensor out = flex::make_tensor(Shape{1}, t.dtype);
  const std::size_t n = t.num_elements();
  flex::with_float_type(t.dtype, [&](auto zero) {
    using T = decltype(zero);
    double value = total(t.data<T>(), n);
    if (mean) value = n == 0 ? std::numeric_limits<double>::quiet_NaN() : value / static_cast<double>(n);
    out.mutable_data<T>()[0] = static_cast<T>(value);
  });
  return out;
}

// Note [Flex dim reductions over long dims]
// With inner > 1 and a reduced dim longer than kRowBlock, one task per column chunk would walk
// d rows with a stride of inner elements, one task per thread at best: [4096, 4096] over dim 0
// ran at a quarter of memory bandwidth. Instead the reduced dim is cut into fixed blocks of
// kRowBlock rows (the last shorter); a task sums one block of rows over one column chunk into
// its own double partial row, reading each row piece front to back, and a second pass adds the
// partials of each column in block order. The blocks depend on the shape only, so results do not
// depend on the thread count. The partials cost d / kRowBlock doubles per output.
template <class T, class Finish>
void reduce_rows_in_blocks(const T* in, T* out, std::size_t outer, std::size_t d, std::size_t inner,
                           const Finish& finish) {
  const auto accumulate_rows = flex::row_kernels<T>().accumulate_rows;
  constexpr std::size_t kChunk = kBlockChunk;
  const std::size_t blocks = (d + kRowBlock - 1) / kRowBlock;
  const std::size_t chunks = (inner + kChunk - 1) / kChunk;
  // Every element is written by the first pass before the second reads it: no zero fill.
  const std::unique_ptr<double[]> partial_storage(new double[outer * blocks * inner]);
  double* partial = partial_storage.get();  // [outer][block][inner]
  const std::size_t per_task = std::max<std::size_t>(kRowBlock * std::min(inner, kChunk), 1);
  const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / per_task);
  flex::parallel_range(outer * blocks * chunks, grain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t task = begin; task < end; ++task) {
      const std::size_t chunk = task % chunks, block = (task / chunks) % blocks, o = task / (chunks * blocks);
      const std::size_t lo = chunk * kChunk, width = std::min(kChunk, inner - lo);
      const std::size_t row = block * kRowBlock, rows = std::min(kRowBlock, d - row);
      double* acc = partial + (o * blocks + block) * inner + lo;
      std::fill(acc, acc + width, 0.0);
      const T* base = in + (o * d + row) * inner + lo;
      accumulate_rows(base, inner, rows, acc, width);
    }
  });
  const std::size_t combine_grain = std::max<std::size_t>(1, flex::kElementwiseGrain / (blocks * std::min(inner, kChunk)));
  flex::parallel_range(outer * chunks, combine_grain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t task = begin; task < end; ++task) {
      const std::size_t o = task / chunks, lo = (task % chunks) * kChunk, width = std::min(kChunk, inner - lo);
      const double* first = partial + o * blocks * inner + lo;
      T* dst = out + o * inner + lo;
      for (std::size_t i = 0; i < width; ++i) {
        double s = first[i];
        for (std::size_t b = 1; b < blocks; ++b) s += first[b * inner + i];
        dst[i] = finish(s);
      }
    }
  });
}

template <class T>
void reduce_dim(const T* in, T* out, std::size_t outer, std::size_t d, std::size_t inner, bool mean) {
  const auto& k = flex::typed_kernels<T>();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto finish = [&](double s) {
    return static_cast<T>(mean ? (d == 0 ? nan : s / static_cast<double>(d)) : s);
  };
  if (d == 0) {  // empty reduced dim: sums are 0, means NaN
    std::fill(out, out + outer * inner, finish(0.0));
    return;
  }
  if (inner == 1) {
    const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / std::max<std::size_t>(d, 1));
    flex::parallel_range(outer, grain, [&](std::size_t begin, std::size_t end) {
      for (std::size_t o = begin; o < end; ++o) out[o] = finish(k.sum(in + o * d, d));
    });
    return;
  }
  if (d > kRowBlock) {
    reduce_rows_in_blocks(in, out, outer, d, inner, finish);
    return;
  }
  // Column chunks of at most kChunk doubles keep the accumulator row in L1/L2.
  constexpr std::size_t kChunk = flex::kTuning.reduce_column_chunk;
  const std::size_t chunks = (inner + kChunk - 1) / kChunk;
  const std::size_t per_task = std::max<std::size_t>(d * std::min(inner, kChunk), 1);
  const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / per_task);
  flex::parallel_range(outer * chunks, grain, [&](std::size_t begin, std::size_t end) {
    std::vector<double> acc(std::min(inner, kChunk));
    for (std::size_t task = begin; task < end; ++task) {
      const std::size_t o = task / chunks, chunk = task % chunks;
      const std::size_t lo = chunk * kChunk, width = std::min(kChunk, inner - lo);
      std::fill(acc.begin(), acc.begin() + static_cast<std::ptrdiff_t>(width), 0.0);
      const T* base = in + o * d * inner + lo;
      flex::row_kernels<T>().accumulate_rows(base, inner, d, acc.data(), width);
      T* dst = out + o * inner + lo;
      for (std::size_t i = 0; i < width; ++i) dst[i] = finish(acc[i]);
    }
  });
}

FlexTensor dim_reduce(const FlexTensor& t, std::size_t dim, bool mean, std::string_view op) {
  rules::check_float_dtype(t.dtype, op);
  rules::check_dim(dim, t.shape.rank(), op);
  FlexTensor out = flex::make_tensor(rules::reduced_shape(t.shape, dim), t.dtype);
  if (out.num_elements() == 0) return out;
  const rules::DimSplit split = rules::split_at_dim(t.shape, dim);
  const std::size_t outer = split.outer, len = split.len, inner = split.inner;
  flex::with_float_type(t.dtype, [&](auto zero) {
    using T = decltype(zero);
    reduce_dim(t.data<T>(), out.mutable_data<T>(), outer, len, inner, mean);
  });
  return out;
}

// Along the lanes of an [outer, d, inner] tensor: `fold(acc, x)` folds each element into its
// lane's running value in index order and `finish(out_index, acc)` stores the result. With
// inner > 1 whole inner-rows are folded in column chunks, so memory is read front to back.
template <class T, class Acc, class Fold, class Finish>
void fold_lanes(const T* in, std::size_t outer, std::size_t d, std::size_t inner, Acc init, const Fold& fold,
                const Finish& finish) {
  if (inner == 1) {
    const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / std::max<std::size_t>(d, 1));
    flex::parallel_range(outer, grain, [&](std::size_t begin, std::size_t end) {
      for (std::size_t o = begin; o < end; ++o) {
        Acc acc = init;
        const T* row = in + o * d;
        for (std::size_t j = 0; j < d; ++j) acc = fold(acc, row[j]);
        finish(o, acc);
      }
    });
    return;
  }
  constexpr std::size_t kChunk = flex::kTuning.reduce_column_chunk;
  const std::size_t chunks = (inner + kChunk - 1) / kChunk;
  const std::size_t per_task = std::max<std::size_t>(d * std::min(inner, kChunk), 1);
  const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / per_task);
  flex::parallel_range(outer * chunks, grain, [&](std::size_t begin, std::size_t end) {
    std::vector<Acc> acc(std::min(inner, kChunk));
    for (std::size_t task = begin; task < end; ++task) {
      const std::size_t o = task / chunks, lo = (task % chunks) * kChunk;
      const std::size_t width = std::min(kChunk, inner - lo);
      std::fill(acc.begin(), acc.begin() + static_cast<std::ptrdiff_t>(width), init);
      const T* base = in + o * d * inner + lo;
      for (std::size_t j = 0; j < d; ++j) {
        const T* row = base + j * inner;
        for (std::size_t i = 0; i < width; ++i) acc[i] = fold(acc[i], row[i]);
      }
      for (std::size_t i = 0; i < width; ++i) finish(o * inner + lo + i, acc[i]);
    }
  });
}

// float_prod (no dim: the flat tensor as one lane, shape [1]) and float_prod_dim.
FlexTensor prod_reduce(const FlexTensor& t, std::optional<std::size_t> dim, std::string_view op) {
  rules::check_float_dtype(t.dtype, op);
  if (dim) rules::check_dim(*dim, t.shape.rank(), op);
  FlexTensor out = flex::make_tensor(dim ? rules::reduced_shape(t.shape, *dim) : Shape{1}, t.dtype);
  if (out.num_elements() == 0) return out;
  rules::DimSplit split;
  if (dim) split = rules::split_at_dim(t.shape, *dim);
  else split.len = t.num_elements();
  flex::with_float_type(t.dtype, [&](auto zero) {
    using T = decltype(zero);
    T* o = out.mutable_data<T>();
    fold_lanes(t.data<T>(), split.outer, split.len, split.inner, 1.0,
               [](double acc, T x) { return acc * static_cast<double>(x); },
               [o](std::size_t at, double acc) { o[at] = static_cast<T>(acc); });
  });
  return out;
}

// Whether x[0..n) (stepping by `step`) holds a nonzero element (any) / only nonzero ones (all).
// Read in runs that double from 1 to 4096 elements: a run is counted without branches
// (vectorisable where step is 1), and the scan stops after the first run that decides the lane, so
// a lane decided at its first elements costs about as little as NdArray's element-by-element loop,
// and one read to its end runs at vector speed. NaN is nonzero.
template <class T>
bool truth_of(const T* x, std::size_t n, std::size_t step, bool all) {
  std::size_t run = 1;
  for (std::size_t lo = 0; lo < n; run = std::min<std::size_t>(run * 2, 4096)) {
    const std::size_t hi = std::min(n, lo + run);
    std::size_t nonzero = 0;
    if (step == 1) {
      for (std::size_t r = lo; r < hi; ++r) nonzero += x[r] != T(0) ? 1 : 0;
    } else {
      for (std::size_t r = lo; r < hi; ++r) nonzero += x[r * step] != T(0) ? 1 : 0;
    }
    if (all ? nonzero < hi - lo : nonzero > 0) return !all;
    lo = hi;
  }
  return all;
}

// float_any / float_all (no dim, shape [1]) and their _dim forms, to Bool (one byte, 0 or 1). Along
// a dim the lanes run in parallel; the whole tensor is one lane: its first 4096 elements on the
// calling thread (where most answers are decided), the rest in fixed blocks in parallel.
FlexTensor truth_reduce(const FlexTensor& t, std::optional<std::size_t> dim, bool all, std::string_view op) {
  rules::check_float_dtype(t.dtype, op);
  if (dim) rules::check_dim(*dim, t.shape.rank(), op);
  FlexTensor out = flex::make_tensor(dim ? rules::reduced_shape(t.shape, *dim) : Shape{1}, DType::Bool);
  if (out.num_elements() == 0) return out;
  flex::with_float_type(t.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = t.data<T>();
    std::uint8_t* o = out.mutable_data<std::uint8_t>();
    if (!dim) {
      const std::size_t n = t.num_elements(), head = std::min<std::size_t>(n, 4096);
      bool decided = truth_of(x, head, 1, all) != all;
      if (!decided && head < n) {
        constexpr std::size_t kBlock = flex::kTuning.sum_block;
        const std::size_t rest = n - head, blocks = (rest + kBlock - 1) / kBlock;
        std::vector<std::uint8_t> block_decides(blocks, 0);
        flex::parallel_range(blocks, flex::kTuning.sum_block_grain, [&](std::size_t begin, std::size_t end) {
          for (std::size_t b = begin; b < end; ++b) {
            const std::size_t lo = head + b * kBlock;
            block_decides[b] = truth_of(x + lo, std::min(kBlock, n - lo), 1, all) != all;
          }
        });
        decided = std::find(block_decides.begin(), block_decides.end(), 1) != block_decides.end();
      }
      o[0] = (decided ? !all : all) ? 1 : 0;
      return;
    }
    const rules::DimSplit split = rules::split_at_dim(t.shape, *dim);
    const std::size_t len = split.len, inner = split.inner, lanes = split.outer * inner;
    if (len == 0) {
      std::fill(o, o + lanes, all ? 1 : 0);
      return;
    }
    // Many lanes are decided by their first element (any: a nonzero one, all: a zero): one pass
    // over those on the calling thread answers them without waking the pool, as NdArray's loop
    // stops there; only the lanes left undecided (marked 2) are scanned, in parallel.
    bool undecided = false;
    for (std::size_t i = 0; i < split.outer; ++i) {
      const T* first = x + i * len * inner;
      std::uint8_t* oi = o + i * inner;
      for (std::size_t j = 0; j < inner; ++j) {
        const bool decides = (first[j] != T(0)) != all;
        oi[j] = decides ? (all ? 0 : 1) : 2;
        undecided |= !decides;
      }
    }
    if (!undecided || len == 1) {
      if (len == 1) std::replace(o, o + lanes, std::uint8_t{2}, static_cast<std::uint8_t>(all ? 1 : 0));
      return;
    }
    if (inner > 1) {
      // Lanes down columns: walking one lane touches a cache line per element, so a task takes a
      // block of columns row by row instead (as int_reduce.cpp's reduce_columns), and stops once
      // every lane of its block is decided, checked every kCheck rows.
      constexpr std::size_t kChunk = 256, kCheck = 8;
      const std::size_t chunks = (inner + kChunk - 1) / kChunk;
      const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / (len * std::min(inner, kChunk)));
      flex::parallel_range(split.outer * chunks, grain, [&](std::size_t begin, std::size_t end) {
        for (std::size_t task = begin; task < end; ++task) {
          const std::size_t i = task / chunks, lo = (task % chunks) * kChunk, w = std::min(kChunk, inner - lo);
          const T* const base = x + i * len * inner + lo;
          std::uint8_t* const oi = o + i * inner + lo;
          // open[j]: lane j is still undecided (all: no zero yet; any: no nonzero yet).
          std::uint8_t open[kChunk];
          std::size_t still_open = 0;
          for (std::size_t j = 0; j < w; ++j) still_open += open[j] = oi[j] == 2 ? 1 : 0;
          for (std::size_t k0 = 1; k0 < len && still_open != 0; k0 += kCheck) {
            for (std::size_t k = k0; k < std::min(len, k0 + kCheck); ++k) {
              const T* const row = base + k * inner;
              for (std::size_t j = 0; j < w; ++j) open[j] &= ((row[j] != T(0)) == all) ? 1 : 0;
            }
            still_open = 0;
            for (std::size_t j = 0; j < w; ++j) still_open += open[j];
          }
          for (std::size_t j = 0; j < w; ++j) {
            if (oi[j] == 2) oi[j] = (open[j] != 0) == all ? 1 : 0;
          }
        }
      });
      return;
    }
    const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / len);
    flex::parallel_range(lanes, grain, [&](std::size_t begin, std::size_t end) {
      for (std::size_t lane = begin; lane < end; ++lane) {
        if (o[lane] != 2) continue;
        const std::size_t i = lane / inner, j = lane % inner;
        o[lane] = truth_of(x + i * len * inner + j + inner, len - 1, inner, all) ? 1 : 0;
      }
    });
  });
  return out;
}

}  // namespace

FlexTensor Flex::float_prod(const FlexTensor& t) { return prod_reduce(t, std::nullopt, "float_prod"); }
FlexTensor Flex::float_prod_dim(const FlexTensor& t, std::size_t dim) { return prod_reduce(t, dim, "float_prod_dim"); }
FlexTensor Flex::float_any(const FlexTensor& t) { return truth_reduce(t, std::nullopt, false, "float_any"); }
FlexTensor Flex::float_any_dim(const FlexTensor& t, std::size_t dim) { return truth_reduce(t, dim, false, "float_any_dim"); }
FlexTensor Flex::float_all(const FlexTensor& t) { return truth_reduce(t, std::nullopt, true, "float_all"); }
FlexTensor Flex::float_all_dim(const FlexTensor& t, std::size_t dim) { return truth_reduce(t, dim, true, "float_all_dim"); }

FlexTensor Flex::float_sum(const FlexTensor& t) { return full_reduce(t, false, "float_sum"); }
FlexTensor Flex::float_mean(const FlexTensor& t) { return full_reduce(t, true, "float_mean"); }
FlexTensor Flex::float_sum_dim(const FlexTensor& t, std::size_t dim) {
  return dim_reduce(t, dim, false, "float_sum_dim");
}
FlexTensor Flex::float_mean_dim(const FlexTensor& t, std::size_t dim) {
  return dim_reduce(t, dim, true, "float_mean_dim");
}

}  // namespace crossgrad::backends
