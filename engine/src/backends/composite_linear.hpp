#pragma once
// linear and its three backward passes, written once for every backend B from its own matmul,
// add, sum_dim and swap_dims (Burn's default ModuleOps::linear*, the weight [d_input, d_output]
// not transposed): each backend's member is a one-line call. The checks run first under the op's
// own name (rules::plan_linear*), and an empty result is shaped without a kernel, since the folded
// row count of an empty x can exceed size_t ([2^40, 2^40, 0]).
#include <crossgrad/core/module_rules.hpp>

#include <optional>

namespace crossgrad::backends::composite {

template <class B>
typename B::Tensor zeros_like_plan(const rules::LinearPlan& p, const typename B::Tensor& like) {
  return B::float_full(p.out, 0.0, B::dtype(like), B::device(like));
}

// x @ weight, then + bias broadcast over the rows (two roundings per element, as Burn's).
template <class B>
typename B::Tensor linear(const typename B::Tensor& x, const typename B::Tensor& weight,
                          const std::optional<typename B::Tensor>& bias) {
  const Shape bias_shape = bias ? B::shape(*bias) : Shape{};
  const rules::LinearPlan p = rules::plan_linear(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight),
                                                 bias ? &bias_shape : nullptr, bias ? B::dtype(*bias) : B::dtype(x));
  if (p.rows == 0) return zeros_like_plan<B>(p, x);
  typename B::Tensor out = B::float_matmul(B::float_reshape(x, Shape{p.rows, p.d_input}), weight);
  if (bias) out = B::float_add(out, B::float_reshape(*bias, Shape{1, p.d_output}));
  return B::float_reshape(out, p.out);
}

// grad @ weight^T.
template <class B>
typename B::Tensor linear_x_backward(const typename B::Tensor& weight, const typename B::Tensor& grad) {
  const rules::LinearPlan p = rules::plan_linear_x_backward(B::shape(weight), B::dtype(weight), B::shape(grad), B::dtype(grad));
  if (p.rows == 0) return zeros_like_plan<B>(p, weight);
  const typename B::Tensor g = B::float_reshape(grad, Shape{p.rows, p.d_output});
  return B::float_reshape(B::float_matmul(g, B::float_swap_dims(weight, 0, 1)), p.out);
}

// x^T @ grad with the leading dims folded into rows: the sum over the batch is the product's.
template <class B>
typename B::Tensor linear_weight_backward(const typename B::Tensor& x, const typename B::Tensor& grad) {
  const rules::LinearPlan p = rules::plan_linear_weight_backward(B::shape(x), B::dtype(x), B::shape(grad), B::dtype(grad));
  if (p.rows == 0) return zeros_like_plan<B>(p, x);
  const typename B::Tensor xt = B::float_swap_dims(B::float_reshape(x, Shape{p.rows, p.d_input}), 0, 1);
  return B::float_matmul(xt, B::float_reshape(grad, Shape{p.rows, p.d_output}));
}

// The sum of grad over its leading dims, folded into rows.
template <class B>
typename B::Tensor linear_bias_backward(const typename B::Tensor& grad) {
  const rules::LinearPlan p = rules::plan_linear_bias_backward(B::shape(grad), B::dtype(grad));
  if (p.rows == 0) return zeros_like_plan<B>(p, grad);
  return B::float_reshape(B::float_sum_dim(B::float_reshape(grad, Shape{p.rows, p.d_output}), 0), p.out);
}

}  // namespace crossgrad::backends::composite
