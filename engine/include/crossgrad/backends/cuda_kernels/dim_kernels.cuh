#pragma once
// Device kernels of the Cuda backend's indexing, comparison and along-a-dim ops (float_greater /
// lower / equal, max_dim, argmax, min_dim, argmin, max_abs_dim, prod_dim, any_dim, all_dim and
// their whole-tensor forms, softmax, log_softmax, cumsum, cumprod, cummin, cummax, flip, cat,
// select, select_assign / select_add, gather, scatter_add / scatter, mask_where, mask_fill, argsort,
// argtopk); the launchers live in engine/src/backends/cuda (compare.cu, reduce_max.cu, softmax.cu,
// scan.cu, indexing.cu, mask.cu, sort.cu).
// slice, permute and expand reuse gather_kernel (kernels.cuh).
//
// Like kernels.cuh: device code only, no CUDA runtime API and no block-level synchronisation, so
// that tests/unit/cuda_dim_kernels_emulation_test.cpp compiles these very templates as plain C++
// and runs them on the CPU. Not engine API.
//
// Note [Along-a-dim layout]
// A contiguous tensor seen along `dim` is [outer, len, inner] (outer: the product of the dims
// before dim, inner: after). Slice (o, i) starts at o * len * inner + i and steps by inner. The
// along-a-dim kernels give one thread to each slice and scan it in index order, as the spec's
// sequential formulas do (first NaN, first maximum, sums in index order), so results are
// bit-identical to NdArray wherever the arithmetic is IEEE-exact. Consecutive threads own
// consecutive i, so reads are coalesced when inner > 1.
#include "kernel_support.cuh"

#include <crossgrad/core/indexing_update.hpp>
#include <crossgrad/core/int_arithmetic.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace crossgrad::backends::cuda_detail {

// Host side of Note [Along-a-dim layout]: outer, len and inner of `dims` around `dim` (< rank).
struct DimLayout {
  std::size_t outer = 1;
  std::size_t len = 0;
  std::size_t inner = 1;
};

inline DimLayout dim_layout(const std::vector<std::size_t>& dims, std::size_t dim) {
  DimLayout l;
  for (std::size_t d = 0; d < dim; ++d) l.outer *= dims[d];
  l.len = dims[dim];
  for (std::size_t d = dim + 1; d < dims.size(); ++d) l.inner *= dims[d];
  return l;
}

// float_flip's shape without its size-1 dims (flipping those moves nothing), passed by value to
// flip_kernel; kMaxDims bounds it for every tensor the backend can hold (kernel_support.cuh).
struct FlipShape {
  int rank = 0;
  std::uint64_t dims[kMaxDims] = {};
  bool flipped[kMaxDims] = {};
};

// ---- comparisons (compare.cu) -------------------------------------------------------------------

// z[i] = op(x[off0(i)], y[off1(i)]) as one byte 0/1 (Bool storage), NumPy broadcasting through
// strides over the collapsed output shape (as broadcast_kernel, with a byte output).
template <class T, class Index, class Op>
__global__ void __launch_bounds__(kThreads) compare_kernel(const T* __restrict__ x, const T* __restrict__ y,
                                                           std::uint8_t* __restrict__ z, Index n,
                                                           Strided<Index, 2> walk, Op op) {
  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    Index off[2];
    walk.offsets(i, off);
    z[i] = op(x[off[0]], y[off[1]]) ? 1 : 0;
  }
}

// ---- mask_where / mask_fill (mask.cu) -----------------------------------------------------------

// out[i] = m[off1(i)] ? (value ? value[off2(i)] : fill) : x[off0(i)], NumPy broadcasting through
// strides over the collapsed output shape; the chosen element's bits are copied.
template <class T, class Index>
__global__ void __launch_bounds__(kThreads) mask_kernel(const T* __restrict__ x, const std::uint8_t* __restrict__ m,
                                                        const T* __restrict__ value, T fill, T* __restrict__ out,
                                                        Index n, Strided<Index, 3> walk) {
  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    Index off[3];
    walk.offsets(i, off);
    out[i] = m[off[1]] != 0 ? (value != nullptr ? value[off[2]] : fill) : x[off[0]];
  }
}

