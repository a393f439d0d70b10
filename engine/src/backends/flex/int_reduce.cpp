// Flex: the int reductions and bool_any / bool_all, with the lane rule every backend shares
// (core/int_arithmetic.hpp reduce_lane). Along the innermost dim the lanes (fold_contiguous: the
// same values with no branch on the data, so that they vectorise) are split over the
// pool; along another, blocks of columns are (reduce_columns), under AVX2 in a copy of their own
// (Note [Flex loops compiled twice]). Over every
// element the wrapped sum and product, the extremes and any / all are associative, so blocks are
// folded in parallel and their partial results folded again (same value as one pass); the mean
// divides the whole sum once.
#include "common.hpp"
#include "isa_loops.hpp"
#include "thread_pool.hpp"

#include <crossgrad/core/int_arithmetic.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace crossgrad::backends {
namespace {

using flex::make_tensor;
using flex::parallel_range;
using host::with_int_type;

DType storage_int_type(DType dtype) { return dtype == DType::Bool ? DType::U8 : dtype; }

// The fold of the partial results of blocks (the same IntReduce: Mean sums, ArgMax / ArgMin never
// reach here).
IntReduce combining(IntReduce r) { return r == IntReduce::Mean ? IntReduce::Sum : r; }

// The index of the first element equal to v, which x holds.
template <class I>
std::int64_t first_equal(const I* x, I v) {
  std::size_t at = 0;
  while (x[at] != v) ++at;
  return static_cast<std::int64_t>(at);
}

// fold_lanes(x, len, step, value): value(x[0]) folded with value(every later element) by step,
// through four vectors' worth of independent accumulators folded together at the end. With one
// accumulator every step waits for the previous one (an I64 max is a compare and a select, not
// vectorised: 38 us per 64K elements); four vectors of them vectorise and overlap (16 us; I32
// 6.1 -> 3.3 us, I8 1.6 -> 0.9). The reorder is exact for what it folds: max / min of ints (no
// NaN; tied elements are equal values) and the wrapped product (a commutative ring mod 2^width).
template <class I, class Step, class Value = std::identity>
I fold_lanes(const I* x, std::size_t len, Step step, Value value = {}) {
  constexpr std::size_t kLanes = 4 * 32 / sizeof(I);
  if (len < 2 * kLanes) {
    I acc = value(x[0]);
    for (std::size_t k = 1; k < len; ++k) acc = step(acc, value(x[k]));
    return acc;
  }
  I acc[kLanes];
  for (std::size_t j = 0; j < kLanes; ++j) acc[j] = value(x[j]);
  std::size_t k = kLanes;
  for (; k + kLanes <= len; k += kLanes) {
    for (std::size_t j = 0; j < kLanes; ++j) acc[j] = step(acc[j], value(x[k + j]));
  }
  I whole = acc[0];
  for (std::size_t j = 1; j < kLanes; ++j) whole = step(whole, acc[j]);
  for (; k < len; ++k) whole = step(whole, value(x[k]));
  return whole;
}

// One contiguous lane, reduce_lane's value with no branch on the data where one is not needed,
// so that the loops vectorise (under AVX2 when the caller runs in run_loop): the extremes through
// fold_lanes, their index as the first element equal to the extreme (ints have no NaN), any / all
// as reduce_lane's own loop, which stops at the first deciding element.
template <class I>
std::int64_t fold_contiguous(const I* x, std::size_t len, IntReduce r) {
  const auto larger = [](I a, I b) { return b > a ? b : a; };
  const auto smaller = [](I a, I b) { return b < a ? b : a; };
  switch (r) {
    case IntReduce::Sum:
    case IntReduce::Mean: {
      I acc = I{0};
      for (std::size_t k = 0; k < len; ++k) acc = wrapping_add<I>(acc, x[k]);
      if (r == IntReduce::Sum) return static_cast<std::int64_t>(acc);
      return static_cast<std::int64_t>(acc) / static_cast<std::int64_t>(len);
    }
    case IntReduce::Prod:
      // The empty product is 1 (fold_lanes starts from x[0]; the extremes of no element panic first).
      if (len == 0) return 1;
      return static_cast<std::int64_t>(fold_lanes<I>(x, len, [](I a, I b) { return wrapping_mul<I>(a, b); }));
    case IntReduce::Max:
    case IntReduce::ArgMax: {
      const I best = fold_lanes<I>(x, len, larger);
      return r == IntReduce::Max ? static_cast<std::int64_t>(best) : first_equal(x, best);
    }
    case IntReduce::Min:
    case IntReduce::ArgMin: {
      const I best = fold_lanes<I>(x, len, smaller);
      return r == IntReduce::Min ? static_cast<std::int64_t>(best) : first_equal(x, best);
    }
    case IntReduce::MaxAbs:
      // |x| wraps (|INT_MIN| is INT_MIN), so the largest |x| is not |the max or min|: fold |x|.
      return static_cast<std::int64_t>(fold_lanes<I>(x, len, larger, [](I v) { return wrapping_abs<I>(v); }));
    case IntReduce::Any:
    case IntReduce::All:
      return reduce_lane<I>(x, len, 1, r);
  }
  return 0;
}

template <class I>
std::int64_t reduce_all(const I* x, std::size_t n, IntReduce r) {
  constexpr std::size_t kBlock = 1 << 16;
  std::int64_t whole = 0;
  if (n <= kBlock) {
    flex::run_loop([&] { whole = fold_contiguous<I>(x, n, r); });
    return whole;
  }
  if (r == IntReduce::Any || r == IntReduce::All) {
    // The first block alone usually decides (a non-zero for any, a zero for all), as NdArray's one
    // early-exit pass does; only a tensor it does not decide goes to the pool.
    const std::int64_t first = reduce_lane<I>(x, kBlock, 1, r);
    if (first == (r == IntReduce::Any ? 1 : 0)) return first;
  }
  const std::size_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<I> partial(blocks);
  parallel_range(blocks, 1, [&](std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      const std::size_t from = k * kBlock, len = std::min(kBlock, n - from);
      flex::run_loop([&] { partial[k] = static_cast<I>(fold_contiguous<I>(x + from, len, combining(r))); });
    }
  });
  const std::int64_t folded = reduce_lane<I>(partial.data(), blocks, 1, combining(r));
  if (r != IntReduce::Mean) return folded;
  return static_cast<std::int64_t>(static_cast<I>(folded)) / static_cast<std::int64_t>(n);
}

