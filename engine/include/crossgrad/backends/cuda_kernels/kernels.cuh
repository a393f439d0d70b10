#pragma once
// Every kernel of the Cuda backend, as templates. Device code only: no CUDA runtime API, so that
// tests/unit/cuda_kernel_emulation_test.cpp can compile these same kernels as plain C++ and run
// them on the CPU (one OS thread per CUDA thread, a barrier for __syncthreads). The launchers
// live with their op families in the .cu files (engine/src/backends/cuda/).
//
// Not engine API: public (under engine/include) only so that test compiles this very code without
// including engine/src. Needs nvcc, or the emulation's definitions of __global__, threadIdx,
// __syncthreads, __shfl_down_sync and friends.
#include "kernel_support.cuh"

#include <limits>
#include <type_traits>

namespace crossgrad::backends::cuda_detail {

// ---- element-wise (launchers in map_kernels.cuh) ----------------------------------------------

// Elements per thread per step in the contiguous kernels: 16-byte loads for F32, 2x16 for F64.
inline constexpr int kPack = 4;

// y[i] = op(x[i]) for i < n. x and y are whole buffers (256-byte aligned), so packs are aligned.
template <class In, class Out, class Op>
__global__ void __launch_bounds__(kThreads) map_kernel(const In* __restrict__ x, Out* __restrict__ y,
                                                       std::size_t n, Op op) {
  const std::size_t packs = n / kPack;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const auto* xp = reinterpret_cast<const Pack<In, kPack>*>(x);
  auto* yp = reinterpret_cast<Pack<Out, kPack>*>(y);
  for (std::size_t p = first; p < packs; p += stride) {
    const Pack<In, kPack> a = xp[p];
    Pack<Out, kPack> b;
CROSSGRAD_UNROLL
    for (int w = 0; w < kPack; ++w) b.v[w] = op(a.v[w]);
    yp[p] = b;
  }
  // The last n % kPack elements, one per thread of the first few threads.
  const std::size_t tail = packs * kPack + first;
  if (tail < n) y[tail] = op(x[tail]);
}

// z[i] = op(x[i], y[i]) for i < n (same shapes, contiguous).
template <class T, class Op>
__global__ void __launch_bounds__(kThreads) zip_kernel(const T* __restrict__ x, const T* __restrict__ y,
                                                       T* __restrict__ z, std::size_t n, Op op) {
  const std::size_t packs = n / kPack;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const auto* xp = reinterpret_cast<const Pack<T, kPack>*>(x);
  const auto* yp = reinterpret_cast<const Pack<T, kPack>*>(y);
  auto* zp = reinterpret_cast<Pack<T, kPack>*>(z);
  for (std::size_t p = first; p < packs; p += stride) {
    const Pack<T, kPack> a = xp[p];
    const Pack<T, kPack> b = yp[p];
    Pack<T, kPack> c;
CROSSGRAD_UNROLL
    for (int w = 0; w < kPack; ++w) c.v[w] = op(a.v[w], b.v[w]);
    zp[p] = c;
  }
  const std::size_t tail = packs * kPack + first;
  if (tail < n) z[tail] = op(x[tail], y[tail]);
}

// z[i] = op(x[off0(i)], y[off1(i)]) for i < n: NumPy broadcasting through strides (0 on
// broadcast dims) over the collapsed output shape.
template <class T, class Index, class Op>
__global__ void __launch_bounds__(kThreads) broadcast_kernel(const T* __restrict__ x, const T* __restrict__ y,
                                                             T* __restrict__ z, Index n,
                                                             Strided<Index, 2> walk, Op op) {
  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    Index off[2];
    walk.offsets(i, off);
    z[i] = op(x[off[0]], y[off[1]]);
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads) fill_kernel(T* __restrict__ y, std::size_t n, T value) {
  const std::size_t packs = n / kPack;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  auto* yp = reinterpret_cast<Pack<T, kPack>*>(y);
  Pack<T, kPack> v;
CROSSGRAD_UNROLL
  for (int w = 0; w < kPack; ++w) v.v[w] = value;
  for (std::size_t p = first; p < packs; p += stride) yp[p] = v;
  const std::size_t tail = packs * kPack + first;
  if (tail < n) y[tail] = value;
}

// ---- swap_dims (layout.cu) -------------------------------------------------------------------

// out[i] = in[offset(i)]: the output is written contiguously, the input read through its strides
// as seen from the output's (collapsed) shape.
template <class T, class Index>
__global__ void __launch_bounds__(cuda_detail::kThreads) gather_kernel(const T* __restrict__ in,
                                                                       T* __restrict__ out, Index n,
                                                                       Strided<Index, 1> walk) {
  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    Index off[1];
    walk.offsets(i, off);
    out[i] = in[off[0]];
  }
}

