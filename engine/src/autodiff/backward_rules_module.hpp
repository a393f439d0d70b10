#pragma once
// The module ops' backward rules (Note [Module ops]): each forward op's gradient is its backend's
// backward entry point, as in Burn's Autodiff<B> (avg_pool2d -> B::avg_pool2d_backward). Included by
// autodiff/definitions.hpp only.
#include "autodiff/autodiff_impl.hpp"
#include "backends/composite_attention.hpp"
#include "backends/composite_host_values.hpp"
#include "backends/composite_norm.hpp"

namespace crossgrad {
using autodiff_detail::record;

namespace autodiff_detail {
// A forward op of x, a weight and an optional bias (linear, the convolutions), as Burn records it:
// the node's parents are x, the weight and, when given, the bias, in that order; grads(g) gives x's
// and the weight's gradients, bias_grad(g) the bias's. `site` is the op, as record's.
template <class B, class Grads, class BiasGrad>
AutodiffTensor<B> record_with_optional_bias(typename B::Tensor out, const AutodiffTensor<B>& x, const AutodiffTensor<B>& weight,
                                            const std::optional<AutodiffTensor<B>>& bias, Grads grads, BiasGrad bias_grad,
                                            const char* site = __builtin_FUNCTION()) {
  if (!bias) return record<B>(std::move(out), {&x, &weight}, std::move(grads), site);
  return record<B>(
      std::move(out), {&x, &weight, &*bias},
      [grads = std::move(grads), bias_grad = std::move(bias_grad)](const typename B::Tensor& g) {
        std::vector<typename B::Tensor> out = grads(g);
        out.push_back(bias_grad(g));
        return out;
      },
      site);
}
}  // namespace autodiff_detail
using autodiff_detail::record_with_optional_bias;

template <class B>
AutodiffTensor<B> Autodiff<B>::avg_pool2d(const Tensor& x, const AvgPool2dOptions& options) {
  const Primitive px = x.primitive;
  return record<B>(B::avg_pool2d(px, options), {&x}, [px, options](const Primitive& g) {
    return std::vector<Primitive>{B::avg_pool2d_backward(px, g, options)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::adaptive_avg_pool2d(const Tensor& x, const Size2& output_size) {
  const Primitive px = x.primitive;
  return record<B>(B::adaptive_avg_pool2d(px, output_size), {&x}, [px](const Primitive& g) {
    return std::vector<Primitive>{B::adaptive_avg_pool2d_backward(px, g)};
  });
}

// The gradient goes to the cell each window's maximum came from (max_pool2d_indices, computed when
// backward runs: a forward that is never differentiated does not pay for them).
template <class B>
AutodiffTensor<B> Autodiff<B>::max_pool2d(const Tensor& x, const MaxPool2dOptions& options) {
  const Primitive px = x.primitive;
  return record<B>(B::max_pool2d(px, options), {&x}, [px, options](const Primitive& g) {
    return std::vector<Primitive>{B::max_pool2d_with_indices_backward(px, g, B::max_pool2d_indices(px, options), options)};
  });
}

// The 1-D poolings' rules, as the 2-D ones: Burn's avg_pool1d_backward, adaptive_avg_pool1d_backward
// and max_pool1d_with_indices_backward (with the indices computed when backward runs).
template <class B>
AutodiffTensor<B> Autodiff<B>::avg_pool1d(const Tensor& x, const AvgPool1dOptions& options) {
  const Primitive px = x.primitive;
  return record<B>(B::avg_pool1d(px, options), {&x}, [px, options](const Primitive& g) {
    return std::vector<Primitive>{B::avg_pool1d_backward(px, g, options)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::adaptive_avg_pool1d(const Tensor& x, const Size1& output_size) {
  const Primitive px = x.primitive;
  return record<B>(B::adaptive_avg_pool1d(px, output_size), {&x}, [px](const Primitive& g) {
    return std::vector<Primitive>{B::adaptive_avg_pool1d_backward(px, g)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::max_pool1d(const Tensor& x, const MaxPool1dOptions& options) {
  const Primitive px = x.primitive;
  return record<B>(B::max_pool1d(px, options), {&x}, [px, options](const Primitive& g) {
    return std::vector<Primitive>{B::max_pool1d_with_indices_backward(px, g, B::max_pool1d_indices(px, options), options)};
  });
}

// unfold4d copies cells into blocks and fold4d adds blocks back onto cells: each is the other's
// adjoint, so each one's gradient is the other (PyTorch's im2col / col2im backward). Burn has no
// backward entry points for them (its defaults are conv2d / conv_transpose2d with a one-hot weight,
// whose rules give the same).
template <class B>
AutodiffTensor<B> Autodiff<B>::unfold4d(const Tensor& x, const Size2& kernel_size, const UnfoldOptions& options) {
  const Shape& s = B::shape(x.primitive);
  const Size2 input_size{s.rank() == 4 ? s[2] : 0, s.rank() == 4 ? s[3] : 0};
  return record<B>(B::unfold4d(x.primitive, kernel_size, options), {&x}, [input_size, kernel_size, options](const Primitive& g) {
    return std::vector<Primitive>{B::fold4d(g, input_size, kernel_size, options)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::fold4d(const Tensor& x, const Size2& output_size, const Size2& kernel_size,
                                      const UnfoldOptions& options) {
  return record<B>(B::fold4d(x.primitive, output_size, kernel_size, options), {&x}, [kernel_size, options](const Primitive& g) {
    return std::vector<Primitive>{B::unfold4d(g, kernel_size, options)};
  });
}

// interpolate's gradient is its adjoint, B::interpolate_backward (Burn's entry point).
template <class B>
AutodiffTensor<B> Autodiff<B>::interpolate(const Tensor& x, const Size2& output_size, const InterpolateOptions& options) {
  const Primitive px = x.primitive;
  return record<B>(B::interpolate(px, output_size, options), {&x}, [px, output_size, options](const Primitive& g) {
    return std::vector<Primitive>{B::interpolate_backward(px, g, output_size, options)};
  });
}

// adaptive_avg_pool3d's gradient: B::adaptive_avg_pool3d_backward (Burn's entry point).
template <class B>
AutodiffTensor<B> Autodiff<B>::adaptive_avg_pool3d(const Tensor& x, const Size3& output_size) {
  const Primitive px = x.primitive;
  return record<B>(B::adaptive_avg_pool3d(px, output_size), {&x}, [px](const Primitive& g) {
    return std::vector<Primitive>{B::adaptive_avg_pool3d_backward(px, g)};
  });
}

// The gradient of the table is the positions' gradients added to the rows they read
// (B::embedding_backward); the indices get none.
template <class B>
AutodiffTensor<B> Autodiff<B>::embedding(const Tensor& weights, const Primitive& indices) {
  const Primitive pw = weights.primitive;
  return record<B>(B::embedding(pw, indices), {&weights}, [pw, indices](const Primitive& g) {
    return std::vector<Primitive>{B::embedding_backward(pw, g, indices)};
  });
}

// Burn's Autodiff<B>::linear: x's gradient is B::linear_x_backward(weight, g), the weight's
// B::linear_weight_backward(x, g), the bias's B::linear_bias_backward(g). The node's parents are
// x, weight and, when given, the bias (a gradient for each, in that order).
template <class B>
AutodiffTensor<B> Autodiff<B>::linear(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias) {
  const Primitive px = x.primitive, pw = weight.primitive;
  std::optional<Primitive> pb;
  if (bias) pb = bias->primitive;
  return record_with_optional_bias<B>(
      B::linear(px, pw, pb), x, weight, bias,
      [px, pw](const Primitive& g) { return std::vector<Primitive>{B::linear_x_backward(pw, g), B::linear_weight_backward(px, g)}; },
      [](const Primitive& g) { return B::linear_bias_backward(g); });
}

// Burn's Autodiff<B>::conv1d, conv2d, conv3d and their transposes: x's gradient is the
// backend's <op>_x_backward, the weight's <op>_weight_backward, the bias's <op>_bias_backward;
// parents x, weight and, when given, the bias.
template <class B, class Options>
AutodiffTensor<B> record_convolution(
    typename B::Tensor (*forward)(const typename B::Tensor&, const typename B::Tensor&, const std::optional<typename B::Tensor>&,
                                  const Options&),
    typename B::Tensor (*x_backward)(const typename B::Tensor&, const typename B::Tensor&, const typename B::Tensor&, const Options&),
    typename B::Tensor (*weight_backward)(const typename B::Tensor&, const typename B::Tensor&, const typename B::Tensor&,
                                          const Options&),
    typename B::Tensor (*bias_backward)(const typename B::Tensor&, const typename B::Tensor&, const typename B::Tensor&),
    const AutodiffTensor<B>& x, const AutodiffTensor<B>& weight, const std::optional<AutodiffTensor<B>>& bias,
    const Options& options, const char* site = __builtin_FUNCTION()) {
  using Primitive = typename B::Tensor;
  const Primitive px = x.primitive, pw = weight.primitive;
  std::optional<Primitive> pb;
  if (bias) pb = bias->primitive;
  return record_with_optional_bias<B>(
      forward(px, pw, pb, options), x, weight, bias,
      [px, pw, options, x_backward, weight_backward](const Primitive& g) {
        return std::vector<Primitive>{x_backward(px, pw, g, options), weight_backward(px, pw, g, options)};
      },
      [px, pb, bias_backward](const Primitive& g) { return bias_backward(px, *pb, g); }, site);
}

template <class B>
AutodiffTensor<B> Autodiff<B>::conv2d(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias,
                                      const Conv2dOptions& options) {
  return record_convolution<B>(&B::conv2d, &B::conv2d_x_backward, &B::conv2d_weight_backward, &B::conv2d_bias_backward, x,
                               weight, bias, options);
}

template <class B>
AutodiffTensor<B> Autodiff<B>::conv_transpose2d(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias,
                                                const ConvTranspose2dOptions& options) {
  return record_convolution<B>(&B::conv_transpose2d, &B::conv_transpose2d_x_backward, &B::conv_transpose2d_weight_backward,
                               &B::conv_transpose2d_bias_backward, x, weight, bias, options);
}

template <class B>
AutodiffTensor<B> Autodiff<B>::conv1d(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias,
                                      const Conv1dOptions& options) {
  return record_convolution<B>(&B::conv1d, &B::conv1d_x_backward, &B::conv1d_weight_backward, &B::conv1d_bias_backward, x,
                               weight, bias, options);
}

template <class B>
AutodiffTensor<B> Autodiff<B>::conv_transpose1d(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias,
                                                const ConvTranspose1dOptions& options) {
  return record_convolution<B>(&B::conv_transpose1d, &B::conv_transpose1d_x_backward, &B::conv_transpose1d_weight_backward,
                               &B::conv_transpose1d_bias_backward, x, weight, bias, options);
}

template <class B>
AutodiffTensor<B> Autodiff<B>::conv3d(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias,
                                      const Conv3dOptions& options) {
  return record_convolution<B>(&B::conv3d, &B::conv3d_x_backward, &B::conv3d_weight_backward, &B::conv3d_bias_backward, x,
                               weight, bias, options);
}

template <class B>
AutodiffTensor<B> Autodiff<B>::conv_transpose3d(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias,
                                                const ConvTranspose3dOptions& options) {
  return record_convolution<B>(&B::conv_transpose3d, &B::conv_transpose3d_x_backward, &B::conv_transpose3d_weight_backward,
                               &B::conv_transpose3d_bias_backward, x, weight, bias, options);
}

}  // namespace crossgrad

namespace crossgrad {
namespace autodiff_detail {
// A result with no cell to differentiate through (an empty layer_norm or attention result, or
// attention's rows of no key): B's zeros, recorded with a gradient of zeros for every input, so
// that each tracked operand still gets a gradient of its own shape, as the composition would give.
template <class B>
AutodiffTensor<B> record_constant(typename B::Tensor out, std::vector<const AutodiffTensor<B>*> inputs,
                                  const char* site = __builtin_FUNCTION()) {
  std::vector<std::pair<Shape, DType>> metas;
  for (const AutodiffTensor<B>* in : inputs) metas.emplace_back(B::shape(in->primitive), B::dtype(in->primitive));
  const Device device = B::device(out);
  return record<B>(
      std::move(out), std::span<const AutodiffTensor<B>* const>(inputs.data(), inputs.size()),
      [metas, device](const typename B::Tensor&) {
        std::vector<typename B::Tensor> grads;
        for (const auto& [shape, dtype] : metas) grads.push_back(B::float_full(shape, 0.0, dtype, device));
        return grads;
      },
      site);
}
}  // namespace autodiff_detail

// Burn's Autodiff<B> keeps ModuleOps' default layer_norm and batch_norm and runs
// attention_fallback over itself:
// the forward is the composition over Autodiff<B>'s own ops, so the gradient is theirs
// (composite_norm.hpp, composite_attention.hpp).
template <class B>
AutodiffTensor<B> Autodiff<B>::layer_norm(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias,
                                          double epsilon) {
  if (B::shape(x.primitive).num_elements() == 0) {
    std::optional<Primitive> pb;
    if (bias) pb = bias->primitive;
    std::vector<const Tensor*> inputs{&x, &weight};
    if (bias) inputs.push_back(&*bias);
    return autodiff_detail::record_constant<B>(B::layer_norm(x.primitive, weight.primitive, pb, epsilon), std::move(inputs));
  }
  return backends::composite::layer_norm<Autodiff<B>>(x, weight, bias, epsilon);
}

template <class B>
AutodiffTensor<B> Autodiff<B>::batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& mean,
                                          const Tensor& variance, double epsilon) {
  if (B::shape(x.primitive).num_elements() == 0) {
    return autodiff_detail::record_constant<B>(
        B::batch_norm(x.primitive, weight.primitive, bias.primitive, mean.primitive, variance.primitive, epsilon),
        {&x, &weight, &bias, &mean, &variance});
  }
  return backends::composite::batch_norm<Autodiff<B>>(x, weight, bias, mean, variance, epsilon);
}

template <class B>
AutodiffTensor<B> Autodiff<B>::attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                         const std::optional<Primitive>& mask, const std::optional<Tensor>& bias,
                                         const AttentionOptions& options) {
  const Shape q = B::shape(query.primitive), k = B::shape(key.primitive), v = B::shape(value.primitive);
  const bool no_cells = q.rank() == 4 && k.rank() == 4 && v.rank() == 4 &&
                        (q[0] == 0 || q[1] == 0 || q[2] == 0 || v[3] == 0 || k[2] == 0);
  if (no_cells) {
    std::optional<Primitive> pb;
    if (bias) pb = bias->primitive;
    std::vector<const Tensor*> inputs{&query, &key, &value};
    if (bias) inputs.push_back(&*bias);
    // B's attention runs the checks and gives the zeros (or its panic, for operands that disagree).
    return autodiff_detail::record_constant<B>(
        B::attention(query.primitive, key.primitive, value.primitive, mask, pb, options), std::move(inputs));
  }
  return backends::composite::attention<Autodiff<B>>(query, key, value, mask, bias, options);
}

namespace autodiff_detail {
// The spectrum helpers of Burn's rfft / irfft rules: the parts of a bundle (rfft's result, the real
// parts then the imaginary parts along dim 0), the interior bins (all but bin 0 and bin n / 2)
// scaled by `factor`, and a tensor cut or zero-padded to `target` along dim.
template <class B>
std::pair<typename B::Tensor, typename B::Tensor> spectrum_parts(const typename B::Tensor& bundle) {
  const Shape& s = B::shape(bundle);
  std::vector<Range> re, im;
  for (std::size_t d = 0; d < s.rank(); ++d) {
    re.push_back(d == 0 ? Range{0, s[0] / 2} : Range{0, s[d]});
    im.push_back(d == 0 ? Range{s[0] / 2, s[0]} : Range{0, s[d]});
  }
  return {B::float_slice(bundle, re), B::float_slice(bundle, im)};
}
template <class B>
typename B::Tensor interior_scaled(const typename B::Tensor& bins, std::size_t dim, double factor) {
  const Shape& s = B::shape(bins);
  const std::size_t count = s[dim];
  if (count <= 2) return bins;
  std::vector<double> w(count, factor);
  w.front() = 1.0;
  w.back() = 1.0;
  std::vector<std::size_t> dims(s.rank(), 1);
  dims[dim] = count;
  return B::float_mul(bins, backends::composite::from_doubles<B>(std::move(w), Shape(std::move(dims)), bins));
}
template <class B>
typename B::Tensor cut_or_padded(const typename B::Tensor& t, std::size_t dim, std::size_t target) {
  const Shape& s = B::shape(t);
  if (s[dim] == target) return t;
  if (s[dim] > target) {
    std::vector<Range> kept;
    for (std::size_t d = 0; d < s.rank(); ++d) kept.push_back(Range{0, d == dim ? target : s[d]});
    return B::float_slice(t, kept);
  }
  std::vector<std::size_t> zeros = s.dims();
  zeros[dim] = target - s[dim];
  return B::float_cat({t, B::float_full(Shape(std::move(zeros)), 0.0, B::dtype(t), B::device(t))}, dim);
}
}  // namespace autodiff_detail

// Burn's rfft rule: the bundle's gradient split into its parts, the interior bins halved (each
// stands for a bin and its conjugate), irfft of them times n, cut or zero-padded back to the
// signal's length.
template <class B>
AutodiffTensor<B> Autodiff<B>::rfft(const Tensor& signal, std::size_t dim, std::optional<std::size_t> n) {
  Primitive out = B::rfft(signal.primitive, dim, n);
  const std::size_t length = B::shape(signal.primitive)[dim];
  const std::size_t n_fft = n.value_or(length);
  return record<B>(std::move(out), {&signal}, [dim, length, n_fft](const Primitive& g) {
    auto [re, im] = autodiff_detail::spectrum_parts<B>(g);
    re = autodiff_detail::interior_scaled<B>(re, dim, 0.5);
    im = autodiff_detail::interior_scaled<B>(im, dim, 0.5);
    const Primitive x = B::float_mul_scalar(B::irfft(re, im, dim, n_fft), static_cast<double>(n_fft));
    return std::vector<Primitive>{autodiff_detail::cut_or_padded<B>(x, dim, length)};
  });
}

// Burn's irfft rule: rfft of the gradient over n, the interior bins doubled, each part cut or
// zero-padded back to the spectrum's bins.
template <class B>
AutodiffTensor<B> Autodiff<B>::irfft(const Tensor& real, const Tensor& imaginary, std::size_t dim, std::optional<std::size_t> n) {
  Primitive out = B::irfft(real.primitive, imaginary.primitive, dim, n);
  const std::size_t bins = B::shape(real.primitive)[dim];
  const std::size_t n_fft = B::shape(out)[dim];
  return record<B>(std::move(out), {&real, &imaginary}, [dim, bins, n_fft](const Primitive& g) {
    const Primitive spectrum = B::rfft(B::float_div_scalar(g, static_cast<double>(n_fft)), dim, n_fft);
    auto [re, im] = autodiff_detail::spectrum_parts<B>(spectrum);
    re = autodiff_detail::interior_scaled<B>(re, dim, 2.0);
    im = autodiff_detail::interior_scaled<B>(im, dim, 2.0);
    return std::vector<Primitive>{autodiff_detail::cut_or_padded<B>(re, dim, bins), autodiff_detail::cut_or_padded<B>(im, dim, bins)};
  });
}

}  // namespace crossgrad
