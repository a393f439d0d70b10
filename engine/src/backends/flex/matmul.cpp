// Flex float_matmul: rules::plan_matmul, then one GEMM per (broadcast) batch entry. Large
// matrices are threaded inside the GEMM; many small ones are spread over threads by batch.
#include "common.hpp"
#include "gemm.hpp"
#include "thread_pool.hpp"

#include <vector>

namespace crossgrad::backends {
namespace {

// Offsets (in matrices) of each batch entry into lhs and rhs, in output order.
std::vector<std::pair<std::size_t, std::size_t>> batch_offsets(const rules::MatmulPlan& plan) {
  std::vector<std::pair<std::size_t, std::size_t>> offsets;
  offsets.reserve(plan.batch_count);
  const std::size_t rank = plan.batch.rank();
  std::vector<std::size_t> index(rank, 0);
  for (std::size_t b = 0; b < plan.batch_count; ++b) {
    std::size_t l = 0, r = 0;
    for (std::size_t d = 0; d < rank; ++d) {
      l += index[d] * plan.lhs_batch_strides[d];
      r += index[d] * plan.rhs_batch_strides[d];
    }
    offsets.emplace_back(l, r);
    for (std::size_t d = rank; d-- > 0;) {
      if (++index[d] < plan.batch[d]) break;
      index[d] = 0;
    }
  }
  return offsets;
}

}  // namespace

FlexTensor Flex::float_matmul(const FlexTensor& lhs, const FlexTensor& rhs) {
  rules::check_float_dtype(lhs.dtype, "float_matmul");
  rules::check_float_dtype(rhs.dtype, "float_matmul");
  rules::check_same_dtype(lhs.dtype, rhs.dtype, "float_matmul");
  const rules::MatmulPlan plan = rules::plan_matmul(lhs.shape, rhs.shape);
  FlexTensor out = flex::make_tensor(plan.out, lhs.dtype);
  if (out.num_elements() == 0) return out;
  const std::size_t m = plan.m, k = plan.k, n = plan.n;
  const auto offsets = batch_offsets(plan);
  flex::with_float_type(lhs.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* a = lhs.data<T>();
    const T* b = rhs.data<T>();
    T* c = out.mutable_data<T>();
    auto one = [&](std::size_t batch, bool threaded) {
      const T* ab = a + offsets[batch].first * m * k;
      const T* bb = b + offsets[batch].second * k * n;
      T* cb = c + batch * m * n;
      if (threaded) flex::gemm<T>(m, n, k, ab, bb, cb);
      else flex::gemm_serial<T>(m, n, k, ab, bb, cb);
    };
    const std::size_t per_batch = m * n * k;  // fits: the caller's tensors exist
    const bool small_matrices = per_batch < flex::kTuning.batch_small_matrix_work;
    const bool enough_work = per_batch * plan.batch_count >= flex::kTuning.batch_enough_work;
    if (plan.batch_count > 1 && small_matrices && enough_work) {
      flex::parallel_for(plan.batch_count, [&](std::size_t batch) { one(batch, false); });
    } else {
      for (std::size_t batch = 0; batch < plan.batch_count; ++batch) one(batch, true);
    }
  });
  return out;
}

}  // namespace crossgrad::backends
