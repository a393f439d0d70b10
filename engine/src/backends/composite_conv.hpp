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
#include <vector>

namespace crossgrad::backends::composite {

// The gather list of Note [Convolution as a gathered product], as an I64 tensor on x's device.
template <class B>
typename B::Tensor im2col_indices(const rules::Conv2dPlan& p, const Conv2dOptions& o, const typename B::Tensor& like) {
  const std::size_t padded_h = p.in_h + 2 * o.padding[0], padded_w = p.in_w + 2 * o.padding[1];
  const std::size_t rows = p.channels_in * p.k_h * p.k_w, cols = p.out_h * p.out_w;
  // The gathered matrix and the index list itself, before either is allocated (tensor-too-large).
  checked_tensor_bytes(Shape{p.batch, rows, cols}, B::dtype(like));
  checked_tensor_bytes(Shape{rows, cols}, DType::I64);
  std::vector<std::int64_t> at;
  at.reserve(rows * cols);
  for (std::size_t c = 0; c < p.channels_in; ++c) {
    for (std::size_t i = 0; i < p.k_h; ++i) {
      for (std::size_t j = 0; j < p.k_w; ++j) {
        for (std::size_t oy = 0; oy < p.out_h; ++oy) {
          const std::size_t y = oy * o.stride[0] + i * o.dilation[0];
          for (std::size_t ox = 0; ox < p.out_w; ++ox) {
            const std::size_t x = ox * o.stride[1] + j * o.dilation[1];
            at.push_back(static_cast<std::int64_t>((c * padded_h + y) * padded_w + x));
          }
        }
      }
    }
  }
  return B::from_data(TensorData::from_i64(std::move(at), Shape{rows * cols}), B::device(like));
}

// x zero-padded and flattened per batch: [batch, channels_in * padded_h * padded_w].
template <class B>
typename B::Tensor padded_rows(const typename B::Tensor& x, const rules::Conv2dPlan& p, const Conv2dOptions& o) {
  const std::size_t padded_h = p.in_h + 2 * o.padding[0], padded_w = p.in_w + 2 * o.padding[1];
  typename B::Tensor xp = x;
  if (o.padding[0] != 0 || o.padding[1] != 0) {
    const typename B::Tensor zeros = B::float_full(Shape{p.batch, p.channels_in, padded_h, padded_w}, 0.0, B::dtype(x), B::device(x));
    xp = B::float_slice_assign(zeros,
                               {Range{0, p.batch}, Range{0, p.channels_in}, Range{o.padding[0], o.padding[0] + p.in_h},
                                Range{o.padding[1], o.padding[1] + p.in_w}},
                               x);
  }
  return B::float_reshape(xp, Shape{p.batch, p.channels_in * padded_h * padded_w});
}

// The gathered matrix [batch, groups, K, L].
template <class B>
typename B::Tensor gathered(const typename B::Tensor& x, const typename B::Tensor& at, const rules::Conv2dPlan& p,
                            const Conv2dOptions& o) {
  const std::size_t k = p.channels_in / p.groups * p.k_h * p.k_w;
  return B::float_reshape(B::float_select(padded_rows<B>(x, p, o), 1, at), Shape{p.batch, p.groups, k, p.out_h * p.out_w});
}

// The weight as [1, groups, channels_out / groups, K].
template <class B>
typename B::Tensor grouped_weight(const typename B::Tensor& weight, const rules::Conv2dPlan& p) {
  const std::size_t k = p.channels_in / p.groups * p.k_h * p.k_w;
  return B::float_reshape(weight, Shape{1, p.groups, p.channels_out / p.groups, k});
}

template <class B>
typename B::Tensor conv2d(const typename B::Tensor& x, const typename B::Tensor& weight,
                          const std::optional<typename B::Tensor>& bias, const Conv2dOptions& o) {
  const Shape bias_shape = bias ? B::shape(*bias) : Shape{};
  const rules::Conv2dPlan p = rules::plan_conv2d(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight),
                                                 bias ? &bias_shape : nullptr, bias ? B::dtype(*bias) : B::dtype(x), o);
  typename B::Tensor out = B::float_full(p.out, 0.0, B::dtype(x), B::device(x));
  if (p.out.num_elements() == 0) return out;
  if (p.channels_in != 0) {
    const typename B::Tensor cols = gathered<B>(x, im2col_indices<B>(p, o, x), p, o);
    out = B::float_reshape(B::float_matmul(grouped_weight<B>(weight, p), cols), p.out);
  }
  if (bias) out = B::float_add(out, B::float_reshape(*bias, Shape{1, p.channels_out, 1, 1}));
  return out;
}

