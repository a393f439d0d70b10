#pragma once
// The convolutions (conv2d, conv3d, their transposes, unfold4d, fold4d) and their backward passes,
// written once for every backend B from its own select, select_add, slice, slice_assign, matmul
// and sums (each backend's member is a one-line call), after the checks of rules::plan_conv* under
// the op's own name; conv3d is conv2d with a depth index in every row and position (ConvSpec).
//
// Note [Convolution as a gathered product]
// The input, zero-padded, is flattened per batch to [batch, channels_in * padded_h * padded_w]; one
// index list names, for every row k = (channel, i, j) of the im2col matrix and every output
// position l = (oy, ox), the padded cell (oy * stride + i * dilation, ox * stride + j * dilation) of
// that channel. A select along dim 1 gathers the matrix [batch, groups, K, L] (K = channels_in /
// groups * k_h * k_w, L = out_h * out_w), and one broadcast matmul with the weight
// [1, groups, channels_out / groups, K] gives every group's output. The backward passes reuse the
// index list: x's gradient is the weight^T product scattered back by select_add (cells that several
// windows read add up in index order) with the padding sliced off, the weight's the gradient times
// the gathered matrix summed over the batch, the bias's the gradient summed over batch, height and
// width. Each element of the forward result is one dot product of K terms in the backend's matmul
// order, then + bias: the oracle's accumulation bound (K + 1 terms). conv3d's rows are (channel, t,
// i, j) and its positions (oz, oy, ox) over padded volumes, K with a factor k_d.
#include <crossgrad/core/host_buffer.hpp>
#include <crossgrad/core/module_rules.hpp>
#include <crossgrad/core/tensor_data.hpp>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace crossgrad::backends::composite {

// A convolution's stride, padding and dilation over (depth, height, width): a 2-D op's with a depth
// stride and dilation of 1 and no depth padding, so that one set of passes serves conv2d and conv3d
// (and unfold4d, fold4d and the transposed ops) alike.
struct ConvSpec {
  Size3 stride, padding, dilation;
};
inline ConvSpec spec_of(const Size2& stride, const Size2& padding, const Size2& dilation) {
  return {{1, stride[0], stride[1]}, {0, padding[0], padding[1]}, {1, dilation[0], dilation[1]}};
}
inline ConvSpec spec_of(const Conv2dOptions& o) { return spec_of(o.stride, o.padding, o.dilation); }
inline ConvSpec spec_of(const ConvTranspose2dOptions& o) { return spec_of(o.stride, o.padding, o.dilation); }
inline ConvSpec spec_of(const UnfoldOptions& o) { return spec_of(o.stride, o.padding, o.dilation); }
inline ConvSpec spec_of(const Conv3dOptions& o) { return {o.stride, o.padding, o.dilation}; }
inline ConvSpec spec_of(const ConvTranspose3dOptions& o) { return {o.stride, o.padding, o.dilation}; }

// Note [Convolution as a gathered product]'s index list, for any geometry: for every row k =
// (channel, t, i, j) and every position l = (z, y, x) of a grid, the cell (z * stride + t *
// dilation, y * stride + i * dilation, x * stride + j * dilation) of that channel of a padded
// volume (a 2-D geometry's has a depth of 1). conv2d's grid is its output and its planes the padded
// input. `rank` is the count of spatial dims the tensors carry (2: [batch, channels, h, w]).
struct Im2col {
  std::size_t channels;
  Size3 padded, kernel, grid, stride, dilation;
  std::size_t rank;
};

inline Im2col conv_im2col(const rules::Conv2dPlan& p, const ConvSpec& s) {
  return {p.channels_in,
          {p.in_d + 2 * s.padding[0], p.in_h + 2 * s.padding[1], p.in_w + 2 * s.padding[2]},
          {p.k_d, p.k_h, p.k_w},
          {p.out_d, p.out_h, p.out_w},
          s.stride,
          s.dilation,
          p.out.rank() - 2};
}

inline std::size_t cells_of(const Size3& s) { return s[0] * s[1] * s[2]; }

// The gathered matrix [batch, rows, positions] of `dtype` and the index list naming its cells fit
// (tensor-too-large): checked before either is built, by the composite and by a backend's own
// kernels alike (Note [Backend im2col kernels]), so that every backend refuses the same geometries.
inline void check_im2col_fits(const Im2col& g, std::size_t batch, DType dtype) {
  const std::size_t rows = g.channels * cells_of(g.kernel), cols = cells_of(g.grid);
  checked_tensor_bytes(Shape{batch, rows, cols}, dtype);
  checked_tensor_bytes(Shape{rows, cols}, DType::I64);
}

