// Cuda backend: embedding and embedding_backward (docs/OPS.md "Module ops"); the kernels are in
// <crossgrad/backends/cuda_kernels/embedding_kernels.cuh>. The indices are read on the host first (a
// copy back), so that a bad one panics as on the CPU backends, naming the first in row-major order.
#include "map_kernels.cuh"

#include <crossgrad/backends/cuda_kernels/embedding_kernels.cuh>
#include <crossgrad/core/module_rules.hpp>

namespace crossgrad::backends {

using namespace cuda_detail;  // this backend's internals (cuda_common.cuh, kernels.cuh)

namespace {

// f(T{}, I{}) with T the table's float type and I the C++ type of the I64 or I32 indices
// (plan_embedding has checked both dtypes).
template <class F>
void with_types(DType weights, DType indices, F&& f) {
  with_float_type(weights, [&](auto zero) {
    if (indices == DType::I64) {
      f(zero, std::int64_t{});
    } else {
      f(zero, std::int32_t{});
    }
  });
}

}  // namespace

CudaTensor Cuda::embedding(const CudaTensor& weights, const CudaTensor& indices) {
  const rules::EmbeddingPlan p = rules::plan_embedding(weights.shape, weights.dtype, indices.shape, indices.dtype);
  rules::check_embedding_indices(Cuda::into_data(indices).to_i64(), p.n_embeddings, "embedding");
  CudaTensor out = make_tensor(p.out, weights.dtype, weights.dev);
  if (p.out.num_elements() == 0) return out;
  const int device = weights.dev.index;
  with_types(weights.dtype, indices.dtype, [&](auto zero, auto index) {
    using T = decltype(zero);
    using I = decltype(index);
    embedding_kernel<T, I><<<grid_for(p.out.num_elements(), device), kThreads, 0, activate(device)>>>(
        data_of<T>(weights), data_of<I>(indices), data_of<T>(out), static_cast<std::int64_t>(p.positions),
        static_cast<std::int64_t>(p.d_model));
  });
  check_launch("embedding");
  return out;
}

CudaTensor Cuda::embedding_backward(const CudaTensor& weights, const CudaTensor& grad, const CudaTensor& indices) {
  const rules::EmbeddingPlan p = rules::plan_embedding_backward(weights.shape, weights.dtype, grad.shape, grad.dtype,
                                                                indices.shape, indices.dtype);
  rules::check_embedding_indices(Cuda::into_data(indices).to_i64(), p.n_embeddings, "embedding_backward");
  CudaTensor out = make_tensor(weights.shape, weights.dtype, weights.dev);
  if (weights.shape.num_elements() == 0) return out;
  const int device = weights.dev.index;
  with_types(weights.dtype, indices.dtype, [&](auto zero, auto index) {
    using T = decltype(zero);
    using I = decltype(index);
    embedding_backward_kernel<T, I><<<grid_for(p.d_model, device), kThreads, 0, activate(device)>>>(
        data_of<T>(grad), data_of<I>(indices), data_of<T>(out), static_cast<std::int64_t>(p.positions),
        static_cast<std::int64_t>(p.n_embeddings), static_cast<std::int64_t>(p.d_model));
  });
  check_launch("embedding_backward");
  return out;
}

}  // namespace crossgrad::backends