// ---- reductions (reduce.cu) ------------------------------------------------------------------

// Pass 1 of a full reduction: each block sums a grid-strided share into partial[blockIdx.x].
template <class T>
__global__ void __launch_bounds__(kThreads) sum_partial_kernel(const T* __restrict__ x, std::size_t n,
                                                               double* __restrict__ partial) {
  const std::size_t packs = n / kPack;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const auto* xp = reinterpret_cast<const Pack<T, kPack>*>(x);
  double acc = 0.0;
  for (std::size_t p = first; p < packs; p += stride) {
    const Pack<T, kPack> a = xp[p];
CROSSGRAD_UNROLL
    for (int w = 0; w < kPack; ++w) acc += static_cast<double>(a.v[w]);
  }
  const std::size_t tail = packs * kPack + first;
  if (tail < n) acc += static_cast<double>(x[tail]);
  acc = block_sum(acc);
  if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

// Pass 2: one block adds the partials and writes the [1]-shaped result.
template <class T>
__global__ void __launch_bounds__(kThreads) sum_final_kernel(const double* __restrict__ partial,
                                                             unsigned count, T* __restrict__ out,
                                                             std::size_t n, bool mean) {
  double acc = 0.0;
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x) acc += partial[i];
  acc = block_sum(acc);
  if (threadIdx.x == 0) {
    if (mean) acc /= static_cast<double>(n);
    out[0] = static_cast<T>(acc);
  }
}

// Along a dim whose elements are contiguous (inner == 1): one block per row of `len` elements.
template <class T>
__global__ void rows_kernel(const T* __restrict__ x, T* __restrict__ out, std::size_t rows,
                            std::size_t len, bool mean) {
  for (std::size_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* p = x + row * len;
    double acc = 0.0;
    for (std::size_t j = threadIdx.x; j < len; j += blockDim.x) acc += static_cast<double>(p[j]);
    acc = block_sum(acc);
    if (threadIdx.x == 0) {
      if (mean) acc /= static_cast<double>(len);
      out[row] = static_cast<T>(acc);
    }
  }
}

// Along a strided dim (inner > 1): a block of 32 x 8 threads owns 32 consecutive outputs; the 8
// rows of threads split the reduced dim and meet in shared memory. Reads are coalesced along inner.
constexpr int kColsX = 32;
constexpr int kColsY = 8;

template <class T>
__global__ void __launch_bounds__(kColsX * kColsY) cols_kernel(const T* __restrict__ x, T* __restrict__ out,
                                                               std::size_t total, std::size_t len,
                                                               std::size_t inner, bool mean) {
  __shared__ double part[kColsY][kColsX + 1];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  for (std::size_t base = static_cast<std::size_t>(blockIdx.x) * kColsX; base < total;
       base += static_cast<std::size_t>(gridDim.x) * kColsX) {
    const std::size_t t = base + tx;
    double acc = 0.0;
    if (t < total) {
      const std::size_t o = t / inner;
      const std::size_t j = t - o * inner;
      const T* p = x + o * len * inner + j;
      for (std::size_t r = ty; r < len; r += kColsY) acc += static_cast<double>(p[r * inner]);
    }
    part[ty][tx] = acc;
    __syncthreads();
    if (ty == 0 && t < total) {
      double s = 0.0;
CROSSGRAD_UNROLL
      for (int k = 0; k < kColsY; ++k) s += part[k][tx];
      if (mean) s /= static_cast<double>(len);
      out[t] = static_cast<T>(s);
    }
    __syncthreads();
  }
}

