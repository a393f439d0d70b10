#pragma once
// The argument rules of the module ops (Note [Module ops], core/module_options.hpp): every backend
// calls the plan_* of its op before any kernel runs, so bad options raise the same catalog panic
// everywhere, and its kernels walk the returned plan.
#include <crossgrad/core/dtype.hpp>
#include <crossgrad/core/module_options.hpp>
#include <crossgrad/core/shape.hpp>

#include <cstddef>
#include <optional>
#include <cstdint>
#include <span>
#include <string_view>

namespace crossgrad::rules {

// A 2-D pooling over an input [batch, channels, in_h, in_w] viewed as `planes` = batch * channels
// planes of in_h x in_w, each pooled to out_h x out_w. `out` is the forward result's shape.
struct Pool2dPlan {
  Shape out;
  std::size_t planes = 0;
  std::size_t in_h = 0, in_w = 0;
  std::size_t out_h = 0, out_w = 0;
};

// avg_pool2d(x, options), in this order: x a float tensor (unsupported-dtype), of rank 4
// (module-input-rank), kernel_size and stride at least 1 in each dim (module-option-zero), x at least
// 1 in height and width (pool-empty-input), padding at most half the kernel (pool-padding), the
// padded input at least the kernel (pool-kernel-too-large).
// The output size per dim is PyTorch's: (in + 2 padding - kernel) / stride + 1, rounded up under
// ceil_mode, less the last window when it would start in the right padding.
Pool2dPlan plan_avg_pool2d(const Shape& x, DType dtype, const AvgPool2dOptions& options);
// avg_pool2d_backward(x, grad, options): grad of x's dtype (dtype-mismatch), then plan_avg_pool2d's
// checks, then grad of the forward output's shape (pool-grad-shape).
Pool2dPlan plan_avg_pool2d_backward(const Shape& x, DType x_dtype, const Shape& grad, DType grad_dtype,
                                    const AvgPool2dOptions& options);
// adaptive_avg_pool2d(x, output_size): a float rank-4 x, output_size at least 1 in each dim
// (module-option-zero), x at least 1 in each pooled dim (pool-empty-input).
Pool2dPlan plan_adaptive_avg_pool2d(const Shape& x, DType dtype, const Size2& output_size);
// adaptive_avg_pool2d_backward(x, grad): the output size is grad's last two dims; grad of x's dtype,
// rank 4, x's batch and channels (pool-grad-shape), then plan_adaptive_avg_pool2d's checks.
Pool2dPlan plan_adaptive_avg_pool2d_backward(const Shape& x, DType x_dtype, const Shape& grad, DType grad_dtype);

// max_pool2d(x, options) and max_pool2d_indices: avg_pool2d's checks with dilation (at least 1,
// module-option-zero, after stride; padding at most half the kernel_size, PyTorch's rule) and the
// window's span dilation (kernel - 1) + 1 in the kernel's place against the padded input, then
// every window reaching an input cell (pool-empty-window).
Pool2dPlan plan_max_pool2d(const Shape& x, DType dtype, const MaxPool2dOptions& options, std::string_view op);
// max_pool2d_with_indices_backward(x, grad, indices, options): grad of x's dtype, the forward's
// checks, grad of the output's shape (pool-grad-shape), indices I64 or I32 (unsupported-dtype) of
// grad's shape (pool-indices-shape). The index values (each below in_h * in_w) are the kernel's to
// check as it reads them (index-out-of-range).
Pool2dPlan plan_max_pool2d_backward(const Shape& x, DType x_dtype, const Shape& grad, DType grad_dtype,
                                    const Shape& indices, DType indices_dtype, const MaxPool2dOptions& options);
// An index of max_pool2d_with_indices_backward (or `op`) outside the plane of in_h * in_w cells:
// index-out-of-range for dim 2 (the plane, flattened row-major; the 1-D op's row).
[[noreturn]] void pool_index_out_of_range(long long index, std::size_t plane_size,
                                          std::string_view op = "max_pool2d_with_indices_backward");
// The same check over indices read back as I64 (Cuda and LibTorch copy them to the host first): the
// first one outside the plane, in row-major order, panics.
void check_pool_indices(std::span<const std::int64_t> indices, std::size_t plane_size,
                        std::string_view op = "max_pool2d_with_indices_backward");

// The 1-D poolings over x [batch, channels, length]: the 2-D plan of the single-row view (in_h and
// out_h 1, out the 1-D result [batch, channels, out_length]), after the 2-D checks in the 2-D order
// with rank 3 (module-input-rank, layout [batch, channels, length]) and 1-D values in the messages.
Pool2dPlan plan_avg_pool1d(const Shape& x, DType dtype, const AvgPool1dOptions& options);
Pool2dPlan plan_avg_pool1d_backward(const Shape& x, DType x_dtype, const Shape& grad, DType grad_dtype,
                                    const AvgPool1dOptions& options);
Pool2dPlan plan_adaptive_avg_pool1d(const Shape& x, DType dtype, const Size1& output_size);
Pool2dPlan plan_adaptive_avg_pool1d_backward(const Shape& x, DType x_dtype, const Shape& grad, DType grad_dtype);
Pool2dPlan plan_max_pool1d(const Shape& x, DType dtype, const MaxPool1dOptions& options, std::string_view op);
Pool2dPlan plan_max_pool1d_backward(const Shape& x, DType x_dtype, const Shape& grad, DType grad_dtype,
                                    const Shape& indices, DType indices_dtype, const MaxPool1dOptions& options);

// The 1-D options as the 2-D ones of the single-row view (1 or 0 across rows).
AvgPool2dOptions avg_pool2d_options_of(const AvgPool1dOptions& options);
MaxPool2dOptions max_pool2d_options_of(const MaxPool1dOptions& options);

// embedding(weights, indices): a table weights [n_embeddings, d_model] read at the positions of
// indices [batch, seq_length]; `out` is [batch, seq_length, d_model] (Burn's layout).
struct EmbeddingPlan {
  Shape out;
  std::size_t n_embeddings = 0, d_model = 0;
  std::size_t positions = 0;  // batch * seq_length
};
// embedding(weights, indices), in this order: weights a float tensor (unsupported-dtype) of rank 2
// (module-input-rank), indices I64 or I32 (unsupported-dtype) of rank 2 (module-input-rank). The index
// values are the kernels' to check, all of them before anything is written
// (embedding_index_out_of_range).
EmbeddingPlan plan_embedding(const Shape& weights, DType weights_dtype, const Shape& indices, DType indices_dtype);
// embedding_backward(weights, grad, indices): grad of the weights' dtype (dtype-mismatch), then
// plan_embedding's checks, then grad of the forward output's shape (pool-grad-shape).
EmbeddingPlan plan_embedding_backward(const Shape& weights, DType weights_dtype, const Shape& grad, DType grad_dtype,
                                      const Shape& indices, DType indices_dtype);
// An index of embedding / embedding_backward outside 0..n_embeddings-1: index-out-of-range for dim 0
// of the weights (negative indices are not wrapped).
[[noreturn]] void embedding_index_out_of_range(std::string_view op, long long index, std::size_t n_embeddings);
// The same check over indices read back as I64 (Cuda, LibTorch): the first outside the table panics.
void check_embedding_indices(std::span<const std::int64_t> indices, std::size_t n_embeddings, std::string_view op);

// linear(x, weight, bias) = x @ weight (+ bias) with x [..., d_input], weight [d_input, d_output],
// bias [d_output] (Burn's layout: the weight is not transposed). `out` is the result's shape; the
// leading dims of x (or of the gradient) fold into `rows` = out.num_elements() / out's last dim
// (0 when the result is empty; then the kernels only shape it, as rows alone could overflow).
struct LinearPlan {
  Shape out;
  std::size_t rows = 0;
  std::size_t d_input = 0, d_output = 0;
};
// linear(x, weight, bias), in this order: x a float tensor (unsupported-dtype), weight and bias of
// its dtype (dtype-mismatch), x of rank at least 1 (module-input-scalar), weight of rank 2 and bias
// of rank 1 (module-input-rank), x's last dim equal to weight's dim 0 and bias's size to weight's
// dim 1 (module-dim-mismatch), the result's size (shape-overflow).
LinearPlan plan_linear(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape* bias,
                       DType bias_dtype);
// linear_x_backward(weight, grad) = grad @ weight^T: weight a float rank-2 tensor, grad of its dtype
// and of rank at least 1 whose last dim is weight's dim 1 (d_output). out = grad's leading dims
// and d_input.
LinearPlan plan_linear_x_backward(const Shape& weight, DType weight_dtype, const Shape& grad, DType grad_dtype);
// linear_weight_backward(x, grad) = x^T @ grad over the folded leading dims: x and grad float of
// one dtype and rank at least 1, grad of linear's output shape for x (x's leading dims, any
// d_output; pool-grad-shape). out = [d_input, d_output].
LinearPlan plan_linear_weight_backward(const Shape& x, DType x_dtype, const Shape& grad, DType grad_dtype);
// linear_bias_backward(grad): the sum of grad over its leading dims; grad float of rank at least 1.
// out = [d_output].
LinearPlan plan_linear_bias_backward(const Shape& grad, DType grad_dtype);

// conv2d over x [batch, channels_in, in_h, in_w] with a weight [channels_out, channels_in / groups,
// k_h, k_w]: output [batch, channels_out, out_h, out_w], out = (in + 2 padding - span) / stride + 1
// with span = dilation (k - 1) + 1 (Burn's and PyTorch's).
// The 3-D ops' plans fill the depth fields too; every 1-D and 2-D plan has a depth of 1 (one plane).
struct Conv2dPlan {
  Shape out;
  std::size_t batch = 0, channels_in = 0, channels_out = 0, groups = 1;
  std::size_t in_h = 0, in_w = 0, k_h = 0, k_w = 0, out_h = 0, out_w = 0;
  std::size_t in_d = 1, k_d = 1, out_d = 1;
};
// conv2d(x, weight, bias, options), in this order: x float (unsupported-dtype), weight and bias of
// its dtype (dtype-mismatch), x and weight of rank 4 and bias of rank 1 (module-input-rank), stride,
// dilation and the weight's kernel size at least 1 (module-option-zero), groups at least 1 dividing
// the input and output channels (conv-groups), the weight's dim 1 the input channels / groups
// (conv-channels), the bias's size the output channels (module-dim-mismatch), the padded input at
// least the dilated kernel (pool-kernel-too-large), the result's size (shape-overflow).
Conv2dPlan plan_conv2d(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape* bias,
                       DType bias_dtype, const Conv2dOptions& options);
// deform_conv2d(x, offset, weight, mask, bias, options), in this order: conv2d's checks of x, weight
// and bias with weight_groups as groups (named deform_conv2d), the offset and the mask of x's dtype
// (dtype-mismatch), offset_groups at least 1 dividing the input channels (deform-offset-groups),
// the offset [batch, 2 * offset_groups * k_h * k_w, out_h, out_w] and the mask [batch, offset_groups
// * k_h * k_w, out_h, out_w] (deform-operand-shape). The plan is conv2d's. `op` names the call
// (deform_conv2d_backward's checks are these).
Conv2dPlan plan_deform_conv2d(const Shape& x, DType x_dtype, const Shape& offset, DType offset_dtype, const Shape& weight,
                              DType weight_dtype, const Shape* mask, DType mask_dtype, const Shape* bias, DType bias_dtype,
                              const DeformConv2dOptions& options, std::string_view op = "deform_conv2d");
// conv2d_x_backward / conv2d_weight_backward(x, weight, grad, options): grad of x's dtype, conv2d's
// checks (no bias), then grad of the output's shape (pool-grad-shape). `op` names the pass.
Conv2dPlan plan_conv2d_backward(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape& grad,
                                DType grad_dtype, const Conv2dOptions& options, std::string_view op);
// conv2d_bias_backward / conv_transpose2d_bias_backward(x, bias, grad) (`op` names it): float x,
// bias and grad of its dtype, x and grad of rank 4, bias of rank 1, grad of x's batch and the bias's
// channels (pool-grad-shape). out = the bias's shape.
Shape plan_conv2d_bias_backward(const Shape& x, DType x_dtype, const Shape& bias, DType bias_dtype, const Shape& grad,
                                DType grad_dtype, std::string_view op = "conv2d_bias_backward");

// conv1d over x [batch, channels_in, length] with a weight [channels_out, channels_in / groups,
// kernel]: conv2d's plan for the single-row view (x [batch, channels_in, 1, length], weight
// [channels_out, channels_in / groups, 1, kernel], stride, padding and dilation 1, 0 and 1 across
// rows), after conv2d's checks in conv2d's order with conv1d's ranks, layouts and 1-D values in
// the messages. out is the 1-D result [batch, channels_out, out_length].
Conv2dPlan plan_conv1d(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape* bias,
                       DType bias_dtype, const Conv1dOptions& options);
// conv1d_x_backward / conv1d_weight_backward(x, weight, grad, options), as plan_conv2d_backward.
Conv2dPlan plan_conv1d_backward(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape& grad,
                                DType grad_dtype, const Conv1dOptions& options, std::string_view op);
// conv1d_bias_backward / conv_transpose1d_bias_backward(x, bias, grad) (`op` names it): as
// plan_conv2d_bias_backward with x and grad of rank 3.
Shape plan_conv1d_bias_backward(const Shape& x, DType x_dtype, const Shape& bias, DType bias_dtype, const Shape& grad,
                                DType grad_dtype, std::string_view op = "conv1d_bias_backward");
// conv1d's options as conv2d's on the single-row view.
Conv2dOptions conv2d_options_of(const Conv1dOptions& options);

// conv_transpose2d over x [batch, channels_in, in_h, in_w] with a weight [channels_in,
// channels_out / groups, k_h, k_w]: output [batch, channels_out, out_h, out_w], out = (in - 1)
// stride + dilation (k - 1) + 1 + padding_out - 2 padding. The plan's fields mean what they mean
// for conv2d: channels_in and in_* are x's, channels_out and out_* the result's.
// conv_transpose2d(x, weight, bias, options), in this order: the dtypes and ranks as conv2d's, stride,
// dilation and kernel size at least 1 (module-option-zero), groups at least 1 dividing the input
// channels (conv-groups), the weight's dim 0 the input channels (conv-transpose-weight), the bias's
// size the output channels (conv-bias-channels), padding_out below stride or dilation
// (conv-padding-out), an input of at least 1 cell and an output of 1 to 2^64 - 1 per dim
// (conv-transpose-size), the result's size (shape-overflow).
Conv2dPlan plan_conv_transpose2d(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape* bias,
                                 DType bias_dtype, const ConvTranspose2dOptions& options);
// conv_transpose2d_x_backward / conv_transpose2d_weight_backward(x, weight, grad, options): grad of
// x's dtype, conv_transpose2d's checks (no bias), then grad of the output's shape (pool-grad-shape).
Conv2dPlan plan_conv_transpose2d_backward(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype,
                                          const Shape& grad, DType grad_dtype, const ConvTranspose2dOptions& options,
                                          std::string_view op);

// conv_transpose1d over x [batch, channels_in, length] with a weight [channels_in,
// channels_out / groups, kernel]: conv_transpose2d's plan for the single-row view (as conv1d's is
// conv2d's), after conv_transpose2d's checks in its order with rank-3 layouts and 1-D values in the
// messages. out is the 1-D result [batch, channels_out, out_length].
Conv2dPlan plan_conv_transpose1d(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape* bias,
                                 DType bias_dtype, const ConvTranspose1dOptions& options);
// conv_transpose1d_x_backward / conv_transpose1d_weight_backward, as plan_conv_transpose2d_backward.
Conv2dPlan plan_conv_transpose1d_backward(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype,
                                          const Shape& grad, DType grad_dtype, const ConvTranspose1dOptions& options,
                                          std::string_view op);
// conv_transpose1d's options as conv_transpose2d's on the single-row view.
ConvTranspose2dOptions conv_transpose2d_options_of(const ConvTranspose1dOptions& options);

// conv3d over x [batch, channels_in, in_d, in_h, in_w] with a weight [channels_out, channels_in /
// groups, k_d, k_h, k_w]: conv2d's checks in conv2d's order with rank-5 layouts and 3-D values in
// the messages; out [batch, channels_out, out_d, out_h, out_w], each dim as conv2d's.
Conv2dPlan plan_conv3d(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape* bias,
                       DType bias_dtype, const Conv3dOptions& options);
// conv3d_x_backward / conv3d_weight_backward(x, weight, grad, options), as plan_conv2d_backward.
Conv2dPlan plan_conv3d_backward(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape& grad,
                                DType grad_dtype, const Conv3dOptions& options, std::string_view op);
// conv3d_bias_backward / conv_transpose3d_bias_backward(x, bias, grad) (`op` names it): as
// plan_conv2d_bias_backward with x and grad of rank 5.
Shape plan_conv3d_bias_backward(const Shape& x, DType x_dtype, const Shape& bias, DType bias_dtype, const Shape& grad,
                                DType grad_dtype, std::string_view op = "conv3d_bias_backward");

// conv_transpose3d over x [batch, channels_in, in_d, in_h, in_w] with a weight [channels_in,
// channels_out / groups, k_d, k_h, k_w]: conv_transpose2d's checks in its order with rank-5 layouts
// and 3-D values in the messages; each output dim as conv_transpose2d's.
Conv2dPlan plan_conv_transpose3d(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape* bias,
                                 DType bias_dtype, const ConvTranspose3dOptions& options);
// conv_transpose3d_x_backward / conv_transpose3d_weight_backward, as plan_conv_transpose2d_backward.
Conv2dPlan plan_conv_transpose3d_backward(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype,
                                          const Shape& grad, DType grad_dtype, const ConvTranspose3dOptions& options,
                                          std::string_view op);

// rfft over `dim` of a signal, or irfft back: n_fft samples (a power of two), `bins` = n_fft / 2 + 1
// frequency bins, `length` the operand's own size along dim (the signal's samples or the
// spectrum's bins, truncated or zero-padded to n_fft or bins). out is the result's shape: rfft's
// real parts then imaginary parts concatenated along dim 0 (Burn's bundle), irfft's signal.
struct FftPlan {
  Shape out;
  std::size_t dim = 0, n_fft = 1, bins = 1, length = 0;
  std::size_t outer = 0, inner = 0;  // the dims before and after dim, as products
};
// rfft(signal, dim, n), in this order: float signal (unsupported-dtype), dim below its rank
// (dim-out-of-range), the size n or else the signal's length along dim a power of two (fft-size),
// the result's size (shape-overflow).
FftPlan plan_rfft(const Shape& signal, DType dtype, std::size_t dim, std::optional<std::size_t> n);
// irfft(real, imaginary, dim, n), in this order: float real, imaginary of its dtype
// (dtype-mismatch), of its shape (fft-spectrum-shape), dim below their rank (dim-out-of-range), the
// size n or else 2 (bins - 1) a power of two (fft-size), the result's size (shape-overflow).
FftPlan plan_irfft(const Shape& real, DType real_dtype, const Shape& imaginary, DType imaginary_dtype, std::size_t dim,
                   std::optional<std::size_t> n);

// unfold4d(x, kernel_size, options), in this order: x float (unsupported-dtype) of rank 4
// (module-input-rank), kernel_size, stride and dilation at least 1 (module-option-zero), x at
// least 1 in height and width (pool-empty-input), the padded input at least the dilated kernel
// (pool-kernel-too-large), the result's size (shape-overflow). The plan is conv2d's geometry with
// channels_out the block's cells, channels * k_h * k_w, and out [batch, channels * k_h * k_w,
// out_h * out_w].
Conv2dPlan plan_unfold4d(const Shape& x, DType dtype, const Size2& kernel_size, const UnfoldOptions& options);

// fold4d(x, output_size, kernel_size, options), unfold4d's adjoint, in this order: x float
// (unsupported-dtype) of rank 3 (module-input-rank), kernel_size, stride, dilation and output_size
// at least 1 (module-option-zero), x's dim 1 a multiple of the kernel's cells (fold-channels), the
// padded output at least the dilated kernel (pool-kernel-too-large), x's dim 2 the number of blocks
// on it (fold-blocks), the result's size (shape-overflow). The plan is unfold4d's of the result
// (in_h, in_w the output size; out_h, out_w the grid of blocks; channels_in its channels,
// channels_out x's dim 1), with out the result [batch, channels, output_h, output_w].
Conv2dPlan plan_fold4d(const Shape& x, DType dtype, const Size2& output_size, const Size2& kernel_size,
                       const UnfoldOptions& options);

// interpolate(x, output_size, options), in this order: x float (unsupported-dtype) of rank 4
// (module-input-rank), a known mode (interpolate-mode), output_size at least 1 (module-option-zero),
// x at least 1 in height and width (pool-empty-input), the result's size (shape-overflow).
Pool2dPlan plan_interpolate(const Shape& x, DType dtype, const Size2& output_size, const InterpolateOptions& options);
// interpolate_backward(x, grad, output_size, options): grad of x's dtype (dtype-mismatch),
// interpolate's checks, then grad of the output's shape (pool-grad-shape).
Pool2dPlan plan_interpolate_backward(const Shape& x, DType x_dtype, const Shape& grad, DType grad_dtype, const Size2& output_size,
                                     const InterpolateOptions& options);

// adaptive_avg_pool3d(x, output_size), in this order: x float (unsupported-dtype) of rank 5
// (module-input-rank, [batch, channels, depth, height, width]), output_size at least 1
// (module-option-zero), x at least 1 in depth, height and width (pool-empty-input), the result's
// size (shape-overflow). The plan's planes are [batch, channels] pairs.
struct Pool3dPlan {
  Shape out;
  std::size_t planes = 0;
  Size3 in{}, out_size{};
};
Pool3dPlan plan_adaptive_avg_pool3d(const Shape& x, DType dtype, const Size3& output_size);
// adaptive_avg_pool3d_backward(x, grad): grad of x's dtype (dtype-mismatch), both of rank 5, grad of
// x's batch and channels (pool-grad-shape), an output size (grad's last three dims) of at least 1,
// x non-empty in depth, height and width.
Pool3dPlan plan_adaptive_avg_pool3d_backward(const Shape& x, DType x_dtype, const Shape& grad, DType grad_dtype);

// layer_norm(x, weight, bias, epsilon) over x's last dim: x a float tensor of rank at least 1
// [..., d_model] (unsupported-dtype, module-input-scalar), weight and bias of its dtype
// (dtype-mismatch) and of rank 1 (module-input-rank) with d_model elements (module-dim-mismatch).
// Any epsilon: a negative one gives NaN where the variance is below -epsilon, as the formula does.
// `rows` = the number of d_model-long rows, 0 when x is empty (then the kernels only shape it).
struct LayerNormPlan {
  Shape out;
  std::size_t rows = 0, d_model = 0;
};
LayerNormPlan plan_layer_norm(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape* bias,
                              DType bias_dtype);

// batch_norm(x, weight, bias, mean, variance, epsilon) with the given channel statistics (Burn's
// ModuleOps::batch_norm: no statistics are computed or updated): x a float tensor
// (unsupported-dtype) of rank at least 2 [batch, channels, ...] (module-input-min-rank), the four
// others of its dtype (dtype-mismatch) and of rank 1 (module-input-rank) with x's channels
// (module-dim-mismatch).
struct BatchNormPlan {
  Shape out;
  std::size_t channels = 0;
};
BatchNormPlan plan_batch_norm(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape& bias,
                              DType bias_dtype, const Shape& mean, DType mean_dtype, const Shape& variance, DType variance_dtype);

// attention(query, key, value, mask, bias, options), in this order: query a float tensor
// (unsupported-dtype), key, value and bias of its dtype (dtype-mismatch), the mask Bool
// (unsupported-dtype), softcap positive when set (attention-softcap), query, key and value of rank 4
// (module-input-rank), key sharing the query's batch, heads and head_dim and value the key's
// batch, heads and seq_k (module-dim-mismatch), mask and bias of the scores' shape
// (attention-operand-shape), the result's size (shape-overflow). `scale` is the option's value or
// 1 / sqrt(head_dim) (inf for head_dim 0: then every score is 0 * inf = NaN, as in Burn and PyTorch).
struct AttentionPlan {
  Shape out;     // [batch, heads, seq_q, value_dim]
  Shape scores;  // [batch, heads, seq_q, seq_k]
  std::size_t batch = 0, heads = 0, seq_q = 0, seq_k = 0, head_dim = 0, value_dim = 0;
  double scale = 1.0;
};
AttentionPlan plan_attention(const Shape& query, DType query_dtype, const Shape& key, DType key_dtype, const Shape& value,
                             DType value_dtype, const Shape* mask, DType mask_dtype, const Shape* bias, DType bias_dtype,
                             const AttentionOptions& options);

// Raised by Autodiff<B> for the ops that are themselves backward passes (Rule NotDifferentiable),
// as Burn's Autodiff<B> does: not-differentiable.
[[noreturn]] void not_differentiable(std::string_view op);

}  // namespace crossgrad::rules
