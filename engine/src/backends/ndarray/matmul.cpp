// NdArray: batched matmul with broadcast batch dims.
#include "common.hpp"

namespace crossgrad::backends {

using ndarray_detail::make_tensor;
using ndarray_detail::StridedWalk;
using ndarray_detail::with_float_type;

NdArrayTensor NdArray::float_matmul(const NdArrayTensor& lhs, const NdArrayTensor& rhs) {
  rules::check_float_dtype(lhs.dtype, "float_matmul");
  rules::check_float_dtype(rhs.dtype, "float_matmul");
  rules::check_same_dtype(lhs.dtype, rhs.dtype, "float_matmul");
  const rules::MatmulPlan plan = rules::plan_matmul(lhs.shape, rhs.shape);
  NdArrayTensor out = make_tensor(plan.out, lhs.dtype);
  with_float_type(lhs.dtype, [&]<class T>(T) {
    const std::size_t m = plan.m, k = plan.k, n = plan.n;
    const T* a = lhs.data<T>();
    const T* b = rhs.data<T>();
    T* o = out.mutable_data<T>();
    // An empty output has nothing to compute, however many batches its batch dims name.
    if (plan.batch_count == 0) return;
    // Walks the broadcast batch dims; offsets come out in whole matrices.
    StridedWalk<2> batches(plan.batch);
    batches.set_steps(0, plan.lhs_batch_strides);
    batches.set_steps(1, plan.rhs_batch_strides);
    batches.for_each([&](std::size_t batch, const auto& at) {
      const T* am = a + at[0] * m * k;
      const T* bm = b + at[1] * k * n;
      T* om = o + batch * m * n;
      for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
          // Accumulated in T in order p = 0..k-1, so k = 0 gives exactly 0.
          T acc = T(0);
          for (std::size_t p = 0; p < k; ++p) acc += am[i * k + p] * bm[p * n + j];
          om[i * n + j] = acc;
        }
      }
    });
  });
  return out;
}

}  // namespace crossgrad::backends