// The index list, as an I64 tensor on `like`'s device, once the matrix it gathers ([batch, rows,
// cols] of `like`'s dtype) and the list itself are known to fit (tensor-too-large).
template <class B>
typename B::Tensor im2col_indices(const Im2col& g, std::size_t batch, const typename B::Tensor& like) {
  check_im2col_fits(g, batch, B::dtype(like));
  const std::size_t rows = g.channels * cells_of(g.kernel), cols = cells_of(g.grid);
  std::vector<std::int64_t> at;
  at.reserve(rows * cols);
  for (std::size_t c = 0; c < g.channels; ++c) {
    for (std::size_t t = 0; t < g.kernel[0]; ++t) {
      for (std::size_t i = 0; i < g.kernel[1]; ++i) {
        for (std::size_t j = 0; j < g.kernel[2]; ++j) {
          for (std::size_t gz = 0; gz < g.grid[0]; ++gz) {
            const std::size_t z = gz * g.stride[0] + t * g.dilation[0];
            for (std::size_t gy = 0; gy < g.grid[1]; ++gy) {
              const std::size_t y = gy * g.stride[1] + i * g.dilation[1];
              const std::size_t row = ((c * g.padded[0] + z) * g.padded[1] + y) * g.padded[2];
              for (std::size_t gx = 0; gx < g.grid[2]; ++gx) {
                at.push_back(static_cast<std::int64_t>(row + gx * g.stride[2] + j * g.dilation[2]));
              }
            }
          }
        }
      }
    }
  }
  return B::from_data(TensorData::from_i64(std::move(at), Shape{rows * cols}), B::device(like));
}

// Note [Backend im2col kernels]
// gathered and scattered below are the index list's select and select_add. A backend may give the
// same results bit for bit (copies, padding cells 0; sums from 0 in the list's order) with
// kernels of its own by specialising Im2colKernels<B> before it instantiates these templates:
// Flex walks the volumes directly (flex/im2col.cpp), with no index tensor and no padded copy.
template <class B>
struct Im2colKernels {
  static constexpr bool kPresent = false;
};

// t [batch, channels, spatial...] (2 or 3 spatial dims) zero-padded by the last entries of `pad` and
// flattened per batch: [batch, channels * padded cells].
template <class B>
typename B::Tensor padded_rows(const typename B::Tensor& t, const Size3& pad) {
  const Shape& s = B::shape(t);
  const std::size_t n = s.rank() - 2;
  std::vector<std::size_t> padded = s.dims();
  std::vector<Range> kept{Range{0, s[0]}, Range{0, s[1]}};
  std::size_t row = s[1];
  bool any = false;
  for (std::size_t d = 0; d < n; ++d) {
    const std::size_t p = pad[3 - n + d];
    padded[2 + d] = s[2 + d] + 2 * p;
    kept.push_back(Range{p, p + s[2 + d]});
    row *= padded[2 + d];
    any = any || p != 0;
  }
  typename B::Tensor tp = t;
  if (any) tp = B::float_slice_assign(B::float_full(Shape(std::move(padded)), 0.0, B::dtype(t), B::device(t)), kept, t);
  return B::float_reshape(tp, Shape{s[0], row});
}

// cols [batch, groups * K * L] in the index list's row and position order, added into the zero
// volumes [batch, channels, padded...] the list names, the padding sliced off: [batch, channels,
// spatial...] (conv2d's and conv3d's x gradient).
template <class B>
typename B::Tensor scattered(const typename B::Tensor& cols, const Im2col& g, std::size_t batch, const Size3& pad) {
  if constexpr (Im2colKernels<B>::kPresent) return Im2colKernels<B>::scatter(cols, g, batch, pad);
  const typename B::Tensor zeros =
      B::float_full(Shape{batch, g.channels * cells_of(g.padded)}, 0.0, B::dtype(cols), B::device(cols));
  std::vector<std::size_t> dims{batch, g.channels};
  std::vector<Range> kept{Range{0, batch}, Range{0, g.channels}};
  bool any = false;
  for (std::size_t d = 3 - g.rank; d < 3; ++d) {
    dims.push_back(g.padded[d]);
    kept.push_back(Range{pad[d], g.padded[d] - pad[d]});
    any = any || pad[d] != 0;
  }
  const typename B::Tensor volumes =
      B::float_reshape(B::float_select_add(zeros, 1, im2col_indices<B>(g, batch, cols), cols), Shape(std::move(dims)));
  return any ? B::float_slice(volumes, kept) : volumes;
}

// t's volumes gathered by the index list: [batch, groups, K, L] (K = channels / groups * kernel
// cells, L = grid cells).
template <class B>
typename B::Tensor gathered(const typename B::Tensor& t, const Im2col& g, std::size_t groups, const Size3& pad) {
  if constexpr (Im2colKernels<B>::kPresent) return Im2colKernels<B>::gather(t, g, groups, pad);
  const std::size_t batch = B::shape(t)[0], k = g.channels / groups * cells_of(g.kernel);
  return B::float_reshape(B::float_select(padded_rows<B>(t, pad), 1, im2col_indices<B>(g, batch, t)),
                          Shape{batch, groups, k, cells_of(g.grid)});
}

