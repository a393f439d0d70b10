#pragma once
// Note [The reference evaluator]
// The oracle's own value for every registry op (issue 11 item 1: the op enumeration comes from the
// registry, the formulas stay written here, one per op). A plain evaluator over host arrays: no
// engine kernel, no Dispatch, no crossgrad::rules. Each formula is the one of docs/OPS.md ("Op
// semantics"), computed in the operand's dtype T (float or double) wherever the
// spec says the backend computes in T, so that the ops bound_for calls exact compare bit for bit:
// element-wise library functions through std:: on T, sums in index order in T, matmul in k order in
// T, select_assign's additions in j order in T. The argument rules (which catalog panic an invalid
// argument raises) are decided here too, from the spec's wording, before any value is computed.
//
// The switch over OpId in reference_ops.cpp has no default and the project compiles with
// -Werror=switch-enum, so a registry op without a formula here fails the build.
#include <crossgrad/core/dtype.hpp>
#include <crossgrad/core/shape.hpp>
#include <crossgrad/ops/op_list.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace crossgrad::oracle {

// A tensor as host values: one double per element in row-major order. Float values are already
// rounded to `dtype` (F32 values are exact doubles); int values are integers; bools are 0/1.
// An I64 value beyond 2^53 has no exact double: such arrays also carry `exact`, every element as
// an int64 (values then holds them rounded); int_values() reads whichever is exact.
struct HostArray {
  std::vector<std::size_t> shape;  // {} is a scalar (one element)
  DType dtype = DType::F32;
  std::vector<double> values;
  std::vector<std::int64_t> exact = {};  // empty, or one per element (int dtypes only)
};
// An int array's elements exactly: `exact` when present, else the values (integers).
std::vector<std::int64_t> int_values(const HostArray& h);
// An int array of these elements (values rounded, exact kept).
HostArray int_array(std::vector<std::size_t> shape, DType dtype, std::vector<std::int64_t> elements);

// The structured arguments; each op reads the fields of its Sig (op_list.hpp):
//   Scalar: scalar; Bounds: min, max; Dim: dim; DimPair: dim, dim1; ToShape: shape;
//   ToDType: dtype; Axes: axes; Ranges, RangesAssign: ranges; Select, SelectAssign, Cat: dim.
struct OpArgs {
  double scalar = 0;
  double min = 0;
  double max = 0;
  std::size_t dim = 0;
  std::size_t dim1 = 0;
  std::vector<std::size_t> shape;
  DType dtype = DType::F32;
  std::vector<std::size_t> axes;
  std::vector<Range> ranges;
  double alpha = 0, beta = 0;                      // Affine (hard_sigmoid)
  std::size_t times = 0;                           // Repeat
  std::size_t size = 0, step = 0;                  // Window (unfold), with dim
  bool descending = false;                         // Sort (argsort, sort), with dim
  std::size_t k = 0;                               // TopK (argtopk, topk), with dim
  IndexingUpdateOp update = IndexingUpdateOp::Assign;  // ScatterUpdate (with dim), ScatterNd
  AvgPool2dOptions avg_pool2d;                      // AvgPool2d, AvgPool2dBackward
  Size2 output_size{1, 1};                          // AdaptivePool2d, Fold4d, Interpolate(Backward)
  InterpolateOptions interpolate;                   // Interpolate, InterpolateBackward
  MaxPool2dOptions max_pool2d;                      // MaxPool2d, MaxPool2dBackward
  Conv2dOptions conv2d;                             // Conv2d, Conv2dBackward
  ConvTranspose2dOptions conv_transpose2d;          // ConvTranspose2d, ConvTranspose2dBackward
  Conv1dOptions conv1d;                             // Conv1d, Conv1dBackward
  ConvTranspose1dOptions conv_transpose1d;          // ConvTranspose1d, ConvTranspose1dBackward
  Conv3dOptions conv3d;                             // Conv3d, Conv3dBackward
  ConvTranspose3dOptions conv_transpose3d;          // ConvTranspose3d, ConvTranspose3dBackward
  std::optional<std::size_t> fft_size;              // Rfft, Irfft: n (with dim)
  AvgPool1dOptions avg_pool1d;                      // AvgPool1d, AvgPool1dBackward
  Size1 output_size_1d{1};                          // AdaptivePool1d
  Size3 output_size_3d{1, 1, 1};                    // AdaptivePool3d
  MaxPool1dOptions max_pool1d;                      // MaxPool1d, MaxPool1dBackward
  Size2 unfold_kernel{1, 1};                        // Unfold4d's and Fold4d's kernel_size
  UnfoldOptions unfold;                             // Unfold4d, Fold4d
  AttentionOptions attention;                       // Attention
  bool attention_mask = false, attention_bias = false;  // Attention: which optional operands follow
  bool tracked = false;  // the operands are on an autodiff device: Mul, Min and Max scatters panic
                         // scatter-update-gradient once their other checks pass
};

