#pragma once
// Note [Flex strided gather]
// slice, permute and expand (of every kind) all write a contiguous output whose element at
// index (j0, j1, ...) is the input element at offset sum(j_d * stride_d) (a slice: the input's
// own strides from the first kept element; a permute: the input's strides in the output's dim
// order; an expand: 0 on broadcast dims). One loop nest serves the three: dims of size 1 are
// dropped and neighbours the input walks contiguously are merged, then
//   - innermost stride 1: each output row is one memcpy of a contiguous input run;
//   - innermost stride 0: each output row is one repeated value;
//   - otherwise, when another dim has stride 1 (a permute moving the input's innermost dim):
//     a cache-blocked transpose between that dim and the innermost one, each tile through the
//     kernel table's transpose (8x8 / 4x4 register blocks under AVX2);
//   - otherwise a strided element loop.
// Elements move as unsigned integers of their size, so every bit pattern (NaN payloads, -0) is
// kept. Work is split over the pool by output rows (or tile rows); below the element-wise grain
// it stays on the calling thread.
#include "common.hpp"
#include "kernels.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace crossgrad::backends::flex {

struct GatherDim {
  std::size_t size;
  std::size_t stride;  // input elements per step along this output dim
};

// The merged loop nest of Note [Flex strided gather], outermost first; empty when every dim has
// size 1 (a single element).
inline std::vector<GatherDim> merge_gather_dims(const std::vector<std::size_t>& sizes,
                                                const std::vector<std::size_t>& strides) {
  std::vector<GatherDim> dims;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    const GatherDim next{sizes[d], strides[d]};
    if (!dims.empty() && dims.back().stride == next.stride * next.size) {
      dims.back() = {dims.back().size * next.size, next.stride};
      continue;
    }
    dims.push_back(next);
  }
  return dims;
}

template <class U>
void gather_run(const U* in, U* out, std::size_t size, std::size_t stride) {
  if (stride == 1) std::memcpy(out, in, size * sizeof(U));
  else if (stride == 0) std::fill(out, out + size, in[0]);
  else for (std::size_t i = 0; i < size; ++i) out[i] = in[i * stride];
}

// Input offset of the first element of output row `row` (a row: one index over dims[0..count)).
inline std::size_t row_offset(const std::vector<GatherDim>& dims, std::size_t count, std::size_t row,
                              std::vector<std::size_t>& index) {
  std::size_t offset = 0;
  for (std::size_t d = count; d-- > 0;) {
    index[d] = row % dims[d].size;
    row /= dims[d].size;
    offset += index[d] * dims[d].stride;
  }
  return offset;
}

// Tiled transpose between dim p (input stride 1) and the innermost dim (output stride 1).
template <class U>
void gather_transposed(const U* in, U* out, const std::vector<GatherDim>& dims, std::size_t p) {
  constexpr std::size_t kTile = kTuning.transpose_tile;
  const GatherDim last = dims.back();
  const std::size_t rank = dims.size();
  std::vector<std::size_t> out_stride(rank);
  std::size_t s = 1;
  for (std::size_t d = rank; d-- > 0;) {
    out_stride[d] = s;
    s *= dims[d].size;
  }
  // The other dims (all but p and the innermost), each with its input and output stride.
  std::vector<GatherDim> others;
  std::vector<std::size_t> others_out;
  for (std::size_t d = 0; d + 1 < rank; ++d) {
    if (d == p) continue;
    others.push_back(dims[d]);
    others_out.push_back(out_stride[d]);
  }
  std::size_t other_count = 1;
  for (const GatherDim& g : others) other_count *= g.size;
  const std::size_t rows = dims[p].size, row_out = out_stride[p];
  TransposeTile<U> tile = transpose_tile<U>;
  if constexpr (sizeof(U) == 4) tile = row_kernel_table().transpose32;
  if constexpr (sizeof(U) == 8) tile = row_kernel_table().transpose64;
  const std::size_t tiles = (rows + kTile - 1) / kTile;
  const std::size_t grain = std::max<std::size_t>(1, kElementwiseGrain / (kTile * last.size));
  parallel_range(other_count * tiles, grain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t task = begin; task < end; ++task) {
      std::size_t rest = task / tiles, in_base = 0, out_base = 0;
      for (std::size_t d = others.size(); d-- > 0;) {
        const std::size_t i = rest % others[d].size;
        rest /= others[d].size;
        in_base += i * others[d].stride;
        out_base += i * others_out[d];
      }
      const std::size_t r0 = (task % tiles) * kTile, r1 = std::min(rows, r0 + kTile);
      for (std::size_t c0 = 0; c0 < last.size; c0 += kTile) {
        const std::size_t c1 = std::min(last.size, c0 + kTile);
        tile(in + in_base + r0 + c0 * last.stride, last.stride, out + out_base + r0 * row_out + c0, row_out, r1 - r0,
             c1 - c0);
      }
    }
  });
}

// out[0..n) (n > 0, the product of `sizes`) gathered from `in` as Note [Flex strided gather] says.
template <class U>
void strided_gather(const U* in, U* out, const std::vector<std::size_t>& sizes,
                    const std::vector<std::size_t>& strides) {
  const std::vector<GatherDim> dims = merge_gather_dims(sizes, strides);
  if (dims.empty()) {
    out[0] = in[0];
    return;
  }
  const GatherDim last = dims.back();
  if (dims.size() == 1) {
    parallel_range(last.size, kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
      gather_run(in + begin * last.stride, out + begin, end - begin, last.stride);
    });
    return;
  }
  if (last.stride > 1) {
    for (std::size_t p = 0; p + 1 < dims.size(); ++p) {
      if (dims[p].stride == 1) return gather_transposed(in, out, dims, p);
    }
  }
  const std::size_t outer = dims.size() - 1;
  std::size_t rows = 1;
  for (std::size_t d = 0; d < outer; ++d) rows *= dims[d].size;
  const std::size_t grain = std::max<std::size_t>(1, kElementwiseGrain / last.size);
  parallel_range(rows, grain, [&](std::size_t begin, std::size_t end) {
    std::vector<std::size_t> index(outer);
    std::size_t offset = row_offset(dims, outer, begin, index);
    for (std::size_t row = begin; row < end; ++row) {
      gather_run(in + offset, out + row * last.size, last.size, last.stride);
      for (std::size_t d = outer; d-- > 0;) {  // odometer step to the next row
        offset += dims[d].stride;
        if (++index[d] < dims[d].size) break;
        offset -= dims[d].size * dims[d].stride;
        index[d] = 0;
      }
    }
  });
}

// strided_gather over a tensor's storage, its elements moved as bits (every dtype: the layout ops
// of every kind share it); `in_offset` in elements. Does nothing for an empty output.
inline void gather_elements(const FlexTensor& in, std::size_t in_offset, FlexTensor& out,
                            const std::vector<std::size_t>& strides) {
  if (out.num_elements() == 0) return;
  with_element_bits(in.dtype, [&]<class U>(U) {
    strided_gather(in.data<U>() + in_offset, out.mutable_data<U>(), out.shape.dims(), strides);
  });
}

// A contiguous copy of `bytes` bytes, split over the pool when large.
inline void parallel_copy(void* dst, const void* src, std::size_t bytes) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  parallel_range(bytes, kElementwiseGrain * sizeof(float), [&](std::size_t begin, std::size_t end) {
    std::memcpy(d + begin, s + begin, end - begin);
  });
}

}  // namespace crossgrad::backends::flex
