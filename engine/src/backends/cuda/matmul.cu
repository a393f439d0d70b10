// Cuda backend: batched matmul [..., m, k] x [..., k, n] with broadcast batch dims
// (rules::plan_matmul).
//
// Two kernels:
// - gemm_kernel: the throughput path. 128 x 128 output tiles per block of 256 threads, BK = 8
//   slices of A (stored transposed) and B staged through double-buffered shared memory, each
//   thread accumulating an 8 x 8 register block (two 4-wide row groups x two 4-wide column groups,
//   64 apart, so that shared-memory fragment loads are 16-byte vectors without bank conflicts).
//   Global loads are 4-wide vectors when k and n are multiples of 4, else bounds-checked scalars.
//   Accumulates in the tensor's dtype with fused multiply-adds.
// - small_gemm_kernel: one thread per output element for small or thin problems. It accumulates
//   in the tensor's dtype in the order p = 0..k-1 with separately rounded multiply and add, the
//   exact arithmetic of NdArray's loop, so small matmuls agree with the reference bit for bit.
#include "map_kernels.cuh"

namespace crossgrad::backends {
namespace {

using cuda_detail::data_of;
using cuda_detail::make_tensor;
using cuda_detail::Pack;
using cuda_detail::Strided;
using cuda_detail::with_float_type;

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
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
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
#pragma unroll
        for (int j = 0; j < 4; ++j) a_ld[j] = v.v[j];
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j) a_ld[j] = T(0);
      }
      if (b_in && bc < N) {
        const Pack<T, 4> v = *reinterpret_cast<const Pack<T, 4>*>(b_src);
#pragma unroll
        for (int j = 0; j < 4; ++j) b_ld[j] = v.v[j];
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j) b_ld[j] = T(0);
      }
    } else {
#pragma unroll
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
#pragma unroll
    for (int j = 0; j < 4; ++j) As[buf][a_col + j][a_row] = a_ld[j];
    Pack<T, 4> v;
#pragma unroll
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
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      const Pack<T, 4> a0 = *reinterpret_cast<const Pack<T, 4>*>(&As[cur][kk][ty * 4]);
      const Pack<T, 4> a1 = *reinterpret_cast<const Pack<T, 4>*>(&As[cur][kk][64 + ty * 4]);
      const Pack<T, 4> b0 = *reinterpret_cast<const Pack<T, 4>*>(&Bs[cur][kk][tx * 4]);
      const Pack<T, 4> b1 = *reinterpret_cast<const Pack<T, 4>*>(&Bs[cur][kk][64 + tx * 4]);
      T a[8];
      T b[8];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        a[j] = a0.v[j];
        a[4 + j] = a1.v[j];
        b[j] = b0.v[j];
        b[4 + j] = b1.v[j];
      }
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] += a[i] * b[j];
    }
    // The other buffer was last read in the previous iteration, before its closing barrier.
    if (kt + 1 < num_k) store(cur ^ 1);
    __syncthreads();
  }

  T* Cb = C + batch * static_cast<std::uint64_t>(M) * static_cast<std::uint64_t>(N);
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
    if (r >= M) continue;
    T* c_row = Cb + static_cast<long long>(r) * N;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int c = col0 + half * 64 + tx * 4;
      if constexpr (kVec) {
        if (c < N) {
          Pack<T, 4> v;
#pragma unroll
          for (int j = 0; j < 4; ++j) v.v[j] = acc[i][half * 4 + j];
          *reinterpret_cast<Pack<T, 4>*>(c_row + c) = v;
        }
      } else {
#pragma unroll
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

}  // namespace

CudaTensor Cuda::float_matmul(const CudaTensor& lhs_in, const CudaTensor& rhs_in) {
  rules::check_float_dtype(lhs_in.dtype, "float_matmul");
  rules::check_float_dtype(rhs_in.dtype, "float_matmul");
  rules::check_same_dtype(lhs_in.dtype, rhs_in.dtype, "float_matmul");
  const rules::MatmulPlan plan = rules::plan_matmul(lhs_in.shape, rhs_in.shape);
  const CudaTensor rhs = cuda_detail::on_device(rhs_in, lhs_in.dev);
  const CudaTensor& lhs = lhs_in;
  CudaTensor out = make_tensor(plan.out, lhs.dtype, lhs.dev);
  const std::size_t total = out.shape.num_elements();
  if (total == 0) return out;  // no batch, no row or no column: nothing to compute
  const std::size_t m = plan.m, k = plan.k, n = plan.n;
  const int device = lhs.dev.index;

  // Batch offsets in whole matrices, walked over the collapsed broadcast batch dims.
  const cuda_detail::Collapsed c =
      cuda_detail::collapse(plan.batch.dims(), {plan.lhs_batch_strides, plan.rhs_batch_strides});
  const Strided<std::uint64_t, 2> batches = cuda_detail::to_strided<std::uint64_t, 2>(c);

  with_float_type(lhs.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* a = data_of<T>(lhs);
    const T* b = data_of<T>(rhs);
    T* o = data_of<T>(out);
    const cudaStream_t stream = cuda_detail::activate(device);
    // Thin or tiny problems waste most of a 128 x 128 tile; one thread per output serves them.
    const bool small = m < 16 || n < 16 || (static_cast<double>(m) * n * (k == 0 ? 1 : k) <= 65536.0);
    if (small) {
      small_gemm_kernel<T><<<cuda_detail::grid_for(total, device), cuda_detail::kThreads, 0, stream>>>(
          a, b, o, m, n, k, total, batches);
      cuda_detail::check_launch("small_gemm_kernel");
      return;
    }
    // Here m, n >= 16 and m * n, m * k, k * n are at most 2^32 elements (kMaxTensorBytes), so every
    // dim is below 2^28 and fits the kernel's int indices (offsets are formed in 64 bits), and the
    // tile count (at most one tile per 256 output elements) fits one grid dimension.
    const std::size_t tiles_n = (n + kBN - 1) / kBN;
    const std::size_t tiles_m = (m + kBM - 1) / kBM;
    const std::size_t blocks = plan.batch_count * tiles_m * tiles_n;
    const bool vec = k % 4 == 0 && n % 4 == 0;
    const int M = static_cast<int>(m), N = static_cast<int>(n), K = static_cast<int>(k);
    const int TM = static_cast<int>(tiles_m), TN = static_cast<int>(tiles_n);
    if (vec) {
      gemm_kernel<T, true><<<static_cast<unsigned>(blocks), kGemmThreads, 0, stream>>>(a, b, o, M, N, K, TM, TN,
                                                                                      batches);
    } else {
      gemm_kernel<T, false><<<static_cast<unsigned>(blocks), kGemmThreads, 0, stream>>>(a, b, o, M, N, K, TM, TN,
                                                                                       batches);
    }
    cuda_detail::check_launch("gemm_kernel");
  });
  return out;
}

}  // namespace crossgrad::backends