// A weight [a, b, kernel...] as [1, groups, a / groups, b * kernel cells]: conv's [channels_out,
// channels_in / groups, ...] by output channel, the transposed ops' [channels_in, channels_out /
// groups, ...] by input channel.
template <class B>
typename B::Tensor grouped_weight(const typename B::Tensor& weight, std::size_t groups) {
  const Shape& w = B::shape(weight);
  std::size_t per_row = 1;
  for (std::size_t d = 1; d < w.rank(); ++d) per_row *= w[d];
  return B::float_reshape(weight, Shape{1, groups, w[0] / groups, per_row});
}

// A bias [channels] as [1, channels, 1...] against a result of `rank` dims.
template <class B>
typename B::Tensor channel_view(const typename B::Tensor& bias, std::size_t rank) {
  std::vector<std::size_t> dims(rank, 1);
  dims[1] = B::shape(bias)[0];
  return B::float_reshape(bias, Shape(std::move(dims)));
}

// conv2d's and conv3d's forward pass once `p` is planned.
template <class B>
typename B::Tensor conv_forward(const typename B::Tensor& x, const typename B::Tensor& weight,
                                const std::optional<typename B::Tensor>& bias, const rules::Conv2dPlan& p, const ConvSpec& s) {
  if (p.out.num_elements() == 0 || p.channels_in == 0) {  // no taps: the bias alone, else zeros
    const typename B::Tensor zeros = B::float_full(p.out, 0.0, B::dtype(x), B::device(x));
    return bias && p.out.num_elements() != 0 ? B::float_add(zeros, channel_view<B>(*bias, p.out.rank())) : zeros;
  }
  const typename B::Tensor cols = gathered<B>(x, conv_im2col(p, s), p.groups, s.padding);
  const typename B::Tensor out = B::float_reshape(B::float_matmul(grouped_weight<B>(weight, p.groups), cols), p.out);
  return bias ? B::float_add(out, channel_view<B>(*bias, p.out.rank())) : out;
}

// conv2d's and conv3d's x gradient once `p` is planned.
template <class B>
typename B::Tensor conv_x_gradient(const typename B::Tensor& x, const typename B::Tensor& weight, const typename B::Tensor& grad,
                                   const rules::Conv2dPlan& p, const ConvSpec& s) {
  const Shape& xs = B::shape(x);
  const Im2col g = conv_im2col(p, s);
  const std::size_t l = cells_of(g.grid);
  if (xs.num_elements() == 0 || p.channels_out == 0 || l == 0) return B::float_full(xs, 0.0, B::dtype(x), B::device(x));
  const std::size_t k = p.channels_in / p.groups * cells_of(g.kernel);
  const typename B::Tensor gr = B::float_reshape(grad, Shape{p.batch, p.groups, p.channels_out / p.groups, l});
  const typename B::Tensor wt = B::float_swap_dims(grouped_weight<B>(weight, p.groups), 2, 3);  // [1, groups, K, co / groups]
  const typename B::Tensor dcols = B::float_reshape(B::float_matmul(wt, gr), Shape{p.batch, p.groups * k * l});
  return scattered<B>(dcols, g, p.batch, s.padding);
}

// conv2d's and conv3d's weight gradient once `p` is planned.
template <class B>
typename B::Tensor conv_weight_gradient(const typename B::Tensor& x, const typename B::Tensor& weight,
                                        const typename B::Tensor& grad, const rules::Conv2dPlan& p, const ConvSpec& s) {
  const Shape& ws = B::shape(weight);
  if (ws.num_elements() == 0 || p.out.num_elements() == 0) return B::float_full(ws, 0.0, B::dtype(x), B::device(x));
  const Im2col g = conv_im2col(p, s);
  const typename B::Tensor gr = B::float_reshape(grad, Shape{p.batch, p.groups, p.channels_out / p.groups, cells_of(g.grid)});
  const typename B::Tensor cols_t = B::float_swap_dims(gathered<B>(x, g, p.groups, s.padding), 2, 3);
  const typename B::Tensor per_batch = B::float_matmul(gr, cols_t);  // [batch, groups, co / groups, K]
  return B::float_reshape(B::float_sum_dim(per_batch, 0), ws);
}

// The bias gradient of any convolution once `out` (the bias's shape) is planned: grad summed over
// batch and every spatial dim.
template <class B>
typename B::Tensor bias_gradient(const typename B::Tensor& x, const typename B::Tensor& grad, const Shape& out) {
  const Shape& gs = B::shape(grad);
  if (out.num_elements() == 0 || gs.num_elements() == 0) return B::float_full(out, 0.0, B::dtype(x), B::device(x));
  const typename B::Tensor per_channel =
      B::float_reshape(B::float_sum_dim(grad, 0), Shape{gs[1], gs.num_elements() / (gs[0] * gs[1])});
  return B::float_reshape(B::float_sum_dim(per_channel, 1), out);
}