// ---- quantization (quantize.cu) --------------------------------------------------------------

constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();

__device__ inline bool finite(float x) { return isfinite(x); }
__device__ inline bool finite(double x) { return isfinite(x); }

// Block-wide max of `mx` and min of `first` (every thread must call; valid in thread 0).
template <class T>
__device__ void block_max_min(T& mx, std::uint64_t& first) {
  __shared__ T max_part[32];
  __shared__ std::uint64_t min_part[32];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  for (int offset = 16; offset > 0; offset /= 2) {
    const T m = __shfl_down_sync(0xffffffffu, mx, offset);
    const std::uint64_t f = __shfl_down_sync(0xffffffffu, first, offset);
    mx = m > mx ? m : mx;
    first = f < first ? f : first;
  }
  if (lane == 0) {
    max_part[warp] = mx;
    min_part[warp] = first;
  }
  __syncthreads();
  const int warps = static_cast<int>(blockDim.x) / 32;
  const int tid = static_cast<int>(threadIdx.x);
  mx = tid < warps ? max_part[tid] : T(0);
  first = tid < warps ? min_part[tid] : kNone;
  if (warp == 0) {
    for (int offset = 16; offset > 0; offset /= 2) {
      const T m = __shfl_down_sync(0xffffffffu, mx, offset);
      const std::uint64_t f = __shfl_down_sync(0xffffffffu, first, offset);
      mx = m > mx ? m : mx;
      first = f < first ? f : first;
    }
  }
}

// Pass 1: per block, max |x| over finite elements and the index of the first non-finite one.
template <class T>
__global__ void __launch_bounds__(kThreads) stats_partial_kernel(const T* __restrict__ x, std::size_t n,
                                                                 T* __restrict__ max_out,
                                                                 std::uint64_t* __restrict__ first_out) {
  T mx = T(0);
  std::uint64_t first = kNone;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const T v = x[i];
    if (finite(v)) {
      const T a = v < T(0) ? -v : v;
      mx = a > mx ? a : mx;
    } else if (i < first) {
      first = i;
    }
  }
  block_max_min(mx, first);
  if (threadIdx.x == 0) {
    max_out[blockIdx.x] = mx;
    first_out[blockIdx.x] = first;
  }
}

// Pass 2: one block combines the partials into result_max[0] / result_first[0].
template <class T>
__global__ void __launch_bounds__(kThreads) stats_final_kernel(const T* __restrict__ max_in,
                                                               const std::uint64_t* __restrict__ first_in,
                                                               unsigned count, T* __restrict__ result_max,
                                                               std::uint64_t* __restrict__ result_first) {
  T mx = T(0);
  std::uint64_t first = kNone;
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x) {
    mx = max_in[i] > mx ? max_in[i] : mx;
    first = first_in[i] < first ? first_in[i] : first;
  }
  block_max_min(mx, first);
  if (threadIdx.x == 0) {
    result_max[0] = mx;
    result_first[0] = first;
  }
}

// ---- matmul (matmul.cu) ----------------------------------------------------------------------

constexpr int kBM = 128;
constexpr int kBN = 128;
constexpr int kBK = 8;
constexpr int kPad = 4;  // As rows of kBM + 4: the transposed stores of A do not conflict
constexpr int kGemmThreads = 256;

// Two resident blocks per SM for F32 (at most 128 registers a thread); F64's 8 x 8 doubles need
// more, so one.
template <class T>
constexpr int kGemmMinBlocks = sizeof(T) == 4 ? 2 : 1;

