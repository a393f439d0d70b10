#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/graph.hpp>
#include <crossgrad/oracle/gradient_fit.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/reference_ops.hpp>
#include <crossgrad/oracle/render.hpp>

#include <crossgrad/dispatch/dispatch.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace crossgrad::oracle {

bool is_op_code(Op op) { return static_cast<std::size_t>(op) < kOpCount; }

bool is_hop(Op op) { return op == kHopOp; }

std::string_view op_name(Op op) {
  if (is_hop(op)) return "to_backend";
  return is_op_code(op) ? op_info(op).name : std::string_view("reserved-op-code");
}

bool is_graph_op(Op op) {
  if (is_hop(op)) return true;
  if (!is_op_code(op)) return false;
  const OpInfo& info = op_info(op);
  return info.operand == OpKind::Float && info.result == OpKind::Float && info.rule == OpRule::Backward &&
         info.sig != OpSig::ToDType;
}

const std::vector<Op>& all_ops() {
  static const std::vector<Op> ops = [] {
    // Registry ops only: a hop is a graph step but not an op (generators add hops on purpose).
    std::vector<Op> out;
    for (const OpInfo& info : kOps) {
      if (is_graph_op(info.id)) out.push_back(info.id);
    }
    return out;
  }();
  return ops;
}

// A graph's hard_sigmoid takes alpha from the step's scalar and this beta.
constexpr double kHardSigmoidBeta = 0.5;

double clamp_min(const OpSpec& op) { return std::fabs(op.scalar) / 2; }
double clamp_max(const OpSpec& op) { return std::fabs(op.scalar) * 2; }

bool is_binary(Op op) {
  if (!is_op_code(op)) return false;
  const OpSig sig = op_info(op).sig;
  return sig == OpSig::Binary || sig == OpSig::Cat || sig == OpSig::SelectAssign || sig == OpSig::Scatter ||
         sig == OpSig::ScatterUpdate || sig == OpSig::ScatterNd || sig == OpSig::MaskWhere || sig == OpSig::BinaryDim ||
         sig == OpSig::RangesAssign || sig == OpSig::Linear || sig == OpSig::Conv2d || sig == OpSig::ConvTranspose2d ||
         sig == OpSig::Conv1d || sig == OpSig::ConvTranspose1d || sig == OpSig::Conv3d ||
         sig == OpSig::ConvTranspose3d || sig == OpSig::Irfft || sig == OpSig::LayerNorm || sig == OpSig::Attention || sig == OpSig::BatchNorm;
}

namespace {

bool has_scalar(Op op) {
  return is_op_code(op) && (op_info(op).sig == OpSig::Scalar || op_info(op).sig == OpSig::Bounds ||
                            op_info(op).sig == OpSig::MaskFill || op_info(op).sig == OpSig::Affine);
}
bool is_masked(Op op) {
  return is_op_code(op) && takes_mask(op_info(op).sig);
}
bool has_dim(Op op) {
  if (!is_op_code(op)) return false;
  switch (op_info(op).sig) {
    case OpSig::Rfft:  // the transformed dim
    case OpSig::Irfft:
    case OpSig::Dim:
    case OpSig::DimPair:
    case OpSig::Cat:
    case OpSig::Ranges:
    case OpSig::Select:
    case OpSig::SelectAssign:
    case OpSig::Gather:
    case OpSig::Scatter:
    case OpSig::ScatterUpdate:
    case OpSig::Axes:
    case OpSig::Repeat:
    case OpSig::Window:
    case OpSig::BinaryDim:
    case OpSig::Sort:
    case OpSig::TopK:
    case OpSig::RangesAssign:
    case OpSig::ToShape:
      return op != Op::float_reshape;
    case OpSig::GatherNd:  // k and the coordinates come from dim1
    case OpSig::ScatterNd:
    case OpSig::MaskSelect:
    case OpSig::Unary:
    case OpSig::Binary:
    case OpSig::Scalar:
    case OpSig::Bounds:
    case OpSig::ToDType:
    case OpSig::MaskWhere:
    case OpSig::MaskFill:
    case OpSig::Affine:
    case OpSig::AvgPool2d:  // the options come from dim1
    case OpSig::AvgPool2dBackward:
    case OpSig::MaxPool2d:
    case OpSig::MaxPool2dBackward:
    case OpSig::AdaptivePool2d:
    case OpSig::AdaptivePool2dBackward:
    case OpSig::AvgPool1d:
    case OpSig::AvgPool1dBackward:
    case OpSig::MaxPool1d:
    case OpSig::MaxPool1dBackward:
    case OpSig::AdaptivePool1d:
    case OpSig::AdaptivePool1dBackward:
    case OpSig::Unfold4d:  // the kernel and options come from dim1
    case OpSig::Fold4d:    // the output size, kernel and options come from dim1
    case OpSig::Interpolate:  // the output size and options come from dim1
    case OpSig::InterpolateBackward:
    case OpSig::AdaptivePool3d:  // the output size comes from dim1
    case OpSig::AdaptivePool3dBackward:
    case OpSig::Embedding:  // the indices come from dim1
    case OpSig::EmbeddingBackward:
    case OpSig::Linear:  // x @ rhs, no bias
    case OpSig::LayerNorm:  // x and the weight rhs, no bias
    case OpSig::BatchNorm:  // x and rhs as every statistic
    case OpSig::Attention:  // query lhs, key and value rhs; the options come from dim1
    case OpSig::Conv2d:  // x and the weight rhs, no bias; the options come from dim1
    case OpSig::ConvTranspose2d:
    case OpSig::Conv1d:
    case OpSig::ConvTranspose1d:
    case OpSig::Conv3d:
    case OpSig::ConvTranspose3d:
    case OpSig::Conv2dBackward:
    case OpSig::ConvTranspose2dBackward:
    case OpSig::Conv1dBackward:
    case OpSig::ConvTranspose1dBackward:
    case OpSig::Conv3dBackward:
    case OpSig::ConvTranspose3dBackward:
    case OpSig::Conv3dBiasBackward:
    case OpSig::Conv1dBiasBackward:
    case OpSig::Conv2dBiasBackward:
    case OpSig::LinearXBackward:
    case OpSig::LinearWeightBackward:
    case OpSig::LinearBiasBackward:
      return false;
  }
  return false;
}
bool has_dim1(Op op) {
  if (!is_op_code(op)) return false;
  switch (op_info(op).sig) {
    case OpSig::DimPair:
    case OpSig::Ranges:
    case OpSig::Select:
    case OpSig::SelectAssign:
    case OpSig::Gather:
    case OpSig::Scatter:
    case OpSig::Axes:
    case OpSig::MaskWhere:  // the mask's pattern
    case OpSig::MaskFill:
    case OpSig::Repeat:  // times
    case OpSig::Window:  // size and step
    case OpSig::Sort:    // descending
    case OpSig::TopK:    // k
    case OpSig::ScatterUpdate:  // the update and the indices
    case OpSig::GatherNd:       // k and the coordinates
    case OpSig::ScatterNd:      // the update and the coordinates
    case OpSig::MaskSelect:     // the mask's pattern
    case OpSig::AvgPool2d:      // the options
    case OpSig::AdaptivePool2d: // the output size
    case OpSig::MaxPool2d:      // the options
    case OpSig::AvgPool1d:      // the options
    case OpSig::AdaptivePool1d: // the output size
    case OpSig::MaxPool1d:      // the options
    case OpSig::Unfold4d:       // the kernel and options
    case OpSig::Fold4d:         // the output size, kernel and options
    case OpSig::Interpolate:    // the output size and options
    case OpSig::AdaptivePool3d: // the output size
    case OpSig::Embedding:      // the indices
    case OpSig::Attention:      // the options
    case OpSig::Conv2d:         // the options
    case OpSig::ConvTranspose2d:
    case OpSig::Conv1d:
    case OpSig::ConvTranspose1d:
    case OpSig::Conv3d:
    case OpSig::ConvTranspose3d:
    case OpSig::Rfft:  // n
    case OpSig::Irfft:
      return true;
    case OpSig::Conv2dBackward:  // never graph steps (Rule NotDifferentiable)
    case OpSig::ConvTranspose2dBackward:
    case OpSig::Conv3dBackward:
    case OpSig::ConvTranspose3dBackward:
    case OpSig::Conv3dBiasBackward:
    case OpSig::Conv1dBackward:
    case OpSig::ConvTranspose1dBackward:
    case OpSig::AvgPool1dBackward:
    case OpSig::AdaptivePool1dBackward:
    case OpSig::MaxPool1dBackward:
    case OpSig::Conv1dBiasBackward:
    case OpSig::Conv2dBiasBackward:
      return false;
    case OpSig::AvgPool2dBackward:  // never a graph step (Rule NotDifferentiable)
    case OpSig::InterpolateBackward:
    case OpSig::AdaptivePool3dBackward:
    case OpSig::AdaptivePool2dBackward:
    case OpSig::MaxPool2dBackward:
    case OpSig::EmbeddingBackward:
    case OpSig::LinearXBackward:
    case OpSig::LinearWeightBackward:
    case OpSig::LinearBiasBackward:
      return false;
    case OpSig::Linear:  // x @ rhs: no arguments
    case OpSig::LayerNorm:  // x and the weight rhs: epsilon is kGraphLayerNormEpsilon
    case OpSig::BatchNorm:  // x and rhs [channels]: epsilon as layer_norm's
    case OpSig::Affine:
    case OpSig::BinaryDim:
    case OpSig::RangesAssign:  // the block is rhs's size at the end of dim
      return false;
    case OpSig::Unary:
    case OpSig::Binary:
    case OpSig::Scalar:
    case OpSig::Bounds:
    case OpSig::Dim:
    case OpSig::ToShape:
    case OpSig::ToDType:
    case OpSig::Cat:
      return false;
  }
  return false;
}

}  // namespace

