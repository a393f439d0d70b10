#pragma once
// conv2d and its three backward passes, written once for every backend B from its own select,
// select_add, slice, slice_assign, matmul and sums (each backend's member is a one-line call),
// after the checks of rules::plan_conv2d* under the op's own name.
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
// order, then + bias: the oracle's accumulation bound (K + 1 terms).
#include <crossgrad/core/host_buffer.hpp>
#include <crossgrad/core/module_rules.hpp>
#include <crossgrad/core/tensor_data.hpp>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace crossgrad::backends::composite {

// Note [Convolution as a gathered product]'s index list, for any geometry: for every row k =
// (channel, i, j) and every position l = (y, x) of a grid_h x grid_w grid, the cell
// (y * stride + i * dilation, x * stride + j * dilation) of that channel of a padded_h x padded_w
// plane. conv2d's grid is its output and its planes the padded input; conv_transpose2d's grid is
// its input and its planes the padded output (the same list, scattered into instead of gathered).
struct Im2col {
  std::size_t channels, padded_h, padded_w, k_h, k_w, grid_h, grid_w;
  Size2 stride, dilation;
};

inline Im2col conv2d_im2col(const rules::Conv2dPlan& p, const Conv2dOptions& o) {
  return {p.channels_in, p.in_h + 2 * o.padding[0], p.in_w + 2 * o.padding[1], p.k_h, p.k_w, p.out_h, p.out_w, o.stride, o.dilation};
}
inline Im2col conv_transpose2d_im2col(const rules::Conv2dPlan& p, const ConvTranspose2dOptions& o) {
  return {p.channels_out, p.out_h + 2 * o.padding[0], p.out_w + 2 * o.padding[1], p.k_h, p.k_w, p.in_h, p.in_w, o.stride, o.dilation};
}

// The index list, as an I64 tensor on `like`'s device, once the matrix it gathers ([batch, rows,
// cols] of `like`'s dtype) and the list itself are known to fit (tensor-too-large).
template <class B>
typename B::Tensor im2col_indices(const Im2col& g, std::size_t batch, const typename B::Tensor& like) {
  const std::size_t rows = g.channels * g.k_h * g.k_w, cols = g.grid_h * g.grid_w;
  checked_tensor_bytes(Shape{batch, rows, cols}, B::dtype(like));
  checked_tensor_bytes(Shape{rows, cols}, DType::I64);
  std::vector<std::int64_t> at;
  at.reserve(rows * cols);
  for (std::size_t c = 0; c < g.channels; ++c) {
    for (std::size_t i = 0; i < g.k_h; ++i) {
      for (std::size_t j = 0; j < g.k_w; ++j) {
        for (std::size_t gy = 0; gy < g.grid_h; ++gy) {
          const std::size_t y = gy * g.stride[0] + i * g.dilation[0];
          for (std::size_t gx = 0; gx < g.grid_w; ++gx) {
            const std::size_t x = gx * g.stride[1] + j * g.dilation[1];
            at.push_back(static_cast<std::int64_t>((c * g.padded_h + y) * g.padded_w + x));
          }
        }
      }
    }
  }
  return B::from_data(TensorData::from_i64(std::move(at), Shape{rows * cols}), B::device(like));
}

// t [batch, channels, h, w] zero-padded by (pad_h, pad_w) and flattened per batch: [batch,
// channels * (h + 2 pad_h) * (w + 2 pad_w)].
template <class B>
typename B::Tensor padded_rows(const typename B::Tensor& t, std::size_t pad_h, std::size_t pad_w) {
  const Shape& s = B::shape(t);
  const std::size_t padded_h = s[2] + 2 * pad_h, padded_w = s[3] + 2 * pad_w;
  typename B::Tensor tp = t;
  if (pad_h != 0 || pad_w != 0) {
    const typename B::Tensor zeros = B::float_full(Shape{s[0], s[1], padded_h, padded_w}, 0.0, B::dtype(t), B::device(t));
    tp = B::float_slice_assign(zeros, {Range{0, s[0]}, Range{0, s[1]}, Range{pad_h, pad_h + s[2]}, Range{pad_w, pad_w + s[3]}}, t);
  }
  return B::float_reshape(tp, Shape{s[0], s[1] * padded_h * padded_w});
}

