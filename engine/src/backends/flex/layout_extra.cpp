// Flex float_permute and float_expand: materialised copies through the strided gather of
// Note [Flex strided gather] (a permute reads the input's strides in the output's dim order, an
// expand reads with stride 0 on the broadcast dims).
#include "common.hpp"
#include "strided_gather.hpp"

#include <vector>

namespace crossgrad::backends {

FlexTensor Flex::float_permute(const FlexTensor& t, const std::vector<std::size_t>& axes) {
  rules::check_float_dtype(t.dtype, "float_permute");
  Shape shape = rules::permuted_shape(t.shape, axes);
  FlexTensor out = flex::make_tensor(std::move(shape), t.dtype);
  const std::vector<std::size_t> in_strides = rules::contiguous_strides(t.shape);
  std::vector<std::size_t> strides(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i) strides[i] = in_strides[axes[i]];
  flex::gather_float(t, 0, out, strides);
  return out;
}

FlexTensor Flex::float_expand(const FlexTensor& t, const Shape& shape) {
  rules::check_float_dtype(t.dtype, "float_expand");
  rules::check_expand(t.shape, shape);
  FlexTensor out = flex::make_tensor(shape, t.dtype);
  flex::gather_float(t, 0, out, rules::broadcast_strides(t.shape, shape));
  return out;
}

}  // namespace crossgrad::backends
