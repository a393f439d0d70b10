// NdArray: the ops written once for every backend as compositions of its own ops (composite_ops.hpp).
#include "common.hpp"
#include "../composite_ops.hpp"
#include "../composite_attention.hpp"
#include "../composite_norm.hpp"
#include "../composite_conv.hpp"
#include "../composite_fft.hpp"
#include "../composite_interpolate.hpp"
#include "../composite_linear.hpp"
#include "../composite_pool.hpp"

namespace crossgrad::backends {

NdArrayTensor NdArray::softmin(const NdArrayTensor& tensor, std::size_t dim) { return composite::softmin<NdArray>(tensor, dim); }
NdArrayTensor NdArray::hard_sigmoid(const NdArrayTensor& tensor, double alpha, double beta) {
  return composite::hard_sigmoid<NdArray>(tensor, alpha, beta);
}

NdArrayTensor NdArray::float_cross(const NdArrayTensor& lhs, const NdArrayTensor& rhs, std::size_t dim) {
  return composite::cross<NdArray>(lhs, rhs, dim);
}

// The float_ and int_ sort, topk and scatter_nd: one composite each, calling the ops of their kind;
// bool_argwhere reads the mask on the host.
CROSSGRAD_KIND_MEMBER(NdArray, float_sort, Sort, composite::sort<NdArray>)
CROSSGRAD_KIND_MEMBER(NdArray, int_sort, Sort, composite::sort<NdArray>)
CROSSGRAD_KIND_MEMBER(NdArray, float_topk, TopK, composite::topk<NdArray>)
CROSSGRAD_KIND_MEMBER(NdArray, int_topk, TopK, composite::topk<NdArray>)
CROSSGRAD_KIND_MEMBER(NdArray, float_scatter_nd, ScatterNd, composite::scatter_nd<NdArray>)
CROSSGRAD_KIND_MEMBER(NdArray, int_scatter_nd, ScatterNd, composite::scatter_nd<NdArray>)
CROSSGRAD_KIND_MEMBER(NdArray, bool_argwhere, Unary, composite::argwhere<NdArray>)

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(NdArray, transpose, Unary, composite::transpose<NdArray>)
CROSSGRAD_KIND_MEMBERS(NdArray, repeat_dim, Repeat, composite::repeat_dim<NdArray>)
CROSSGRAD_KIND_MEMBERS(NdArray, unfold, Window, composite::unfold<NdArray>)
CROSSGRAD_KIND_MEMBERS(NdArray, slice_assign, RangesAssign, composite::slice_assign<NdArray>)
CROSSGRAD_KIND_MEMBERS(NdArray, gather_nd, GatherNd, composite::gather_nd<NdArray>)
CROSSGRAD_KIND_MEMBERS(NdArray, mask_select, MaskSelect, composite::mask_select<NdArray>)

// linear and its backward passes: NdArray's matmul, add and sums (composite_linear.hpp).
NdArrayTensor NdArray::linear(const NdArrayTensor& tensor, const NdArrayTensor& weight, const std::optional<NdArrayTensor>& bias) {
  return composite::linear<NdArray>(tensor, weight, bias);
}
NdArrayTensor NdArray::linear_x_backward(const NdArrayTensor& tensor, const NdArrayTensor& grad) {
  return composite::linear_x_backward<NdArray>(tensor, grad);
}
NdArrayTensor NdArray::linear_weight_backward(const NdArrayTensor& tensor, const NdArrayTensor& grad) {
  return composite::linear_weight_backward<NdArray>(tensor, grad);
}
NdArrayTensor NdArray::linear_bias_backward(const NdArrayTensor& tensor) { return composite::linear_bias_backward<NdArray>(tensor); }

// conv2d and its backward passes: NdArray's gather, matmul and sums (Note [Convolution as a gathered product]).
NdArrayTensor NdArray::conv2d(const NdArrayTensor& tensor, const NdArrayTensor& weight, const std::optional<NdArrayTensor>& bias, const Conv2dOptions& options) {
  return composite::conv2d<NdArray>(tensor, weight, bias, options);
}
NdArrayTensor NdArray::conv2d_x_backward(const NdArrayTensor& tensor, const NdArrayTensor& weight, const NdArrayTensor& grad, const Conv2dOptions& options) {
  return composite::conv2d_x_backward<NdArray>(tensor, weight, grad, options);
}
NdArrayTensor NdArray::conv2d_weight_backward(const NdArrayTensor& tensor, const NdArrayTensor& weight, const NdArrayTensor& grad, const Conv2dOptions& options) {
  return composite::conv2d_weight_backward<NdArray>(tensor, weight, grad, options);
}
NdArrayTensor NdArray::conv2d_bias_backward(const NdArrayTensor& tensor, const NdArrayTensor& bias, const NdArrayTensor& grad) {
  return composite::conv2d_bias_backward<NdArray>(tensor, bias, grad);
}
// conv1d and its backward passes: this backend's conv2d passes on the single-row view.
NdArrayTensor NdArray::conv1d(const NdArrayTensor& tensor, const NdArrayTensor& weight, const std::optional<NdArrayTensor>& bias, const Conv1dOptions& options) {
  return composite::conv1d<NdArray>(tensor, weight, bias, options);
}
NdArrayTensor NdArray::conv1d_x_backward(const NdArrayTensor& tensor, const NdArrayTensor& weight, const NdArrayTensor& grad, const Conv1dOptions& options) {
  return composite::conv1d_backward<NdArray>(tensor, weight, grad, options, true);
}
NdArrayTensor NdArray::conv1d_weight_backward(const NdArrayTensor& tensor, const NdArrayTensor& weight, const NdArrayTensor& grad, const Conv1dOptions& options) {
  return composite::conv1d_backward<NdArray>(tensor, weight, grad, options, false);
}
NdArrayTensor NdArray::conv1d_bias_backward(const NdArrayTensor& tensor, const NdArrayTensor& bias, const NdArrayTensor& grad) {
  return composite::conv1d_bias_backward<NdArray>(tensor, bias, grad);
}
// The 1-D poolings and their backward passes: this backend's 2-D poolings on the single-row view.
NdArrayTensor NdArray::avg_pool1d(const NdArrayTensor& tensor, const AvgPool1dOptions& options) {
  return composite::avg_pool1d<NdArray>(tensor, options);
}
NdArrayTensor NdArray::avg_pool1d_backward(const NdArrayTensor& tensor, const NdArrayTensor& grad, const AvgPool1dOptions& options) {
  return composite::avg_pool1d_backward<NdArray>(tensor, grad, options);
}
NdArrayTensor NdArray::adaptive_avg_pool1d(const NdArrayTensor& tensor, const Size1& output_size) {
  return composite::adaptive_avg_pool1d<NdArray>(tensor, output_size);
}
NdArrayTensor NdArray::adaptive_avg_pool1d_backward(const NdArrayTensor& tensor, const NdArrayTensor& grad) {
  return composite::adaptive_avg_pool1d_backward<NdArray>(tensor, grad);
}
NdArrayTensor NdArray::max_pool1d(const NdArrayTensor& tensor, const MaxPool1dOptions& options) {
  return composite::max_pool1d<NdArray>(tensor, options, false);
}
NdArrayTensor NdArray::max_pool1d_indices(const NdArrayTensor& tensor, const MaxPool1dOptions& options) {
  return composite::max_pool1d<NdArray>(tensor, options, true);
}
NdArrayTensor NdArray::max_pool1d_with_indices_backward(const NdArrayTensor& tensor, const NdArrayTensor& grad, const NdArrayTensor& indices,
                                                const MaxPool1dOptions& options) {
  return composite::max_pool1d_with_indices_backward<NdArray>(tensor, grad, indices, options);
}
// unfold4d: the blocks gathered by the convolution's index list (Note [Convolution as a gathered product]).
NdArrayTensor NdArray::unfold4d(const NdArrayTensor& tensor, const Size2& kernel_size, const UnfoldOptions& options) {
  return composite::unfold4d<NdArray>(tensor, kernel_size, options);
}
// fold4d: unfold4d's index list scattered back (col2im).
NdArrayTensor NdArray::fold4d(const NdArrayTensor& tensor, const Size2& output_size, const Size2& kernel_size,
                          const UnfoldOptions& options) {
  return composite::fold4d<NdArray>(tensor, output_size, kernel_size, options);
}
// interpolate and its backward pass: two passes of this backend's select (select_add) and mul per
// axis (Note [Interpolation as separable taps]).
NdArrayTensor NdArray::interpolate(const NdArrayTensor& tensor, const Size2& output_size, const InterpolateOptions& options) {
  return composite::interpolate<NdArray>(tensor, output_size, options);
}
NdArrayTensor NdArray::interpolate_backward(const NdArrayTensor& tensor, const NdArrayTensor& grad, const Size2& output_size,
                                   const InterpolateOptions& options) {
  return composite::interpolate_backward<NdArray>(tensor, grad, output_size, options);
}
// adaptive_avg_pool3d and its backward pass: this backend's adaptive_avg_pool2d passes over height
// and width, then depth (composite_pool.hpp).
NdArrayTensor NdArray::adaptive_avg_pool3d(const NdArrayTensor& tensor, const Size3& output_size) {
  return composite::adaptive_avg_pool3d<NdArray>(tensor, output_size);
}
NdArrayTensor NdArray::adaptive_avg_pool3d_backward(const NdArrayTensor& tensor, const NdArrayTensor& grad) {
  return composite::adaptive_avg_pool3d_backward<NdArray>(tensor, grad);
}
// conv_transpose1d and its backward passes: this backend's conv_transpose2d passes on the single-row view.
NdArrayTensor NdArray::conv_transpose1d(const NdArrayTensor& tensor, const NdArrayTensor& weight, const std::optional<NdArrayTensor>& bias, const ConvTranspose1dOptions& options) {
  return composite::conv_transpose1d<NdArray>(tensor, weight, bias, options);
}
NdArrayTensor NdArray::conv_transpose1d_x_backward(const NdArrayTensor& tensor, const NdArrayTensor& weight, const NdArrayTensor& grad, const ConvTranspose1dOptions& options) {
  return composite::conv_transpose1d_backward<NdArray>(tensor, weight, grad, options, true);
}
NdArrayTensor NdArray::conv_transpose1d_weight_backward(const NdArrayTensor& tensor, const NdArrayTensor& weight, const NdArrayTensor& grad, const ConvTranspose1dOptions& options) {
  return composite::conv_transpose1d_backward<NdArray>(tensor, weight, grad, options, false);
}
NdArrayTensor NdArray::conv_transpose1d_bias_backward(const NdArrayTensor& tensor, const NdArrayTensor& bias, const NdArrayTensor& grad) {
  return composite::conv1d_bias_backward<NdArray>(tensor, bias, grad, "conv_transpose1d_bias_backward");
}
// conv_transpose2d and its backward passes: the same list scattered (Note [Transposed convolution as a scattered product]).
NdArrayTensor NdArray::conv_transpose2d(const NdArrayTensor& tensor, const NdArrayTensor& weight, const std::optional<NdArrayTensor>& bias, const ConvTranspose2dOptions& options) {
  return composite::conv_transpose2d<NdArray>(tensor, weight, bias, options);
}
NdArrayTensor NdArray::conv_transpose2d_x_backward(const NdArrayTensor& tensor, const NdArrayTensor& weight, const NdArrayTensor& grad, const ConvTranspose2dOptions& options) {
  return composite::conv_transpose2d_x_backward<NdArray>(tensor, weight, grad, options);
}
NdArrayTensor NdArray::conv_transpose2d_weight_backward(const NdArrayTensor& tensor, const NdArrayTensor& weight, const NdArrayTensor& grad, const ConvTranspose2dOptions& options) {
  return composite::conv_transpose2d_weight_backward<NdArray>(tensor, weight, grad, options);
}
NdArrayTensor NdArray::conv_transpose2d_bias_backward(const NdArrayTensor& tensor, const NdArrayTensor& bias, const NdArrayTensor& grad) {
  return composite::conv2d_bias_backward<NdArray>(tensor, bias, grad, "conv_transpose2d_bias_backward");
}
// conv3d, conv_transpose3d and their backward passes: the 2-D passes with a depth index (ConvSpec).
NdArrayTensor NdArray::conv3d(const NdArrayTensor& tensor, const NdArrayTensor& weight, const std::optional<NdArrayTensor>& bias, const Conv3dOptions& options) {
  return composite::conv3d<NdArray>(tensor, weight, bias, options);
}
NdArrayTensor NdArray::conv3d_x_backward(const NdArrayTensor& tensor, const NdArrayTensor& weight, const NdArrayTensor& grad, const Conv3dOptions& options) {
  return composite::conv3d_x_backward<NdArray>(tensor, weight, grad, options);
}
NdArrayTensor NdArray::conv3d_weight_backward(const NdArrayTensor& tensor, const NdArrayTensor& weight, const NdArrayTensor& grad, const Conv3dOptions& options) {
  return composite::conv3d_weight_backward<NdArray>(tensor, weight, grad, options);
}
NdArrayTensor NdArray::conv3d_bias_backward(const NdArrayTensor& tensor, const NdArrayTensor& bias, const NdArrayTensor& grad) {
  return composite::conv3d_bias_backward<NdArray>(tensor, bias, grad);
}
NdArrayTensor NdArray::conv_transpose3d(const NdArrayTensor& tensor, const NdArrayTensor& weight, const std::optional<NdArrayTensor>& bias, const ConvTranspose3dOptions& options) {
  return composite::conv_transpose3d<NdArray>(tensor, weight, bias, options);
}
NdArrayTensor NdArray::conv_transpose3d_x_backward(const NdArrayTensor& tensor, const NdArrayTensor& weight, const NdArrayTensor& grad, const ConvTranspose3dOptions& options) {
  return composite::conv_transpose3d_x_backward<NdArray>(tensor, weight, grad, options);
}
NdArrayTensor NdArray::conv_transpose3d_weight_backward(const NdArrayTensor& tensor, const NdArrayTensor& weight, const NdArrayTensor& grad, const ConvTranspose3dOptions& options) {
  return composite::conv_transpose3d_weight_backward<NdArray>(tensor, weight, grad, options);
}
NdArrayTensor NdArray::conv_transpose3d_bias_backward(const NdArrayTensor& tensor, const NdArrayTensor& bias, const NdArrayTensor& grad) {
  return composite::conv3d_bias_backward<NdArray>(tensor, bias, grad, "conv_transpose3d_bias_backward");
}

// layer_norm and attention: Burn's default ModuleOps compositions over this backend's own ops
// (composite_norm.hpp, composite_attention.hpp).
NdArrayTensor NdArray::layer_norm(const NdArrayTensor& tensor, const NdArrayTensor& weight, const std::optional<NdArrayTensor>& bias, double epsilon) {
  return composite::layer_norm<NdArray>(tensor, weight, bias, epsilon);
}
NdArrayTensor NdArray::attention(const NdArrayTensor& tensor, const NdArrayTensor& key, const NdArrayTensor& value, const std::optional<NdArrayTensor>& mask,
                   const std::optional<NdArrayTensor>& bias, const AttentionOptions& options) {
  return composite::attention<NdArray>(tensor, key, value, mask, bias, options);
}

// batch_norm: Burn's default composition over this backend's own ops (composite_norm.hpp).
NdArrayTensor NdArray::batch_norm(const NdArrayTensor& tensor, const NdArrayTensor& weight, const NdArrayTensor& bias, const NdArrayTensor& mean, const NdArrayTensor& variance,
                    double epsilon) {
  return composite::batch_norm<NdArray>(tensor, weight, bias, mean, variance, epsilon);
}

// rfft and irfft: the DFT as a matrix product over this backend's matmul (Note [The DFT as a matrix
// product]).
NdArrayTensor NdArray::rfft(const NdArrayTensor& tensor, std::size_t dim, std::optional<std::size_t> n) {
  return composite::rfft<NdArray>(tensor, dim, n);
}
NdArrayTensor NdArray::irfft(const NdArrayTensor& tensor, const NdArrayTensor& imaginary, std::size_t dim, std::optional<std::size_t> n) {
  return composite::irfft<NdArray>(tensor, imaginary, dim, n);
}

}  // namespace crossgrad::backends