// cols [batch, groups * K * L] in the index list's row and position order, added into the zero
// planes [batch, channels, padded_h, padded_w] the list names, the padding sliced off: [batch,
// channels, padded_h - 2 pad_h, padded_w - 2 pad_w] (conv2d's x gradient, conv_transpose2d itself).
template <class B>
typename B::Tensor scattered(const typename B::Tensor& cols, const Im2col& g, std::size_t batch, std::size_t pad_h,
                             std::size_t pad_w) {
  const typename B::Tensor zeros =
      B::float_full(Shape{batch, g.channels * g.padded_h * g.padded_w}, 0.0, B::dtype(cols), B::device(cols));
  const typename B::Tensor planes = B::float_reshape(B::float_select_add(zeros, 1, im2col_indices<B>(g, batch, cols), cols),
                                                     Shape{batch, g.channels, g.padded_h, g.padded_w});
  if (pad_h == 0 && pad_w == 0) return planes;
  return B::float_slice(planes, {Range{0, batch}, Range{0, g.channels}, Range{pad_h, g.padded_h - pad_h},
                                 Range{pad_w, g.padded_w - pad_w}});
}

// t's planes gathered by the index list: [batch, groups, K, L] (K = channels / groups * k_h * k_w,
// L = grid_h * grid_w).
template <class B>
typename B::Tensor gathered(const typename B::Tensor& t, const Im2col& g, std::size_t groups, std::size_t pad_h,
                            std::size_t pad_w) {
  const std::size_t batch = B::shape(t)[0], k = g.channels / groups * g.k_h * g.k_w;
  return B::float_reshape(B::float_select(padded_rows<B>(t, pad_h, pad_w), 1, im2col_indices<B>(g, batch, t)),
                          Shape{batch, groups, k, g.grid_h * g.grid_w});
}

// A weight [a, b, k_h, k_w] as [1, groups, a / groups, b * k_h * k_w]: conv2d's [channels_out,
// channels_in / groups, ...] by output channel, conv_transpose2d's [channels_in, channels_out /
// groups, ...] by input channel.
template <class B>
typename B::Tensor grouped_weight(const typename B::Tensor& weight, std::size_t groups) {
  const Shape& w = B::shape(weight);
  return B::float_reshape(weight, Shape{1, groups, w[0] / groups, w[1] * w[2] * w[3]});
}

template <class B>
typename B::Tensor conv2d(const typename B::Tensor& x, const typename B::Tensor& weight,
                          const std::optional<typename B::Tensor>& bias, const Conv2dOptions& o) {
  const Shape bias_shape = bias ? B::shape(*bias) : Shape{};
  const rules::Conv2dPlan p = rules::plan_conv2d(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight),
                                                 bias ? &bias_shape : nullptr, bias ? B::dtype(*bias) : B::dtype(x), o);
  if (p.out.num_elements() == 0 || p.channels_in == 0) {  // no taps: the bias alone, else zeros
    const typename B::Tensor zeros = B::float_full(p.out, 0.0, B::dtype(x), B::device(x));
    return bias && p.out.num_elements() != 0 ? B::float_add(zeros, B::float_reshape(*bias, Shape{1, p.channels_out, 1, 1})) : zeros;
  }
  const typename B::Tensor cols = gathered<B>(x, conv2d_im2col(p, o), p.groups, o.padding[0], o.padding[1]);
  const typename B::Tensor out = B::float_reshape(B::float_matmul(grouped_weight<B>(weight, p.groups), cols), p.out);
  return bias ? B::float_add(out, B::float_reshape(*bias, Shape{1, p.channels_out, 1, 1})) : out;
}

