// Cuda: the ops written once for every backend as compositions of its own ops (composite_ops.hpp).
#include "map_kernels.cuh"
#include "../composite_ops.hpp"
#include "../composite_attention.hpp"
#include "../composite_norm.hpp"
#include "../composite_conv.hpp"
#include "../composite_fft.hpp"
#include "../composite_interpolate.hpp"
#include "../composite_linear.hpp"
#include "../composite_pool.hpp"

namespace crossgrad::backends {

CudaTensor Cuda::softmin(const CudaTensor& tensor, std::size_t dim) { return composite::softmin<Cuda>(tensor, dim); }
CudaTensor Cuda::hard_sigmoid(const CudaTensor& tensor, double alpha, double beta) {
  return composite::hard_sigmoid<Cuda>(tensor, alpha, beta);
}

CudaTensor Cuda::float_cross(const CudaTensor& lhs, const CudaTensor& rhs, std::size_t dim) {
  return composite::cross<Cuda>(lhs, rhs, dim);
}

// The float_ and int_ sort, topk and scatter_nd: one composite each, calling the ops of their kind;
// bool_argwhere reads the mask on the host.
CROSSGRAD_KIND_MEMBER(Cuda, float_sort, Sort, composite::sort<Cuda>)
CROSSGRAD_KIND_MEMBER(Cuda, int_sort, Sort, composite::sort<Cuda>)
CROSSGRAD_KIND_MEMBER(Cuda, float_topk, TopK, composite::topk<Cuda>)
CROSSGRAD_KIND_MEMBER(Cuda, int_topk, TopK, composite::topk<Cuda>)
CROSSGRAD_KIND_MEMBER(Cuda, float_scatter_nd, ScatterNd, composite::scatter_nd<Cuda>)
CROSSGRAD_KIND_MEMBER(Cuda, int_scatter_nd, ScatterNd, composite::scatter_nd<Cuda>)
CROSSGRAD_KIND_MEMBER(Cuda, bool_argwhere, Unary, composite::argwhere<Cuda>)

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(Cuda, transpose, Unary, composite::transpose<Cuda>)
CROSSGRAD_KIND_MEMBERS(Cuda, repeat_dim, Repeat, composite::repeat_dim<Cuda>)
CROSSGRAD_KIND_MEMBERS(Cuda, unfold, Window, composite::unfold<Cuda>)
CROSSGRAD_KIND_MEMBERS(Cuda, slice_assign, RangesAssign, composite::slice_assign<Cuda>)
CROSSGRAD_KIND_MEMBERS(Cuda, gather_nd, GatherNd, composite::gather_nd<Cuda>)
CROSSGRAD_KIND_MEMBERS(Cuda, mask_select, MaskSelect, composite::mask_select<Cuda>)

// linear and its backward passes: Cuda's matmul, add and sums (composite_linear.hpp).
CudaTensor Cuda::linear(const CudaTensor& tensor, const CudaTensor& weight, const std::optional<CudaTensor>& bias) {
  return composite::linear<Cuda>(tensor, weight, bias);
}
CudaTensor Cuda::linear_x_backward(const CudaTensor& tensor, const CudaTensor& grad) {
  return composite::linear_x_backward<Cuda>(tensor, grad);
}
CudaTensor Cuda::linear_weight_backward(const CudaTensor& tensor, const CudaTensor& grad) {
  return composite::linear_weight_backward<Cuda>(tensor, grad);
}
CudaTensor Cuda::linear_bias_backward(const CudaTensor& tensor) { return composite::linear_bias_backward<Cuda>(tensor); }

// conv2d and its backward passes: Cuda's gather, matmul and sums (Note [Convolution as a gathered product]).
CudaTensor Cuda::conv2d(const CudaTensor& tensor, const CudaTensor& weight, const std::optional<CudaTensor>& bias, const Conv2dOptions& options) {
  return composite::conv2d<Cuda>(tensor, weight, bias, options);
}
CudaTensor Cuda::conv2d_x_backward(const CudaTensor& tensor, const CudaTensor& weight, const CudaTensor& grad, const Conv2dOptions& options) {
  return composite::conv2d_x_backward<Cuda>(tensor, weight, grad, options);
}
CudaTensor Cuda::conv2d_weight_backward(const CudaTensor& tensor, const CudaTensor& weight, const CudaTensor& grad, const Conv2dOptions& options) {
  return composite::conv2d_weight_backward<Cuda>(tensor, weight, grad, options);
}
CudaTensor Cuda::conv2d_bias_backward(const CudaTensor& tensor, const CudaTensor& bias, const CudaTensor& grad) {
  return composite::conv2d_bias_backward<Cuda>(tensor, bias, grad);
}
// conv1d and its backward passes: this backend's conv2d passes on the single-row view.
CudaTensor Cuda::conv1d(const CudaTensor& tensor, const CudaTensor& weight, const std::optional<CudaTensor>& bias, const Conv1dOptions& options) {
  return composite::conv1d<Cuda>(tensor, weight, bias, options);
}
CudaTensor Cuda::conv1d_x_backward(const CudaTensor& tensor, const CudaTensor& weight, const CudaTensor& grad, const Conv1dOptions& options) {
  return composite::conv1d_backward<Cuda>(tensor, weight, grad, options, true);
}
CudaTensor Cuda::conv1d_weight_backward(const CudaTensor& tensor, const CudaTensor& weight, const CudaTensor& grad, const Conv1dOptions& options) {
  return composite::conv1d_backward<Cuda>(tensor, weight, grad, options, false);
}
CudaTensor Cuda::conv1d_bias_backward(const CudaTensor& tensor, const CudaTensor& bias, const CudaTensor& grad) {
  return composite::conv1d_bias_backward<Cuda>(tensor, bias, grad);
}
// The 1-D poolings and their backward passes: this backend's 2-D poolings on the single-row view.
CudaTensor Cuda::avg_pool1d(const CudaTensor& tensor, const AvgPool1dOptions& options) {
  return composite::avg_pool1d<Cuda>(tensor, options);
}
CudaTensor Cuda::avg_pool1d_backward(const CudaTensor& tensor, const CudaTensor& grad, const AvgPool1dOptions& options) {
  return composite::avg_pool1d_backward<Cuda>(tensor, grad, options);
}
CudaTensor Cuda::adaptive_avg_pool1d(const CudaTensor& tensor, const Size1& output_size) {
  return composite::adaptive_avg_pool1d<Cuda>(tensor, output_size);
}
CudaTensor Cuda::adaptive_avg_pool1d_backward(const CudaTensor& tensor, const CudaTensor& grad) {
  return composite::adaptive_avg_pool1d_backward<Cuda>(tensor, grad);
}
CudaTensor Cuda::max_pool1d(const CudaTensor& tensor, const MaxPool1dOptions& options) {
  return composite::max_pool1d<Cuda>(tensor, options, false);
}
CudaTensor Cuda::max_pool1d_indices(const CudaTensor& tensor, const MaxPool1dOptions& options) {
  return composite::max_pool1d<Cuda>(tensor, options, true);
}
CudaTensor Cuda::max_pool1d_with_indices_backward(const CudaTensor& tensor, const CudaTensor& grad, const CudaTensor& indices,
                                                const MaxPool1dOptions& options) {
  return composite::max_pool1d_with_indices_backward<Cuda>(tensor, grad, indices, options);
}
// unfold4d: the blocks gathered by the convolution's index list (Note [Convolution as a gathered product]).
CudaTensor Cuda::unfold4d(const CudaTensor& tensor, const Size2& kernel_size, const UnfoldOptions& options) {
  return composite::unfold4d<Cuda>(tensor, kernel_size, options);
}
// fold4d: unfold4d's index list scattered back (col2im).
CudaTensor Cuda::fold4d(const CudaTensor& tensor, const Size2& output_size, const Size2& kernel_size,
                          const UnfoldOptions& options) {
  return composite::fold4d<Cuda>(tensor, output_size, kernel_size, options);
}
// interpolate and its backward pass: two passes of this backend's select (select_add) and mul per
// axis (Note [Interpolation as separable taps]).
CudaTensor Cuda::interpolate(const CudaTensor& tensor, const Size2& output_size, const InterpolateOptions& options) {
  return composite::interpolate<Cuda>(tensor, output_size, options);
}
CudaTensor Cuda::interpolate_backward(const CudaTensor& tensor, const CudaTensor& grad, const Size2& output_size,
                                   const InterpolateOptions& options) {
  return composite::interpolate_backward<Cuda>(tensor, grad, output_size, options);
}
// adaptive_avg_pool3d and its backward pass: this backend's adaptive_avg_pool2d passes over height
// and width, then depth (composite_pool.hpp).
CudaTensor Cuda::adaptive_avg_pool3d(const CudaTensor& tensor, const Size3& output_size) {
  return composite::adaptive_avg_pool3d<Cuda>(tensor, output_size);
}
CudaTensor Cuda::adaptive_avg_pool3d_backward(const CudaTensor& tensor, const CudaTensor& grad) {
  return composite::adaptive_avg_pool3d_backward<Cuda>(tensor, grad);
}
// conv_transpose1d and its backward passes: this backend's conv_transpose2d passes on the single-row view.
CudaTensor Cuda::conv_transpose1d(const CudaTensor& tensor, const CudaTensor& weight, const std::optional<CudaTensor>& bias, const ConvTranspose1dOptions& options) {
  return composite::conv_transpose1d<Cuda>(tensor, weight, bias, options);
}
CudaTensor Cuda::conv_transpose1d_x_backward(const CudaTensor& tensor, const CudaTensor& weight, const CudaTensor& grad, const ConvTranspose1dOptions& options) {
  return composite::conv_transpose1d_backward<Cuda>(tensor, weight, grad, options, true);
}
CudaTensor Cuda::conv_transpose1d_weight_backward(const CudaTensor& tensor, const CudaTensor& weight, const CudaTensor& grad, const ConvTranspose1dOptions& options) {
  return composite::conv_transpose1d_backward<Cuda>(tensor, weight, grad, options, false);
}
CudaTensor Cuda::conv_transpose1d_bias_backward(const CudaTensor& tensor, const CudaTensor& bias, const CudaTensor& grad) {
  return composite::conv1d_bias_backward<Cuda>(tensor, bias, grad, "conv_transpose1d_bias_backward");
}
// conv_transpose2d and its backward passes: the same list scattered (Note [Transposed convolution as a scattered product]).
CudaTensor Cuda::conv_transpose2d(const CudaTensor& tensor, const CudaTensor& weight, const std::optional<CudaTensor>& bias, const ConvTranspose2dOptions& options) {
  return composite::conv_transpose2d<Cuda>(tensor, weight, bias, options);
}
CudaTensor Cuda::conv_transpose2d_x_backward(const CudaTensor& tensor, const CudaTensor& weight, const CudaTensor& grad, const ConvTranspose2dOptions& options) {
  return composite::conv_transpose2d_x_backward<Cuda>(tensor, weight, grad, options);
}
CudaTensor Cuda::conv_transpose2d_weight_backward(const CudaTensor& tensor, const CudaTensor& weight, const CudaTensor& grad, const ConvTranspose2dOptions& options) {
  return composite::conv_transpose2d_weight_backward<Cuda>(tensor, weight, grad, options);
}
CudaTensor Cuda::conv_transpose2d_bias_backward(const CudaTensor& tensor, const CudaTensor& bias, const CudaTensor& grad) {
  return composite::conv2d_bias_backward<Cuda>(tensor, bias, grad, "conv_transpose2d_bias_backward");
}
// conv3d, conv_transpose3d and their backward passes: the 2-D passes with a depth index (ConvSpec).
CudaTensor Cuda::conv3d(const CudaTensor& tensor, const CudaTensor& weight, const std::optional<CudaTensor>& bias, const Conv3dOptions& options) {
  return composite::conv3d<Cuda>(tensor, weight, bias, options);
}
CudaTensor Cuda::conv3d_x_backward(const CudaTensor& tensor, const CudaTensor& weight, const CudaTensor& grad, const Conv3dOptions& options) {
  return composite::conv3d_x_backward<Cuda>(tensor, weight, grad, options);
}
CudaTensor Cuda::conv3d_weight_backward(const CudaTensor& tensor, const CudaTensor& weight, const CudaTensor& grad, const Conv3dOptions& options) {
  return composite::conv3d_weight_backward<Cuda>(tensor, weight, grad, options);
}
CudaTensor Cuda::conv3d_bias_backward(const CudaTensor& tensor, const CudaTensor& bias, const CudaTensor& grad) {
  return composite::conv3d_bias_backward<Cuda>(tensor, bias, grad);
}
CudaTensor Cuda::conv_transpose3d(const CudaTensor& tensor, const CudaTensor& weight, const std::optional<CudaTensor>& bias, const ConvTranspose3dOptions& options) {
  return composite::conv_transpose3d<Cuda>(tensor, weight, bias, options);
}
CudaTensor Cuda::conv_transpose3d_x_backward(const CudaTensor& tensor, const CudaTensor& weight, const CudaTensor& grad, const ConvTranspose3dOptions& options) {
  return composite::conv_transpose3d_x_backward<Cuda>(tensor, weight, grad, options);
}
CudaTensor Cuda::conv_transpose3d_weight_backward(const CudaTensor& tensor, const CudaTensor& weight, const CudaTensor& grad, const ConvTranspose3dOptions& options) {
  return composite::conv_transpose3d_weight_backward<Cuda>(tensor, weight, grad, options);
}
CudaTensor Cuda::conv_transpose3d_bias_backward(const CudaTensor& tensor, const CudaTensor& bias, const CudaTensor& grad) {
  return composite::conv3d_bias_backward<Cuda>(tensor, bias, grad, "conv_transpose3d_bias_backward");
}

// layer_norm and attention: Burn's default ModuleOps compositions over this backend's own ops
// (composite_norm.hpp, composite_attention.hpp).
CudaTensor Cuda::layer_norm(const CudaTensor& tensor, const CudaTensor& weight, const std::optional<CudaTensor>& bias, double epsilon) {
  return composite::layer_norm<Cuda>(tensor, weight, bias, epsilon);
}
CudaTensor Cuda::attention(const CudaTensor& tensor, const CudaTensor& key, const CudaTensor& value, const std::optional<CudaTensor>& mask,
                   const std::optional<CudaTensor>& bias, const AttentionOptions& options) {
  return composite::attention<Cuda>(tensor, key, value, mask, bias, options);
}

// batch_norm: Burn's default composition over this backend's own ops (composite_norm.hpp).
CudaTensor Cuda::batch_norm(const CudaTensor& tensor, const CudaTensor& weight, const CudaTensor& bias, const CudaTensor& mean, const CudaTensor& variance,
                    double epsilon) {
  return composite::batch_norm<Cuda>(tensor, weight, bias, mean, variance, epsilon);
}

// rfft and irfft: the DFT as a matrix product over this backend's matmul (Note [The DFT as a matrix
// product]).
CudaTensor Cuda::rfft(const CudaTensor& tensor, std::size_t dim, std::optional<std::size_t> n) {
  return composite::rfft<Cuda>(tensor, dim, n);
}
CudaTensor Cuda::irfft(const CudaTensor& tensor, const CudaTensor& imaginary, std::size_t dim, std::optional<std::size_t> n) {
  return composite::irfft<Cuda>(tensor, imaginary, dim, n);
}

}  // namespace crossgrad::backends