template <class B>
typename B::Tensor conv2d(const typename B::Tensor& x, const typename B::Tensor& weight,
                          const std::optional<typename B::Tensor>& bias, const Conv2dOptions& o) {
  const Shape bias_shape = bias ? B::shape(*bias) : Shape{};
  const rules::Conv2dPlan p = rules::plan_conv2d(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight),
                                                 bias ? &bias_shape : nullptr, bias ? B::dtype(*bias) : B::dtype(x), o);
  return conv_forward<B>(x, weight, bias, p, spec_of(o));
}

template <class B>
typename B::Tensor conv2d_x_backward(const typename B::Tensor& x, const typename B::Tensor& weight,
                                     const typename B::Tensor& grad, const Conv2dOptions& o) {
  const rules::Conv2dPlan p = rules::plan_conv2d_backward(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight),
                                                          B::shape(grad), B::dtype(grad), o, "conv2d_x_backward");
  return conv_x_gradient<B>(x, weight, grad, p, spec_of(o));
}

template <class B>
typename B::Tensor conv2d_weight_backward(const typename B::Tensor& x, const typename B::Tensor& weight,
                                          const typename B::Tensor& grad, const Conv2dOptions& o) {
  const rules::Conv2dPlan p = rules::plan_conv2d_backward(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight),
                                                          B::shape(grad), B::dtype(grad), o, "conv2d_weight_backward");
  return conv_weight_gradient<B>(x, weight, grad, p, spec_of(o));
}

template <class B>
typename B::Tensor conv2d_bias_backward(const typename B::Tensor& x, const typename B::Tensor& bias,
                                        const typename B::Tensor& grad, std::string_view op = "conv2d_bias_backward") {
  const Shape out = rules::plan_conv2d_bias_backward(B::shape(x), B::dtype(x), B::shape(bias), B::dtype(bias), B::shape(grad),
                                                     B::dtype(grad), op);
  return bias_gradient<B>(x, grad, out);
}

// conv3d and its backward passes: conv2d's passes with a depth dim (one index list over volumes).
template <class B>
typename B::Tensor conv3d(const typename B::Tensor& x, const typename B::Tensor& weight,
                          const std::optional<typename B::Tensor>& bias, const Conv3dOptions& o) {
  const Shape bias_shape = bias ? B::shape(*bias) : Shape{};
  const rules::Conv2dPlan p = rules::plan_conv3d(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight),
                                                 bias ? &bias_shape : nullptr, bias ? B::dtype(*bias) : B::dtype(x), o);
  return conv_forward<B>(x, weight, bias, p, spec_of(o));
}

template <class B>
typename B::Tensor conv3d_x_backward(const typename B::Tensor& x, const typename B::Tensor& weight,
                                     const typename B::Tensor& grad, const Conv3dOptions& o) {
  const rules::Conv2dPlan p = rules::plan_conv3d_backward(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight),
                                                          B::shape(grad), B::dtype(grad), o, "conv3d_x_backward");
  return conv_x_gradient<B>(x, weight, grad, p, spec_of(o));
}

template <class B>
typename B::Tensor conv3d_weight_backward(const typename B::Tensor& x, const typename B::Tensor& weight,
                                          const typename B::Tensor& grad, const Conv3dOptions& o) {
  const rules::Conv2dPlan p = rules::plan_conv3d_backward(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight),
                                                          B::shape(grad), B::dtype(grad), o, "conv3d_weight_backward");
  return conv_weight_gradient<B>(x, weight, grad, p, spec_of(o));
}

// conv3d_bias_backward or conv_transpose3d_bias_backward (`op`).
template <class B>
typename B::Tensor conv3d_bias_backward(const typename B::Tensor& x, const typename B::Tensor& bias,
                                        const typename B::Tensor& grad, std::string_view op = "conv3d_bias_backward") {
  const Shape out = rules::plan_conv3d_bias_backward(B::shape(x), B::dtype(x), B::shape(bias), B::dtype(bias), B::shape(grad),
                                                     B::dtype(grad), op);
  return bias_gradient<B>(x, grad, out);
}