template <class B>
typename B::Tensor conv2d_x_backward(const typename B::Tensor& x, const typename B::Tensor& weight,
                                     const typename B::Tensor& grad, const Conv2dOptions& o) {
  const rules::Conv2dPlan p = rules::plan_conv2d_backward(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight),
                                                          B::shape(grad), B::dtype(grad), o, "conv2d_x_backward");
  const Shape& xs = B::shape(x);
  if (xs.num_elements() == 0 || p.channels_out == 0 || p.out_h * p.out_w == 0) return B::float_full(xs, 0.0, B::dtype(x), B::device(x));
  const std::size_t k = p.channels_in / p.groups * p.k_h * p.k_w, l = p.out_h * p.out_w;
  const std::size_t padded_h = p.in_h + 2 * o.padding[0], padded_w = p.in_w + 2 * o.padding[1];
  const typename B::Tensor g = B::float_reshape(grad, Shape{p.batch, p.groups, p.channels_out / p.groups, l});
  const typename B::Tensor wt = B::float_swap_dims(grouped_weight<B>(weight, p), 2, 3);  // [1, groups, K, co / groups]
  const typename B::Tensor dcols = B::float_reshape(B::float_matmul(wt, g), Shape{p.batch, p.groups * k * l});
  const typename B::Tensor zeros =
      B::float_full(Shape{p.batch, p.channels_in * padded_h * padded_w}, 0.0, B::dtype(x), B::device(x));
  const typename B::Tensor dxp = B::float_reshape(B::float_select_add(zeros, 1, im2col_indices<B>(p, o, x), dcols),
                                                  Shape{p.batch, p.channels_in, padded_h, padded_w});
  if (o.padding[0] == 0 && o.padding[1] == 0) return dxp;
  return B::float_slice(dxp, {Range{0, p.batch}, Range{0, p.channels_in}, Range{o.padding[0], o.padding[0] + p.in_h},
                              Range{o.padding[1], o.padding[1] + p.in_w}});
}

template <class B>
typename B::Tensor conv2d_weight_backward(const typename B::Tensor& x, const typename B::Tensor& weight,
                                          const typename B::Tensor& grad, const Conv2dOptions& o) {
  const rules::Conv2dPlan p = rules::plan_conv2d_backward(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight),
                                                          B::shape(grad), B::dtype(grad), o, "conv2d_weight_backward");
  const Shape& ws = B::shape(weight);
  if (ws.num_elements() == 0 || p.out.num_elements() == 0) return B::float_full(ws, 0.0, B::dtype(x), B::device(x));
  const std::size_t l = p.out_h * p.out_w;
  const typename B::Tensor g = B::float_reshape(grad, Shape{p.batch, p.groups, p.channels_out / p.groups, l});
  const typename B::Tensor cols_t = B::float_swap_dims(gathered<B>(x, im2col_indices<B>(p, o, x), p, o), 2, 3);
  const typename B::Tensor per_batch = B::float_matmul(g, cols_t);  // [batch, groups, co / groups, K]
  return B::float_reshape(B::float_sum_dim(per_batch, 0), ws);
}

template <class B>
typename B::Tensor conv2d_bias_backward(const typename B::Tensor& x, const typename B::Tensor& bias,
                                        const typename B::Tensor& grad) {
  const Shape out = rules::plan_conv2d_bias_backward(B::shape(x), B::dtype(x), B::shape(bias), B::dtype(bias), B::shape(grad),
                                                     B::dtype(grad));
  const Shape& gs = B::shape(grad);
  if (out.num_elements() == 0 || gs.num_elements() == 0) return B::float_full(out, 0.0, B::dtype(x), B::device(x));
  const typename B::Tensor per_channel = B::float_reshape(B::float_sum_dim(grad, 0), Shape{gs[1], gs[2] * gs[3]});
  return B::float_reshape(B::float_sum_dim(per_channel, 1), out);
}

}  // namespace crossgrad::backends::composite