namespace {

// "Flex", or "backend#7" for an index past the registry (an unnormalized spec).
std::string backend_label(std::size_t backend) {
  const std::vector<BackendRef>& all = all_backends();
  return backend < all.size() ? all[backend].name : "backend#" + std::to_string(backend);
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const OpSpec& op) {
  if (is_hop(op.op)) return os << op_name(op.op) << "(v" << op.lhs << " -> " << backend_label(op.rhs) << ")";
  os << op_name(op.op) << "(v" << op.lhs;
  if (is_binary(op.op)) os << ", v" << op.rhs;
  if (has_scalar(op.op)) os << ", " << op.scalar;
  if (has_dim(op.op)) os << ", dim " << op.dim;
  if (has_dim1(op.op)) os << ", " << op.dim1;
  return os << ")";
}

std::string describe(const GraphSpec& graph) {
  std::ostringstream os;
  os << "Graph{backend#" << graph.backend << " " << render_dtype(graph.dtype) << "; ";
  for (std::size_t i = 0; i < graph.leaf_shapes.size(); ++i) {
    os << "v" << i << "=leaf" << render_shape(graph.leaf_shapes[i]);
    if (i < graph.leaf_backends.size()) os << "@" << backend_label(graph.leaf_backends[i]);
    if (i < graph.leaf_values.size() && !graph.leaf_values[i].empty()) {
      os << "{";
      for (std::size_t j = 0; j < graph.leaf_values[i].size(); ++j) os << (j ? ", " : "") << graph.leaf_values[i][j];
      os << "}";
    }
    os << "; ";
  }
  for (std::size_t k = 0; k < graph.ops.size(); ++k) os << "v" << graph.leaf_shapes.size() + k << "=" << graph.ops[k] << "; ";
  os << "}";
  return os.str();
}
std::ostream& operator<<(std::ostream& os, const GraphSpec& graph) { return os << describe(graph); }

std::optional<std::vector<std::size_t>> broadcast_shape(const std::vector<std::size_t>& a,
                                                        const std::vector<std::size_t>& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  std::vector<std::size_t> out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::size_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const std::size_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

namespace {

// The structured arguments of a step, by the conventions in graph.hpp (OpSpec).
struct StepArgs {
  std::vector<Range> ranges;
  std::vector<std::int64_t> indices;
  std::vector<std::size_t> index_shape;  // gather, scatter_add; else [indices.size()]
  std::vector<bool> mask;                // mask_where, mask_fill: of the result's shape
  std::vector<std::size_t> axes;
  std::vector<std::size_t> expand_to;
  AvgPool2dOptions avg_pool2d;  // avg_pool2d (graph.hpp)
  AvgPool1dOptions avg_pool1d;  // avg_pool1d
  MaxPool1dOptions max_pool1d;  // max_pool1d
  Size1 output_size_1d{1};      // adaptive_avg_pool1d
  Size2 unfold_kernel{1, 1};    // unfold4d
  UnfoldOptions unfold;         // unfold4d, fold4d
  Size2 fold_output{1, 1};      // fold4d
  Size2 interpolate_output{1, 1};  // interpolate
  InterpolateOptions interpolate;  // interpolate
  Size3 output_size_3d{1, 1, 1};   // adaptive_avg_pool3d
  AttentionOptions attention;      // attention
  MaxPool2dOptions max_pool2d;  // max_pool2d
  Size2 output_size{1, 1};      // adaptive_avg_pool2d
  Conv2dOptions conv2d;         // conv2d
  ConvTranspose2dOptions conv_transpose2d;  // conv_transpose2d
  Conv1dOptions conv1d;                     // conv1d
  ConvTranspose1dOptions conv_transpose1d;  // conv_transpose1d
  Conv3dOptions conv3d;                     // conv3d
  ConvTranspose3dOptions conv_transpose3d;  // conv_transpose3d
  std::optional<std::size_t> fft_size;      // rfft, irfft: n
};

// avg_pool2d's options from a step's dim1 (< kAvgPool2dSteps after normalisation; graph.hpp).
constexpr std::size_t kAvgPool2dSteps = 3 * 3 * 2 * 2 * 2 * 2 * 2;
AvgPool2dOptions avg_pool2d_of(std::size_t dim1) {
  AvgPool2dOptions o;
  o.kernel_size = {1 + dim1 % 3, 1 + dim1 / 3 % 3};
  o.stride = {1 + dim1 / 9 % 2, 1 + dim1 / 18 % 2};
  const bool padded = dim1 / 36 % 2 == 1;
  o.padding = {padded ? o.kernel_size[0] / 2 : 0, padded ? o.kernel_size[1] / 2 : 0};
  o.count_include_pad = dim1 / 72 % 2 == 0;
  o.ceil_mode = dim1 / 144 % 2 == 1;
  return o;
}
// max_pool2d's: kernel_size {1 + dim1 % 3, 1 + dim1 / 3 % 3}, stride {1 + dim1 / 9 % 2, ...}, half the
// kernel as padding when dim1 / 36 is odd, dilation {1 + dim1 / 72 % 2, 1 + dim1 / 144 % 2}, ceil_mode
// when dim1 / 288 is odd.
constexpr std::size_t kMaxPool2dSteps = 3 * 3 * 2 * 2 * 2 * 2 * 2 * 2;
MaxPool2dOptions max_pool2d_of(std::size_t dim1) {
  MaxPool2dOptions o;
  o.kernel_size = {1 + dim1 % 3, 1 + dim1 / 3 % 3};
  o.stride = {1 + dim1 / 9 % 2, 1 + dim1 / 18 % 2};
  o.dilation = {1 + dim1 / 72 % 2, 1 + dim1 / 144 % 2};
  const bool padded = dim1 / 36 % 2 == 1;
  for (std::size_t d = 0; d < 2; ++d) o.padding[d] = padded ? o.kernel_size[d] / 2 : 0;
  o.ceil_mode = dim1 / 288 % 2 == 1;
  return o;
}
// conv2d's: stride {1 + dim1 % 2} in both dims, padding dim1 / 2 % 2, dilation 1 + dim1 / 4 % 2,
// groups 1 (a graph's weight is any leaf of rank 4 whose dim 1 is x's channels).
constexpr std::size_t kConv2dSteps = 2 * 2 * 2;
Conv2dOptions conv2d_of(std::size_t dim1) {
  Conv2dOptions o;
  o.stride = {1 + dim1 % 2, 1 + dim1 % 2};
  o.padding = {dim1 / 2 % 2, dim1 / 2 % 2};
  o.dilation = {1 + dim1 / 4 % 2, 1 + dim1 / 4 % 2};
  return o;
}
// conv_transpose2d's: conv2d's stride, padding and dilation, and padding_out dim1 / 8 % 2 where
// stride or dilation is 2 (else 0, which is all padding_out may be then), groups 1 (a graph's
// weight is any leaf of rank 4 whose dim 0 is x's channels).
constexpr std::size_t kConvTranspose2dSteps = 2 * 2 * 2 * 2;
ConvTranspose2dOptions conv_transpose2d_of(std::size_t dim1) {
  const Conv2dOptions c = conv2d_of(dim1);
  ConvTranspose2dOptions o;
  o.stride = c.stride;
  o.padding = c.padding;
  o.dilation = c.dilation;
  const std::size_t out = c.stride[0] > 1 || c.dilation[0] > 1 ? dim1 / 8 % 2 : 0;
  o.padding_out = {out, out};
  return o;
}
// conv1d's: conv2d's stride, padding and dilation along the length (a graph's weight is any leaf
// of rank 3 whose dim 1 is x's channels).
constexpr std::size_t kConv1dSteps = kConv2dSteps;
Conv1dOptions conv1d_of(std::size_t dim1) {
  const Conv2dOptions c = conv2d_of(dim1);
  return Conv1dOptions{{c.stride[1]}, {c.padding[1]}, {c.dilation[1]}, 1};
}
// conv_transpose1d's: conv_transpose2d's along the length (a graph's weight is any leaf of rank 3
// whose dim 0 is x's channels).
constexpr std::size_t kConvTranspose1dSteps = kConvTranspose2dSteps;
ConvTranspose1dOptions conv_transpose1d_of(std::size_t dim1) {
  const ConvTranspose2dOptions c = conv_transpose2d_of(dim1);
  return ConvTranspose1dOptions{{c.stride[1]}, {c.padding[1]}, {c.padding_out[1]}, {c.dilation[1]}, 1};
}
// rfft's and irfft's n: none (the operand's own size) or 1, 2, 4, 8.
constexpr std::size_t kFftSteps = 5;
std::optional<std::size_t> fft_size_of(std::size_t dim1) {
  return dim1 % kFftSteps == 0 ? std::nullopt : std::optional<std::size_t>(std::size_t{1} << (dim1 % kFftSteps - 1));
}
// conv3d's: conv2d's stride, padding and dilation in every dim (a graph's weight is any leaf of
// rank 5 whose dim 1 is x's channels).
constexpr std::size_t kConv3dSteps = kConv2dSteps;
Conv3dOptions conv3d_of(std::size_t dim1) {
  const Conv2dOptions c = conv2d_of(dim1);
  const std::size_t s = c.stride[0], p = c.padding[0], d = c.dilation[0];
  return Conv3dOptions{{s, s, s}, {p, p, p}, {d, d, d}, 1};
}
// conv_transpose3d's: conv_transpose2d's in every dim (a graph's weight is any leaf of rank 5
// whose dim 0 is x's channels).
constexpr std::size_t kConvTranspose3dSteps = kConvTranspose2dSteps;
ConvTranspose3dOptions conv_transpose3d_of(std::size_t dim1) {
  const ConvTranspose2dOptions c = conv_transpose2d_of(dim1);
  const std::size_t s = c.stride[0], p = c.padding[0], q = c.padding_out[0], d = c.dilation[0];
  return ConvTranspose3dOptions{{s, s, s}, {p, p, p}, {q, q, q}, {d, d, d}, 1};
}
constexpr std::size_t kAdaptivePool2dSteps = 9;
Size2 output_size_of(std::size_t dim1) { return {1 + dim1 % 3, 1 + dim1 / 3 % 3}; }
// The 1-D poolings': the width entries of the 2-D ones' (same dim1 ranges).
AvgPool1dOptions avg_pool1d_of(std::size_t dim1) {
  const AvgPool2dOptions o = avg_pool2d_of(dim1);
  return AvgPool1dOptions{{o.kernel_size[1]}, {o.stride[1]}, {o.padding[1]}, o.count_include_pad, o.ceil_mode};
}
MaxPool1dOptions max_pool1d_of(std::size_t dim1) {
  const MaxPool2dOptions o = max_pool2d_of(dim1);
  return MaxPool1dOptions{{o.kernel_size[1]}, {o.stride[1]}, {o.padding[1]}, {o.dilation[1]}, o.ceil_mode};
}
Size1 output_size_1d_of(std::size_t dim1) { return {output_size_of(dim1)[1]}; }
// unfold4d's: kernel_size {1 + dim1 % 2, 1 + dim1 / 2 % 2}, stride 1 + dim1 / 4 % 2, padding dim1 /
// 8 % 2 and dilation 1 + dim1 / 16 % 2 in both dims.
constexpr std::size_t kUnfold4dSteps = 2 * 2 * 2 * 2 * 2;
Size2 unfold_kernel_of(std::size_t dim1) { return {1 + dim1 % 2, 1 + dim1 / 2 % 2}; }
UnfoldOptions unfold_of(std::size_t dim1) {
  const std::size_t s = 1 + dim1 / 4 % 2, p = dim1 / 8 % 2, d = 1 + dim1 / 16 % 2;
  return UnfoldOptions{{s, s}, {p, p}, {d, d}};
}
// fold4d's: unfold4d's kernel and options (dim1 % 32), output_size {1 + dim1 / 32 % 5, 1 + dim1 /
// 160 % 5}.
constexpr std::size_t kFold4dSteps = kUnfold4dSteps * 5 * 5;
// interpolate's: output_size {1 + dim1 % 7, 1 + dim1 / 7 % 7}, mode dim1 / 49 % 4 (nearest,
// nearest_exact, bilinear, bicubic), align_corners dim1 / 196 % 2.
constexpr std::size_t kInterpolateSteps = 7 * 7 * 4 * 2;
Size2 interpolate_output_of(std::size_t dim1) { return {1 + dim1 % 7, 1 + dim1 / 7 % 7}; }
InterpolateOptions interpolate_of(std::size_t dim1) {
  return InterpolateOptions{static_cast<InterpolateMode>(dim1 / 49 % 4), dim1 / 196 % 2 == 1};
}
// adaptive_avg_pool3d's output size: {1 + dim1 % 3, 1 + dim1 / 3 % 3, 1 + dim1 / 9 % 3}.
constexpr std::size_t kAdaptivePool3dSteps = 3 * 3 * 3;
Size3 output_size_3d_of(std::size_t dim1) { return {1 + dim1 % 3, 1 + dim1 / 3 % 3, 1 + dim1 / 9 % 3}; }
// attention's options: causal when dim1 % 2, softcap 2 when dim1 / 2 % 2, scale 0.5 (else
// 1 / sqrt(head_dim)) when dim1 / 4 % 2.
constexpr std::size_t kAttentionSteps = 8;
AttentionOptions attention_of(std::size_t dim1) {
  AttentionOptions o;
  o.is_causal = dim1 % 2 == 1;
  if (dim1 / 2 % 2 == 1) o.softcap = 2.0;
  if (dim1 / 4 % 2 == 1) o.scale = 0.5;
  return o;
}
// layer_norm's epsilon in a graph: large enough that a row of nearly equal values keeps its
// partials moderate for the finite differences (1 / sqrt(epsilon) bounds them).
constexpr double kGraphLayerNormEpsilon = 0.0625;
Size2 fold_output_of(std::size_t dim1) { return {1 + dim1 / kUnfold4dSteps % 5, 1 + dim1 / (kUnfold4dSteps * 5) % 5}; }

bool same_except(const std::vector<std::size_t>& a, const std::vector<std::size_t>& b, std::size_t dim) {
  if (a.size() != b.size()) return false;
  for (std::size_t d = 0; d < a.size(); ++d) {
    if (d != dim && a[d] != b[d]) return false;
  }
  return true;
}

// The coordinates per index row of a gather_nd or scatter_nd step (graph.hpp), when the shapes
// allow one: every coordinated dim non-empty; scatter_nd's rhs [m] + lhs[k..] with k <= rank.
std::optional<std::size_t> nd_rows(const OpSpec& op, const std::vector<std::size_t>& lhs, const std::vector<std::size_t>& rhs) {
  std::size_t k = 0;
  if (op.op == Op::float_gather_nd) {
    k = std::min(lhs.size(), 1 + op.dim1 % 2);
  } else if (op.op == Op::float_scatter_nd) {
    if (rhs.empty() || rhs.size() - 1 > lhs.size()) return std::nullopt;
    k = lhs.size() - (rhs.size() - 1);
    if (!std::equal(rhs.begin() + 1, rhs.end(), lhs.begin() + static_cast<std::ptrdiff_t>(k))) return std::nullopt;
  } else {
    return std::nullopt;
  }
  for (std::size_t c = 0; c < k; ++c) {
    if (lhs[c] == 0) return std::nullopt;
  }
  return k;
}

StepArgs args_of(const OpSpec& op, const std::vector<std::size_t>& lhs, const std::vector<std::size_t>& rhs) {
  StepArgs a;
  const std::size_t rank = lhs.size();
  const std::size_t size = op.dim < rank ? lhs[op.dim] : 0;
  if (op.dim < rank) {
    for (std::size_t d = 0; d < op.dim; ++d) a.ranges.push_back(Range{0, lhs[d]});
    a.ranges.push_back(Range{op.dim1 % (size + 1), size});
  }
  // slice_assign's block: rhs's size at the end of dim (the dims before it whole).
  if (op.op == Op::float_slice_assign && op.dim < rank && op.dim < rhs.size() && rhs[op.dim] <= size) {
    a.ranges.back() = Range{size - rhs[op.dim], size};
  }
  if (op.op == Op::float_select && size > 0) {
    const auto j = static_cast<std::int64_t>(op.dim1 % size);
    a.indices = {j, 0, j};
  }
  if ((op.op == Op::float_select_assign || op.op == Op::float_select_add) && size > 0 && op.dim < rhs.size()) {
    for (std::size_t i = 0; i < rhs[op.dim]; ++i) a.indices.push_back(static_cast<std::int64_t>((op.dim1 + i) % size));
  }
  // One index per element, [outer, k, inner] around dim: gather reads lhs's shape with k = 3, at
  // (dim1 + o + r) % size, with 0 at j = 1 (a repeat in most lanes); scatter_add indexes rhs's
  // shape at (dim1 + j / 2 + r) % size (pairs of j land on one element).
  const bool gathers = op.op == Op::float_gather, scatters = op.op == Op::float_scatter_add;
  // (A dim of size 0 has no index to give: then only empty index tensors of the right shape.)
  if ((gathers || scatters) && op.dim < rank && (gathers || same_except(lhs, rhs, op.dim))) {
    a.index_shape = gathers ? lhs : rhs;
    if (gathers) a.index_shape[op.dim] = 3;
    std::size_t inner = 1;
    for (std::size_t d = op.dim + 1; d < rank; ++d) inner *= lhs[d];
    const std::size_t k = a.index_shape[op.dim];
    const std::size_t n = element_count(a.index_shape);
    for (std::size_t p = 0; p < n; ++p) {
      const std::size_t r = p % inner, j = p / inner % k, o = p / inner / k;
      const std::size_t at = gathers ? (j == 1 ? 0 : op.dim1 + o + r) : op.dim1 + j / 2 + r;
      a.indices.push_back(static_cast<std::int64_t>(size == 0 ? 0 : at % size));
    }
  }
  // float_scatter: scatter_add's indices (pairs of j land on one element: the last Assign wins).
  if (op.op == Op::float_scatter && op.dim < rank && same_except(lhs, rhs, op.dim)) {
    a.index_shape = rhs;
    std::size_t inner = 1;
    for (std::size_t d = op.dim + 1; d < rank; ++d) inner *= lhs[d];
    const std::size_t k = rhs[op.dim];
    for (std::size_t p = 0; p < element_count(rhs); ++p) {
      const std::size_t r = p % inner, j = p / inner % k;
      a.indices.push_back(static_cast<std::int64_t>(size == 0 ? 0 : (op.dim1 / 2 + j / 2 + r) % size));
    }
  }
  // gather_nd: 3 rows of k = min(rank, 1 + dim1 % 2) coordinates, row i at (dim1 + i + c) % lhs[c]
  // with row 1 all zeros (a row named twice when dim1 is a multiple of the sizes). scatter_nd: rhs
  // is [m] + lhs[k..], row i at (dim1 / 2 + i / 2 + c) % lhs[c] (pairs of rows land on one block).
  if (const std::optional<std::size_t> k = nd_rows(op, lhs, rhs)) {
    const std::size_t rows = op.op == Op::float_gather_nd ? 3 : rhs[0];
    a.index_shape = {rows, *k};
    for (std::size_t i = 0; i < rows; ++i) {
      for (std::size_t c = 0; c < *k; ++c) {
        const std::size_t at = op.op == Op::float_gather_nd ? (i == 1 ? 0 : op.dim1 + i + c) : op.dim1 / 2 + i / 2 + c;
        a.indices.push_back(static_cast<std::int64_t>(at % lhs[c]));
      }
    }
  }
  // embedding: indices [2, 3] on a table of rank 2 with rows, position p at row (dim1 + p / 2) % rows
  // (pairs of positions read one row, so its gradient adds two terms).
  if (op.op == Op::embedding && rank == 2 && lhs[0] > 0) {
    a.index_shape = {2, 3};
    for (std::size_t p = 0; p < 6; ++p) a.indices.push_back(static_cast<std::int64_t>((op.dim1 + p / 2) % lhs[0]));
  }
  if (a.index_shape.empty()) a.index_shape = {a.indices.size()};
  // The mask has the result's shape (lhs's, broadcast with rhs for mask_where), true at every third
  // element from dim1 (0, 1 or 2).
  if (is_masked(op.op)) {
    const std::optional<std::vector<std::size_t>> out =
        op.op == Op::float_mask_where ? broadcast_shape(lhs, rhs) : std::optional<std::vector<std::size_t>>(lhs);
    if (out) {
      a.index_shape = *out;
      for (std::size_t p = 0; p < element_count(*out); ++p) a.mask.push_back((p + op.dim1) % 3 == 0);
    }
  }
  if (op.op == Op::float_flip) {
    for (std::size_t d = 0; d < rank && d < 64; ++d) {
      if ((op.dim1 >> d) & 1) a.axes.push_back(d);
    }
  } else {
    for (std::size_t i = 0; i < rank; ++i) a.axes.push_back((i + op.dim1) % rank);
  }
  a.expand_to.push_back(2);
  for (std::size_t d = 0; d < rank; ++d) a.expand_to.push_back(d == op.dim && lhs[d] == 1 ? 3 : lhs[d]);
  a.avg_pool2d = avg_pool2d_of(op.dim1);
  a.max_pool2d = max_pool2d_of(op.dim1);
  a.output_size = output_size_of(op.dim1);
  a.avg_pool1d = avg_pool1d_of(op.dim1);
  a.max_pool1d = max_pool1d_of(op.dim1);
  a.output_size_1d = output_size_1d_of(op.dim1);
  a.unfold_kernel = unfold_kernel_of(op.dim1);
  a.unfold = unfold_of(op.dim1);
  a.fold_output = fold_output_of(op.dim1);
  a.interpolate_output = interpolate_output_of(op.dim1);
  a.interpolate = interpolate_of(op.dim1);
  a.attention = attention_of(op.dim1);
  a.output_size_3d = output_size_3d_of(op.dim1);
  a.conv2d = conv2d_of(op.dim1);
  a.conv_transpose2d = conv_transpose2d_of(op.dim1);
  a.conv1d = conv1d_of(op.dim1);
  a.conv_transpose1d = conv_transpose1d_of(op.dim1);
  a.conv3d = conv3d_of(op.dim1);
  a.conv_transpose3d = conv_transpose3d_of(op.dim1);
  a.fft_size = fft_size_of(op.dim1);
  return a;
}

}  // namespace

// The oracle's own shape rules, one per op (CONTRACT section 6 and docs/OPS.md).
std::optional<std::vector<std::size_t>> fold4d_graph_input(std::size_t dim1, std::size_t batch, std::size_t channels) {
  const Size2 out = fold_output_of(dim1);
  return unfold4d_shape({batch, channels, out[0], out[1]}, unfold_kernel_of(dim1), unfold_of(dim1));
}

std::optional<std::vector<std::size_t>> result_shape(const OpSpec& op, const std::vector<std::size_t>& lhs,
                                                     const std::vector<std::size_t>& rhs) {
  const std::size_t rank = lhs.size();
  const bool dim_ok = op.dim < rank;
  if (is_hop(op.op)) return lhs;  // a move: same shape (before the switch: not a registry op)
  switch (op.op) {
    case Op::float_add:
    case Op::float_sub:
    case Op::float_mul:
    case Op::float_div:
    case Op::float_remainder:
    case Op::float_powf:
    case Op::float_atan2:
    case Op::float_hypot:
    case Op::prelu:
    case Op::float_greater:
    case Op::float_lower:
    case Op::float_equal:
    case Op::float_greater_equal:
    case Op::float_lower_equal:
    case Op::float_not_equal:
    case Op::int_add:
    case Op::int_sub:
    case Op::int_mul:
    case Op::int_div:
    case Op::int_remainder:
    case Op::bool_and:
    case Op::bool_or:
    case Op::bool_xor:
    case Op::int_equal:
    case Op::int_not_equal:
    case Op::int_greater:
    case Op::int_greater_equal:
    case Op::int_lower:
    case Op::int_lower_equal:
    case Op::bool_equal:
    case Op::bool_not_equal:
    case Op::bitwise_and:
    case Op::bitwise_or:
    case Op::bitwise_xor:
    case Op::bitwise_left_shift:
    case Op::bitwise_right_shift:
      return broadcast_shape(lhs, rhs);
    case Op::avg_pool2d: return avg_pool2d_shape(lhs, avg_pool2d_of(op.dim1));
    case Op::adaptive_avg_pool2d: {
      if (lhs.size() != 4 || lhs[2] == 0 || lhs[3] == 0) return std::nullopt;
      const Size2 out = output_size_of(op.dim1);
      return std::vector<std::size_t>{lhs[0], lhs[1], out[0], out[1]};
    }
    case Op::max_pool2d: return max_pool2d_shape(lhs, max_pool2d_of(op.dim1));
    case Op::avg_pool1d: return avg_pool1d_shape(lhs, avg_pool1d_of(op.dim1));
    case Op::unfold4d: return unfold4d_shape(lhs, unfold_kernel_of(op.dim1), unfold_of(op.dim1));
    case Op::fold4d: return fold4d_shape(lhs, fold_output_of(op.dim1), unfold_kernel_of(op.dim1), unfold_of(op.dim1));
    case Op::interpolate: {
      if (lhs.size() != 4 || lhs[2] == 0 || lhs[3] == 0) return std::nullopt;
      const Size2 out = interpolate_output_of(op.dim1);
      return std::vector<std::size_t>{lhs[0], lhs[1], out[0], out[1]};
    }
    case Op::interpolate_backward:  // never a graph step (Rule NotDifferentiable)
    case Op::adaptive_avg_pool3d_backward:
      return std::nullopt;
    case Op::adaptive_avg_pool3d: {
      if (lhs.size() != 5 || lhs[2] == 0 || lhs[3] == 0 || lhs[4] == 0) return std::nullopt;
      const Size3 out = output_size_3d_of(op.dim1);
      return std::vector<std::size_t>{lhs[0], lhs[1], out[0], out[1], out[2]};
    }
    case Op::max_pool1d: return max_pool1d_shape(lhs, max_pool1d_of(op.dim1));
    case Op::adaptive_avg_pool1d:
      if (lhs.size() != 3 || lhs[2] == 0) return std::nullopt;
      return std::vector<std::size_t>{lhs[0], lhs[1], output_size_1d_of(op.dim1)[0]};
    case Op::avg_pool1d_backward:  // never graph steps (Rule NotDifferentiable; an Int result)
    case Op::adaptive_avg_pool1d_backward:
    case Op::max_pool1d_indices:
    case Op::max_pool1d_with_indices_backward:
      return std::nullopt;
    case Op::conv2d: return conv2d_shape(lhs, rhs, conv2d_of(op.dim1));
    case Op::conv_transpose2d: return conv_transpose2d_shape(lhs, rhs, conv_transpose2d_of(op.dim1));
    case Op::conv1d: return conv1d_shape(lhs, rhs, conv1d_of(op.dim1));
    case Op::conv_transpose1d: return conv_transpose1d_shape(lhs, rhs, conv_transpose1d_of(op.dim1));
    case Op::rfft: {  // n / 2 + 1 bins along dim, the real parts then the imaginary parts along dim 0
      if (op.dim >= lhs.size()) return std::nullopt;
      const std::size_t n = fft_size_of(op.dim1).value_or(lhs[op.dim]);
      if (n == 0 || (n & (n - 1)) != 0) return std::nullopt;
      std::vector<std::size_t> out = lhs;
      out[op.dim] = n / 2 + 1;
      out[0] *= 2;
      return out;
    }
    case Op::irfft: {  // n samples along dim from spectra of one shape
      if (op.dim >= lhs.size() || lhs != rhs || lhs[op.dim] == 0) return std::nullopt;
      const std::size_t n = fft_size_of(op.dim1).value_or(2 * (lhs[op.dim] - 1));
      if (n == 0 || (n & (n - 1)) != 0) return std::nullopt;
      std::vector<std::size_t> out = lhs;
      out[op.dim] = n;
      return out;
    }
    case Op::conv3d: return conv3d_shape(lhs, rhs, conv3d_of(op.dim1));
    case Op::conv_transpose3d: return conv_transpose3d_shape(lhs, rhs, conv_transpose3d_of(op.dim1));
    case Op::conv3d_x_backward:  // never graph steps (Rule NotDifferentiable)
    case Op::conv3d_weight_backward:
    case Op::conv3d_bias_backward:
    case Op::conv_transpose3d_x_backward:
    case Op::conv_transpose3d_weight_backward:
    case Op::conv_transpose3d_bias_backward:
    case Op::conv_transpose1d_x_backward:  // never graph steps (Rule NotDifferentiable)
    case Op::conv_transpose1d_weight_backward:
    case Op::conv_transpose1d_bias_backward:
    case Op::conv1d_x_backward:  // never graph steps (Rule NotDifferentiable)
    case Op::conv1d_weight_backward:
    case Op::conv1d_bias_backward:
    case Op::conv_transpose2d_x_backward:  // never graph steps (Rule NotDifferentiable)
    case Op::conv_transpose2d_weight_backward:
    case Op::conv_transpose2d_bias_backward:
    case Op::conv2d_x_backward:  // never graph steps (Rule NotDifferentiable)
    case Op::conv2d_weight_backward:
    case Op::conv2d_bias_backward:
      return std::nullopt;
    case Op::embedding:  // args_of's indices [2, 3]: a table with rows
      if (lhs.size() != 2 || lhs[0] == 0) return std::nullopt;
      return std::vector<std::size_t>{2, 3, lhs[1]};
    case Op::avg_pool2d_backward:  // never graph steps (Rule NotDifferentiable; an Int result)
    case Op::adaptive_avg_pool2d_backward:
    case Op::max_pool2d_indices:
    case Op::max_pool2d_with_indices_backward:
    case Op::embedding_backward:
    case Op::linear_x_backward:
    case Op::linear_weight_backward:
    case Op::linear_bias_backward:
      return std::nullopt;
    // batch_norm(x, rhs, rhs, rhs, rhs): rhs [channels] as weight, bias, mean and variance.
    case Op::batch_norm:
      if (lhs.size() < 2 || rhs.size() != 1 || lhs[1] != rhs[0]) return std::nullopt;
      return lhs;
    // layer_norm(x, rhs) without a bias: rhs the weight [d_model], x's last dim.
    case Op::layer_norm:
      if (lhs.empty() || rhs.size() != 1 || lhs.back() != rhs[0]) return std::nullopt;
      return lhs;
    // attention(query lhs, key rhs, value rhs): [batch, heads, seq, head_dim] both, seq_k may differ.
    case Op::attention:
      if (lhs.size() != 4 || rhs.size() != 4 || lhs[0] != rhs[0] || lhs[1] != rhs[1] || lhs[3] != rhs[3]) return std::nullopt;
      return std::vector<std::size_t>{lhs[0], lhs[1], lhs[2], rhs[3]};
    // linear(x, rhs) without a bias: x [..., d_input], rhs the weight [d_input, d_output].
    case Op::linear: {
      if (lhs.empty() || rhs.size() != 2 || lhs.back() != rhs[0]) return std::nullopt;
      std::vector<std::size_t> out(lhs.begin(), lhs.end() - 1);
      out.push_back(rhs[1]);
      return out;
    }
    case Op::float_matmul: {
      if (lhs.size() < 2 || rhs.size() < 2) return std::nullopt;
      if (lhs[lhs.size() - 1] != rhs[rhs.size() - 2]) return std::nullopt;
      auto batch = broadcast_shape(std::vector<std::size_t>(lhs.begin(), lhs.end() - 2),
                                   std::vector<std::size_t>(rhs.begin(), rhs.end() - 2));
      if (!batch) return std::nullopt;
      batch->push_back(lhs[lhs.size() - 2]);
      batch->push_back(rhs[rhs.size() - 1]);
      return batch;
    }
    case Op::float_neg:
    case Op::float_exp:
    case Op::float_log:
    case Op::float_sqrt:
    case Op::float_tanh:
    case Op::float_log1p:
    case Op::float_cos:
    case Op::float_sin:
    case Op::float_tan:
    case Op::float_cosh:
    case Op::float_sinh:
    case Op::float_acos:
    case Op::float_acosh:
    case Op::float_asin:
    case Op::float_asinh:
    case Op::float_atan:
    case Op::float_atanh:
    case Op::float_erf:
    case Op::float_recip:
    case Op::float_round:
    case Op::float_floor:
    case Op::float_ceil:
    case Op::float_trunc:
    case Op::float_sign:
    case Op::log_sigmoid:
    case Op::gelu:
    case Op::leaky_relu:
    case Op::relu:
    case Op::sigmoid:
    case Op::float_powf_scalar:
    case Op::float_add_scalar:
    case Op::float_mul_scalar:
    case Op::float_sub_scalar:
    case Op::float_div_scalar:
    case Op::float_clamp_min:
    case Op::float_clamp_max:
    case Op::float_remainder_scalar:
    case Op::float_abs:
    case Op::float_cast:
    case Op::float_greater_scalar:
    case Op::float_greater_equal_elem:
    case Op::float_lower_elem:
    case Op::float_lower_equal_elem:
    case Op::float_equal_elem:
    case Op::float_not_equal_elem:
    case Op::float_is_nan:
    case Op::float_is_inf:
    case Op::bool_into_float:
    case Op::int_into_float:
    case Op::float_into_int:
    case Op::int_neg:
    case Op::int_abs:
    case Op::int_sign:
    case Op::int_add_scalar:
    case Op::int_sub_scalar:
    case Op::int_mul_scalar:
    case Op::int_div_scalar:
    case Op::int_remainder_scalar:
    case Op::bool_not:
    case Op::int_equal_elem:
    case Op::int_not_equal_elem:
    case Op::int_greater_elem:
    case Op::int_greater_equal_elem:
    case Op::int_lower_elem:
    case Op::int_lower_equal_elem:
    case Op::bitwise_not:
    case Op::bitwise_and_scalar:
    case Op::bitwise_or_scalar:
    case Op::bitwise_xor_scalar:
    case Op::bitwise_left_shift_scalar:
    case Op::bitwise_right_shift_scalar:
    case Op::int_cast:
    case Op::bool_into_int:
    case Op::int_clamp:
    case Op::int_clamp_min:
    case Op::int_clamp_max:
    case Op::int_square:
      return lhs;
    // The layout ops of the int and bool kinds: no graph step (an int or bool receiver).
    case Op::int_reshape:
    case Op::int_swap_dims:
    case Op::int_permute:
    case Op::int_transpose:
    case Op::int_expand:
    case Op::int_flip:
    case Op::int_repeat_dim:
    case Op::int_unfold:
    case Op::int_cat:
    case Op::int_slice:
    case Op::int_slice_assign:
    case Op::int_select:
    case Op::bool_reshape:
    case Op::bool_swap_dims:
    case Op::bool_permute:
    case Op::bool_transpose:
    case Op::bool_expand:
    case Op::bool_flip:
    case Op::bool_repeat_dim:
    case Op::bool_unfold:
    case Op::bool_cat:
    case Op::bool_slice:
    case Op::bool_slice_assign:
    case Op::bool_select:
    case Op::int_gather:
    case Op::int_gather_nd:
    case Op::int_mask_where:
    case Op::int_mask_select:
    case Op::bool_gather:
    case Op::bool_gather_nd:
    case Op::bool_mask_where:
    case Op::bool_mask_select:
    case Op::int_select_assign:
    case Op::int_select_add:
    case Op::int_scatter_add:
    case Op::int_scatter:
    case Op::int_scatter_nd:
    case Op::int_mask_fill:
    case Op::bool_select_or:
    case Op::bool_scatter_or:
    case Op::bool_mask_fill:
    case Op::bool_argwhere:
    case Op::int_cumsum:
    case Op::int_cumprod:
    case Op::int_cummin:
    case Op::int_cummax:
    case Op::int_argsort:
    case Op::int_sort:
    case Op::int_argtopk:
    case Op::int_topk:
    case Op::int_matmul:
    case Op::int_powi:
    case Op::int_powi_scalar:
      return std::nullopt;
    case Op::float_clamp:
      if (std::isnan(op.scalar)) return std::nullopt;
      return lhs;
    // Over every element: shape [1]; a maximum or minimum of nothing has no value (empty-reduction).
    case Op::float_sum:
    case Op::float_mean:
    case Op::float_prod:
    case Op::float_any:
    case Op::float_all:
    case Op::int_sum:
    case Op::int_prod:
    case Op::int_any:
    case Op::int_all:
    case Op::bool_any:
    case Op::bool_all:
      return std::vector<std::size_t>{1};
    case Op::float_max:
    case Op::float_min:
    case Op::float_max_abs:
    case Op::int_mean:  // an int mean of nothing has no value either
    case Op::int_max:
    case Op::int_min:
    case Op::int_max_abs:
      if (element_count(lhs) == 0) return std::nullopt;
      return std::vector<std::size_t>{1};
    // Along dim, kept with size 1; sums, means, products, any and all of an empty dim have values.
    case Op::float_sum_dim:
    case Op::float_mean_dim:
    case Op::float_prod_dim:
    case Op::float_any_dim:
    case Op::float_all_dim:
    case Op::float_max_dim:
    case Op::float_argmax:
    case Op::float_min_dim:
    case Op::float_argmin:
    case Op::float_max_abs_dim:
    case Op::int_sum_dim:
    case Op::int_prod_dim:
    case Op::int_mean_dim:
    case Op::int_max_dim:
    case Op::int_min_dim:
    case Op::int_argmax:
    case Op::int_argmin:
    case Op::int_max_abs_dim:
    case Op::int_any_dim:
    case Op::int_all_dim:
    case Op::bool_any_dim:
    case Op::bool_all_dim: {
      if (!dim_ok) return std::nullopt;
      const bool has_identity = op.op == Op::float_sum_dim || op.op == Op::float_mean_dim || op.op == Op::float_prod_dim ||
                                op.op == Op::float_any_dim || op.op == Op::float_all_dim || op.op == Op::int_sum_dim ||
                                op.op == Op::int_prod_dim || op.op == Op::int_any_dim || op.op == Op::int_all_dim ||
                                op.op == Op::bool_any_dim || op.op == Op::bool_all_dim;
      if (!has_identity && lhs[op.dim] == 0) return std::nullopt;
      auto out = lhs;
      out[op.dim] = 1;
      return out;
    }
    case Op::softmax:
    case Op::log_softmax:
    case Op::float_cumsum:
    case Op::float_cumprod:
    case Op::float_cummin:
    case Op::float_cummax:
    case Op::softmin:
    case Op::float_sort:
    case Op::float_argsort:
      if (!dim_ok) return std::nullopt;
      return lhs;
    case Op::float_topk:
    case Op::float_argtopk: {  // k = 1 + dim1 (dim1 below the size of dim)
      if (!dim_ok || lhs[op.dim] == 0) return std::nullopt;
      auto out = lhs;
      out[op.dim] = 1 + op.dim1;
      return out;
    }
    case Op::float_transpose: {
      auto out = lhs;
      if (rank >= 2) std::swap(out[rank - 2], out[rank - 1]);
      return out;
    }
    case Op::float_flip:
      return lhs;
    case Op::float_reshape:
      return std::vector<std::size_t>{element_count(lhs)};
    case Op::float_swap_dims: {
      if (op.dim >= lhs.size() || op.dim1 >= lhs.size()) return std::nullopt;
      auto out = lhs;
      std::swap(out[op.dim], out[op.dim1]);
      return out;
    }
    case Op::float_cat: {
      if (!dim_ok || !same_except(lhs, rhs, op.dim)) return std::nullopt;
      auto out = lhs;
      out[op.dim] += rhs[op.dim];
      return out;
    }
    case Op::float_slice: {
      if (!dim_ok) return std::nullopt;
      auto out = lhs;
      out[op.dim] -= op.dim1 % (lhs[op.dim] + 1);
      return out;
    }
    case Op::float_select: {
      if (!dim_ok || lhs[op.dim] == 0) return std::nullopt;
      auto out = lhs;
      out[op.dim] = 3;
      return out;
    }
    case Op::float_slice_assign:
      if (!dim_ok || !same_except(lhs, rhs, op.dim) || rhs[op.dim] > lhs[op.dim]) return std::nullopt;
      return lhs;
    case Op::float_select_assign:
    case Op::float_select_add:
    case Op::float_scatter_add:
    case Op::float_scatter:
      if (!dim_ok || !same_except(lhs, rhs, op.dim) || (lhs[op.dim] == 0 && rhs[op.dim] > 0)) return std::nullopt;
      return lhs;
    case Op::float_gather_nd: {
      const std::optional<std::size_t> k = nd_rows(op, lhs, rhs);
      if (!k) return std::nullopt;
      std::vector<std::size_t> out{3};
      out.insert(out.end(), lhs.begin() + static_cast<std::ptrdiff_t>(*k), lhs.end());
      return out;
    }
    case Op::float_scatter_nd:
      if (!nd_rows(op, lhs, rhs)) return std::nullopt;
      return lhs;
    case Op::float_mask_select: {
      // The mask is true at every third element from dim1 % 3 (args_of).
      std::size_t count = 0;
      for (std::size_t p = 0; p < element_count(lhs); ++p) count += (p + op.dim1) % 3 == 0 ? 1 : 0;
      return std::vector<std::size_t>{count};
    }
    case Op::float_mask_where:
      return broadcast_shape(lhs, rhs);
    case Op::float_mask_fill:
      if (!std::isfinite(op.scalar)) return std::nullopt;  // finite fills: finite differences see a value
      return lhs;
    case Op::hard_sigmoid:
      if (!std::isfinite(op.scalar)) return std::nullopt;  // alpha
      return lhs;
    case Op::float_cross:
      if (!dim_ok || rhs.size() != rank || lhs[op.dim] != 3 || rhs[op.dim] != 3) return std::nullopt;
      return broadcast_shape(lhs, rhs);
    case Op::float_repeat_dim: {
      if (!dim_ok) return std::nullopt;
      auto out = lhs;
      out[op.dim] *= 1 + op.dim1;
      return out;
    }
    case Op::float_unfold: {
      if (!dim_ok) return std::nullopt;
      const std::size_t size = 1 + op.dim1 % 3, step = 1 + op.dim1 / 3;
      auto out = lhs;
      out[op.dim] = size > lhs[op.dim] ? 0 : (lhs[op.dim] - size) / step + 1;
      out.push_back(size);
      return out;
    }
    case Op::float_gather: {
      if (!dim_ok || lhs[op.dim] == 0) return std::nullopt;
      auto out = lhs;
      out[op.dim] = 3;
      return out;
    }
    case Op::float_permute: {
      std::vector<std::size_t> out(rank);
      for (std::size_t i = 0; i < rank; ++i) out[i] = lhs[(i + op.dim1) % rank];
      return out;
    }
    case Op::float_expand: {
      std::vector<std::size_t> out{2};
      for (std::size_t d = 0; d < rank; ++d) out.push_back(d == op.dim && lhs[d] == 1 ? 3 : lhs[d]);
      return out;
    }
  }
  return std::nullopt;
}

std::size_t reduction_length(const OpSpec& op, const std::vector<std::size_t>& lhs) {
  if (is_hop(op.op)) return 1;  // a move sums nothing
  if (op.op == Op::float_matmul || op.op == Op::linear) return lhs.empty() ? 1 : lhs.back();
  if (op.op == Op::float_sum || op.op == Op::float_mean || op.op == Op::float_prod) return element_count(lhs);
  if (op.op == Op::avg_pool2d) {
    const AvgPool2dOptions o = avg_pool2d_of(op.dim1);
    return o.kernel_size[0] * o.kernel_size[1];
  }
  if (op.op == Op::avg_pool1d) return avg_pool1d_of(op.dim1).kernel_size[0];
  if (op.op == Op::adaptive_avg_pool1d && lhs.size() == 3) {
    const std::size_t out = output_size_1d_of(op.dim1)[0];
    return (lhs[2] + out - 1) / out + 1;
  }
  if (op.op == Op::max_pool2d_with_indices_backward) return 1;  // never a graph step
  // conv2d: a group's taps, at most the channels times the padded plane (the weight is rhs).
  if (op.op == Op::conv2d && lhs.size() == 4) {
    const Conv2dOptions o = conv2d_of(op.dim1);
    return lhs[1] * (lhs[2] + 2 * o.padding[0]) * (lhs[3] + 2 * o.padding[1]) + 1;
  }
  // conv_transpose2d: an output cell takes at most one tap per input cell of every channel (the
  // weight is rhs; at most one kernel cell joins an input cell to a given output cell).
  if (op.op == Op::conv_transpose2d && lhs.size() == 4) return lhs[1] * lhs[2] * lhs[3] + 1;
  // conv1d: a group's taps, at most the channels times the padded length (the weight is rhs).
  if (op.op == Op::conv1d && lhs.size() == 3) return lhs[1] * (lhs[2] + 2 * conv1d_of(op.dim1).padding[0]) + 1;
  // conv_transpose1d: conv_transpose2d's on the single-row view.
  if (op.op == Op::conv_transpose1d && lhs.size() == 3) return lhs[1] * lhs[2] + 1;
  // rfft and irfft: about n + 2 terms (the operand's own size when n is not given).
  if ((op.op == Op::rfft || op.op == Op::irfft) && op.dim < lhs.size()) {
    const std::size_t along = lhs[op.dim];
    return fft_size_of(op.dim1).value_or(op.op == Op::rfft ? along : along == 0 ? 0 : 2 * (along - 1)) + 2;
  }
  // conv3d and conv_transpose3d: conv2d's and conv_transpose2d's with a depth dim.
  if (op.op == Op::conv3d && lhs.size() == 5) {
    const std::size_t p = conv3d_of(op.dim1).padding[0];
    return lhs[1] * (lhs[2] + 2 * p) * (lhs[3] + 2 * p) * (lhs[4] + 2 * p) + 1;
  }
  if (op.op == Op::conv_transpose3d && lhs.size() == 5) return lhs[1] * lhs[2] * lhs[3] * lhs[4] + 1;
  if (op.op == Op::adaptive_avg_pool2d && lhs.size() == 4) {
    const Size2 out = output_size_of(op.dim1);
    return ((lhs[2] + out[0] - 1) / out[0] + 1) * ((lhs[3] + out[1] - 1) / out[1] + 1);
  }
  if (op.op == Op::float_sum_dim || op.op == Op::float_mean_dim || op.op == Op::float_prod_dim || op.op == Op::softmax ||
      op.op == Op::log_softmax || op.op == Op::softmin || op.op == Op::float_cumsum || op.op == Op::float_cumprod) {
    return op.dim < lhs.size() ? lhs[op.dim] : 1;
  }
  return 1;
}

namespace {
// A leaf's values are used only when there is one per element; else the leaf takes the deterministic fill.
bool values_fit(const std::vector<double>& values, const std::vector<std::size_t>& shape) {
  return values.size() == element_count(shape);
}
}  // namespace

GraphSpec normalized(GraphSpec graph) {
  if (graph.leaf_shapes.empty()) graph.leaf_shapes.push_back({});
  graph.leaf_values.resize(graph.leaf_shapes.size());
  const std::size_t known_backends = all_backends().size();
  if (!graph.leaf_backends.empty()) {
    graph.leaf_backends.resize(graph.leaf_shapes.size(), graph.backend);
    for (std::size_t& b : graph.leaf_backends) b %= known_backends;
  }
  for (std::size_t i = 0; i < graph.leaf_shapes.size(); ++i) {
    if (!values_fit(graph.leaf_values[i], graph.leaf_shapes[i])) graph.leaf_values[i].clear();
  }
  std::vector<std::vector<std::size_t>> shapes = graph.leaf_shapes;
  for (OpSpec& op : graph.ops) {
    const std::size_t count = shapes.size();
    // A code that is not a graph op (a reserved code, or an op with another kind of result) is
    // a step that does not fit, like a shape that does not.
    const bool known = is_graph_op(op.op);
    if (!known) op = OpSpec{Op::float_neg, op.lhs, 0, 1.0, 0, 0};
    op.lhs %= count;
    if (is_hop(op.op)) {
      // rhs names the target backend, not a value; a move fits every shape.
      op = OpSpec{kHopOp, op.lhs, op.rhs % known_backends, 1.0, 0, 0};
      shapes.push_back(shapes[op.lhs]);
      continue;
    }
    op.rhs = is_binary(op.op) ? op.rhs % count : 0;
    const std::size_t rank = shapes[op.lhs].size();
    if (has_dim(op.op) || op.op == Op::float_swap_dims) {
      op.dim = rank ? op.dim % rank : 0;
    } else {
      op.dim = 0;
    }
    if (!has_dim1(op.op)) {
      op.dim1 = 0;
    } else if (op.op == Op::float_swap_dims || op.op == Op::float_permute) {
      op.dim1 = rank ? op.dim1 % rank : 0;
    } else if (op.op == Op::float_flip) {
      op.dim1 = rank < 64 ? op.dim1 % (std::size_t{1} << rank) : op.dim1;
    } else if (is_masked(op.op)) {
      op.dim1 %= 3;
    } else if (op.op == Op::float_repeat_dim) {
      op.dim1 %= 3;  // times 1 + dim1
    } else if (op.op == Op::float_unfold) {
      op.dim1 %= 6;  // size 1 + dim1 % 3, step 1 + dim1 / 3
    } else if (op.op == Op::float_sort) {
      op.dim1 %= 2;  // descending when 1
    } else if (op.op == Op::avg_pool2d) {
      op.dim1 %= kAvgPool2dSteps;
    } else if (op.op == Op::adaptive_avg_pool2d) {
      op.dim1 %= kAdaptivePool2dSteps;
    } else if (op.op == Op::max_pool2d) {
      op.dim1 %= kMaxPool2dSteps;
    } else if (op.op == Op::unfold4d) {
      op.dim1 %= kUnfold4dSteps;
    } else if (op.op == Op::fold4d) {
      op.dim1 %= kFold4dSteps;
    } else if (op.op == Op::interpolate) {
      op.dim1 %= kInterpolateSteps;
    } else if (op.op == Op::adaptive_avg_pool3d) {
      op.dim1 %= kAdaptivePool3dSteps;
    } else if (op.op == Op::attention) {
      op.dim1 %= kAttentionSteps;
    } else if (op.op == Op::avg_pool1d) {
      op.dim1 %= kAvgPool2dSteps;
    } else if (op.op == Op::adaptive_avg_pool1d) {
      op.dim1 %= kAdaptivePool2dSteps;
    } else if (op.op == Op::max_pool1d) {
      op.dim1 %= kMaxPool2dSteps;
    } else if (op.op == Op::conv2d) {
      op.dim1 %= kConv2dSteps;
    } else if (op.op == Op::conv_transpose2d) {
      op.dim1 %= kConvTranspose2dSteps;
    } else if (op.op == Op::conv1d) {
      op.dim1 %= kConv1dSteps;
    } else if (op.op == Op::conv_transpose1d) {
      op.dim1 %= kConvTranspose1dSteps;
    } else if (op.op == Op::rfft || op.op == Op::irfft) {
      op.dim1 %= kFftSteps;
    } else if (op.op == Op::conv3d) {
      op.dim1 %= kConv3dSteps;
    } else if (op.op == Op::conv_transpose3d) {
      op.dim1 %= kConvTranspose3dSteps;
    } else if (op.dim < rank) {
      const std::size_t size = shapes[op.lhs][op.dim];
      op.dim1 = op.op == Op::float_slice ? op.dim1 % (size + 1) : (size ? op.dim1 % size : 0);
    }
    auto shape = result_shape(op, shapes[op.lhs], shapes[op.rhs]);  // rhs is 0 for unary steps
    if (!shape) {
      op = OpSpec{Op::float_neg, op.lhs, 0, 1.0, 0, 0};
      shape = shapes[op.lhs];
    }
    shapes.push_back(*shape);
  }
  return graph;
}

std::vector<std::vector<std::size_t>> value_shapes(const GraphSpec& g) {
  std::vector<std::vector<std::size_t>> shapes = g.leaf_shapes;
  for (const OpSpec& op : g.ops) {
    shapes.push_back(*result_shape(op, shapes[op.lhs], is_binary(op.op) ? shapes[op.rhs] : shapes[op.lhs]));
  }
  return shapes;
}

namespace {

// value_backends with `leaf_default` in graph.backend's role for leaves without their own.
std::vector<std::size_t> backends_as_specified(const GraphSpec& g, std::size_t leaf_default) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < g.leaf_shapes.size(); ++i) {
    out.push_back(i < g.leaf_backends.size() ? g.leaf_backends[i] : leaf_default);
  }
  // A binary step's rhs on another backend moves to lhs's first: the result is on lhs's.
  for (const OpSpec& op : g.ops) out.push_back(is_hop(op.op) ? op.rhs : out[op.lhs]);
  return out;
}

}  // namespace

