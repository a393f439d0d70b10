#pragma once
// The 1-D poolings (avg_pool1d, adaptive_avg_pool1d, max_pool1d and their backward passes), written
// once for every backend B: Burn's default 1-D poolings, the backend's own 2-D pooling over the
// single-row view [batch, channels, 1, length] with options of 1 (kernel, stride, dilation) and 0
// (padding) across rows, after the checks of rules::plan_*_pool1d* under the 1-D op's own name, so
// the 2-D view never panics. Each result is the 2-D op's, element for element.
#include <crossgrad/core/module_rules.hpp>
#include <crossgrad/core/tensor_data.hpp>

namespace crossgrad::backends::composite {

// A float [batch, channels, length] as [batch, channels, 1, length].
template <class B>
typename B::Tensor single_row(const typename B::Tensor& t) {
  const Shape& s = B::shape(t);
  return B::float_reshape(t, Shape{s[0], s[1], 1, s[2]});
}

template <class B>
typename B::Tensor avg_pool1d(const typename B::Tensor& x, const AvgPool1dOptions& o) {
  const rules::Pool2dPlan p = rules::plan_avg_pool1d(B::shape(x), B::dtype(x), o);
  return B::float_reshape(B::avg_pool2d(single_row<B>(x), rules::avg_pool2d_options_of(o)), p.out);
}

template <class B>
typename B::Tensor avg_pool1d_backward(const typename B::Tensor& x, const typename B::Tensor& grad, const AvgPool1dOptions& o) {
  (void)rules::plan_avg_pool1d_backward(B::shape(x), B::dtype(x), B::shape(grad), B::dtype(grad), o);
  return B::float_reshape(B::avg_pool2d_backward(single_row<B>(x), single_row<B>(grad), rules::avg_pool2d_options_of(o)),
                          B::shape(x));
}

template <class B>
typename B::Tensor adaptive_avg_pool1d(const typename B::Tensor& x, const Size1& output_size) {
  const rules::Pool2dPlan p = rules::plan_adaptive_avg_pool1d(B::shape(x), B::dtype(x), output_size);
  return B::float_reshape(B::adaptive_avg_pool2d(single_row<B>(x), Size2{1, output_size[0]}), p.out);
}

template <class B>
typename B::Tensor adaptive_avg_pool1d_backward(const typename B::Tensor& x, const typename B::Tensor& grad) {
  (void)rules::plan_adaptive_avg_pool1d_backward(B::shape(x), B::dtype(x), B::shape(grad), B::dtype(grad));
  return B::float_reshape(B::adaptive_avg_pool2d_backward(single_row<B>(x), single_row<B>(grad)), B::shape(x));
}

// max_pool1d (indices false) or max_pool1d_indices: an index is a cell of the row, the 2-D op's
// index into a plane of one row.
template <class B>
typename B::Tensor max_pool1d(const typename B::Tensor& x, const MaxPool1dOptions& o, bool indices) {
  const rules::Pool2dPlan p = rules::plan_max_pool1d(B::shape(x), B::dtype(x), o, indices ? "max_pool1d_indices" : "max_pool1d");
  const MaxPool2dOptions o2 = rules::max_pool2d_options_of(o);
  if (indices) return B::int_reshape(B::max_pool2d_indices(single_row<B>(x), o2), p.out);
  return B::float_reshape(B::max_pool2d(single_row<B>(x), o2), p.out);
}

// The index values are checked here, under this op's name, before the 2-D pass reads them.
template <class B>
typename B::Tensor max_pool1d_with_indices_backward(const typename B::Tensor& x, const typename B::Tensor& grad,
                                                    const typename B::Tensor& indices, const MaxPool1dOptions& o) {
  const rules::Pool2dPlan p = rules::plan_max_pool1d_backward(B::shape(x), B::dtype(x), B::shape(grad), B::dtype(grad),
                                                              B::shape(indices), B::dtype(indices), o);
  rules::check_pool_indices(B::into_data(indices).to_i64(), p.in_w, "max_pool1d_with_indices_backward");
  const Shape& is = B::shape(indices);
  return B::float_reshape(B::max_pool2d_with_indices_backward(single_row<B>(x), single_row<B>(grad),
                                                              B::int_reshape(indices, Shape{is[0], is[1], 1, is[2]}),
                                                              rules::max_pool2d_options_of(o)),
                          B::shape(x));
}

// adaptive_avg_pool3d and its backward pass: adaptive averaging is separable, so the backend's own
// adaptive_avg_pool2d over height and width ([batch, channels * depth, h, w] to [.., out_h,
// out_w]), then over depth with the pooled cells as one long row ([batch * channels, 1, depth,
// out_h * out_w] to [.., out_d, out_h * out_w], a width kept whole); the backward pass is the
// adjoint, the two 2-D backward passes in the other order. Each output is a mean of means (PyTorch
// sums a window once and divides by its cells): the same value within the sum's rounding bound.
template <class B>
typename B::Tensor adaptive_avg_pool3d(const typename B::Tensor& x, const Size3& output_size) {
  const rules::Pool3dPlan p = rules::plan_adaptive_avg_pool3d(B::shape(x), B::dtype(x), output_size);
  if (p.out.num_elements() == 0) return B::float_full(p.out, 0.0, B::dtype(x), B::device(x));
  const Shape& s = B::shape(x);
  const std::size_t cells = output_size[1] * output_size[2];
  const typename B::Tensor planes =
      B::adaptive_avg_pool2d(B::float_reshape(x, Shape{s[0], s[1] * s[2], s[3], s[4]}), Size2{output_size[1], output_size[2]});
  const typename B::Tensor depth =
      B::adaptive_avg_pool2d(B::float_reshape(planes, Shape{s[0] * s[1], 1, s[2], cells}), Size2{output_size[0], cells});
  return B::float_reshape(depth, p.out);
}

template <class B>
typename B::Tensor adaptive_avg_pool3d_backward(const typename B::Tensor& x, const typename B::Tensor& grad) {
  const rules::Pool3dPlan p = rules::plan_adaptive_avg_pool3d_backward(B::shape(x), B::dtype(x), B::shape(grad), B::dtype(grad));
  const Shape& s = B::shape(x);
  if (s.num_elements() == 0) return B::float_full(s, 0.0, B::dtype(x), B::device(x));
  const std::size_t cells = p.out_size[1] * p.out_size[2];
  // The depth pass reads only its input's shape: [batch * channels, 1, depth, out_h * out_w].
  const typename B::Tensor depth_input = B::float_full(Shape{s[0] * s[1], 1, s[2], cells}, 0.0, B::dtype(x), B::device(x));
  const typename B::Tensor planes_grad = B::adaptive_avg_pool2d_backward(
      depth_input, B::float_reshape(grad, Shape{s[0] * s[1], 1, p.out_size[0], cells}));
  const typename B::Tensor x_planes = B::float_reshape(x, Shape{s[0], s[1] * s[2], s[3], s[4]});
  return B::float_reshape(
      B::adaptive_avg_pool2d_backward(x_planes, B::float_reshape(planes_grad, Shape{s[0], s[1] * s[2], p.out_size[1], p.out_size[2]})),
      s);
}

}  // namespace crossgrad::backends::composite