// ---- max_dim / argmax / min_dim / argmin (reduce_max.cu) ---------------------------------------

// The spec's scan: the first NaN if any, else the first maximum (kMin: minimum) in index order (so
// -0 vs +0 ties keep the earlier one). `x != x` is isnan without a math-library call (no fast-math
// here). Writes the kept value to values[t] and its index along dim to indices[t]; either may be null.
template <class T, bool kMin = false>
__global__ void __launch_bounds__(kThreads) max_dim_kernel(const T* __restrict__ x, T* __restrict__ values,
                                                           std::int64_t* __restrict__ indices,
                                                           std::uint64_t slices, std::uint64_t len,
                                                           std::uint64_t inner) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < slices;
       t += stride) {
    const std::uint64_t o = t / inner;
    const std::uint64_t i = t - o * inner;
    const T* p = x + o * len * inner + i;
    T best = p[0];
    std::uint64_t at = 0;
    for (std::uint64_t r = 1; r < len; ++r) {
      const T v = p[r * inner];
      if (!(best != best) && (v != v || (kMin ? v < best : v > best))) {
        best = v;
        at = r;
      }
    }
    if (values != nullptr) values[t] = best;
    if (indices != nullptr) indices[t] = static_cast<std::int64_t>(at);
  }
}

// |x| with the sign bit cleared (also of -0 and NaN), as std::fabs (the emulation test supplies
// the C library's).
__device__ inline float dim_abs(float x) { return fabsf(x); }
__device__ inline double dim_abs(double x) { return fabs(x); }

// max_abs_dim / max_abs: the max scan of |x| (the first NaN, else the first of the equal |x|, so
// -2 before 2 keeps -2's index), writing |kept| to values[t].
template <class T>
__global__ void __launch_bounds__(kThreads) max_abs_dim_kernel(const T* __restrict__ x, T* __restrict__ values,
                                                               std::uint64_t slices, std::uint64_t len,
                                                               std::uint64_t inner) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < slices;
       t += stride) {
    const std::uint64_t o = t / inner;
    const std::uint64_t i = t - o * inner;
    const T* p = x + o * len * inner + i;
    T best = dim_abs(p[0]);
    for (std::uint64_t r = 1; r < len; ++r) {
      const T v = dim_abs(p[r * inner]);
      if (!(best != best) && (v != v || v > best)) best = v;
    }
    values[t] = best;
  }
}

// ---- prod_dim / prod, any / all (reduce_max.cu) ------------------------------------------------

// The product of each slice in double from 1, in index order (as NdArray: where an intermediate
// overflows depends on the order), rounded once to T. len may be 0 (the product is 1). A multiply
// alone is never contracted, so the result is bit-identical to NdArray's.
template <class T>
__global__ void __launch_bounds__(kThreads) prod_dim_kernel(const T* __restrict__ x, T* __restrict__ values,
                                                            std::uint64_t slices, std::uint64_t len,
                                                            std::uint64_t inner) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < slices;
       t += stride) {
    const std::uint64_t o = t / inner;
    const std::uint64_t i = t - o * inner;
    const T* p = x + o * len * inner + i;
    double acc = 1.0;
    for (std::uint64_t r = 0; r < len; ++r) acc *= static_cast<double>(p[r * inner]);
    values[t] = static_cast<T>(acc);
  }
}

// any (kAll false) / all (kAll true) of x != 0 over each slice as one byte 0/1; NaN != 0. An
// empty slice gives false / true.
template <class T, bool kAll>
__global__ void __launch_bounds__(kThreads) truth_dim_kernel(const T* __restrict__ x, std::uint8_t* __restrict__ out,
                                                             std::uint64_t slices, std::uint64_t len,
                                                             std::uint64_t inner) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < slices;
       t += stride) {
    const std::uint64_t o = t / inner;
    const std::uint64_t i = t - o * inner;
    const T* p = x + o * len * inner + i;
    bool acc = kAll;
    for (std::uint64_t r = 0; r < len && acc == kAll; ++r) acc = p[r * inner] != T(0);
    out[t] = acc ? 1 : 0;
  }
}