template <class T, bool kVec>
__global__ void __launch_bounds__(kGemmThreads, kGemmMinBlocks<T>)
    gemm_kernel(const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ C, int M, int N, int K,
                int tiles_m, int tiles_n, Strided<std::uint64_t, 2> batches) {
  __shared__ __align__(32) T As[2][kBK][kBM + kPad];
  __shared__ __align__(32) T Bs[2][kBK][kBN];

  // One block per (batch, row tile, column tile), column tiles fastest so that neighbouring
  // blocks share their A panel in L2.
  unsigned tile = blockIdx.x;
  const int col0 = static_cast<int>(tile % static_cast<unsigned>(tiles_n)) * kBN;
  tile /= static_cast<unsigned>(tiles_n);
  const int row0 = static_cast<int>(tile % static_cast<unsigned>(tiles_m)) * kBM;
  const std::uint64_t batch = tile / static_cast<unsigned>(tiles_m);
  std::uint64_t off[2];
  batches.offsets(batch, off);
  const T* Ab = A + off[0] * static_cast<std::uint64_t>(M) * static_cast<std::uint64_t>(K);
  const T* Bb = B + off[1] * static_cast<std::uint64_t>(K) * static_cast<std::uint64_t>(N);

  const int tid = static_cast<int>(threadIdx.x);
  const int tx = tid % 16;  // column group of this thread's 8 x 8 block
  const int ty = tid / 16;  // row group
  const int a_row = tid / 2;        // A tile: 128 rows x 8 k, 4 consecutive k per thread
  const int a_col = (tid % 2) * 4;
  const int b_row = tid / 32;       // B tile: 8 k x 128 columns, 4 consecutive columns per thread
  const int b_col = (tid % 32) * 4;
  const int num_k = (K + kBK - 1) / kBK;

  T acc[8][8];
CROSSGRAD_UNROLL
  for (int i = 0; i < 8; ++i)
CROSSGRAD_UNROLL
    for (int j = 0; j < 8; ++j) acc[i][j] = T(0);

  T a_ld[4];
  T b_ld[4];
  // Loads run over k slices in order 0, 1, 2, ...: the sources advance by one slice per call.
  const bool a_ok = row0 + a_row < M;
  const int bc = col0 + b_col;
  const T* a_src = Ab + static_cast<long long>(a_ok ? row0 + a_row : 0) * K + a_col;
  const T* b_src = Bb + static_cast<long long>(b_row) * N + bc;
  int k_next = 0;  // first k of the slice the next load() fetches
  auto load = [&]() {
    const bool b_in = k_next + b_row < K;
    if constexpr (kVec) {
      // k % 4 == 0 and n % 4 == 0: a 4-wide chunk is wholly inside or wholly outside.
      if (a_ok && k_next + a_col < K) {
        const Pack<T, 4> v = *reinterpret_cast<const Pack<T, 4>*>(a_src);
CROSSGRAD_UNROLL
        for (int j = 0; j < 4; ++j) a_ld[j] = v.v[j];
      } else {
CROSSGRAD_UNROLL
        for (int j = 0; j < 4; ++j) a_ld[j] = T(0);
      }
      if (b_in && bc < N) {
        const Pack<T, 4> v = *reinterpret_cast<const Pack<T, 4>*>(b_src);
CROSSGRAD_UNROLL
        for (int j = 0; j < 4; ++j) b_ld[j] = v.v[j];
      } else {
CROSSGRAD_UNROLL
        for (int j = 0; j < 4; ++j) b_ld[j] = T(0);
      }
    } else {
CROSSGRAD_UNROLL
      for (int j = 0; j < 4; ++j) {
        a_ld[j] = (a_ok && k_next + a_col + j < K) ? a_src[j] : T(0);
        b_ld[j] = (b_in && bc + j < N) ? b_src[j] : T(0);
      }
    }
    k_next += kBK;
    a_src += kBK;
    b_src += static_cast<long long>(kBK) * N;
  };
  auto store = [&](int buf) {
CROSSGRAD_UNROLL
    for (int j = 0; j < 4; ++j) As[buf][a_col + j][a_row] = a_ld[j];
    Pack<T, 4> v;
CROSSGRAD_UNROLL
    for (int j = 0; j < 4; ++j) v.v[j] = b_ld[j];
    *reinterpret_cast<Pack<T, 4>*>(&Bs[buf][b_row][b_col]) = v;
  };

  if (num_k > 0) {
    load();
    store(0);
  }
  __syncthreads();
  for (int kt = 0; kt < num_k; ++kt) {
    const int cur = kt & 1;
    // Fetch the next slice from global memory while this one is multiplied.
    if (kt + 1 < num_k) load();
CROSSGRAD_UNROLL
    for (int kk = 0; kk < kBK; ++kk) {
      const Pack<T, 4> a0 = *reinterpret_cast<const Pack<T, 4>*>(&As[cur][kk][ty * 4]);
      const Pack<T, 4> a1 = *reinterpret_cast<const Pack<T, 4>*>(&As[cur][kk][64 + ty * 4]);
      const Pack<T, 4> b0 = *reinterpret_cast<const Pack<T, 4>*>(&Bs[cur][kk][tx * 4]);
      const Pack<T, 4> b1 = *reinterpret_cast<const Pack<T, 4>*>(&Bs[cur][kk][64 + tx * 4]);
      T a[8];
      T b[8];
CROSSGRAD_UNROLL
      for (int j = 0; j < 4; ++j) {
        a[j] = a0.v[j];
        a[4 + j] = a1.v[j];
        b[j] = b0.v[j];
        b[4 + j] = b1.v[j];
      }
CROSSGRAD_UNROLL
      for (int i = 0; i < 8; ++i)
CROSSGRAD_UNROLL
        for (int j = 0; j < 8; ++j) acc[i][j] += a[i] * b[j];
    }
    // The other buffer was last read in the previous iteration, before its closing barrier.
    if (kt + 1 < num_k) store(cur ^ 1);
    __syncthreads();
  }

  T* Cb = C + batch * static_cast<std::uint64_t>(M) * static_cast<std::uint64_t>(N);
CROSSGRAD_UNROLL
  for (int i = 0; i < 8; ++i) {
    const int r = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
    if (r >= M) continue;
    T* c_row = Cb + static_cast<long long>(r) * N;
CROSSGRAD_UNROLL
    for (int half = 0; half < 2; ++half) {
      const int c = col0 + half * 64 + tx * 4;
      if constexpr (kVec) {
        if (c < N) {
          Pack<T, 4> v;
CROSSGRAD_UNROLL
          for (int j = 0; j < 4; ++j) v.v[j] = acc[i][half * 4 + j];
          *reinterpret_cast<Pack<T, 4>*>(c_row + c) = v;
        }
      } else {
CROSSGRAD_UNROLL
        for (int j = 0; j < 4; ++j) {
          if (c + j < N) c_row[c + j] = acc[i][half * 4 + j];
        }
      }
    }
  }
}

