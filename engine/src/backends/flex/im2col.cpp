// Flex: the convolutions' im2col and col2im (flex/im2col.hpp), one (batch, channel) volume per task,
// a grid row at a time (the positions that read input cells are one range of it).
// gather copies, for every row (channel, t, i, j) and grid position (z, y, x), the input cell
// (z stride + t dilation - padding, ...) or 0 where that is padding: select's result over the
// padded copy. scatter adds every column entry whose cell is not padding into zeros, for each
// cell in the order of the list (taps outer, positions inner, within the cell's channel): the
// sums select_add forms, bit for bit, without the padded planes it then slices off.
#include "im2col.hpp"

#include "common.hpp"
#include "thread_pool.hpp"

#include <crossgrad/core/host_buffer.hpp>

#include <algorithm>
#include <cstring>

namespace crossgrad::backends::composite {
namespace {

// The geometry one task walks: the input volume (padding taken off), the kernel, the grid.
struct Walk {
  Size3 in, kernel, grid, stride, dilation, pad;
  std::size_t in_cells, taps, positions;
};

Walk walk_of(const Im2col& g, const Size3& pad) {
  Walk w{{g.padded[0] - 2 * pad[0], g.padded[1] - 2 * pad[1], g.padded[2] - 2 * pad[2]}, g.kernel, g.grid, g.stride, g.dilation,
         pad, 0, cells_of(g.kernel), cells_of(g.grid)};
  w.in_cells = cells_of(w.in);
  return w;
}

// f(row, lo, hi, step) for every tap (t, i, j) and grid row (z, y) of one volume, in the list's
// order: grid positions x in [lo, hi) of the row read input cell row + x * step (row may be
// negative, as the offset of x = 0 lies in the padding), the others (and every position of a row
// in the padding: lo = hi = 0) read padding.
template <class F>
void for_each_tap_row(const Walk& w, F f) {
  for (std::size_t t = 0; t < w.kernel[0]; ++t) {
    for (std::size_t i = 0; i < w.kernel[1]; ++i) {
      for (std::size_t j = 0; j < w.kernel[2]; ++j) {
        // x = gx stride + j dilation lies in [pad, pad + in) for gx in [lo, hi).
        const std::size_t first = j * w.dilation[2], s = w.stride[2];
        const std::size_t lo = std::min(w.grid[2], first >= w.pad[2] ? 0 : (w.pad[2] - first + s - 1) / s);
        const std::size_t end = w.pad[2] + w.in[2];
        const std::size_t hi = std::max(lo, std::min(w.grid[2], first >= end ? 0 : (end - first + s - 1) / s));
        for (std::size_t gz = 0; gz < w.grid[0]; ++gz) {
          const std::size_t z = gz * w.stride[0] + t * w.dilation[0];
          const bool z_in = z >= w.pad[0] && z - w.pad[0] < w.in[0];
          for (std::size_t gy = 0; gy < w.grid[1]; ++gy) {
            const std::size_t y = gy * w.stride[1] + i * w.dilation[1];
            if (!(z_in && y >= w.pad[1] && y - w.pad[1] < w.in[1])) {
              f(std::ptrdiff_t{0}, std::size_t{0}, std::size_t{0}, s);
              continue;
            }
            const std::ptrdiff_t row = static_cast<std::ptrdiff_t>(((z - w.pad[0]) * w.in[1] + (y - w.pad[1])) * w.in[2]) +
                                       static_cast<std::ptrdiff_t>(first) - static_cast<std::ptrdiff_t>(w.pad[2]);
            f(row, lo, hi, s);
          }
        }
      }
    }
  }
}

}  // namespace

FlexTensor Im2colKernels<Flex>::gather(const FlexTensor& t, const Im2col& g, std::size_t groups, const Size3& pad) {
  const std::size_t batch = t.shape[0], cols = cells_of(g.grid);
  check_im2col_fits(g, batch, t.dtype);  // the composite's checks, though no index list is built here
  FlexTensor out = flex::make_tensor(Shape{batch, groups, g.channels / groups * cells_of(g.kernel), cols}, t.dtype);
  const Walk w = walk_of(g, pad);
  const std::size_t volumes = batch * g.channels, per_volume = w.taps * w.positions;
  if (volumes == 0 || per_volume == 0) return out;
  flex::with_float_type(t.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* src = t.data<T>();
    T* dst = out.mutable_data<T>();
    const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / per_volume);
    flex::parallel_range(volumes, grain, [&](std::size_t begin, std::size_t end) {
      for (std::size_t v = begin; v < end; ++v) {
        const T* in = src + v * w.in_cells;
        T* o = dst + v * per_volume;
        for_each_tap_row(w, [&](std::ptrdiff_t row, std::size_t lo, std::size_t hi, std::size_t step) {
          std::fill(o, o + lo, T(0));
          if (step == 1 && hi > lo) {
            std::copy_n(in + (row + static_cast<std::ptrdiff_t>(lo)), hi - lo, o + lo);
          } else {
            for (std::size_t x = lo; x < hi; ++x) o[x] = in[row + static_cast<std::ptrdiff_t>(x * step)];
          }
          std::fill(o + hi, o + w.grid[2], T(0));
          o += w.grid[2];
        });
      }
    });
  });
  return out;
}

FlexTensor Im2colKernels<Flex>::scatter(const FlexTensor& cols, const Im2col& g, std::size_t batch, const Size3& pad) {
  check_im2col_fits(g, batch, cols.dtype);
  const Walk w = walk_of(g, pad);
  std::vector<std::size_t> dims{batch, g.channels};
  for (std::size_t d = 3 - g.rank; d < 3; ++d) dims.push_back(w.in[d]);
  FlexTensor out = flex::make_tensor(Shape(std::move(dims)), cols.dtype);
  const std::size_t volumes = batch * g.channels, per_volume = w.taps * w.positions;
  flex::with_float_type(cols.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* src = cols.data<T>();
    T* dst = out.mutable_data<T>();
    if (volumes * w.in_cells != 0) std::fill(dst, dst + volumes * w.in_cells, T(0));
    if (volumes == 0 || per_volume == 0) return;
    const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / per_volume);
    flex::parallel_range(volumes, grain, [&](std::size_t begin, std::size_t end) {
      for (std::size_t v = begin; v < end; ++v) {
        const T* c = src + v * per_volume;
        T* o = dst + v * w.in_cells;
        for_each_tap_row(w, [&](std::ptrdiff_t row, std::size_t lo, std::size_t hi, std::size_t step) {
          for (std::size_t x = lo; x < hi; ++x) o[row + static_cast<std::ptrdiff_t>(x * step)] += c[x];
          c += w.grid[2];
        });
      }
    });
  });
  return out;
}

}  // namespace crossgrad::backends::composite