// Conv1d, Conv2d, Conv3d and their transposes {x, weight} or {x, weight, bias}; Conv1dBackward,
// Conv2dBackward, Conv3dBackward and the transposes' {x, weight, grad};
// Conv1dBiasBackward, Conv2dBiasBackward and Conv3dBiasBackward {x, bias, grad};
// LayerNorm {x, weight} or {x, weight, bias} (epsilon is OpArgs::scalar); BatchNorm {x, weight,
// bias, mean, variance} (epsilon is OpArgs::scalar); Attention {query, key,
// value}, then the mask when attention_mask, then the bias when attention_bias;
// Irfft {real, imaginary}; Rfft {signal};
// Linear {x, weight} or {x, weight, bias}; LinearXBackward {weight, grad}; LinearWeightBackward {x, grad};
// The operands, by Sig: Binary and BinaryDim {lhs, rhs}; AvgPool2dBackward, AdaptivePool2dBackward and their
// 1-D and 3-D forms and InterpolateBackward {x, grad}; MaxPool2dBackward and MaxPool1dBackward {x, indices, grad}; Embedding {weights, indices}; EmbeddingBackward {weights, indices, grad}; RangesAssign {tensor, values}; Select, Gather and GatherNd {tensor, indices};
// SelectAssign, Scatter, ScatterUpdate and ScatterNd {tensor, indices, values}; MaskWhere {tensor, mask, value}; MaskSelect {tensor, mask}; MaskFill {tensor, mask} (the
// fill value is OpArgs::scalar); Cat the list (possibly empty); every other Sig {tensor}.
struct ReferenceResult {
  std::optional<std::string> panic_id;  // the catalog id the arguments must raise; value unset then
  HostArray value;                      // Float results: the receiver's (or the target) dtype; Int: I64; Bool: Bool
  OpKind kind = OpKind::Float;
};
ReferenceResult reference_op(OpId op, const std::vector<HostArray>& operands, const OpArgs& args);
// avg_pool2d's result shape for an input of shape x, by the oracle's own rule (reference_ops.cpp);
// nullopt when the options or the shape are invalid.
std::optional<std::vector<std::size_t>> avg_pool2d_shape(const std::vector<std::size_t>& x, const AvgPool2dOptions& options);
std::optional<std::vector<std::size_t>> max_pool2d_shape(const std::vector<std::size_t>& x, const MaxPool2dOptions& options);
// unfold4d's result shape, by the oracle's own rule; nullopt when invalid.
std::optional<std::vector<std::size_t>> unfold4d_shape(const std::vector<std::size_t>& x, const Size2& kernel,
                                                       const UnfoldOptions& options);
// fold4d's result shape, by the oracle's own rule; nullopt when invalid.
std::optional<std::vector<std::size_t>> fold4d_shape(const std::vector<std::size_t>& x, const Size2& output_size,
                                                     const Size2& kernel, const UnfoldOptions& options);
// The 1-D poolings' result shapes, by the oracle's own rule; nullopt when invalid.
std::optional<std::vector<std::size_t>> avg_pool1d_shape(const std::vector<std::size_t>& x, const AvgPool1dOptions& options);
std::optional<std::vector<std::size_t>> max_pool1d_shape(const std::vector<std::size_t>& x, const MaxPool1dOptions& options);
// conv1d's result shape for x and weight shapes, by the oracle's own rule; nullopt when invalid.
std::optional<std::vector<std::size_t>> conv1d_shape(const std::vector<std::size_t>& x, const std::vector<std::size_t>& weight,
                                                     const Conv1dOptions& options);
// conv_transpose1d's result shape for x and weight shapes, by the oracle's own rule; nullopt when invalid.
std::optional<std::vector<std::size_t>> conv_transpose1d_shape(const std::vector<std::size_t>& x,
                                                               const std::vector<std::size_t>& weight,
                                                               const ConvTranspose1dOptions& options);
// conv_transpose2d's result shape for x and weight shapes, by the oracle's own rule; nullopt when invalid.
std::optional<std::vector<std::size_t>> conv_transpose2d_shape(const std::vector<std::size_t>& x,
                                                               const std::vector<std::size_t>& weight,
                                                               const ConvTranspose2dOptions& options);
// conv2d's result shape for x and weight shapes, by the oracle's own rule; nullopt when invalid.
std::optional<std::vector<std::size_t>> conv2d_shape(const std::vector<std::size_t>& x, const std::vector<std::size_t>& weight,
                                                     const Conv2dOptions& options);
// conv3d's and conv_transpose3d's result shapes, by the oracle's own rules; nullopt when invalid.
std::optional<std::vector<std::size_t>> conv3d_shape(const std::vector<std::size_t>& x, const std::vector<std::size_t>& weight,
                                                     const Conv3dOptions& options);
std::optional<std::vector<std::size_t>> conv_transpose3d_shape(const std::vector<std::size_t>& x,
                                                               const std::vector<std::size_t>& weight,
                                                               const ConvTranspose3dOptions& options);
// Whether the op has a backward rule with these arguments: its registry rule is Backward and, for
// float_scatter / float_scatter_nd, the update is Assign or Add (scatter-update-gradient otherwise).
bool differentiable(OpId op, const OpArgs& args);

// The largest finite |value| an op's float result is computed from, the magnitude its bound scales
// with: operand 0's, times operand 1's for matmul, and the output's gradient's for the module ops'
// backward passes. layer_norm and attention give their sensitivity to rounding instead (the
// weight times (r + r^3), r = max|x| / sqrt(var + epsilon) per row, plus the bias; the value's
// magnitude times the scores' plus the bias and softcap), infinite where a square or a score may
// overflow the dtype or a row's variance and epsilon are 0 (then only the classes are judged).
double reference_magnitude(OpId op, const std::vector<HostArray>& operands, const OpArgs& args = {});

// Elements summed into each output element (bound_for's reduction_length): matmul k, sum/mean all,
// the *_dim reductions and softmax the size of dim, 1 elsewhere. Arguments assumed valid.
std::size_t reference_reduction_length(OpId op, const std::vector<HostArray>& operands, const OpArgs& args);

}  // namespace crossgrad::oracle