// conv1d and its backward passes: the backend's own conv2d passes on the single-row view (Burn's
// default conv1d), after conv1d's checks under conv1d's names (rules::plan_conv1d*), so the 2-D
// view never panics. The result is conv2d's, element for element.
template <class B>
typename B::Tensor conv1d(const typename B::Tensor& x, const typename B::Tensor& weight,
                          const std::optional<typename B::Tensor>& bias, const Conv1dOptions& o) {
  const Shape bias_shape = bias ? B::shape(*bias) : Shape{};
  const rules::Conv2dPlan p = rules::plan_conv1d(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight),
                                                 bias ? &bias_shape : nullptr, bias ? B::dtype(*bias) : B::dtype(x), o);
  const Shape &xs = B::shape(x), &ws = B::shape(weight);
  return B::float_reshape(B::conv2d(B::float_reshape(x, Shape{xs[0], xs[1], 1, xs[2]}),
                                    B::float_reshape(weight, Shape{ws[0], ws[1], 1, ws[2]}), bias, rules::conv2d_options_of(o)),
                          p.out);
}

// conv1d_x_backward (of_x) or conv1d_weight_backward: conv2d's on the single-row view.
template <class B>
typename B::Tensor conv1d_backward(const typename B::Tensor& x, const typename B::Tensor& weight, const typename B::Tensor& grad,
                                   const Conv1dOptions& o, bool of_x) {
  (void)rules::plan_conv1d_backward(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight), B::shape(grad), B::dtype(grad), o,
                                    of_x ? "conv1d_x_backward" : "conv1d_weight_backward");
  const Shape &xs = B::shape(x), &ws = B::shape(weight), &gs = B::shape(grad);
  const typename B::Tensor x4 = B::float_reshape(x, Shape{xs[0], xs[1], 1, xs[2]});
  const typename B::Tensor w4 = B::float_reshape(weight, Shape{ws[0], ws[1], 1, ws[2]});
  const typename B::Tensor g4 = B::float_reshape(grad, Shape{gs[0], gs[1], 1, gs[2]});
  const Conv2dOptions o2 = rules::conv2d_options_of(o);
  return of_x ? B::float_reshape(B::conv2d_x_backward(x4, w4, g4, o2), xs) : B::float_reshape(B::conv2d_weight_backward(x4, w4, g4, o2), ws);
}

// conv1d_bias_backward or conv_transpose1d_bias_backward (`op`): conv2d's on the single-row view.
template <class B>
typename B::Tensor conv1d_bias_backward(const typename B::Tensor& x, const typename B::Tensor& bias, const typename B::Tensor& grad,
                                        std::string_view op = "conv1d_bias_backward") {
  (void)rules::plan_conv1d_bias_backward(B::shape(x), B::dtype(x), B::shape(bias), B::dtype(bias), B::shape(grad), B::dtype(grad), op);
  const Shape &xs = B::shape(x), &gs = B::shape(grad);
  return B::conv2d_bias_backward(B::float_reshape(x, Shape{xs[0], xs[1], 1, xs[2]}), bias,
                                 B::float_reshape(grad, Shape{gs[0], gs[1], 1, gs[2]}));
}

// Note [Transposed convolution as a scattered product]
// conv_transpose2d is conv2d's x gradient as an op of its own (Burn's and PyTorch's definition):
// its input plays conv2d's output gradient, its weight [channels_in, channels_out / groups, k_h,
// k_w] conv2d's weight, and its output conv2d's input. So the forward pass is conv2d_x_backward's
// product (the weight^T times x per group, one column per input cell) scattered by select_add,
// x's gradient conv2d's forward product over the gradient gathered by the same list, and the
// weight's x times that gathered matrix, summed over the batch. The list names, for every row
// k = (channel, i, j) and input cell l = (iy, ix), the output cell (iy * stride + i * dilation -
// padding, ...) of that channel, or, where the tap lands in the cropped padding (or past
// padding_out's zero rows), a cell of its own appended to each channel's plane: the scatter's
// dropped taps go there and are sliced off, and the gather reads a zero there (a 0 term: 0 * inf is
// NaN, as conv2d's padding). So no buffer grows with the padding, which shrinks the output. An
// output cell is a sum over the taps that land on it, added in the order of the list: the
// oracle's accumulation bound is the count of taps a cell can receive, channels_in / groups * k_h *
// k_w. conv_transpose3d's rows and cells carry a depth index first (channel, t, i, j) and (iz, iy,
// ix), and its bound has a factor k_d.
template <class B>
typename B::Tensor transposed_cells(const rules::Conv2dPlan& p, const ConvSpec& o, const typename B::Tensor& like) {
  const std::size_t plane = p.out_d * p.out_h * p.out_w + 1;  // the output cells, then the dropped-tap cell
  const std::size_t rows = p.channels_out * p.k_d * p.k_h * p.k_w, cols = p.in_d * p.in_h * p.in_w;
  // The matrix the list scatters or gathers, the planes with their extra cells, the list itself.
  checked_tensor_bytes(Shape{p.batch, rows, cols}, B::dtype(like));
  checked_tensor_bytes(Shape{p.batch, p.channels_out, plane}, B::dtype(like));
  checked_tensor_bytes(Shape{rows, cols}, DType::I64);
  // The output coordinate of a tap along one dim, or nothing when it is cropped (or past the sizes
  // a std::size_t holds, which no output reaches).
  const auto land = [&o](std::size_t d, std::size_t at, std::size_t tap, std::size_t size) -> std::optional<std::size_t> {
    std::size_t y = 0, step = 0;
    if (__builtin_mul_overflow(at, o.stride[d], &y) || __builtin_mul_overflow(tap, o.dilation[d], &step) ||
        __builtin_add_overflow(y, step, &y) || y < o.padding[d] || y - o.padding[d] >= size) {
      return std::nullopt;
    }
    return y - o.padding[d];
  };
  std::vector<std::int64_t> at;
  at.reserve(rows * cols);
  for (std::size_t c = 0; c < p.channels_out; ++c) {
    const std::size_t base = c * plane, dropped = base + plane - 1;
    for (std::size_t t = 0; t < p.k_d; ++t) {
      for (std::size_t i = 0; i < p.k_h; ++i) {
        for (std::size_t j = 0; j < p.k_w; ++j) {
          for (std::size_t iz = 0; iz < p.in_d; ++iz) {
            const std::optional<std::size_t> z = land(0, iz, t, p.out_d);
            for (std::size_t iy = 0; iy < p.in_h; ++iy) {
              const std::optional<std::size_t> y = z ? land(1, iy, i, p.out_h) : std::nullopt;
              for (std::size_t ix = 0; ix < p.in_w; ++ix) {
                const std::optional<std::size_t> x = y ? land(2, ix, j, p.out_w) : std::nullopt;
                at.push_back(static_cast<std::int64_t>(x ? base + (*z * p.out_h + *y) * p.out_w + *x : dropped));
              }
            }
          }
        }
      }
    }
  }
  return B::from_data(TensorData::from_i64(std::move(at), Shape{rows * cols}), B::device(like));
}