// The int reductions (int_reduce.cu): each slice folded by the rule every backend shares
// (core/int_arithmetic.hpp reduce_lane), one thread per slice; a whole-tensor reduction is one
// slice. O is the result's element type (I, int64 indices or Bool bytes).
template <class I, class O>
__global__ void __launch_bounds__(kThreads) int_reduce_kernel(const I* __restrict__ x, O* __restrict__ out,
                                                              std::uint64_t slices, std::uint64_t len,
                                                              std::uint64_t inner, IntReduce r) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < slices;
       t += stride) {
    const std::uint64_t o = t / inner;
    const std::uint64_t i = t - o * inner;
    out[t] = static_cast<O>(reduce_lane<I>(x + o * len * inner + i, len, inner, r));
  }
}

// ---- softmax / log_softmax (softmax.cu) ---------------------------------------------------------

// The exponential and logarithm in T (expf/logf for float: CUDA's precise versions, within 2 ulp;
// the emulation test supplies host overloads).
__device__ inline float dim_exp(float x) { return expf(x); }
__device__ inline double dim_exp(double x) { return exp(x); }
__device__ inline float dim_log(float x) { return logf(x); }
__device__ inline double dim_log(double x) { return log(x); }

// Along each slice, in T: m = the max scan above (NaN if any element is NaN; -inf when all are
// -inf, and then every x - m is NaN, as on the CPU), s = sum of exp(x - m) in index order;
// softmax y = exp(x - m) / s, log_softmax y = (x - m) - log(s). len > 0 (no slice otherwise).
template <class T, bool kLog>
__global__ void __launch_bounds__(kThreads) softmax_kernel(const T* __restrict__ x, T* __restrict__ y,
                                                           std::uint64_t slices, std::uint64_t len,
                                                           std::uint64_t inner) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < slices;
       t += stride) {
    const std::uint64_t o = t / inner;
    const std::uint64_t i = t - o * inner;
    const std::uint64_t base = o * len * inner + i;
    const T* p = x + base;
    T* q = y + base;
    T m = p[0];
    for (std::uint64_t r = 1; r < len; ++r) {
      const T v = p[r * inner];
      if (!(m != m) && (v != v || v > m)) m = v;
    }
    T s = T(0);
    if constexpr (kLog) {
      for (std::uint64_t r = 0; r < len; ++r) s += dim_exp(p[r * inner] - m);
      const T log_s = dim_log(s);
      for (std::uint64_t r = 0; r < len; ++r) q[r * inner] = (p[r * inner] - m) - log_s;
    } else {
      // y holds the exponentials until s is known (each is computed once, like the CPU's e_i).
      for (std::uint64_t r = 0; r < len; ++r) {
        const T e = dim_exp(p[r * inner] - m);
        q[r * inner] = e;
        s += e;
      }
      for (std::uint64_t r = 0; r < len; ++r) q[r * inner] = q[r * inner] / s;
    }
  }
}

// ---- cumsum / cumprod / cummin / cummax (scan.cu) ----------------------------------------------

enum class ScanStep { Sum, Prod, Min, Max };

// One step of a scan: NdArray's (a running extreme takes v on a tie or a NaN; a NaN extreme stays).
// Ints (int_cumsum ...): the sum and product wrap (core/int_arithmetic.hpp), the extremes keep
// the first of equal values (the same value).
template <ScanStep kStep, class T>
__host__ __device__ inline T scan_step(T acc, T v) {
  if constexpr (std::is_integral_v<T>) {
    if constexpr (kStep == ScanStep::Sum) return wrapping_add<T>(acc, v);
    if constexpr (kStep == ScanStep::Prod) return wrapping_mul<T>(acc, v);
    if constexpr (kStep == ScanStep::Min) return v < acc ? v : acc;
    if constexpr (kStep == ScanStep::Max) return v > acc ? v : acc;
  } else {
    if constexpr (kStep == ScanStep::Sum) return acc + v;
    if constexpr (kStep == ScanStep::Prod) return acc * v;
    if constexpr (kStep == ScanStep::Min) return v <= acc || v != v ? v : acc;
    if constexpr (kStep == ScanStep::Max) return v >= acc || v != v ? v : acc;
  }
}

