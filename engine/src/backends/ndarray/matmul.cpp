// NdArray: batched matmul with broadcast batch dims, float and int (int_matmul: every product and
// sum wraps modulo 2^width, so any order of the sum gives the same bits).
#include "common.hpp"
#include "../kind_members.hpp"

#include <crossgrad/core/int_arithmetic.hpp>

#include <type_traits>

namespace crossgrad::backends {
namespace {

using ndarray_detail::make_tensor;
using ndarray_detail::StridedWalk;

NdArrayTensor matmul_values(const NdArrayTensor& lhs, const NdArrayTensor& rhs, OpId op) {
  const std::string_view name = op_info(op).name;
  const rules::MatmulPlan plan = rules::check_matmul(lhs.shape, lhs.dtype, rhs.shape, rhs.dtype, operand_category(op), name);
  NdArrayTensor out = make_tensor(plan.out, lhs.dtype);
  host::with_element_type(lhs.dtype, [&]<class T>(T) {
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
          for (std::size_t p = 0; p < k; ++p) {
            if constexpr (std::is_integral_v<T>) acc = wrapping_add<T>(acc, wrapping_mul<T>(am[i * k + p], bm[p * n + j]));
            else acc += am[i * k + p] * bm[p * n + j];
          }
          om[i * n + j] = acc;
        }
      }
    });
  });
  return out;
}

}  // namespace

CROSSGRAD_KIND_MEMBER(NdArray, float_matmul, Binary, matmul_values)
CROSSGRAD_KIND_MEMBER(NdArray, int_matmul, Binary, matmul_values)

}  // namespace crossgrad::backends