// Lanes along a dim that is not innermost (inner > 1) are columns: walking one down touches a
// line per element. Instead a task takes [outer, column chunk] and folds the len rows into a row
// of accumulators, each lane still in index order (the first extreme and its index stay the
// first), so the values are reduce_lane's.
template <class I, class O>
void reduce_columns(const I* x, O* o, const rules::DimSplit& s, IntReduce r) {
  constexpr std::size_t kChunk = 256;
  const std::size_t chunks = (s.inner + kChunk - 1) / kChunk;
  const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / std::max<std::size_t>(1, s.len * std::min(s.inner, kChunk)));
  parallel_range(s.outer * chunks, grain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t task = begin; task < end; ++task) {
      const std::size_t a = task / chunks, lo = (task % chunks) * kChunk;
      flex::run_loop([&] {
        // Locals, not the closure's references, so that the stores below cannot change them.
        const I* const base = x + a * s.len * s.inner + lo;
        O* const dst = o + a * s.inner + lo;
        const std::size_t w = std::min(kChunk, s.inner - lo), rows = s.len, inner = s.inner;
        I acc[kChunk];
        std::int64_t at[kChunk];
        switch (r) {
          case IntReduce::Sum:
          case IntReduce::Mean:
          case IntReduce::Prod: {
            const bool prod = r == IntReduce::Prod;
            for (std::size_t i = 0; i < w; ++i) acc[i] = prod ? I{1} : I{0};
            for (std::size_t k = 0; k < rows; ++k) {
              const I* row = base + k * inner;
              if (prod) for (std::size_t i = 0; i < w; ++i) acc[i] = wrapping_mul<I>(acc[i], row[i]);
              else for (std::size_t i = 0; i < w; ++i) acc[i] = wrapping_add<I>(acc[i], row[i]);
            }
            const auto len = static_cast<std::int64_t>(rows);
            for (std::size_t i = 0; i < w; ++i) {
              dst[i] = static_cast<O>(r == IntReduce::Mean ? static_cast<std::int64_t>(acc[i]) / len : static_cast<std::int64_t>(acc[i]));
            }
            return;
          }
          case IntReduce::Max:
          case IntReduce::Min:
          case IntReduce::MaxAbs: {
            const bool abs = r == IntReduce::MaxAbs, min = r == IntReduce::Min;
            for (std::size_t i = 0; i < w; ++i) acc[i] = abs ? wrapping_abs<I>(base[i]) : base[i];
            for (std::size_t k = 1; k < rows; ++k) {
              const I* row = base + k * inner;
              if (min) for (std::size_t i = 0; i < w; ++i) acc[i] = row[i] < acc[i] ? row[i] : acc[i];
              else if (abs) for (std::size_t i = 0; i < w; ++i) acc[i] = wrapping_abs<I>(row[i]) > acc[i] ? wrapping_abs<I>(row[i]) : acc[i];
              else for (std::size_t i = 0; i < w; ++i) acc[i] = row[i] > acc[i] ? row[i] : acc[i];
            }
            for (std::size_t i = 0; i < w; ++i) dst[i] = static_cast<O>(static_cast<std::int64_t>(acc[i]));
            return;
          }
          case IntReduce::ArgMax:
          case IntReduce::ArgMin: {
            const bool max = r == IntReduce::ArgMax;
            for (std::size_t i = 0; i < w; ++i) {
              acc[i] = base[i];
              at[i] = 0;
            }
            for (std::size_t k = 1; k < rows; ++k) {
              const I* row = base + k * inner;
              const auto kk = static_cast<std::int64_t>(k);
              for (std::size_t i = 0; i < w; ++i) {
                const bool better = max ? row[i] > acc[i] : row[i] < acc[i];
                acc[i] = better ? row[i] : acc[i];
                at[i] = better ? kk : at[i];
              }
            }
            for (std::size_t i = 0; i < w; ++i) dst[i] = static_cast<O>(at[i]);
            return;
          }
          case IntReduce::Any:
          case IntReduce::All: {
            const bool any = r == IntReduce::Any;
            for (std::size_t i = 0; i < w; ++i) acc[i] = any ? I{0} : I{1};
            // Every kCheck rows, stop once every lane is decided (all 1 for any, all 0 for all), as
            // the lane-by-lane scan stops at a lane's first deciding element.
            constexpr std::size_t kCheck = 8;
            for (std::size_t k0 = 0; k0 < rows; k0 += kCheck) {
              for (std::size_t k = k0; k < std::min(rows, k0 + kCheck); ++k) {
                const I* row = base + k * inner;
                if (any) for (std::size_t i = 0; i < w; ++i) acc[i] = static_cast<I>(acc[i] | static_cast<I>(row[i] != I{0}));
                else for (std::size_t i = 0; i < w; ++i) acc[i] = static_cast<I>(acc[i] & static_cast<I>(row[i] != I{0}));
              }
              I undecided = 0;
              for (std::size_t i = 0; i < w; ++i) undecided = static_cast<I>(undecided | static_cast<I>(acc[i] == (any ? I{0} : I{1})));
              if (undecided == I{0}) break;
            }
            for (std::size_t i = 0; i < w; ++i) dst[i] = static_cast<O>(acc[i] != I{0});
            return;
          }
        }
      });
    }
  });
}

