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

using namespace cuda_detail;  // this backend's internals (cuda_common.cuh, kernels.cuh)
CudaTensor Cuda::float_matmul(const CudaTensor& lhs_in, const CudaTensor& rhs_in) {
  const rules::MatmulPlan plan =
      rules::check_matmul(lhs_in.shape, lhs_in.dtype, rhs_in.shape, rhs_in.dtype, DTypeCategory::Float, "float_matmul");
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

// int_matmul: small_gemm_kernel on the unsigned type of the width (one thread per output element;
// wrapping sums in any order are NdArray's bits). No tiled path: int matmul is not a throughput op
// here.
CudaTensor Cuda::int_matmul(const CudaTensor& lhs_in, const CudaTensor& rhs_in) {
  const rules::MatmulPlan plan =
      rules::check_matmul(lhs_in.shape, lhs_in.dtype, rhs_in.shape, rhs_in.dtype, DTypeCategory::Int, "int_matmul");
  const CudaTensor rhs = cuda_detail::on_device(rhs_in, lhs_in.dev);
  const CudaTensor& lhs = lhs_in;
  CudaTensor out = make_tensor(plan.out, lhs.dtype, lhs.dev);
  const std::size_t total = out.shape.num_elements();
  if (total == 0) return out;
  const int device = lhs.dev.index;
  const cuda_detail::Collapsed c =
      cuda_detail::collapse(plan.batch.dims(), {plan.lhs_batch_strides, plan.rhs_batch_strides});
  const Strided<std::uint64_t, 2> batches = cuda_detail::to_strided<std::uint64_t, 2>(c);
  with_element_bits(lhs.dtype, [&](auto zero) {
    using U = decltype(zero);
    small_gemm_kernel<U><<<cuda_detail::grid_for(total, device), cuda_detail::kThreads, 0, cuda_detail::activate(device)>>>(
        data_of<U>(lhs), data_of<U>(rhs), data_of<U>(out), plan.m, plan.n, plan.k, total, batches);
    cuda_detail::check_launch("int_matmul");
  });
  return out;
}

}  // namespace crossgrad::backends