// Along each slice, in T and index order: y_0 = x_0, y_r = scan_step(y_{r-1}, x_r), the NdArray
// loop's operations in its order, so the bits are NdArray's. len > 0.
template <class T, ScanStep kStep>
__global__ void __launch_bounds__(kThreads) scan_kernel(const T* __restrict__ x, T* __restrict__ y,
                                                        std::uint64_t slices, std::uint64_t len,
                                                        std::uint64_t inner) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < slices;
       t += stride) {
    const std::uint64_t o = t / inner;
    const std::uint64_t i = t - o * inner;
    const std::uint64_t base = o * len * inner + i;
    T acc = x[base];
    y[base] = acc;
    for (std::uint64_t r = 1; r < len; ++r) {
      acc = scan_step<kStep>(acc, x[base + r * inner]);
      y[base + r * inner] = acc;
    }
  }
}

// ---- flip (layout.cu) ---------------------------------------------------------------------------

// y[t] = x[the offset of t's coordinates with every flipped dim's c replaced by size - 1 - c].
// Elements move as unsigned integers U of their size, so every bit pattern is kept.
template <class U>
__global__ void __launch_bounds__(kThreads) flip_kernel(const U* __restrict__ x, U* __restrict__ y, std::uint64_t n,
                                                        FlipShape shape) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += stride) {
    std::uint64_t rest = t, from = 0, step = 1;
    for (int d = shape.rank - 1; d >= 0; --d) {
      const std::uint64_t size = shape.dims[d];
      const std::uint64_t c = rest % size;
      rest /= size;
      from += (shape.flipped[d] ? size - 1 - c : c) * step;
      step *= size;
    }
    y[t] = x[from];
  }
}

// ---- cat (indexing.cu) --------------------------------------------------------------------------

// One piece of a cat: the piece is [outer, block] contiguous (block = its len * inner), the output
// rows are `row` elements long (total len * inner) and dst already points at the piece's first
// column. dst[o * row + r] = src[o * block + r].
template <class T>
__global__ void __launch_bounds__(kThreads) cat_piece_kernel(const T* __restrict__ src, T* __restrict__ dst,
                                                             std::uint64_t n, std::uint64_t block,
                                                             std::uint64_t row) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += stride) {
    const std::uint64_t o = t / block;
    const std::uint64_t r = t - o * block;
    dst[o * row + r] = src[t];
  }
}

// ---- select / select_assign (indexing.cu) -------------------------------------------------------

// out is [outer, k, inner]: out[o, j, i] = x[o, index[j], i]. The indices were validated on the
// host (0 <= index[j] < len) before the launch.
template <class T>
__global__ void __launch_bounds__(kThreads) select_kernel(const T* __restrict__ x, const std::int64_t* __restrict__ index,
                                                          T* __restrict__ out, std::uint64_t n, std::uint64_t k,
                                                          std::uint64_t len, std::uint64_t inner) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += stride) {
    const std::uint64_t i = t % inner;
    const std::uint64_t oj = t / inner;
    const std::uint64_t o = oj / k;
    const std::uint64_t j = oj - o * k;
    out[t] = x[(o * len + static_cast<std::uint64_t>(index[j])) * inner + i];
  }
}

// out = x, then out[o, index[j], i] += values[o, j, i] for j = 0..k-1 in order. Without atomics:
// each thread owns one output element (o, r, i) and adds the values of the j with index[j] == r,
// in increasing j. Those j are given in CSR form, built on the host: the j of position r are
// js[first[r] .. first[r + 1]), ascending. So every element sees exactly the additions of the
// sequential loop, in its order: bit-identical to it. Update is Add (ints wrap), or Max for the
// Bool bytes of bool_select_or.
template <class T, IndexingUpdateOp Update = IndexingUpdateOp::Add>
__global__ void __launch_bounds__(kThreads) select_assign_kernel(const T* __restrict__ x, const T* __restrict__ values,
                                                                 const std::int64_t* __restrict__ first,
                                                                 const std::int64_t* __restrict__ js,
                                                                 T* __restrict__ out, std::uint64_t n, std::uint64_t k,
                                                                 std::uint64_t len, std::uint64_t inner) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += stride) {
    const std::uint64_t i = t % inner;
    const std::uint64_t orow = t / inner;
    const std::uint64_t o = orow / len;
    const std::uint64_t r = orow - o * len;
    T acc = x[t];
    const std::int64_t end = first[r + 1];
    for (std::int64_t p = first[r]; p < end; ++p) {
      acc = apply_update(Update, acc, values[(o * k + static_cast<std::uint64_t>(js[p])) * inner + i]);
    }
    out[t] = acc;
  }
}