// The gradient [batch, channels_out, out...] with a zero appended to each channel's cells, gathered
// by the list: [batch, groups, K, L] (K = channels_out / groups * kernel cells, L = input cells).
template <class B>
typename B::Tensor transposed_gathered(const typename B::Tensor& grad, const rules::Conv2dPlan& p, const ConvSpec& o) {
  const std::size_t cells = p.out_d * p.out_h * p.out_w, k = p.channels_out / p.groups * p.k_d * p.k_h * p.k_w;
  const typename B::Tensor list = transposed_cells<B>(p, o, grad);
  const typename B::Tensor zero = B::float_full(Shape{p.batch, p.channels_out, 1}, 0.0, B::dtype(grad), B::device(grad));
  const typename B::Tensor planes = B::float_cat({B::float_reshape(grad, Shape{p.batch, p.channels_out, cells}), zero}, 2);
  return B::float_reshape(B::float_select(B::float_reshape(planes, Shape{p.batch, p.channels_out * (cells + 1)}), 1, list),
                          Shape{p.batch, p.groups, k, p.in_d * p.in_h * p.in_w});
}

// conv_transpose2d's and conv_transpose3d's forward pass once `p` is planned.
template <class B>
typename B::Tensor conv_transpose_forward(const typename B::Tensor& x, const typename B::Tensor& weight,
                                          const std::optional<typename B::Tensor>& bias, const rules::Conv2dPlan& p,
                                          const ConvSpec& o) {
  if (p.out.num_elements() == 0 || p.channels_in == 0) {  // no taps: the bias alone, else zeros
    const typename B::Tensor zeros = B::float_full(p.out, 0.0, B::dtype(x), B::device(x));
    return bias && p.out.num_elements() != 0 ? B::float_add(zeros, channel_view<B>(*bias, p.out.rank())) : zeros;
  }
  const std::size_t k = p.channels_out / p.groups * p.k_d * p.k_h * p.k_w, l = p.in_d * p.in_h * p.in_w;
  const std::size_t cells = p.out_d * p.out_h * p.out_w;
  const typename B::Tensor list = transposed_cells<B>(p, o, x);
  const typename B::Tensor xs = B::float_reshape(x, Shape{p.batch, p.groups, p.channels_in / p.groups, l});
  const typename B::Tensor wt = B::float_swap_dims(grouped_weight<B>(weight, p.groups), 2, 3);  // [1, groups, K, ci / groups]
  const typename B::Tensor cols = B::float_reshape(B::float_matmul(wt, xs), Shape{p.batch, p.groups * k * l});
  const typename B::Tensor zeros = B::float_full(Shape{p.batch, p.channels_out * (cells + 1)}, 0.0, B::dtype(x), B::device(x));
  const typename B::Tensor planes =
      B::float_reshape(B::float_select_add(zeros, 1, list, cols), Shape{p.batch, p.channels_out, cells + 1});
  const typename B::Tensor out =
      B::float_reshape(B::float_slice(planes, {Range{0, p.batch}, Range{0, p.channels_out}, Range{0, cells}}), p.out);
  return bias ? B::float_add(out, channel_view<B>(*bias, p.out.rank())) : out;
}