__device__ inline float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ inline double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ inline float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ inline double add_rn(double a, double b) { return __dadd_rn(a, b); }
// int_matmul runs this kernel on the unsigned type of the width: products and sums wrap modulo
// 2^width (defined in unsigned arithmetic; narrow types promote to int, where 255 * 255 fits).
template <class U>
__device__ inline U add_rn(U a, U b) requires std::is_unsigned_v<U> { return static_cast<U>(a + b); }
template <class U>
__device__ inline U mul_rn(U a, U b) requires std::is_unsigned_v<U> { return static_cast<U>(a * b); }

template <class T>
__global__ void __launch_bounds__(cuda_detail::kThreads)
    small_gemm_kernel(const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ C, std::uint64_t M,
                      std::uint64_t N, std::uint64_t K, std::uint64_t total, Strided<std::uint64_t, 2> batches) {
  const std::uint64_t mn = M * N;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += stride) {
    const std::uint64_t batch = t / mn;
    const std::uint64_t rem = t - batch * mn;
    const std::uint64_t i = rem / N;
    const std::uint64_t j = rem - i * N;
    std::uint64_t off[2];
    batches.offsets(batch, off);
    const T* a = A + off[0] * M * K + i * K;
    const T* b = B + off[1] * K * N + j;
    T acc = T(0);
    for (std::uint64_t p = 0; p < K; ++p) acc = add_rn(acc, mul_rn(a[p], b[p * N]));
    C[t] = acc;
  }
}

}  // namespace crossgrad::backends::cuda_detail
