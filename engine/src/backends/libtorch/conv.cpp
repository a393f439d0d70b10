// LibTorch: conv2d, conv3d, conv_transpose2d, conv_transpose3d and their backward passes, unfold4d and fold4d, ATen's own (aten/ops.cpp:
// at::conv2d, at::conv_transpose2d, at::convolution_backward, at::im2col and at::col2im, the kernels PyTorch's CPU build
// runs; conv1d and conv_transpose1d run those on the single-row view), after the shared rules::plan_conv2d* / plan_conv_transpose2d* checks. Options travel as
// ints (stride, padding, [padding_out,] dilation, groups). An empty
// operand or result never reaches the plugin (Note [Empty LibTorch tensors stay in the engine]):
// then the composite over LibTorch's own ops gives the zeros, or the bias alone.
#include "plugin.hpp"

#include "../composite_conv.hpp"
#include "../composite_interpolate.hpp"
#include "../composite_pool.hpp"

#include <crossgrad/core/module_rules.hpp>

#include <cstdint>
#include <vector>

namespace crossgrad::backends {
namespace {

using libtorch::Call;
using libtorch::op_code;

// A convolution's options as ints: stride, padding, [padding_out,] dilation (one per spatial dim
// each), groups.
template <class Options>
std::vector<int64_t> option_ints(const Options& o) {
  std::vector<int64_t> out;
  const auto put = [&out](const auto& sizes) {
    for (const std::size_t v : sizes) out.push_back(static_cast<int64_t>(v));
  };
  put(o.stride);
  put(o.padding);
  if constexpr (requires { o.padding_out; }) put(o.padding_out);
  put(o.dilation);
  out.push_back(static_cast<int64_t>(o.groups));
  return out;
}

// ATen computes a transposed convolution's full output, (in - 1) stride + dilation (k - 1) + 1 +
// padding_out, in int64 before cropping it; past INT64_MAX it raises an internal error (found by
// ConvTranspose2dOps.ACropOfAHugeFullOutputBuildsOnlyTheKeptCells), so such geometries (every value
// crossgrad accepts, the output itself at most 2^64 - 1) run the composite over LibTorch's ops.
template <class Options>
bool aten_can_transpose(const rules::Conv2dPlan& p, const Options& o) {
  constexpr std::uint64_t kMax = static_cast<std::uint64_t>(INT64_MAX);
  constexpr std::size_t n = std::tuple_size_v<decltype(o.stride)>;
  const std::size_t outs[3] = {p.out_d, p.out_h, p.out_w};
  for (std::size_t d = 0; d < n; ++d) {
    const std::size_t out = outs[3 - n + d];
    for (const std::size_t v : {o.stride[d], o.padding[d], o.padding_out[d], o.dilation[d], out}) {
      if (v > kMax / 4) return false;
    }
    if (out + 2 * o.padding[d] > kMax) return false;  // each term below 2^61: no wrap
  }
  return true;
}

bool any_empty(std::initializer_list<const LibTorchTensor*> ts) {
  for (const LibTorchTensor* t : ts) {
    if (t->shape.num_elements() == 0) return true;
  }
  return false;
}

}  // namespace

LibTorchTensor LibTorch::conv2d(const LibTorchTensor& tensor, const LibTorchTensor& weight,
                                const std::optional<LibTorchTensor>& bias, const Conv2dOptions& options) {
  const Shape bias_shape = bias ? bias->shape : Shape{};
  const rules::Conv2dPlan p = rules::plan_conv2d(tensor.shape, tensor.dtype, weight.shape, weight.dtype,
                                                 bias ? &bias_shape : nullptr, bias ? bias->dtype : tensor.dtype, options);
  if (p.out.num_elements() == 0 || any_empty({&tensor, &weight})) return composite::conv2d<LibTorch>(tensor, weight, bias, options);
  Call call{op_code(OpId::conv2d), {&tensor, &weight}, {}, option_ints(options)};
  if (bias) call.inputs.push_back(&*bias);
  return libtorch::run(call, p.out, tensor.dtype);
}

LibTorchTensor LibTorch::conv2d_x_backward(const LibTorchTensor& tensor, const LibTorchTensor& weight, const LibTorchTensor& grad,
                                           const Conv2dOptions& options) {
  (void)rules::plan_conv2d_backward(tensor.shape, tensor.dtype, weight.shape, weight.dtype, grad.shape, grad.dtype, options,
                                    "conv2d_x_backward");
  if (any_empty({&tensor, &weight, &grad})) return composite::conv2d_x_backward<LibTorch>(tensor, weight, grad, options);
  return libtorch::run(Call{op_code(OpId::conv2d_x_backward), {&tensor, &weight, &grad}, {}, option_ints(options)}, tensor.shape,
                       tensor.dtype);
}

LibTorchTensor LibTorch::conv2d_weight_backward(const LibTorchTensor& tensor, const LibTorchTensor& weight,
                                                const LibTorchTensor& grad, const Conv2dOptions& options) {
  (void)rules::plan_conv2d_backward(tensor.shape, tensor.dtype, weight.shape, weight.dtype, grad.shape, grad.dtype, options,
                                    "conv2d_weight_backward");
  if (any_empty({&tensor, &weight, &grad})) return composite::conv2d_weight_backward<LibTorch>(tensor, weight, grad, options);
  return libtorch::run(Call{op_code(OpId::conv2d_weight_backward), {&tensor, &weight, &grad}, {}, option_ints(options)},
                       weight.shape, tensor.dtype);
}

LibTorchTensor LibTorch::conv2d_bias_backward(const LibTorchTensor& tensor, const LibTorchTensor& bias, const LibTorchTensor& grad) {
  const Shape out = rules::plan_conv2d_bias_backward(tensor.shape, tensor.dtype, bias.shape, bias.dtype, grad.shape, grad.dtype);
  if (any_empty({&bias, &grad})) return composite::conv2d_bias_backward<LibTorch>(tensor, bias, grad);
  return libtorch::run(Call{op_code(OpId::conv2d_bias_backward), {&grad}, {}, {}}, out, tensor.dtype);
}

LibTorchTensor LibTorch::conv_transpose2d(const LibTorchTensor& tensor, const LibTorchTensor& weight,
                                          const std::optional<LibTorchTensor>& bias, const ConvTranspose2dOptions& options) {
  const Shape bias_shape = bias ? bias->shape : Shape{};
  const rules::Conv2dPlan p = rules::plan_conv_transpose2d(tensor.shape, tensor.dtype, weight.shape, weight.dtype,
                                                           bias ? &bias_shape : nullptr, bias ? bias->dtype : tensor.dtype, options);
  if (p.out.num_elements() == 0 || any_empty({&tensor, &weight}) || !aten_can_transpose(p, options)) {
    return composite::conv_transpose2d<LibTorch>(tensor, weight, bias, options);
  }
  Call call{op_code(OpId::conv_transpose2d), {&tensor, &weight}, {}, option_ints(options)};
  if (bias) call.inputs.push_back(&*bias);
  return libtorch::run(call, p.out, tensor.dtype);
}

LibTorchTensor LibTorch::conv_transpose2d_x_backward(const LibTorchTensor& tensor, const LibTorchTensor& weight,
                                                     const LibTorchTensor& grad, const ConvTranspose2dOptions& options) {
  const rules::Conv2dPlan p = rules::plan_conv_transpose2d_backward(tensor.shape, tensor.dtype, weight.shape, weight.dtype, grad.shape,
                                                                    grad.dtype, options, "conv_transpose2d_x_backward");
  if (any_empty({&tensor, &weight, &grad}) || !aten_can_transpose(p, options)) {
    return composite::conv_transpose2d_x_backward<LibTorch>(tensor, weight, grad, options);
  }
  return libtorch::run(Call{op_code(OpId::conv_transpose2d_x_backward), {&tensor, &weight, &grad}, {}, option_ints(options)},
                       tensor.shape, tensor.dtype);
}

LibTorchTensor LibTorch::conv_transpose2d_weight_backward(const LibTorchTensor& tensor, const LibTorchTensor& weight,
                                                          const LibTorchTensor& grad, const ConvTranspose2dOptions& options) {
  const rules::Conv2dPlan p = rules::plan_conv_transpose2d_backward(tensor.shape, tensor.dtype, weight.shape, weight.dtype, grad.shape,
                                                                    grad.dtype, options, "conv_transpose2d_weight_backward");
  if (any_empty({&tensor, &weight, &grad}) || !aten_can_transpose(p, options)) {
    return composite::conv_transpose2d_weight_backward<LibTorch>(tensor, weight, grad, options);
  }
  return libtorch::run(Call{op_code(OpId::conv_transpose2d_weight_backward), {&tensor, &weight, &grad}, {}, option_ints(options)},
                       weight.shape, tensor.dtype);
}

LibTorchTensor LibTorch::conv_transpose2d_bias_backward(const LibTorchTensor& tensor, const LibTorchTensor& bias,
                                                        const LibTorchTensor& grad) {
  constexpr std::string_view op = "conv_transpose2d_bias_backward";
  const Shape out = rules::plan_conv2d_bias_backward(tensor.shape, tensor.dtype, bias.shape, bias.dtype, grad.shape, grad.dtype, op);
  if (any_empty({&bias, &grad})) return composite::conv2d_bias_backward<LibTorch>(tensor, bias, grad, op);
  return libtorch::run(Call{op_code(OpId::conv_transpose2d_bias_backward), {&grad}, {}, {}}, out, tensor.dtype);
}

// conv1d and its backward passes: this backend's conv2d passes on the single-row view.
LibTorchTensor LibTorch::conv1d(const LibTorchTensor& tensor, const LibTorchTensor& weight, const std::optional<LibTorchTensor>& bias, const Conv1dOptions& options) {
  return composite::conv1d<LibTorch>(tensor, weight, bias, options);
}
LibTorchTensor LibTorch::conv1d_x_backward(const LibTorchTensor& tensor, const LibTorchTensor& weight, const LibTorchTensor& grad, const Conv1dOptions& options) {
  return composite::conv1d_backward<LibTorch>(tensor, weight, grad, options, true);
}
LibTorchTensor LibTorch::conv1d_weight_backward(const LibTorchTensor& tensor, const LibTorchTensor& weight, const LibTorchTensor& grad, const Conv1dOptions& options) {
  return composite::conv1d_backward<LibTorch>(tensor, weight, grad, options, false);
}
LibTorchTensor LibTorch::conv1d_bias_backward(const LibTorchTensor& tensor, const LibTorchTensor& bias, const LibTorchTensor& grad) {
  return composite::conv1d_bias_backward<LibTorch>(tensor, bias, grad);
}

// conv_transpose1d and its backward passes: this backend's conv_transpose2d passes on the single-row view.
LibTorchTensor LibTorch::conv_transpose1d(const LibTorchTensor& tensor, const LibTorchTensor& weight, const std::optional<LibTorchTensor>& bias, const ConvTranspose1dOptions& options) {
  return composite::conv_transpose1d<LibTorch>(tensor, weight, bias, options);
}
LibTorchTensor LibTorch::conv_transpose1d_x_backward(const LibTorchTensor& tensor, const LibTorchTensor& weight, const LibTorchTensor& grad, const ConvTranspose1dOptions& options) {
  return composite::conv_transpose1d_backward<LibTorch>(tensor, weight, grad, options, true);
}
LibTorchTensor LibTorch::conv_transpose1d_weight_backward(const LibTorchTensor& tensor, const LibTorchTensor& weight, const LibTorchTensor& grad, const ConvTranspose1dOptions& options) {
  return composite::conv_transpose1d_backward<LibTorch>(tensor, weight, grad, options, false);
}
LibTorchTensor LibTorch::conv_transpose1d_bias_backward(const LibTorchTensor& tensor, const LibTorchTensor& bias, const LibTorchTensor& grad) {
  return composite::conv1d_bias_backward<LibTorch>(tensor, bias, grad, "conv_transpose1d_bias_backward");
}

// unfold4d and fold4d: ATen's im2col and col2im (copies and in-order sums: the composite's values),
// with the composite over LibTorch's own ops for an empty operand or result and for options past
// 2^61, where ATen's int64 size arithmetic could wrap.
namespace {
std::vector<int64_t> unfold_ints(const Size2& kernel, const UnfoldOptions& o) {
  std::vector<int64_t> out;
  for (const Size2& v : {kernel, o.stride, o.padding, o.dilation}) {
    out.push_back(static_cast<int64_t>(v[0]));
    out.push_back(static_cast<int64_t>(v[1]));
  }
  return out;
}
bool aten_can_unfold(const Size2& kernel, const UnfoldOptions& o, const Size2& size) {
  constexpr std::uint64_t kMax = static_cast<std::uint64_t>(INT64_MAX) / 4;
  for (const Size2& v : {kernel, o.stride, o.padding, o.dilation, size}) {
    if (v[0] > kMax || v[1] > kMax) return false;
  }
  return true;
}
}  // namespace

LibTorchTensor LibTorch::unfold4d(const LibTorchTensor& tensor, const Size2& kernel_size, const UnfoldOptions& options) {
  const rules::Conv2dPlan p = rules::plan_unfold4d(tensor.shape, tensor.dtype, kernel_size, options);
  if (p.out.num_elements() == 0 || any_empty({&tensor}) || !aten_can_unfold(kernel_size, options, Size2{p.in_h, p.in_w})) {
    return composite::unfold4d<LibTorch>(tensor, kernel_size, options);
  }
  return libtorch::run(Call{op_code(OpId::unfold4d), {&tensor}, {}, unfold_ints(kernel_size, options)}, p.out, tensor.dtype);
}

LibTorchTensor LibTorch::fold4d(const LibTorchTensor& tensor, const Size2& output_size, const Size2& kernel_size,
                                const UnfoldOptions& options) {
  const rules::Conv2dPlan p = rules::plan_fold4d(tensor.shape, tensor.dtype, output_size, kernel_size, options);
  if (p.out.num_elements() == 0 || any_empty({&tensor}) || !aten_can_unfold(kernel_size, options, output_size)) {
    return composite::fold4d<LibTorch>(tensor, output_size, kernel_size, options);
  }
  std::vector<int64_t> ints = unfold_ints(kernel_size, options);
  ints.push_back(static_cast<int64_t>(output_size[0]));
  ints.push_back(static_cast<int64_t>(output_size[1]));
  return libtorch::run(Call{op_code(OpId::fold4d), {&tensor}, {}, std::move(ints)}, p.out, tensor.dtype);
}

// interpolate and its backward pass: two passes of this backend's select (select_add) and mul per
// axis (Note [Interpolation as separable taps]).
LibTorchTensor LibTorch::interpolate(const LibTorchTensor& tensor, const Size2& output_size, const InterpolateOptions& options) {
  return composite::interpolate<LibTorch>(tensor, output_size, options);
}
LibTorchTensor LibTorch::interpolate_backward(const LibTorchTensor& tensor, const LibTorchTensor& grad, const Size2& output_size,
                                   const InterpolateOptions& options) {
  return composite::interpolate_backward<LibTorch>(tensor, grad, output_size, options);
}
// adaptive_avg_pool3d and its backward pass: this backend's adaptive_avg_pool2d passes over height
// and width, then depth (composite_pool.hpp).
LibTorchTensor LibTorch::adaptive_avg_pool3d(const LibTorchTensor& tensor, const Size3& output_size) {
  return composite::adaptive_avg_pool3d<LibTorch>(tensor, output_size);
}
LibTorchTensor LibTorch::adaptive_avg_pool3d_backward(const LibTorchTensor& tensor, const LibTorchTensor& grad) {
  return composite::adaptive_avg_pool3d_backward<LibTorch>(tensor, grad);
}

// conv3d and conv_transpose3d: ATen's convolution over volumes, as conv2d's and conv_transpose2d's.
LibTorchTensor LibTorch::conv3d(const LibTorchTensor& tensor, const LibTorchTensor& weight,
                                const std::optional<LibTorchTensor>& bias, const Conv3dOptions& options) {
  const Shape bias_shape = bias ? bias->shape : Shape{};
  const rules::Conv2dPlan p = rules::plan_conv3d(tensor.shape, tensor.dtype, weight.shape, weight.dtype,
                                                 bias ? &bias_shape : nullptr, bias ? bias->dtype : tensor.dtype, options);
  if (p.out.num_elements() == 0 || any_empty({&tensor, &weight})) return composite::conv3d<LibTorch>(tensor, weight, bias, options);
  Call call{op_code(OpId::conv3d), {&tensor, &weight}, {}, option_ints(options)};
  if (bias) call.inputs.push_back(&*bias);
  return libtorch::run(call, p.out, tensor.dtype);
}

LibTorchTensor LibTorch::conv3d_x_backward(const LibTorchTensor& tensor, const LibTorchTensor& weight, const LibTorchTensor& grad,
                                           const Conv3dOptions& options) {
  (void)rules::plan_conv3d_backward(tensor.shape, tensor.dtype, weight.shape, weight.dtype, grad.shape, grad.dtype, options,
                                    "conv3d_x_backward");
  if (any_empty({&tensor, &weight, &grad})) return composite::conv3d_x_backward<LibTorch>(tensor, weight, grad, options);
  return libtorch::run(Call{op_code(OpId::conv3d_x_backward), {&tensor, &weight, &grad}, {}, option_ints(options)}, tensor.shape,
                       tensor.dtype);
}

LibTorchTensor LibTorch::conv3d_weight_backward(const LibTorchTensor& tensor, const LibTorchTensor& weight,
                                                const LibTorchTensor& grad, const Conv3dOptions& options) {
  (void)rules::plan_conv3d_backward(tensor.shape, tensor.dtype, weight.shape, weight.dtype, grad.shape, grad.dtype, options,
                                    "conv3d_weight_backward");
  if (any_empty({&tensor, &weight, &grad})) return composite::conv3d_weight_backward<LibTorch>(tensor, weight, grad, options);
  return libtorch::run(Call{op_code(OpId::conv3d_weight_backward), {&tensor, &weight, &grad}, {}, option_ints(options)},
                       weight.shape, tensor.dtype);
}

LibTorchTensor LibTorch::conv3d_bias_backward(const LibTorchTensor& tensor, const LibTorchTensor& bias, const LibTorchTensor& grad) {
  const Shape out = rules::plan_conv3d_bias_backward(tensor.shape, tensor.dtype, bias.shape, bias.dtype, grad.shape, grad.dtype);
  if (any_empty({&bias, &grad})) return composite::conv3d_bias_backward<LibTorch>(tensor, bias, grad);
  return libtorch::run(Call{op_code(OpId::conv3d_bias_backward), {&grad}, {}, {}}, out, tensor.dtype);
}

LibTorchTensor LibTorch::conv_transpose3d(const LibTorchTensor& tensor, const LibTorchTensor& weight,
                                          const std::optional<LibTorchTensor>& bias, const ConvTranspose3dOptions& options) {
  const Shape bias_shape = bias ? bias->shape : Shape{};
  const rules::Conv2dPlan p = rules::plan_conv_transpose3d(tensor.shape, tensor.dtype, weight.shape, weight.dtype,
                                                           bias ? &bias_shape : nullptr, bias ? bias->dtype : tensor.dtype, options);
  if (p.out.num_elements() == 0 || any_empty({&tensor, &weight}) || !aten_can_transpose(p, options)) {
    return composite::conv_transpose3d<LibTorch>(tensor, weight, bias, options);
  }
  Call call{op_code(OpId::conv_transpose3d), {&tensor, &weight}, {}, option_ints(options)};
  if (bias) call.inputs.push_back(&*bias);
  return libtorch::run(call, p.out, tensor.dtype);
}

LibTorchTensor LibTorch::conv_transpose3d_x_backward(const LibTorchTensor& tensor, const LibTorchTensor& weight,
                                                     const LibTorchTensor& grad, const ConvTranspose3dOptions& options) {
  const rules::Conv2dPlan p = rules::plan_conv_transpose3d_backward(tensor.shape, tensor.dtype, weight.shape, weight.dtype, grad.shape,
                                                                    grad.dtype, options, "conv_transpose3d_x_backward");
  if (any_empty({&tensor, &weight, &grad}) || !aten_can_transpose(p, options)) {
    return composite::conv_transpose3d_x_backward<LibTorch>(tensor, weight, grad, options);
  }
  return libtorch::run(Call{op_code(OpId::conv_transpose3d_x_backward), {&tensor, &weight, &grad}, {}, option_ints(options)},
                       tensor.shape, tensor.dtype);
}

LibTorchTensor LibTorch::conv_transpose3d_weight_backward(const LibTorchTensor& tensor, const LibTorchTensor& weight,
                                                          const LibTorchTensor& grad, const ConvTranspose3dOptions& options) {
  const rules::Conv2dPlan p = rules::plan_conv_transpose3d_backward(tensor.shape, tensor.dtype, weight.shape, weight.dtype, grad.shape,
                                                                    grad.dtype, options, "conv_transpose3d_weight_backward");
  if (any_empty({&tensor, &weight, &grad}) || !aten_can_transpose(p, options)) {
    return composite::conv_transpose3d_weight_backward<LibTorch>(tensor, weight, grad, options);
  }
  return libtorch::run(Call{op_code(OpId::conv_transpose3d_weight_backward), {&tensor, &weight, &grad}, {}, option_ints(options)},
                       weight.shape, tensor.dtype);
}

LibTorchTensor LibTorch::conv_transpose3d_bias_backward(const LibTorchTensor& tensor, const LibTorchTensor& bias,
                                                        const LibTorchTensor& grad) {
  constexpr std::string_view op = "conv_transpose3d_bias_backward";
  const Shape out = rules::plan_conv3d_bias_backward(tensor.shape, tensor.dtype, bias.shape, bias.dtype, grad.shape, grad.dtype, op);
  if (any_empty({&bias, &grad})) return composite::conv3d_bias_backward<LibTorch>(tensor, bias, grad, op);
  return libtorch::run(Call{op_code(OpId::conv_transpose3d_bias_backward), {&grad}, {}, {}}, out, tensor.dtype);
}

}  // namespace crossgrad::backends
