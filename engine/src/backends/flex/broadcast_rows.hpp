#pragma once
// A NumPy-broadcast binary op's output walked as rows (Note [Flex broadcast loops] in
// elementwise.cpp): size-1 dims dropped, neighbours that both operands step through contiguously
// merged, the innermost merged dim a row; rows (or, with one merged dim, flat ranges of it) split
// over the pool. Shared by the comparisons and the int and bool ops, whose rows are plain loops.
#include "common.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace crossgrad::backends::flex {

struct BroadcastDim {
  std::size_t size, lhs_stride, rhs_stride;
};

// The merged loop nest, outermost first; never empty.
inline std::vector<BroadcastDim> plan_broadcast(const Shape& out, const Shape& lhs, const Shape& rhs) {
  const auto ls = rules::broadcast_strides(lhs, out);
  const auto rs = rules::broadcast_strides(rhs, out);
  std::vector<BroadcastDim> dims;
  for (std::size_t d = 0; d < out.rank(); ++d) {
    if (out[d] == 1) continue;
    const BroadcastDim next{out[d], ls[d], rs[d]};
    if (!dims.empty()) {
      BroadcastDim& prev = dims.back();
      if (prev.lhs_stride == next.lhs_stride * next.size && prev.rhs_stride == next.rhs_stride * next.size) {
        prev = {prev.size * next.size, next.lhs_stride, next.rhs_stride};
        continue;
      }
    }
    dims.push_back(next);
  }
  if (dims.empty()) dims.push_back({1, 0, 0});
  return dims;
}

// row(lhs_offset, lhs_stride, rhs_offset, rhs_stride, out_offset, n) for every row of a non-empty
// output, in element offsets; the strides are 1 (contiguous) or 0 (broadcast) or a merged step.
template <class Row>
void for_each_broadcast_row(const Shape& out, const Shape& lhs, const Shape& rhs, Row&& row) {
  const std::vector<BroadcastDim> dims = plan_broadcast(out, lhs, rhs);
  const BroadcastDim inner = dims.back();
  const std::size_t outer = dims.size() - 1;
  if (outer == 0) {  // one merged dim: split it into flat ranges
    parallel_range(inner.size, kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
      row(begin * inner.lhs_stride, inner.lhs_stride, begin * inner.rhs_stride, inner.rhs_stride, begin, end - begin);
    });
    return;
  }
  std::size_t rows = 1;
  for (std::size_t d = 0; d < outer; ++d) rows *= dims[d].size;
  const std::size_t grain = std::max<std::size_t>(1, kElementwiseGrain / inner.size);
  parallel_range(rows, grain, [&](std::size_t begin, std::size_t end) {
    std::vector<std::size_t> index(outer, 0);
    std::size_t lo = 0, ro = 0, rest = begin;
    for (std::size_t d = outer; d-- > 0;) {
      index[d] = rest % dims[d].size;
      rest /= dims[d].size;
      lo += index[d] * dims[d].lhs_stride;
      ro += index[d] * dims[d].rhs_stride;
    }
    for (std::size_t r = begin; r < end; ++r) {
      row(lo, inner.lhs_stride, ro, inner.rhs_stride, r * inner.size, inner.size);
      for (std::size_t d = outer; d-- > 0;) {  // odometer step
        lo += dims[d].lhs_stride;
        ro += dims[d].rhs_stride;
        if (++index[d] < dims[d].size) break;
        lo -= dims[d].size * dims[d].lhs_stride;
        ro -= dims[d].size * dims[d].rhs_stride;
        index[d] = 0;
      }
    }
  });
}

}  // namespace crossgrad::backends::flex
