// Flex slice_assign (of every kind): x copied in parallel chunks, then each row of the block (the last dim's
// range at one index of the others) one memcpy of values' row into place. Pure copies, NdArray's
// bits; two passes over the memory where the composite of slices and cats (composite_ops.hpp)
// makes one copy per piece and dim.
#include "common.hpp"
#include "../kind_members.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace crossgrad::backends {
namespace {

FlexTensor slice_assign_elements(const FlexTensor& t, const std::vector<Range>& ranges, const FlexTensor& values, OpId op) {
  const std::vector<Range> full = rules::check_slice_assign(t.shape, t.dtype, ranges, values.shape, values.dtype,
                                                            operand_category(op), op_info(op).name);
  FlexTensor out = flex::make_tensor(t.shape, t.dtype);
  const std::size_t n = t.num_elements();
  if (n == 0) return out;
  const std::size_t width = dtype_size(t.dtype);
  const auto* src = t.data<unsigned char>();
  auto* dst = out.mutable_data<unsigned char>();
  const std::size_t chunk = flex::kElementwiseGrain * 4;
  flex::parallel_range((n + chunk - 1) / chunk, 1, [&](std::size_t begin, std::size_t end) {
    const std::size_t lo = begin * chunk, hi = std::min(n, end * chunk);
    std::memcpy(dst + lo * width, src + lo * width, (hi - lo) * width);
  });
  const std::size_t block = values.num_elements();
  if (block == 0) return out;
  const std::size_t rank = t.shape.rank();
  if (rank == 0) {
    std::memcpy(dst, values.data<unsigned char>(), width);
    return out;
  }
  std::vector<std::size_t> strides(rank, 1);
  for (std::size_t d = rank - 1; d-- > 0;) strides[d] = strides[d + 1] * t.shape[d + 1];
  const std::size_t row = values.shape[rank - 1], rows = block / row;
  const auto* v = values.data<unsigned char>();
  const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / row);
  flex::parallel_range(rows, grain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r) {
      // Row r of the block: its index over the block's leading dims, offset by the ranges' starts.
      std::size_t offset = full[rank - 1].start, rest = r;
      for (std::size_t d = rank - 1; d-- > 0;) {
        const std::size_t size = values.shape[d];
        offset += (rest % size + full[d].start) * strides[d];
        rest /= size;
      }
      std::memcpy(dst + offset * width, v + r * row * width, row * width);
    }
  });
  return out;
}

}  // namespace

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(Flex, slice_assign, RangesAssign, slice_assign_elements)

}  // namespace crossgrad::backends