FlexTensor int_reduce(const FlexTensor& tensor, const std::size_t* dim, IntReduce r, std::string_view name) {
  const Shape out_shape = rules::check_int_reduction(tensor.shape, tensor.dtype, dim, needs_an_element(r), name);
  const DType out_dtype = reduced_dtype(r, tensor.dtype);
  FlexTensor out = make_tensor(out_shape, out_dtype);
  with_int_type(storage_int_type(tensor.dtype), [&]<class I>(I) {
    with_int_type(storage_int_type(out_dtype), [&]<class O>(O) {
      const I* x = tensor.data<I>();
      O* o = out.mutable_data<O>();
      if (dim == nullptr) {
        o[0] = static_cast<O>(reduce_all<I>(x, tensor.num_elements(), r));
        return;
      }
      const rules::DimSplit s = rules::split_at_dim(tensor.shape, *dim);
      if (s.inner > 1 && s.len > 0) {
        reduce_columns<I, O>(x, o, s, r);
        return;
      }
      const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / std::max<std::size_t>(1, s.len));
      // inner == 1 (or an empty dim): each lane is one contiguous row.
      parallel_range(s.outer * s.inner, grain, [&](std::size_t begin, std::size_t end) {
        flex::run_loop([&] {
          const std::size_t len = s.len, first = begin, last = end;
          for (std::size_t lane = first; lane < last; ++lane) {
            o[lane] = static_cast<O>(len == 0 ? reduce_lane<I>(x, 0, 1, r) : fold_contiguous<I>(x + lane * len, len, r));
          }
        });
      });
    });
  });
  return out;
}

}  // namespace

