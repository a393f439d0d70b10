#pragma once
// Ops that are other ops of the same backend with a different name and contract, written once for
// every backend B (each backend's member is a one-line call): the checks run first under the op's
// own name, so a panic names the op that was called, then B's kernels do the work.
#include <crossgrad/core/shape_rules.hpp>

#include <cstddef>
#include <numeric>
#include <vector>

namespace crossgrad::backends::composite {

// float_transpose: the last two dims swapped; a tensor of rank 0 or 1 is copied unchanged
// (PyTorch's t()), so every float tensor has a transpose.
template <class B>
typename B::Tensor transpose(const typename B::Tensor& t) {
  rules::check_float_dtype(B::dtype(t), "float_transpose");
  const std::size_t rank = B::shape(t).rank();
  if (rank < 2) {
    std::vector<std::size_t> same(rank);
    std::iota(same.begin(), same.end(), std::size_t{0});
    return B::float_permute(t, same);
  }
  return B::float_swap_dims(t, rank - 2, rank - 1);
}

// softmin(x) = softmax(-x) along dim, bit for bit (negation is exact).
template <class B>
typename B::Tensor softmin(const typename B::Tensor& t, std::size_t dim) {
  rules::check_float_dtype(B::dtype(t), "softmin");
  rules::check_dim(dim, B::shape(t).rank(), "softmin");
  return B::softmax(B::float_neg(t), dim);
}

}  // namespace crossgrad::backends::composite