// conv_transpose2d's and conv_transpose3d's x gradient once `p` is planned.
template <class B>
typename B::Tensor conv_transpose_x_gradient(const typename B::Tensor& x, const typename B::Tensor& weight,
                                             const typename B::Tensor& grad, const rules::Conv2dPlan& p, const ConvSpec& o) {
  const Shape& xs = B::shape(x);
  if (xs.num_elements() == 0 || p.channels_out == 0) return B::float_full(xs, 0.0, B::dtype(x), B::device(x));
  return B::float_reshape(B::float_matmul(grouped_weight<B>(weight, p.groups), transposed_gathered<B>(grad, p, o)), xs);
}

// conv_transpose2d's and conv_transpose3d's weight gradient once `p` is planned.
template <class B>
typename B::Tensor conv_transpose_weight_gradient(const typename B::Tensor& x, const typename B::Tensor& weight,
                                                  const typename B::Tensor& grad, const rules::Conv2dPlan& p,
                                                  const ConvSpec& o) {
  const Shape& ws = B::shape(weight);
  if (ws.num_elements() == 0 || B::shape(x).num_elements() == 0) return B::float_full(ws, 0.0, B::dtype(x), B::device(x));
  const typename B::Tensor xs =
      B::float_reshape(x, Shape{p.batch, p.groups, p.channels_in / p.groups, p.in_d * p.in_h * p.in_w});
  const typename B::Tensor cols_t = B::float_swap_dims(transposed_gathered<B>(grad, p, o), 2, 3);
  const typename B::Tensor per_batch = B::float_matmul(xs, cols_t);  // [batch, groups, ci / groups, K]
  return B::float_reshape(B::float_sum_dim(per_batch, 0), ws);
}

template <class B>
typename B::Tensor conv_transpose2d(const typename B::Tensor& x, const typename B::Tensor& weight,
                                    const std::optional<typename B::Tensor>& bias, const ConvTranspose2dOptions& o) {
  const Shape bias_shape = bias ? B::shape(*bias) : Shape{};
  const rules::Conv2dPlan p = rules::plan_conv_transpose2d(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight),
                                                           bias ? &bias_shape : nullptr, bias ? B::dtype(*bias) : B::dtype(x), o);
  return conv_transpose_forward<B>(x, weight, bias, p, spec_of(o));
}

template <class B>
typename B::Tensor conv_transpose2d_x_backward(const typename B::Tensor& x, const typename B::Tensor& weight,
                                               const typename B::Tensor& grad, const ConvTranspose2dOptions& o) {
  const rules::Conv2dPlan p =
      rules::plan_conv_transpose2d_backward(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight), B::shape(grad),
                                            B::dtype(grad), o, "conv_transpose2d_x_backward");
  return conv_transpose_x_gradient<B>(x, weight, grad, p, spec_of(o));
}

template <class B>
typename B::Tensor conv_transpose2d_weight_backward(const typename B::Tensor& x, const typename B::Tensor& weight,
                                                    const typename B::Tensor& grad, const ConvTranspose2dOptions& o) {
  const rules::Conv2dPlan p =
      rules::plan_conv_transpose2d_backward(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight), B::shape(grad),
                                            B::dtype(grad), o, "conv_transpose2d_weight_backward");
  return conv_transpose_weight_gradient<B>(x, weight, grad, p, spec_of(o));
}

// conv_transpose3d and its backward passes: conv_transpose2d's with a depth dim.
template <class B>
typename B::Tensor conv_transpose3d(const typename B::Tensor& x, const typename B::Tensor& weight,
                                    const std::optional<typename B::Tensor>& bias, const ConvTranspose3dOptions& o) {
  const Shape bias_shape = bias ? B::shape(*bias) : Shape{};
  const rules::Conv2dPlan p = rules::plan_conv_transpose3d(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight),
                                                           bias ? &bias_shape : nullptr, bias ? B::dtype(*bias) : B::dtype(x), o);
  return conv_transpose_forward<B>(x, weight, bias, p, spec_of(o));
}

template <class B>
typename B::Tensor conv_transpose3d_x_backward(const typename B::Tensor& x, const typename B::Tensor& weight,
                                               const typename B::Tensor& grad, const ConvTranspose3dOptions& o) {
  const rules::Conv2dPlan p =
      rules::plan_conv_transpose3d_backward(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight), B::shape(grad),
                                            B::dtype(grad), o, "conv_transpose3d_x_backward");
  return conv_transpose_x_gradient<B>(x, weight, grad, p, spec_of(o));
}