template <class B>
typename B::Tensor conv2d_x_backward(const typename B::Tensor& x, const typename B::Tensor& weight,
                                     const typename B::Tensor& grad, const Conv2dOptions& o) {
  const rules::Conv2dPlan p = rules::plan_conv2d_backward(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight),
                                                          B::shape(grad), B::dtype(grad), o, "conv2d_x_backward");
  const Shape& xs = B::shape(x);
  if (xs.num_elements() == 0 || p.channels_out == 0 || p.out_h * p.out_w == 0) return B::float_full(xs, 0.0, B::dtype(x), B::device(x));
  const Im2col g = conv2d_im2col(p, o);
  const std::size_t k = p.channels_in / p.groups * p.k_h * p.k_w, l = p.out_h * p.out_w;
  const typename B::Tensor gr = B::float_reshape(grad, Shape{p.batch, p.groups, p.channels_out / p.groups, l});
  const typename B::Tensor wt = B::float_swap_dims(grouped_weight<B>(weight, p.groups), 2, 3);  // [1, groups, K, co / groups]
  const typename B::Tensor dcols = B::float_reshape(B::float_matmul(wt, gr), Shape{p.batch, p.groups * k * l});
  return scattered<B>(dcols, g, p.batch, o.padding[0], o.padding[1]);
}

template <class B>
typename B::Tensor conv2d_weight_backward(const typename B::Tensor& x, const typename B::Tensor& weight,
                                          const typename B::Tensor& grad, const Conv2dOptions& o) {
  const rules::Conv2dPlan p = rules::plan_conv2d_backward(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight),
                                                          B::shape(grad), B::dtype(grad), o, "conv2d_weight_backward");
  const Shape& ws = B::shape(weight);
  if (ws.num_elements() == 0 || p.out.num_elements() == 0) return B::float_full(ws, 0.0, B::dtype(x), B::device(x));
  const std::size_t l = p.out_h * p.out_w;
  const typename B::Tensor gr = B::float_reshape(grad, Shape{p.batch, p.groups, p.channels_out / p.groups, l});
  const typename B::Tensor cols_t =
      B::float_swap_dims(gathered<B>(x, conv2d_im2col(p, o), p.groups, o.padding[0], o.padding[1]), 2, 3);
  const typename B::Tensor per_batch = B::float_matmul(gr, cols_t);  // [batch, groups, co / groups, K]
  return B::float_reshape(B::float_sum_dim(per_batch, 0), ws);
}

template <class B>
typename B::Tensor conv2d_bias_backward(const typename B::Tensor& x, const typename B::Tensor& bias,
                                        const typename B::Tensor& grad, std::string_view op = "conv2d_bias_backward") {
  const Shape out = rules::plan_conv2d_bias_backward(B::shape(x), B::dtype(x), B::shape(bias), B::dtype(bias), B::shape(grad),
                                                     B::dtype(grad), op);
  const Shape& gs = B::shape(grad);
  if (out.num_elements() == 0 || gs.num_elements() == 0) return B::float_full(out, 0.0, B::dtype(x), B::device(x));
  const typename B::Tensor per_channel = B::float_reshape(B::float_sum_dim(grad, 0), Shape{gs[1], gs[2] * gs[3]});
  return B::float_reshape(B::float_sum_dim(per_channel, 1), out);
}

