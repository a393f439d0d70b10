// NdArray float_ and int_ argsort and argtopk (sort and topk gather through them,
// composites.cpp): each lane along dim copied out, its positions stable-sorted by
// host::sorts_before (docs/OPS.md, "Sorting"), the first k written as I64.
#include "common.hpp"
#include "../kind_members.hpp"

#include <crossgrad/backends/host_formulas.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string_view>
#include <vector>

namespace crossgrad::backends {
namespace {

using ndarray_detail::make_tensor;

NdArrayTensor sorted_positions(const NdArrayTensor& tensor, std::size_t dim, bool descending, std::size_t k,
                               const Shape& out_shape) {
  NdArrayTensor out = make_tensor(out_shape, DType::I64);
  if (out.num_elements() == 0) return out;
  const rules::DimSplit split = rules::split_at_dim(tensor.shape, dim);
  host::with_element_type(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    std::int64_t* o = out.mutable_data<std::int64_t>();
    std::vector<T> lane(split.len);
    std::vector<std::size_t> order(split.len);
    for (std::size_t a = 0; a < split.outer; ++a) {
      for (std::size_t i = 0; i < split.inner; ++i) {
        const T* in = x + a * split.len * split.inner + i;
        for (std::size_t r = 0; r < split.len; ++r) lane[r] = in[r * split.inner];
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(), [&](std::size_t p, std::size_t q) {
          return host::sorts_before(lane[p], lane[q], descending);
        });
        std::int64_t* dst = o + a * k * split.inner + i;
        for (std::size_t r = 0; r < k; ++r) dst[r * split.inner] = static_cast<std::int64_t>(order[r]);
      }
    }
  });
  return out;
}

NdArrayTensor argsort_positions(const NdArrayTensor& tensor, std::size_t dim, bool descending, OpId op) {
  rules::check_sort(tensor.shape, tensor.dtype, operand_category(op), dim, op_info(op).name);
  return sorted_positions(tensor, dim, descending, tensor.shape[dim], tensor.shape);
}

NdArrayTensor argtopk_positions(const NdArrayTensor& tensor, std::size_t dim, std::size_t k, OpId op) {
  const Shape out = rules::check_topk(tensor.shape, tensor.dtype, operand_category(op), dim, k, op_info(op).name);
  return sorted_positions(tensor, dim, /*descending=*/true, k, out);
}

}  // namespace

CROSSGRAD_KIND_MEMBER(NdArray, float_argsort, Sort, argsort_positions)
CROSSGRAD_KIND_MEMBER(NdArray, int_argsort, Sort, argsort_positions)
CROSSGRAD_KIND_MEMBER(NdArray, float_argtopk, TopK, argtopk_positions)
CROSSGRAD_KIND_MEMBER(NdArray, int_argtopk, TopK, argtopk_positions)

}  // namespace crossgrad::backends
