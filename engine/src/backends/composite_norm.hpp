#pragma once
// layer_norm, written once for every backend B (and for Autodiff<B>, whose gradient then flows
// through these ops: Burn's Autodiff<B> keeps ModuleOps' default layer_norm the same way) from its
// own mean_dim, sub, mul, add_scalar, sqrt, div and add: Burn's default ModuleOps::layer_norm, step
// for step, so each step rounds in the dtype as Burn's does. The checks run first under the op's
// name (rules::plan_layer_norm); an empty x is shaped without a kernel.
#include <crossgrad/core/module_rules.hpp>

#include <optional>
#include <vector>

namespace crossgrad::backends::composite {

// Zeros of `shape` on `like`'s device, for B or for Autodiff<B> (which has an Inner and no
// float_full of its own: an untracked leaf of the inner backend's zeros).
template <class B>
typename B::Tensor zeros_on(const Shape& shape, const typename B::Tensor& like) {
  if constexpr (requires { typename B::Inner; }) {
    return B::from_inner(B::Inner::float_full(shape, 0.0, B::dtype(like), B::device(like)));
  } else {
    return B::float_full(shape, 0.0, B::dtype(like), B::device(like));
  }
}

// (x - mean) / sqrt(var + epsilon) * weight + bias over x's last dim; var the biased variance
// (the mean of the squared deviations).
template <class B>
typename B::Tensor layer_norm(const typename B::Tensor& x, const typename B::Tensor& weight,
                              const std::optional<typename B::Tensor>& bias, double epsilon) {
  const Shape bias_shape = bias ? B::shape(*bias) : Shape{};
  const rules::LayerNormPlan p = rules::plan_layer_norm(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight),
                                                        bias ? &bias_shape : nullptr, bias ? B::dtype(*bias) : B::dtype(x));
  if (p.rows == 0) return zeros_on<B>(p.out, x);
  const std::size_t last = p.out.rank() - 1;
  const typename B::Tensor centered = B::float_sub(x, B::float_mean_dim(x, last));
  const typename B::Tensor var = B::float_mean_dim(B::float_mul(centered, centered), last);
  const typename B::Tensor normalized = B::float_div(centered, B::float_sqrt(B::float_add_scalar(var, epsilon)));
  std::vector<std::size_t> along_last(p.out.rank(), 1);
  along_last.back() = p.d_model;
  const typename B::Tensor scaled = B::float_mul(normalized, B::float_reshape(weight, Shape(along_last)));
  if (!bias) return scaled;
  return B::float_add(scaled, B::float_reshape(*bias, Shape(std::move(along_last))));
}

// batch_norm with the given channel statistics (Burn's default ModuleOps::batch_norm, step for
// step): the four [channels] tensors reshaped to [1, channels, 1, ...], then
// (x - mean) / sqrt(variance + epsilon) * weight + bias.
template <class B>
typename B::Tensor batch_norm(const typename B::Tensor& x, const typename B::Tensor& weight, const typename B::Tensor& bias,
                              const typename B::Tensor& mean, const typename B::Tensor& variance, double epsilon) {
  const rules::BatchNormPlan p =
      rules::plan_batch_norm(B::shape(x), B::dtype(x), B::shape(weight), B::dtype(weight), B::shape(bias), B::dtype(bias),
                             B::shape(mean), B::dtype(mean), B::shape(variance), B::dtype(variance));
  if (p.out.num_elements() == 0) return zeros_on<B>(p.out, x);
  std::vector<std::size_t> per_channel(p.out.rank(), 1);
  per_channel[1] = p.channels;
  const Shape s(std::move(per_channel));
  const typename B::Tensor std_dev = B::float_sqrt(B::float_add_scalar(B::float_reshape(variance, s), epsilon));
  const typename B::Tensor normalized = B::float_div(B::float_sub(x, B::float_reshape(mean, s)), std_dev);
  return B::float_add(B::float_mul(normalized, B::float_reshape(weight, s)), B::float_reshape(bias, s));
}

}  // namespace crossgrad::backends::composite
