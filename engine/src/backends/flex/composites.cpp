// Flex: the ops written once for every backend as compositions of its own ops (composite_ops.hpp).
#include "common.hpp"
#include "../composite_ops.hpp"
#include "../composite_attention.hpp"
#include "../composite_conv.hpp"
#include "../composite_fft.hpp"
#include "im2col.hpp"  // before the convolutions below are instantiated (Note [Backend im2col kernels])
#include "../composite_interpolate.hpp"
#include "../composite_linear.hpp"
#include "../composite_pool.hpp"

namespace crossgrad::backends {

FlexTensor Flex::softmin(const FlexTensor& tensor, std::size_t dim) { return composite::softmin<Flex>(tensor, dim); }
FlexTensor Flex::hard_sigmoid(const FlexTensor& tensor, double alpha, double beta) {
  return composite::hard_sigmoid<Flex>(tensor, alpha, beta);
}

FlexTensor Flex::float_cross(const FlexTensor& lhs, const FlexTensor& rhs, std::size_t dim) {
  return composite::cross<Flex>(lhs, rhs, dim);
}

// The float_ and int_ sort and topk: one composite each, gathering at their kind's positions;
// bool_argwhere reads the mask on the host.
CROSSGRAD_KIND_MEMBER(Flex, float_sort, Sort, composite::sort<Flex>)
CROSSGRAD_KIND_MEMBER(Flex, int_sort, Sort, composite::sort<Flex>)
CROSSGRAD_KIND_MEMBER(Flex, float_topk, TopK, composite::topk<Flex>)
CROSSGRAD_KIND_MEMBER(Flex, int_topk, TopK, composite::topk<Flex>)
CROSSGRAD_KIND_MEMBER(Flex, bool_argwhere, Unary, composite::argwhere<Flex>)

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(Flex, transpose, Unary, composite::transpose<Flex>)
CROSSGRAD_KIND_MEMBERS(Flex, repeat_dim, Repeat, composite::repeat_dim<Flex>)
CROSSGRAD_KIND_MEMBERS(Flex, unfold, Window, composite::unfold<Flex>)
CROSSGRAD_KIND_MEMBERS(Flex, gather_nd, GatherNd, composite::gather_nd<Flex>)

// linear and its backward passes: Flex's matmul, add and sums (composite_linear.hpp).
FlexTensor Flex::linear(const FlexTensor& tensor, const FlexTensor& weight, const std::optional<FlexTensor>& bias) {
  return composite::linear<Flex>(tensor, weight, bias);
}
FlexTensor Flex::linear_x_backward(const FlexTensor& tensor, const FlexTensor& grad) {
  return composite::linear_x_backward<Flex>(tensor, grad);
}
FlexTensor Flex::linear_weight_backward(const FlexTensor& tensor, const FlexTensor& grad) {
  return composite::linear_weight_backward<Flex>(tensor, grad);
}
FlexTensor Flex::linear_bias_backward(const FlexTensor& tensor) { return composite::linear_bias_backward<Flex>(tensor); }

// conv2d and its backward passes: Flex's gather, matmul and sums (Note [Convolution as a gathered product]).
FlexTensor Flex::conv2d(const FlexTensor& tensor, const FlexTensor& weight, const std::optional<FlexTensor>& bias, const Conv2dOptions& options) {
  return composite::conv2d<Flex>(tensor, weight, bias, options);
}
FlexTensor Flex::conv2d_x_backward(const FlexTensor& tensor, const FlexTensor& weight, const FlexTensor& grad, const Conv2dOptions& options) {
  return composite::conv2d_x_backward<Flex>(tensor, weight, grad, options);
}
FlexTensor Flex::conv2d_weight_backward(const FlexTensor& tensor, const FlexTensor& weight, const FlexTensor& grad, const Conv2dOptions& options) {
  return composite::conv2d_weight_backward<Flex>(tensor, weight, grad, options);
}
FlexTensor Flex::conv2d_bias_backward(const FlexTensor& tensor, const FlexTensor& bias, const FlexTensor& grad) {
  return composite::conv2d_bias_backward<Flex>(tensor, bias, grad);
}
// conv1d and its backward passes: this backend's conv2d passes on the single-row view.
FlexTensor Flex::conv1d(const FlexTensor& tensor, const FlexTensor& weight, const std::optional<FlexTensor>& bias, const Conv1dOptions& options) {
  return composite::conv1d<Flex>(tensor, weight, bias, options);
}
FlexTensor Flex::conv1d_x_backward(const FlexTensor& tensor, const FlexTensor& weight, const FlexTensor& grad, const Conv1dOptions& options) {
  return composite::conv1d_backward<Flex>(tensor, weight, grad, options, true);
}
FlexTensor Flex::conv1d_weight_backward(const FlexTensor& tensor, const FlexTensor& weight, const FlexTensor& grad, const Conv1dOptions& options) {
  return composite::conv1d_backward<Flex>(tensor, weight, grad, options, false);
}
FlexTensor Flex::conv1d_bias_backward(const FlexTensor& tensor, const FlexTensor& bias, const FlexTensor& grad) {
  return composite::conv1d_bias_backward<Flex>(tensor, bias, grad);
}
// The 1-D poolings and their backward passes: this backend's 2-D poolings on the single-row view.
FlexTensor Flex::avg_pool1d(const FlexTensor& tensor, const AvgPool1dOptions& options) {
  return composite::avg_pool1d<Flex>(tensor, options);
}
FlexTensor Flex::avg_pool1d_backward(const FlexTensor& tensor, const FlexTensor& grad, const AvgPool1dOptions& options) {
  return composite::avg_pool1d_backward<Flex>(tensor, grad, options);
}
FlexTensor Flex::adaptive_avg_pool1d(const FlexTensor& tensor, const Size1& output_size) {
  return composite::adaptive_avg_pool1d<Flex>(tensor, output_size);
}
FlexTensor Flex::adaptive_avg_pool1d_backward(const FlexTensor& tensor, const FlexTensor& grad) {
  return composite::adaptive_avg_pool1d_backward<Flex>(tensor, grad);
}
FlexTensor Flex::max_pool1d(const FlexTensor& tensor, const MaxPool1dOptions& options) {
  return composite::max_pool1d<Flex>(tensor, options, false);
}
FlexTensor Flex::max_pool1d_indices(const FlexTensor& tensor, const MaxPool1dOptions& options) {
  return composite::max_pool1d<Flex>(tensor, options, true);
}
FlexTensor Flex::max_pool1d_with_indices_backward(const FlexTensor& tensor, const FlexTensor& grad, const FlexTensor& indices,
                                                const MaxPool1dOptions& options) {
  return composite::max_pool1d_with_indices_backward<Flex>(tensor, grad, indices, options);
}
// unfold4d: the blocks gathered by the convolution's index list (Note [Convolution as a gathered product]).
FlexTensor Flex::unfold4d(const FlexTensor& tensor, const Size2& kernel_size, const UnfoldOptions& options) {
  return composite::unfold4d<Flex>(tensor, kernel_size, options);
}
// fold4d: the same list scattered back (col2im), by Flex's scatter kernel (flex/im2col.cpp).
FlexTensor Flex::fold4d(const FlexTensor& tensor, const Size2& output_size, const Size2& kernel_size, const UnfoldOptions& options) {
  return composite::fold4d<Flex>(tensor, output_size, kernel_size, options);
}
// adaptive_avg_pool3d and its backward pass: this backend's adaptive_avg_pool2d passes over height
// and width, then depth (composite_pool.hpp).
FlexTensor Flex::adaptive_avg_pool3d(const FlexTensor& tensor, const Size3& output_size) {
  return composite::adaptive_avg_pool3d<Flex>(tensor, output_size);
}
FlexTensor Flex::adaptive_avg_pool3d_backward(const FlexTensor& tensor, const FlexTensor& grad) {
  return composite::adaptive_avg_pool3d_backward<Flex>(tensor, grad);
}
// conv_transpose1d and its backward passes: this backend's conv_transpose2d passes on the single-row view.
FlexTensor Flex::conv_transpose1d(const FlexTensor& tensor, const FlexTensor& weight, const std::optional<FlexTensor>& bias, const ConvTranspose1dOptions& options) {
  return composite::conv_transpose1d<Flex>(tensor, weight, bias, options);
}
FlexTensor Flex::conv_transpose1d_x_backward(const FlexTensor& tensor, const FlexTensor& weight, const FlexTensor& grad, const ConvTranspose1dOptions& options) {
  return composite::conv_transpose1d_backward<Flex>(tensor, weight, grad, options, true);
}
FlexTensor Flex::conv_transpose1d_weight_backward(const FlexTensor& tensor, const FlexTensor& weight, const FlexTensor& grad, const ConvTranspose1dOptions& options) {
  return composite::conv_transpose1d_backward<Flex>(tensor, weight, grad, options, false);
}
FlexTensor Flex::conv_transpose1d_bias_backward(const FlexTensor& tensor, const FlexTensor& bias, const FlexTensor& grad) {
  return composite::conv1d_bias_backward<Flex>(tensor, bias, grad, "conv_transpose1d_bias_backward");
}
// conv_transpose2d and its backward passes: the same list scattered (Note [Transposed convolution as a scattered product]).
FlexTensor Flex::conv_transpose2d(const FlexTensor& tensor, const FlexTensor& weight, const std::optional<FlexTensor>& bias, const ConvTranspose2dOptions& options) {
  return composite::conv_transpose2d<Flex>(tensor, weight, bias, options);
}
FlexTensor Flex::conv_transpose2d_x_backward(const FlexTensor& tensor, const FlexTensor& weight, const FlexTensor& grad, const ConvTranspose2dOptions& options) {
  return composite::conv_transpose2d_x_backward<Flex>(tensor, weight, grad, options);
}
FlexTensor Flex::conv_transpose2d_weight_backward(const FlexTensor& tensor, const FlexTensor& weight, const FlexTensor& grad, const ConvTranspose2dOptions& options) {
  return composite::conv_transpose2d_weight_backward<Flex>(tensor, weight, grad, options);
}
FlexTensor Flex::conv_transpose2d_bias_backward(const FlexTensor& tensor, const FlexTensor& bias, const FlexTensor& grad) {
  return composite::conv2d_bias_backward<Flex>(tensor, bias, grad, "conv_transpose2d_bias_backward");
}
// conv3d, conv_transpose3d and their backward passes: the 2-D passes with a depth index (ConvSpec).
FlexTensor Flex::conv3d(const FlexTensor& tensor, const FlexTensor& weight, const std::optional<FlexTensor>& bias, const Conv3dOptions& options) {
  return composite::conv3d<Flex>(tensor, weight, bias, options);
}
FlexTensor Flex::conv3d_x_backward(const FlexTensor& tensor, const FlexTensor& weight, const FlexTensor& grad, const Conv3dOptions& options) {
  return composite::conv3d_x_backward<Flex>(tensor, weight, grad, options);
}
FlexTensor Flex::conv3d_weight_backward(const FlexTensor& tensor, const FlexTensor& weight, const FlexTensor& grad, const Conv3dOptions& options) {
  return composite::conv3d_weight_backward<Flex>(tensor, weight, grad, options);
}
FlexTensor Flex::conv3d_bias_backward(const FlexTensor& tensor, const FlexTensor& bias, const FlexTensor& grad) {
  return composite::conv3d_bias_backward<Flex>(tensor, bias, grad);
}
FlexTensor Flex::conv_transpose3d(const FlexTensor& tensor, const FlexTensor& weight, const std::optional<FlexTensor>& bias, const ConvTranspose3dOptions& options) {
  return composite::conv_transpose3d<Flex>(tensor, weight, bias, options);
}
FlexTensor Flex::conv_transpose3d_x_backward(const FlexTensor& tensor, const FlexTensor& weight, const FlexTensor& grad, const ConvTranspose3dOptions& options) {
  return composite::conv_transpose3d_x_backward<Flex>(tensor, weight, grad, options);
}
FlexTensor Flex::conv_transpose3d_weight_backward(const FlexTensor& tensor, const FlexTensor& weight, const FlexTensor& grad, const ConvTranspose3dOptions& options) {
  return composite::conv_transpose3d_weight_backward<Flex>(tensor, weight, grad, options);
}
FlexTensor Flex::conv_transpose3d_bias_backward(const FlexTensor& tensor, const FlexTensor& bias, const FlexTensor& grad) {
  return composite::conv3d_bias_backward<Flex>(tensor, bias, grad, "conv_transpose3d_bias_backward");
}

// attention: Burn's default ModuleOps composition over this backend's own ops
// (composite_attention.hpp); layer_norm has its own kernel (layer_norm.cpp).
FlexTensor Flex::attention(const FlexTensor& tensor, const FlexTensor& key, const FlexTensor& value, const std::optional<FlexTensor>& mask,
                   const std::optional<FlexTensor>& bias, const AttentionOptions& options) {
  return composite::attention<Flex>(tensor, key, value, mask, bias, options);
}

// rfft and irfft: the DFT as a matrix product over this backend's matmul (Note [The DFT as a matrix
// product]).
FlexTensor Flex::rfft(const FlexTensor& tensor, std::size_t dim, std::optional<std::size_t> n) {
  return composite::rfft<Flex>(tensor, dim, n);
}
FlexTensor Flex::irfft(const FlexTensor& tensor, const FlexTensor& imaginary, std::size_t dim, std::optional<std::size_t> n) {
  return composite::irfft<Flex>(tensor, imaginary, dim, n);
}

}  // namespace crossgrad::backends