std::vector<std::size_t> value_backends(const GraphSpec& g) { return backends_as_specified(g, g.backend); }

bool has_hops(const GraphSpec& graph) {
  for (const std::size_t b : graph.leaf_backends) {
    if (b != graph.backend) return true;
  }
  for (const OpSpec& op : graph.ops) {
    if (is_hop(op.op)) return true;
  }
  return false;
}

std::optional<std::string> unavailable_here(const GraphSpec& g) {
  for (const std::size_t b : named_backends(g)) {
    if (b >= all_backends().size()) return "backend " + std::to_string(b) + ": not registered";
    if (auto why = unavailable_here(b, all_backends()[b].default_device)) return why;
  }
  return std::nullopt;
}

std::vector<std::size_t> named_backends(const GraphSpec& g) {
  std::vector<std::size_t> out{g.backend};
  out.insert(out.end(), g.leaf_backends.begin(), g.leaf_backends.end());
  for (const OpSpec& op : g.ops) {
    if (is_hop(op.op)) out.push_back(op.rhs);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

GraphSpec with_cotangent(const GraphSpec& g, const std::vector<double>& weights) {
  const std::vector<std::vector<std::size_t>> shapes = value_shapes(g);
  const std::size_t leaves = g.leaf_shapes.size();
  GraphSpec out = g;
  // Values after the leaves move up by one: the weight leaf goes last among the leaves.
  for (OpSpec& op : out.ops) {
    if (op.lhs >= leaves) ++op.lhs;
    if (is_binary(op.op) && op.rhs >= leaves) ++op.rhs;  // a hop's rhs is a backend, not a value
  }
  // w lives on graph.backend; the final mul moves it to the root's backend when that differs.
  if (!out.leaf_backends.empty()) out.leaf_backends.push_back(g.backend);
  const std::vector<std::size_t>& root = shapes.back();
  std::vector<double> w(element_count(root));
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = weights.empty() ? 1.0 : weights[i % weights.size()];
  out.leaf_shapes.push_back(root);
  out.leaf_values.push_back(std::move(w));
  const std::size_t root_index = leaves + g.ops.size();  // after the shift
  out.ops.push_back(OpSpec{Op::float_mul, root_index, leaves, 1.0, 0, 0});
  return out;
}

std::vector<bool> read_by_root(const GraphSpec& g) {
  const std::size_t n = g.leaf_shapes.size() + g.ops.size();
  std::vector<bool> live(n, false);
  if (n == 0) return live;
  live[n - 1] = true;
  for (std::size_t k = g.ops.size(); k-- > 0;) {
    if (!live[g.leaf_shapes.size() + k]) continue;
    live[g.ops[k].lhs] = true;
    if (is_binary(g.ops[k].op)) live[g.ops[k].rhs] = true;  // false for a hop (not a registry op)
  }
  return live;
}

std::vector<bool> used_leaves(const GraphSpec& g) {
  std::vector<bool> live = read_by_root(g);
  live.resize(g.leaf_shapes.size());
  return live;
}

namespace {
// A graph's scatter and scatter_nd update: Assign or Add (the ones with a backward rule) by dim1's parity.
IndexingUpdateOp graph_update(const OpSpec& op) { return op.dim1 % 2 == 0 ? IndexingUpdateOp::Assign : IndexingUpdateOp::Add; }
}  // namespace

double graph_layer_norm_epsilon() { return kGraphLayerNormEpsilon; }
AttentionOptions graph_attention_options(std::size_t dim1) { return attention_of(dim1); }

DispatchTensor apply_op(const OpSpec& op, const DispatchTensor& lhs, const DispatchTensor& rhs) {
  // Shapes are read only for the ops whose arguments depend on them, so that an op on a malformed
  // kind panics from the op itself, as the kind checks expect.
  const auto args = [&] {
    const std::vector<std::size_t> ls = Dispatch::float_shape(lhs).dims();
    return args_of(op, ls, is_binary(op.op) ? Dispatch::float_shape(rhs).dims() : ls);
  };
  const auto indices = [&] {
    const StepArgs a = args();
    return Dispatch::int_from_data(TensorData::from_i64(a.indices, Shape(a.index_shape)), Dispatch::float_device(lhs));
  };
  const auto mask = [&] {
    const StepArgs a = args();
    return Dispatch::bool_from_data(TensorData::from_bool(a.mask, Shape(a.index_shape)), Dispatch::float_device(lhs));
  };
  if (is_hop(op.op)) {
    // A move to rhs's default device, tracked when lhs is (before the switch: not a registry op).
    const std::size_t target = op.rhs % all_backends().size();
    return Dispatch::float_to_device(lhs, dispatch_device(target, all_backends()[target].default_device, lhs.kind.is_autodiff()));
  }
  switch (op.op) {
    // Ops whose arguments are the step's fields as they are: derived from the registry.
#define CROSSGRAD_APPLY(name, method, Sig, Operand, Result, Rule) CROSSGRAD_APPLY_##Sig(name)
#define CROSSGRAD_APPLY_Unary(name) \
  case Op::name:                    \
    return Dispatch::name(lhs);
#define CROSSGRAD_APPLY_Binary(name) \
  case Op::name:                     \
    return Dispatch::name(lhs, rhs);
#define CROSSGRAD_APPLY_Scalar(name) \
  case Op::name:                     \
    return Dispatch::name(lhs, op.scalar);
#define CROSSGRAD_APPLY_Dim(name) \
  case Op::name:                  \
    return Dispatch::name(lhs, op.dim);
#define CROSSGRAD_APPLY_DimPair(name) \
  case Op::name:                      \
    return Dispatch::name(lhs, op.dim, op.dim1);
#define CROSSGRAD_APPLY_Bounds(name)
#define CROSSGRAD_APPLY_ToShape(name)
#define CROSSGRAD_APPLY_ToDType(name)
#define CROSSGRAD_APPLY_Axes(name)
#define CROSSGRAD_APPLY_Ranges(name)
#define CROSSGRAD_APPLY_Select(name)
#define CROSSGRAD_APPLY_SelectAssign(name)
#define CROSSGRAD_APPLY_Gather(name)
#define CROSSGRAD_APPLY_Scatter(name)
#define CROSSGRAD_APPLY_ScatterUpdate(name)
#define CROSSGRAD_APPLY_GatherNd(name)
#define CROSSGRAD_APPLY_ScatterNd(name)
#define CROSSGRAD_APPLY_MaskSelect(name)
#define CROSSGRAD_APPLY_MaskWhere(name)
#define CROSSGRAD_APPLY_MaskFill(name)
#define CROSSGRAD_APPLY_Affine(name)
#define CROSSGRAD_APPLY_Repeat(name)
#define CROSSGRAD_APPLY_Window(name)
#define CROSSGRAD_APPLY_Sort(name)
#define CROSSGRAD_APPLY_RangesAssign(name)
#define CROSSGRAD_APPLY_TopK(name)
#define CROSSGRAD_APPLY_BinaryDim(name) \
  case Op::name:                        \
    return Dispatch::name(lhs, rhs, op.dim);
#define CROSSGRAD_APPLY_Cat(name)
#define CROSSGRAD_APPLY_AvgPool2d(name)
#define CROSSGRAD_APPLY_AvgPool2dBackward(name)
#define CROSSGRAD_APPLY_AdaptivePool2d(name)
#define CROSSGRAD_APPLY_AdaptivePool2dBackward(name)
#define CROSSGRAD_APPLY_MaxPool2d(name)
#define CROSSGRAD_APPLY_MaxPool2dBackward(name)
#define CROSSGRAD_APPLY_AvgPool1d(name)
#define CROSSGRAD_APPLY_AvgPool1dBackward(name)
#define CROSSGRAD_APPLY_AdaptivePool1d(name)
#define CROSSGRAD_APPLY_AdaptivePool1dBackward(name)
#define CROSSGRAD_APPLY_MaxPool1d(name)
#define CROSSGRAD_APPLY_MaxPool1dBackward(name)
#define CROSSGRAD_APPLY_Unfold4d(name)
#define CROSSGRAD_APPLY_Fold4d(name)
#define CROSSGRAD_APPLY_Interpolate(name)
#define CROSSGRAD_APPLY_InterpolateBackward(name)
#define CROSSGRAD_APPLY_AdaptivePool3d(name)
#define CROSSGRAD_APPLY_AdaptivePool3dBackward(name)
#define CROSSGRAD_APPLY_Embedding(name)
#define CROSSGRAD_APPLY_EmbeddingBackward(name)
#define CROSSGRAD_APPLY_Linear(name)
#define CROSSGRAD_APPLY_LayerNorm(name)
#define CROSSGRAD_APPLY_BatchNorm(name)
#define CROSSGRAD_APPLY_Attention(name)
#define CROSSGRAD_APPLY_Conv2d(name)
#define CROSSGRAD_APPLY_Conv2dBackward(name)
#define CROSSGRAD_APPLY_Conv2dBiasBackward(name)
#define CROSSGRAD_APPLY_ConvTranspose2d(name)
#define CROSSGRAD_APPLY_ConvTranspose2dBackward(name)
#define CROSSGRAD_APPLY_Conv1d(name)
#define CROSSGRAD_APPLY_Conv1dBackward(name)
#define CROSSGRAD_APPLY_Conv1dBiasBackward(name)
#define CROSSGRAD_APPLY_ConvTranspose1d(name)
#define CROSSGRAD_APPLY_ConvTranspose1dBackward(name)
#define CROSSGRAD_APPLY_Conv3d(name)
#define CROSSGRAD_APPLY_Rfft(name)
#define CROSSGRAD_APPLY_Irfft(name)
#define CROSSGRAD_APPLY_Conv3dBackward(name)
#define CROSSGRAD_APPLY_Conv3dBiasBackward(name)
#define CROSSGRAD_APPLY_ConvTranspose3d(name)
#define CROSSGRAD_APPLY_ConvTranspose3dBackward(name)
#define CROSSGRAD_APPLY_LinearXBackward(name)
#define CROSSGRAD_APPLY_LinearWeightBackward(name)
#define CROSSGRAD_APPLY_LinearBiasBackward(name)
    CROSSGRAD_OPS(CROSSGRAD_APPLY)
    case Op::max_pool2d: return Dispatch::max_pool2d(lhs, args().max_pool2d);
    case Op::avg_pool2d: return Dispatch::avg_pool2d(lhs, args().avg_pool2d);
    case Op::adaptive_avg_pool2d: return Dispatch::adaptive_avg_pool2d(lhs, args().output_size);
    case Op::avg_pool1d: return Dispatch::avg_pool1d(lhs, args().avg_pool1d);
    case Op::adaptive_avg_pool1d: return Dispatch::adaptive_avg_pool1d(lhs, args().output_size_1d);
    case Op::max_pool1d: return Dispatch::max_pool1d(lhs, args().max_pool1d);
    case Op::unfold4d: return Dispatch::unfold4d(lhs, args().unfold_kernel, args().unfold);
    case Op::fold4d: return Dispatch::fold4d(lhs, args().fold_output, args().unfold_kernel, args().unfold);
    case Op::interpolate: return Dispatch::interpolate(lhs, args().interpolate_output, args().interpolate);
    case Op::adaptive_avg_pool3d: return Dispatch::adaptive_avg_pool3d(lhs, args().output_size_3d);
    case Op::embedding: return Dispatch::embedding(lhs, indices());
    case Op::linear: return Dispatch::linear(lhs, rhs, std::nullopt);
    case Op::layer_norm: return Dispatch::layer_norm(lhs, rhs, std::nullopt, kGraphLayerNormEpsilon);
    case Op::batch_norm: return Dispatch::batch_norm(lhs, rhs, rhs, rhs, rhs, kGraphLayerNormEpsilon);
    case Op::attention: return Dispatch::attention(lhs, rhs, rhs, std::nullopt, std::nullopt, args().attention);
    case Op::conv2d: return Dispatch::conv2d(lhs, rhs, std::nullopt, args().conv2d);
    case Op::conv_transpose2d: return Dispatch::conv_transpose2d(lhs, rhs, std::nullopt, args().conv_transpose2d);
    case Op::conv1d: return Dispatch::conv1d(lhs, rhs, std::nullopt, args().conv1d);
    case Op::conv_transpose1d: return Dispatch::conv_transpose1d(lhs, rhs, std::nullopt, args().conv_transpose1d);
    case Op::rfft: return Dispatch::rfft(lhs, op.dim, args().fft_size);
    case Op::irfft: return Dispatch::irfft(lhs, rhs, op.dim, args().fft_size);
    case Op::conv3d: return Dispatch::conv3d(lhs, rhs, std::nullopt, args().conv3d);
    case Op::conv_transpose3d: return Dispatch::conv_transpose3d(lhs, rhs, std::nullopt, args().conv_transpose3d);
    case Op::conv3d_x_backward:
    case Op::conv3d_weight_backward:
    case Op::conv3d_bias_backward:
    case Op::conv_transpose3d_x_backward:
    case Op::conv_transpose3d_weight_backward:
    case Op::conv_transpose3d_bias_backward:
    case Op::conv_transpose1d_x_backward:
    case Op::conv_transpose1d_weight_backward:
    case Op::conv_transpose1d_bias_backward:
    case Op::conv1d_x_backward:
    case Op::conv1d_weight_backward:
    case Op::conv1d_bias_backward:
    case Op::conv_transpose2d_x_backward:
    case Op::conv_transpose2d_weight_backward:
    case Op::conv_transpose2d_bias_backward:
    case Op::conv2d_x_backward:
    case Op::conv2d_weight_backward:
    case Op::conv2d_bias_backward:
    case Op::linear_x_backward:
    case Op::linear_weight_backward:
    case Op::linear_bias_backward:
    case Op::max_pool2d_indices:
    case Op::max_pool2d_with_indices_backward:
    case Op::embedding_backward:
    case Op::avg_pool2d_backward:
    case Op::adaptive_avg_pool2d_backward:
    case Op::avg_pool1d_backward:
    case Op::adaptive_avg_pool1d_backward:
    case Op::max_pool1d_indices:
    case Op::max_pool1d_with_indices_backward:
    case Op::interpolate_backward:
    case Op::adaptive_avg_pool3d_backward:
      throw std::logic_error("apply_op: a backward pass or an Int result is never a graph step");
    // Ops with structured arguments, by the conventions of graph.hpp (OpSpec).
    case Op::float_reshape: return Dispatch::float_reshape(lhs, Shape{element_count(Dispatch::float_into_data(lhs).shape().dims())});
    case Op::float_clamp: return Dispatch::float_clamp(lhs, clamp_min(op), clamp_max(op));
    case Op::float_cat: return Dispatch::float_cat({lhs, rhs}, op.dim);
    case Op::float_slice: return Dispatch::float_slice(lhs, args().ranges);
    case Op::float_slice_assign: return Dispatch::float_slice_assign(lhs, args().ranges, rhs);
    case Op::float_select: return Dispatch::float_select(lhs, op.dim, indices());
    case Op::float_select_assign: return Dispatch::float_select_assign(lhs, op.dim, indices(), rhs);
    case Op::float_select_add: return Dispatch::float_select_add(lhs, op.dim, indices(), rhs);
    case Op::float_gather: return Dispatch::float_gather(lhs, op.dim, indices());
    case Op::float_mask_where: return Dispatch::float_mask_where(lhs, mask(), rhs);
    case Op::float_mask_fill: return Dispatch::float_mask_fill(lhs, mask(), op.scalar);
    case Op::hard_sigmoid: return Dispatch::hard_sigmoid(lhs, op.scalar, kHardSigmoidBeta);
    case Op::float_repeat_dim: return Dispatch::float_repeat_dim(lhs, op.dim, 1 + op.dim1);
    case Op::float_unfold: return Dispatch::float_unfold(lhs, op.dim, 1 + op.dim1 % 3, 1 + op.dim1 / 3);
    case Op::float_sort: return Dispatch::float_sort(lhs, op.dim, op.dim1 == 1);
    case Op::float_topk: return Dispatch::float_topk(lhs, op.dim, 1 + op.dim1);
    case Op::float_scatter_add: return Dispatch::float_scatter_add(lhs, op.dim, indices(), rhs);
    case Op::float_scatter: return Dispatch::float_scatter(lhs, op.dim, indices(), rhs, graph_update(op));
    case Op::float_gather_nd: return Dispatch::float_gather_nd(lhs, indices());
    case Op::float_scatter_nd: return Dispatch::float_scatter_nd(lhs, indices(), rhs, graph_update(op));
    case Op::float_mask_select: return Dispatch::float_mask_select(lhs, mask());
    case Op::float_permute: return Dispatch::float_permute(lhs, args().axes);
    case Op::float_flip: return Dispatch::float_flip(lhs, args().axes);
    case Op::float_expand: return Dispatch::float_expand(lhs, Shape(args().expand_to));
    // Not graph steps (normalized() turns them into float_neg): a dtype change in a one-dtype
    // graph, or an int/bool receiver.
    case Op::float_cast:
    case Op::bool_into_float:
    case Op::int_into_float:
    case Op::float_argsort:  // Int results
    case Op::float_argtopk:
    case Op::float_into_int:
    case Op::int_cast:
    case Op::bool_into_int:
    case Op::int_clamp:
    case Op::int_reshape:
    case Op::int_permute:
    case Op::int_expand:
    case Op::int_flip:
    case Op::int_repeat_dim:
    case Op::int_unfold:
    case Op::int_cat:
    case Op::int_slice:
    case Op::int_slice_assign:
    case Op::int_select:
    case Op::bool_reshape:
    case Op::bool_permute:
    case Op::bool_expand:
    case Op::bool_flip:
    case Op::bool_repeat_dim:
    case Op::bool_unfold:
    case Op::bool_cat:
    case Op::bool_slice:
    case Op::bool_slice_assign:
    case Op::bool_select:
    case Op::int_gather:
    case Op::int_gather_nd:
    case Op::int_mask_where:
    case Op::int_mask_select:
    case Op::bool_gather:
    case Op::bool_gather_nd:
    case Op::bool_mask_where:
    case Op::bool_mask_select:
    case Op::int_select_assign:
    case Op::int_select_add:
    case Op::int_scatter_add:
    case Op::int_scatter:
    case Op::int_scatter_nd:
    case Op::int_mask_fill:
    case Op::bool_select_or:
    case Op::bool_scatter_or:
    case Op::bool_mask_fill:
    case Op::int_argsort:
    case Op::int_sort:
    case Op::int_argtopk:
    case Op::int_topk:
      break;
  }
  throw std::logic_error("apply_op: " + std::string(op_name(op.op)) + " is not a graph step (normalize first)");
}

namespace {

DispatchDevice default_device_of(std::size_t backend, bool tracked) {
  return dispatch_device(backend, all_backends().at(backend).default_device, tracked);
}

// A hop: `t` to `backend`'s default device, tracked when t is (Dispatch::float_to_device keeps
// the graph across backends, CONTRACT section 7).
DispatchTensor moved_to(const DispatchTensor& t, std::size_t backend) {
  return Dispatch::float_to_device(t, default_device_of(backend, t.kind.is_autodiff()));
}

}  // namespace

GraphRun run_graph(const GraphSpec& graph, std::size_t backend, DType dtype, bool tracked, Hops hops) {
  return run_graph(NormalizedGraph(graph), backend, dtype, tracked, hops);
}

GraphRun run_graph(const NormalizedGraph& normalized_graph, std::size_t backend, DType dtype, bool tracked, Hops hops,
                   const std::vector<std::vector<double>>* leaf_values) {
  const GraphSpec& g = normalized_graph;
  // As normalized() would have them: a missing entry, or one that does not fit its leaf, is the fill.
  static const std::vector<double> kFill;
  const auto values_of = [&](std::size_t i) -> const std::vector<double>& {
    if (leaf_values == nullptr) return g.leaf_values[i];
    if (i >= leaf_values->size() || !values_fit((*leaf_values)[i], g.leaf_shapes[i])) return kFill;
    return (*leaf_values)[i];
  };
  const bool follow = hops == Hops::Follow;
  GraphRun run;
  run.leaves.reserve(g.leaf_shapes.size());
  run.values.reserve(g.leaf_shapes.size() + g.ops.size());
  run.backends = follow ? backends_as_specified(g, backend)
                        : std::vector<std::size_t>(g.leaf_shapes.size() + g.ops.size(), backend);
  for (std::size_t i = 0; i < g.leaf_shapes.size(); ++i) {
    const std::size_t b = run.backends[i];
    TensorSpec leaf = tensor_on(b, PrimitiveKind::Float, g.leaf_shapes[i], dtype, values_of(i));
    run.leaves.push_back(Dispatch::float_from_data(leaf_data(leaf), default_device_of(b, tracked)));
    run.values.push_back(run.leaves.back());
  }
  for (const OpSpec& op : g.ops) {
    const DispatchTensor& lhs = run.values[op.lhs];
    if (is_hop(op.op)) {
      // Ignore: the graph without hops, the value passes through (same tensor, no move).
      run.values.push_back(follow ? moved_to(lhs, op.rhs) : lhs);
      continue;
    }
    if (is_binary(op.op) && follow && run.backends[op.rhs] != run.backends[op.lhs]) {
      const DispatchTensor rhs = moved_to(run.values[op.rhs], run.backends[op.lhs]);  // implicit hop
      run.values.push_back(apply_op(op, lhs, rhs));
      continue;
    }
    run.values.push_back(apply_op(op, lhs, run.values[op.rhs]));
  }
  return run;
}

RerunPlan rerun_plan(const NormalizedGraph& normalized_graph, std::size_t leaf) {
  const GraphSpec& g = normalized_graph;
  const std::size_t leaves = g.leaf_shapes.size();
  const std::size_t n = leaves + g.ops.size();
  if (leaf >= leaves) throw std::logic_error("rerun_plan: no such leaf");
  // changed: computed from the leaf (a hop reads only its lhs: is_binary is false for it, as in
  // read_by_root).
  std::vector<char> changed(n, 0);
  changed[leaf] = 1;
  for (std::size_t k = 0; k < g.ops.size(); ++k) {
    const OpSpec& op = g.ops[k];
    changed[leaves + k] = changed[op.lhs] || (is_binary(op.op) && changed[op.rhs]);
  }
  RerunPlan plan;
  plan.leaf = leaf;
  plan.root_changes = changed[n - 1] != 0;
  if (!plan.root_changes) return plan;
  const std::vector<bool> needed = read_by_root(g);
  for (std::size_t k = 0; k < g.ops.size(); ++k) {
    if (changed[leaves + k] && needed[leaves + k]) plan.ops.push_back(k);
  }
  return plan;
}

DispatchTensor rerun_root(const NormalizedGraph& normalized_graph, const GraphRun& base, std::size_t backend, DType dtype,
                          std::size_t leaf, const std::vector<double>& leaf_values) {
  return rerun_root(normalized_graph, base, backend, dtype, rerun_plan(normalized_graph, leaf), leaf_values);
}

DispatchTensor rerun_root(const NormalizedGraph& normalized_graph, const GraphRun& base, std::size_t backend, DType dtype,
                          const RerunPlan& plan, const std::vector<double>& leaf_values) {
  const GraphSpec& g = normalized_graph;
  const std::size_t leaves = g.leaf_shapes.size();
  const std::size_t n = leaves + g.ops.size();
  if (plan.leaf >= leaves || base.values.size() != n) throw std::logic_error("rerun_root: not a run of this graph, or no such leaf");
  if (!plan.root_changes) return base.values.back();
  // fresh: the values this rerun computes; value[i]: where value i is, fresh or the base run's.
  // A hop passes its input through by pointer: copying a tensor costs a Shape allocation, and a
  // rerun runs four times per sampled point.
  std::vector<std::optional<DispatchTensor>> fresh(n);
  std::vector<const DispatchTensor*> value(n);
  for (std::size_t i = 0; i < n; ++i) value[i] = &base.values[i];
  const std::vector<std::size_t>& shape = g.leaf_shapes[plan.leaf];
  // An F64 leaf with values of its size is exactly TensorData::from_f64 of them (leaf_data's
  // path for it), without the TensorSpec and its copies; anything else goes through leaf_data.
  const bool fits = values_fit(leaf_values, shape);
  TensorData data = fits && dtype == DType::F64 && !leaf_values.empty()
                        ? TensorData::from_f64(leaf_values, Shape(shape))
                        : leaf_data(tensor_on(backend, PrimitiveKind::Float, shape, dtype, fits ? leaf_values : std::vector<double>{}));
  fresh[plan.leaf] = Dispatch::float_from_data(data, default_device_of(backend, false));
  value[plan.leaf] = &*fresh[plan.leaf];
  for (std::size_t k : plan.ops) {
    const OpSpec& op = g.ops[k];
    if (is_hop(op.op)) {
      value[leaves + k] = value[op.lhs];
      continue;
    }
    fresh[leaves + k] = apply_op(op, *value[op.lhs], *value[op.rhs]);
    value[leaves + k] = &*fresh[leaves + k];
  }
  return fresh[n - 1] ? std::move(*fresh[n - 1]) : *value[n - 1];
}

GraphGradients graph_gradients_on(const NormalizedGraph& graph, std::size_t backend, DType dtype, Hops hops) {
  GraphRun run = run_graph(graph, backend, dtype, true, hops);
  Gradients grads = Dispatch::backward(run.root());
  // Note [Every gradient fits its leaf]: every backward of the harness's graphs passes here.
  if (const Failure misfit = gradient_misfit(graph, run, grads, dtype)) throw GradientMisfit("backward gave " + *misfit);
  return {std::move(run), std::move(grads)};
}

GraphGradients graph_gradients_on(const GraphSpec& graph, std::size_t backend, DType dtype, Hops hops) {
  return graph_gradients_on(NormalizedGraph(graph), backend, dtype, hops);
}

GraphGradients graph_gradients(const NormalizedGraph& graph) {
  return graph_gradients_on(graph, graph.spec().backend, graph.spec().dtype, Hops::Follow);
}

GraphGradients graph_gradients(const GraphSpec& graph) { return graph_gradients(NormalizedGraph(graph)); }

}  // namespace crossgrad::oracle