// Note [Transposed convolution as a scattered product]
// conv_transpose2d is conv2d's x gradient as an op of its own (Burn's and PyTorch's definition):
// its input plays conv2d's output gradient, its weight [channels_in, channels_out / groups, k_h,
// k_w] conv2d's weight, and its output, padded, conv2d's padded input. So the forward pass is
// conv2d_x_backward's product (the weight^T times x per group) scattered by Note [Convolution as a
// gathered product]'s list over the grid of x's cells, with padding_out extra zero rows and columns
// at the far edge that the list never names; x's gradient is conv2d's forward product over the
// gradient's padded planes gathered by that list, and the weight's x times the gathered matrix,
// summed over the batch. Output cell (y, x) is a sum over the taps that land on it, added in the
// order of the list (channel, i, j, then input cell): the oracle's accumulation bound is the count
// of taps a cell can receive, channels_in / groups * k_h * k_w.
template <class B>
typename B::Tensor conv_transpose2d(const typename B::Tensor& x, const typename B::Tensor& weight,
                                    const std::optional<typename B::Tensor>& bias, const ConvTranspose2dOptions& o) {
  const Shape bias_shape = bias ? B::shape(*bias) : Shape{};
  const rules::Conv2dPlan p = rules::plan_conv_transpose2d(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight),
                                                           bias ? &bias_shape : nullptr, bias ? B::dtype(*bias) : B::dtype(x), o);
  if (p.out.num_elements() == 0 || p.channels_in == 0) {  // no taps: the bias alone, else zeros
    const typename B::Tensor zeros = B::float_full(p.out, 0.0, B::dtype(x), B::device(x));
    return bias && p.out.num_elements() != 0 ? B::float_add(zeros, B::float_reshape(*bias, Shape{1, p.channels_out, 1, 1})) : zeros;
  }
  const std::size_t k = p.channels_out / p.groups * p.k_h * p.k_w, l = p.in_h * p.in_w;
  const typename B::Tensor xs = B::float_reshape(x, Shape{p.batch, p.groups, p.channels_in / p.groups, l});
  const typename B::Tensor wt = B::float_swap_dims(grouped_weight<B>(weight, p.groups), 2, 3);  // [1, groups, K, ci / groups]
  const typename B::Tensor cols = B::float_reshape(B::float_matmul(wt, xs), Shape{p.batch, p.groups * k * l});
  // The padded planes are out_h + 2 padding tall: padding_out rows past any the list names.
  const typename B::Tensor out = scattered<B>(cols, conv_transpose2d_im2col(p, o), p.batch, o.padding[0], o.padding[1]);
  return bias ? B::float_add(out, B::float_reshape(*bias, Shape{1, p.channels_out, 1, 1})) : out;
}

template <class B>
typename B::Tensor conv_transpose2d_x_backward(const typename B::Tensor& x, const typename B::Tensor& weight,
                                               const typename B::Tensor& grad, const ConvTranspose2dOptions& o) {
  const rules::Conv2dPlan p =
      rules::plan_conv_transpose2d_backward(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight), B::shape(grad),
                                            B::dtype(grad), o, "conv_transpose2d_x_backward");
  const Shape& xs = B::shape(x);
  if (xs.num_elements() == 0 || p.channels_out == 0) return B::float_full(xs, 0.0, B::dtype(x), B::device(x));
  const typename B::Tensor cols = gathered<B>(grad, conv_transpose2d_im2col(p, o), p.groups, o.padding[0], o.padding[1]);
  return B::float_reshape(B::float_matmul(grouped_weight<B>(weight, p.groups), cols), xs);
}

template <class B>
typename B::Tensor conv_transpose2d_weight_backward(const typename B::Tensor& x, const typename B::Tensor& weight,
                                                    const typename B::Tensor& grad, const ConvTranspose2dOptions& o) {
  const rules::Conv2dPlan p =
      rules::plan_conv_transpose2d_backward(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight), B::shape(grad),
                                            B::dtype(grad), o, "conv_transpose2d_weight_backward");
  const Shape& ws = B::shape(weight);
  if (ws.num_elements() == 0 || B::shape(x).num_elements() == 0) return B::float_full(ws, 0.0, B::dtype(x), B::device(x));
  const typename B::Tensor xs = B::float_reshape(x, Shape{p.batch, p.groups, p.channels_in / p.groups, p.in_h * p.in_w});
  const typename B::Tensor cols_t =
      B::float_swap_dims(gathered<B>(grad, conv_transpose2d_im2col(p, o), p.groups, o.padding[0], o.padding[1]), 2, 3);
  const typename B::Tensor per_batch = B::float_matmul(xs, cols_t);  // [batch, groups, ci / groups, K]
  return B::float_reshape(B::float_sum_dim(per_batch, 0), ws);
}

}  // namespace crossgrad::backends::composite
