// Flex float_matmul: rules::plan_matmul, then one GEMM per (broadcast) batch entry. Large
// matrices are threaded inside the GEMM; many small ones are spread over threads by batch.
// int_matmul: output rows over the pool, each the sum of rhs rows scaled by lhs's row, in the
// unsigned type of the width (wrapping is associative modulo 2^width, so any order gives
// NdArray's bits, and the row update vectorises).
#include "common.hpp"
#include "gemm.hpp"
#include "thread_pool.hpp"

#include <crossgrad/core/int_arithmetic.hpp>

#include <algorithm>
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
  const rules::MatmulPlan plan =
      rules::check_matmul(lhs.shape, lhs.dtype, rhs.shape, rhs.dtype, DTypeCategory::Float, "float_matmul");
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

FlexTensor Flex::int_matmul(const FlexTensor& lhs, const FlexTensor& rhs) {
  const rules::MatmulPlan plan = rules::check_matmul(lhs.shape, lhs.dtype, rhs.shape, rhs.dtype, DTypeCategory::Int, "int_matmul");
  FlexTensor out = flex::make_tensor(plan.out, lhs.dtype);
  if (out.num_elements() == 0) return out;
  const std::size_t m = plan.m, k = plan.k, n = plan.n;
  const auto offsets = batch_offsets(plan);
  host::with_int_type(lhs.dtype, [&]<class I>(I) {
    using U = IntBits<I>;
    const U* a = reinterpret_cast<const U*>(lhs.data<I>());
    const U* b = reinterpret_cast<const U*>(rhs.data<I>());
    U* c = reinterpret_cast<U*>(out.mutable_data<I>());
    const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / std::max<std::size_t>(1, n * k));
    flex::parallel_range(plan.batch_count * m, grain, [&](std::size_t begin, std::size_t end) {
      for (std::size_t row = begin; row < end; ++row) {
        const std::size_t batch = row / m, i = row % m;
        const U* ar = a + offsets[batch].first * m * k + i * k;
        const U* bb = b + offsets[batch].second * k * n;
        U* __restrict cr = c + row * n;
        std::fill(cr, cr + n, U{0});
        for (std::size_t p = 0; p < k; ++p) {
          const U s = ar[p];
          const U* __restrict br = bb + p * n;
          for (std::size_t j = 0; j < n; ++j) cr[j] = static_cast<U>(cr[j] + static_cast<U>(s * br[j]));
        }
      }
    });
  });
  return out;
}

}  // namespace crossgrad::backends