template <class B>
typename B::Tensor conv_transpose3d_weight_backward(const typename B::Tensor& x, const typename B::Tensor& weight,
                                                    const typename B::Tensor& grad, const ConvTranspose3dOptions& o) {
  const rules::Conv2dPlan p =
      rules::plan_conv_transpose3d_backward(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight), B::shape(grad),
                                            B::dtype(grad), o, "conv_transpose3d_weight_backward");
  return conv_transpose_weight_gradient<B>(x, weight, grad, p, spec_of(o));
}

// unfold4d: the index list of Note [Convolution as a gathered product] over the output grid
// gathers every block's cells, padding cells 0: [batch, channels * k_h * k_w, out_h * out_w],
// each element a copy. fold4d, its adjoint (col2im), scatters the same list: each block cell added
// to the output cell it names, in the list's order, the padding dropped; so fold4d is unfold4d's
// gradient and unfold4d fold4d's.
inline Im2col unfold4d_im2col(const rules::Conv2dPlan& p, const UnfoldOptions& o) {
  Im2col g = conv_im2col(p, spec_of(o));
  g.rank = 2;  // unfold4d's plan shapes its [batch, block cells, blocks] result; the volumes are planes
  return g;
}

template <class B>
typename B::Tensor unfold4d(const typename B::Tensor& x, const Size2& kernel, const UnfoldOptions& o) {
  const rules::Conv2dPlan p = rules::plan_unfold4d(B::shape(x), B::dtype(x), kernel, o);
  if (p.out.num_elements() == 0) return B::float_full(p.out, 0.0, B::dtype(x), B::device(x));
  return B::float_reshape(gathered<B>(x, unfold4d_im2col(p, o), 1, spec_of(o).padding), p.out);
}

template <class B>
typename B::Tensor fold4d(const typename B::Tensor& x, const Size2& output_size, const Size2& kernel, const UnfoldOptions& o) {
  const rules::Conv2dPlan p = rules::plan_fold4d(B::shape(x), B::dtype(x), output_size, kernel, o);
  const std::size_t n = B::shape(x).num_elements();
  if (n == 0) return B::float_full(p.out, 0.0, B::dtype(x), B::device(x));
  return scattered<B>(B::float_reshape(x, Shape{p.batch, n / p.batch}), unfold4d_im2col(p, o), p.batch, spec_of(o).padding);
}

// conv_transpose1d and its backward passes: the backend's own conv_transpose2d passes on the
// single-row view, after conv_transpose1d's checks under its names (rules::plan_conv_transpose1d*),
// as conv1d is conv2d's.
template <class B>
typename B::Tensor conv_transpose1d(const typename B::Tensor& x, const typename B::Tensor& weight,
                                    const std::optional<typename B::Tensor>& bias, const ConvTranspose1dOptions& o) {
  const Shape bias_shape = bias ? B::shape(*bias) : Shape{};
  const rules::Conv2dPlan p = rules::plan_conv_transpose1d(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight),
                                                           bias ? &bias_shape : nullptr, bias ? B::dtype(*bias) : B::dtype(x), o);
  const Shape &xs = B::shape(x), &ws = B::shape(weight);
  return B::float_reshape(B::conv_transpose2d(B::float_reshape(x, Shape{xs[0], xs[1], 1, xs[2]}),
                                              B::float_reshape(weight, Shape{ws[0], ws[1], 1, ws[2]}), bias,
                                              rules::conv_transpose2d_options_of(o)),
                          p.out);
}

// conv_transpose1d_x_backward (of_x) or conv_transpose1d_weight_backward.
template <class B>
typename B::Tensor conv_transpose1d_backward(const typename B::Tensor& x, const typename B::Tensor& weight,
                                             const typename B::Tensor& grad, const ConvTranspose1dOptions& o, bool of_x) {
  (void)rules::plan_conv_transpose1d_backward(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight), B::shape(grad),
                                              B::dtype(grad), o,
                                              of_x ? "conv_transpose1d_x_backward" : "conv_transpose1d_weight_backward");
  const Shape &xs = B::shape(x), &ws = B::shape(weight), &gs = B::shape(grad);
  const typename B::Tensor x4 = B::float_reshape(x, Shape{xs[0], xs[1], 1, xs[2]});
  const typename B::Tensor w4 = B::float_reshape(weight, Shape{ws[0], ws[1], 1, ws[2]});
  const typename B::Tensor g4 = B::float_reshape(grad, Shape{gs[0], gs[1], 1, gs[2]});
  const ConvTranspose2dOptions o2 = rules::conv_transpose2d_options_of(o);
  return of_x ? B::float_reshape(B::conv_transpose2d_x_backward(x4, w4, g4, o2), xs)
              : B::float_reshape(B::conv_transpose2d_weight_backward(x4, w4, g4, o2), ws);
}

}  // namespace crossgrad::backends::composite
