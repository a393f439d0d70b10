// Flex layout ops (of every kind). Tensors are immutable, so reshape shares the buffer; swap_dims
// writes a contiguous copy. Seen as [A, n0, B, n1, C] -> [A, n1, B, n0, C], the copy moves whole
// C-element runs when C is large, and runs a cache-blocked transpose when the two swapped dims
// are adjacent and innermost (the matrix-transpose case).
#include "common.hpp"
#include "../kind_members.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace crossgrad::backends {
namespace {

template <class U>
void transpose_block(const U* in, U* out, std::size_t rows, std::size_t cols) {
  constexpr std::size_t kTile = flex::kTuning.transpose_tile;
  for (std::size_t i0 = 0; i0 < rows; i0 += kTile) {
    const std::size_t i1 = std::min(rows, i0 + kTile);
    for (std::size_t j0 = 0; j0 < cols; j0 += kTile) {
      const std::size_t j1 = std::min(cols, j0 + kTile);
      for (std::size_t j = j0; j < j1; ++j) {
        for (std::size_t i = i0; i < i1; ++i) out[j * rows + i] = in[i * cols + j];
      }
    }
  }
}

// U: an unsigned integer of the element's size, so values are moved bit for bit.
template <class U>
void swap_copy(const U* in, U* out, std::size_t a_count, std::size_t n0, std::size_t b_count,
               std::size_t n1, std::size_t c_count) {
  if (b_count == 1 && c_count == 1) {
    const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / std::max<std::size_t>(n0 * n1, 1));
    flex::parallel_range(a_count, grain, [&](std::size_t begin, std::size_t end) {
      for (std::size_t a = begin; a < end; ++a) {
        transpose_block(in + a * n0 * n1, out + a * n0 * n1, n0, n1);
      }
    });
    return;
  }
  // Output rows (a, j, b): each gathers n0 runs of c_count elements.
  const std::size_t rows = a_count * n1 * b_count;
  const std::size_t row_elems = std::max<std::size_t>(n0 * c_count, 1);
  const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / row_elems);
  flex::parallel_range(rows, grain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t row = begin; row < end; ++row) {
      const std::size_t b = row % b_count;
      const std::size_t j = (row / b_count) % n1;
      const std::size_t a = row / (b_count * n1);
      U* dst = out + row * n0 * c_count;
      for (std::size_t i = 0; i < n0; ++i) {
        const U* src = in + (((a * n0 + i) * b_count + b) * n1 + j) * c_count;
        if (c_count == 1) dst[i] = *src;
        else std::memcpy(dst + i * c_count, src, c_count * sizeof(U));
      }
    }
  });
}

FlexTensor reshape_elements(const FlexTensor& t, const Shape& shape, OpId op) {
  rules::check_kind_dtype(t.dtype, operand_category(op), op_info(op).name);
  rules::check_reshape(t.shape, shape, op_info(op).name);
  FlexTensor out = t;
  out.shape = shape;
  return out;
}

FlexTensor swap_dims_elements(const FlexTensor& t, std::size_t dim0, std::size_t dim1, OpId op) {
  rules::check_kind_dtype(t.dtype, operand_category(op), op_info(op).name);
  Shape shape = rules::swapped_shape(t.shape, dim0, dim1, op_info(op).name);
  FlexTensor out = flex::make_tensor(shape, t.dtype);
  const std::size_t n = t.num_elements();
  if (n == 0) return out;
  const std::size_t d0 = std::min(dim0, dim1), d1 = std::max(dim0, dim1);
  const std::size_t bytes = n * dtype_size(t.dtype);
  if (d0 == d1) {
    std::memcpy(out.buffer.data(), t.buffer.data(), bytes);
    return out;
  }
  const auto& dims = t.shape.dims();
  std::size_t a = 1, b = 1, c = 1;
  for (std::size_t i = 0; i < d0; ++i) a *= dims[i];
  for (std::size_t i = d0 + 1; i < d1; ++i) b *= dims[i];
  for (std::size_t i = d1 + 1; i < dims.size(); ++i) c *= dims[i];
  flex::with_element_bits(t.dtype, [&]<class U>(U) {
    swap_copy(t.data<U>(), out.mutable_data<U>(), a, dims[d0], b, dims[d1], c);
  });
  return out;
}

}  // namespace

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(Flex, reshape, ToShape, reshape_elements)
CROSSGRAD_KIND_MEMBERS(Flex, swap_dims, DimPair, swap_dims_elements)

}  // namespace crossgrad::backends
