// Flex permute and expand (of every kind): materialised copies through the strided gather of
// Note [Flex strided gather] (a permute reads the input's strides in the output's dim order, an
// expand reads with stride 0 on the broadcast dims). flip copies rows of the innermost dim
// (reversed when that dim is flipped): its negative steps do not fit the gather's strides.
#include "common.hpp"
#include "../kind_members.hpp"
#include "strided_gather.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace crossgrad::backends {
namespace {

FlexTensor permute_elements(const FlexTensor& t, const std::vector<std::size_t>& axes, OpId op) {
  rules::check_kind_dtype(t.dtype, operand_category(op), op_info(op).name);
  Shape shape = rules::permuted_shape(t.shape, axes, op_info(op).name);
  FlexTensor out = flex::make_tensor(std::move(shape), t.dtype);
  const std::vector<std::size_t> in_strides = rules::contiguous_strides(t.shape);
  std::vector<std::size_t> strides(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i) strides[i] = in_strides[axes[i]];
  flex::gather_elements(t, 0, out, strides);
  return out;
}

FlexTensor expand_elements(const FlexTensor& t, const Shape& shape, OpId op) {
  rules::check_kind_dtype(t.dtype, operand_category(op), op_info(op).name);
  rules::check_expand(t.shape, shape, op_info(op).name);
  FlexTensor out = flex::make_tensor(shape, t.dtype);
  flex::gather_elements(t, 0, out, rules::broadcast_strides(t.shape, shape));
  return out;
}

// out row `row` (rows of the innermost dim, of width w) is the input row at the flipped
// coordinates of the outer dims, itself reversed when the innermost dim is flipped.
template <class U>
void flip_rows(const U* in, U* out, const Shape& shape, const std::vector<bool>& flipped) {
  const std::size_t rank = shape.rank();
  if (rank == 0) {
    out[0] = in[0];
    return;
  }
  const std::size_t w = shape[rank - 1], rows = shape.num_elements() / w;
  const bool reverse = flipped[rank - 1];
  const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / w);
  flex::parallel_range(rows, grain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t row = begin; row < end; ++row) {
      std::size_t rest = row, from = 0, step = 1;
      for (std::size_t d = rank - 1; d-- > 0;) {
        const std::size_t c = rest % shape[d];
        rest /= shape[d];
        from += (flipped[d] ? shape[d] - 1 - c : c) * step;
        step *= shape[d];
      }
      const U* x = in + from * w;
      U* y = out + row * w;
      if (reverse) std::reverse_copy(x, x + w, y);
      else std::memcpy(y, x, w * sizeof(U));
    }
  });
}

FlexTensor flip_elements(const FlexTensor& t, const std::vector<std::size_t>& axes, OpId op) {
  rules::check_kind_dtype(t.dtype, operand_category(op), op_info(op).name);
  rules::check_flip_axes(t.shape, axes, op_info(op).name);
  FlexTensor out = flex::make_tensor(t.shape, t.dtype);
  if (out.num_elements() == 0) return out;
  std::vector<bool> flipped(t.shape.rank(), false);
  for (std::size_t a : axes) flipped[a] = true;
  // Elements move as unsigned integers of their size, so NaN payloads and -0 keep their bits.
  flex::with_element_bits(t.dtype, [&]<class U>(U) { flip_rows(t.data<U>(), out.mutable_data<U>(), t.shape, flipped); });
  return out;
}

}  // namespace

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(Flex, permute, Axes, permute_elements)
CROSSGRAD_KIND_MEMBERS(Flex, expand, ToShape, expand_elements)
CROSSGRAD_KIND_MEMBERS(Flex, flip, Axes, flip_elements)

}  // namespace crossgrad::backends