// ---- gather / scatter_add / scatter (indexing.cu) ---------------------------------------------------------

// out and index are [outer, k, inner], x is [outer, len, inner]: out[o, j, i] = x[o, index[o, j, i], i].
// The indices were validated on the host (0 <= index < len) before the launch.
template <class T>
__global__ void __launch_bounds__(kThreads) gather_dim_kernel(const T* __restrict__ x,
                                                              const std::int64_t* __restrict__ index,
                                                              T* __restrict__ out, std::uint64_t n, std::uint64_t k,
                                                              std::uint64_t len, std::uint64_t inner) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += stride) {
    const std::uint64_t i = t % inner;
    const std::uint64_t o = t / inner / k;
    out[t] = x[(o * len + static_cast<std::uint64_t>(index[t])) * inner + i];
  }
}

// out already holds x; then out[o, index[o, j, i], i] = update(out[.], values[o, j, i]) for
// j = 0..k-1 in order (scatter_add: Add). Without atomics: one thread per lane (o, i), the only one
// that writes that lane of out, walking j in increasing order, so every element sees the
// sequential loop's updates in its order (and the last Assign wins). The update is a template
// parameter: no branch on it in the loop.
template <class T, IndexingUpdateOp Update>
__global__ void __launch_bounds__(kThreads) scatter_kernel(const T* __restrict__ values,
                                                           const std::int64_t* __restrict__ index,
                                                           T* __restrict__ out, std::uint64_t lanes,
                                                           std::uint64_t k, std::uint64_t len,
                                                           std::uint64_t inner) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < lanes;
       t += stride) {
    const std::uint64_t o = t / inner;
    const std::uint64_t i = t - o * inner;
    T* lane = out + o * len * inner + i;
    for (std::uint64_t j = 0; j < k; ++j) {
      const std::uint64_t at = (o * k + j) * inner + i;
      T& target = lane[static_cast<std::uint64_t>(index[at]) * inner];
      target = apply_update(Update, target, values[at]);
    }
  }
}

// ---- argsort / argtopk (sort.cu) ----------------------------------------------------------------

// host::sorts_before's order on the device (host_formulas.hpp): NaN after +inf ascending, before
// it descending; NaNs equal, -0 equal to +0.
template <class T>
__host__ __device__ inline bool sorts_before(T a, T b, bool descending) {
  if constexpr (std::is_integral_v<T>) {
    return descending ? a > b : a < b;  // int_argsort: no NaN
  } else {
    const bool a_nan = a != a, b_nan = b != b;
    if (descending) return !b_nan && (a_nan || a > b);
    return !a_nan && (b_nan || a < b);
  }
}

// x is [outer, len, inner], out [outer, k, inner]. One thread per element x[o, r, i]: its place in
// the stable order of its lane is the number of elements that sort before it, or equal and
// earlier; a place below k writes r there. Every place is written once, no synchronisation; the
// work is len per element (quadratic in the lane: meant for the short lanes of this harness, not
// a GPU sort of long ones).
template <class T>
__global__ void __launch_bounds__(kThreads) rank_sort_kernel(const T* __restrict__ x, std::int64_t* __restrict__ out,
                                                             std::uint64_t n, std::uint64_t len, std::uint64_t inner,
                                                             std::uint64_t k, bool descending) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += stride) {
    const std::uint64_t i = t % inner;
    const std::uint64_t r = t / inner % len;
    const std::uint64_t o = t / inner / len;
    const T* lane = x + o * len * inner + i;
    const T v = lane[r * inner];
    std::uint64_t place = 0;
    for (std::uint64_t s = 0; s < len; ++s) {
      const T w = lane[s * inner];
      if (sorts_before(w, v, descending) || (s < r && !sorts_before(v, w, descending))) ++place;
    }
    if (place < k) out[(o * k + place) * inner + i] = static_cast<std::int64_t>(r);
  }
}

}  // namespace crossgrad::backends::cuda_detail