#define CROSSGRAD_FLEX_REDUCE(name, how) \
  FlexTensor Flex::name(const FlexTensor& tensor) { return int_reduce(tensor, nullptr, IntReduce::how, #name); }
#define CROSSGRAD_FLEX_REDUCE_DIM(name, how) \
  FlexTensor Flex::name(const FlexTensor& tensor, std::size_t dim) { return int_reduce(tensor, &dim, IntReduce::how, #name); }
CROSSGRAD_FLEX_REDUCE(int_sum, Sum)
CROSSGRAD_FLEX_REDUCE_DIM(int_sum_dim, Sum)
CROSSGRAD_FLEX_REDUCE(int_prod, Prod)
CROSSGRAD_FLEX_REDUCE_DIM(int_prod_dim, Prod)
CROSSGRAD_FLEX_REDUCE(int_mean, Mean)
CROSSGRAD_FLEX_REDUCE_DIM(int_mean_dim, Mean)
CROSSGRAD_FLEX_REDUCE(int_max, Max)
CROSSGRAD_FLEX_REDUCE(int_min, Min)
CROSSGRAD_FLEX_REDUCE_DIM(int_max_dim, Max)
CROSSGRAD_FLEX_REDUCE_DIM(int_min_dim, Min)
CROSSGRAD_FLEX_REDUCE_DIM(int_argmax, ArgMax)
CROSSGRAD_FLEX_REDUCE_DIM(int_argmin, ArgMin)
CROSSGRAD_FLEX_REDUCE(int_any, Any)
CROSSGRAD_FLEX_REDUCE(int_all, All)
CROSSGRAD_FLEX_REDUCE(bool_any, Any)
CROSSGRAD_FLEX_REDUCE(bool_all, All)
CROSSGRAD_FLEX_REDUCE_DIM(int_any_dim, Any)
CROSSGRAD_FLEX_REDUCE_DIM(int_all_dim, All)
CROSSGRAD_FLEX_REDUCE_DIM(bool_any_dim, Any)
CROSSGRAD_FLEX_REDUCE_DIM(bool_all_dim, All)
CROSSGRAD_FLEX_REDUCE(int_max_abs, MaxAbs)
CROSSGRAD_FLEX_REDUCE_DIM(int_max_abs_dim, MaxAbs)
#undef CROSSGRAD_FLEX_REDUCE
#undef CROSSGRAD_FLEX_REDUCE_DIM

}  // namespace crossgrad::backends
