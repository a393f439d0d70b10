#pragma once
// op_args_fuzzer's scenario: one registry op (by its stored code, oracle::kOpCodeSpace) called
// through Dispatch with raw, possibly invalid, structured arguments: operand tensors as the op's
// Sig needs them, scalars from a table with NaN and infinities, dims that are NOT reduced modulo
// the rank, target shapes, axes and ranges of any length with any values. Which fields follow the
// op code depends on the op's Sig (op_list.hpp), so a code names the same fields in every build
// that lists the op; a code past the registry's last op reads nothing more and is not run.
//
// Every value is stored as a small code into a table below (Note [One schema, two directions]:
// the writer writes the code, the reader reads it back), so scenarios compare with == and seeds
// are readable. Sizes are bounded: rank <= 4, dims <= 5, at most 4 tensors for float_cat.
#include <crossgrad/core/dtype.hpp>
#include <crossgrad/core/shape.hpp>
#include <crossgrad/ops/op_list.hpp>
#include <crossgrad/oracle/graph.hpp>
#include <crossgrad/oracle/reference_ops.hpp>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "decode/backends.hpp"
#include "harness/io.hpp"

namespace crossgrad::fuzz::op_args {

inline constexpr std::size_t kMaxRank = 4;        // operand tensors
inline constexpr std::size_t kMaxTargetRank = 5;  // target shapes (expand may add dims)
inline constexpr std::size_t kDimChoices = 6;     // dims 0..5
inline constexpr std::size_t kMaxCat = 4;
inline constexpr std::size_t kMaxAxes = 5;
inline constexpr std::size_t kMaxRanges = 5;

// Value tables (op_args.cpp). Float: small exact values, ±0, 1/3, 0.1, large, F32 max, values
// that overflow F32, subnormals of F32 and F64, NaN, ±inf. Int: valid indices 0..7, negatives,
// 32-bit extremes, 2^40 and INT64_MIN (converted to the tensor's int dtype, wrapping).
inline constexpr std::size_t kFloatCodes = 32;
inline constexpr std::size_t kIntCodes = 16;
double float_value(std::size_t code);
std::int64_t int_value(std::size_t code);
// The int ops' operands (an int receiver, not int_into_float): codes name the dtype's ends (lowest,
// lowest + 1, highest - 1, highest), small values and values that wrap in the narrow dtypes,
// resolved for the tensor's dtype (kIntCodes of them).
std::int64_t int_operand_value(std::size_t code, DType dtype);
// Dims, axes and range bounds: codes 0..n-2 are themselves, the last code is SIZE_MAX.
inline constexpr std::size_t kDimCodes = 8;    // dim, dim1: 0..6, SIZE_MAX
inline constexpr std::size_t kFftSizeCodes = 8;  // rfft's and irfft's n: 1, 2, 4, 8, 16, 32, then 3 and 0
inline constexpr std::size_t fft_size_value(std::size_t code) { return code < 6 ? std::size_t{1} << code : code == 6 ? 3 : 0; }
inline constexpr std::size_t kAxisCodes = 7;   // 0..5, SIZE_MAX
inline constexpr std::size_t kBoundCodes = 9;  // range start / end: 0..7, SIZE_MAX
std::size_t size_value(std::size_t code, std::size_t codes);
// The int dtypes a tensor of ints can have (index tensors and int receivers): I64, I32, I8, U8
// (index tensors of I8 / U8 are the unsupported-dtype case).
inline constexpr DType kIntDTypes[] = {DType::I64, DType::I32, DType::I8, DType::U8};

// Past the registry, Burn's module ops that Dispatch composes of registry ops (docs/OPS.md "CTC
// loss"). Their codes count down from the top of the code space (kOpCodeSpace - 1 is the graphs'
// hop), so no registry op ever takes one.
inline constexpr std::size_t kCtcLossCode = oracle::kOpCodeSpace - 2;
inline constexpr std::size_t kDeformConv2dCode = oracle::kOpCodeSpace - 3;
static_assert(kOpCount < kDeformConv2dCode, "the registry has reached the composed ops' codes");

// One tensor operand: a shape and, per element, a value code (empty: a deterministic fill of
// finite values / valid small indices). How the codes are read depends on the operand's role.
struct ArgTensor {
  std::vector<std::size_t> shape;
  std::vector<std::uint8_t> codes;
  friend bool operator==(const ArgTensor &, const ArgTensor &) = default;
};

// How a second tensor's shape is given: read, or derived from the first operand so that valid
// arguments are common (Binary: lhs's shape or lhs's with the last two dims swapped; SelectAssign:
// the selected shape; Cat: the first piece's shape with `dim` resized; Gather / Scatter indices:
// the receiver's shape, or it with `dim` resized; Scatter values: the indices' shape; ScatterNd
// values: the gathered shape, or (Derived) it with its first dim one longer).
enum class ShapeMode : std::uint8_t { Explicit, LikeFirst, Derived, kCount };

struct OpArgsCase {
  std::size_t backend = 0;  // registry index
  bool tracked = false;     // receivers on Autodiff(device)
  std::size_t op_code = 0;  // OpId value; >= kOpCount: not an op
  bool f64 = false;         // float operands' dtype
  std::vector<ArgTensor> tensors;  // the float operands (or the int/bool receiver), by Sig
  std::vector<ShapeMode> modes;    // per tensor after the first
  std::vector<std::size_t> sizes;  // Cat: per piece after the first, the size of `dim` (LikeFirst)
  std::size_t int_dtype = 0;       // index into kIntDTypes: index tensors and int receivers
  ArgTensor indices;               // takes_index_tensor Sigs; the mask of takes_mask Sigs
  ShapeMode index_mode = ShapeMode::Explicit;  // Gather, Scatter, masks: how the indices' shape is given
  std::size_t index_size = 0;                  // ... and its size along dim (Derived)
  std::size_t scalar = 0, min = 0, max = 0;  // float codes
  std::size_t alpha = 0, beta = 0;           // float codes (Affine)
  std::size_t times = 0, size = 0, step = 0; // counts 0..kDimChoices-1 (Repeat, Window)
  bool descending = false;                   // Sort
  std::size_t k = 0;                         // TopK: a count 0..kDimChoices-1
  std::size_t update = 0;                    // ScatterUpdate, ScatterNd: index into kIndexingUpdateOps
  std::size_t dim = 0, dim1 = 0;             // dim codes
  std::vector<std::size_t> shape;            // ToShape target
  std::size_t dtype = 0;                     // ToDType target: index into all_dtypes()
  std::vector<std::size_t> axes;             // axis codes
  std::vector<std::pair<std::size_t, std::size_t>> ranges;  // bound codes
  // AvgPool2d, AvgPool2dBackward: kernel_size, stride, padding ([h, w] each), counts 0..kDimChoices-1.
  std::array<std::size_t, 6> window{};
  bool count_include_pad = false, ceil_mode = false;
  Size2 output_size{};  // AdaptivePool2d (and the derived gradient of AdaptivePool2dBackward): counts
  Size2 dilation{};     // MaxPool2d, MaxPool2dBackward (with window[] and ceil_mode): counts
  // Conv2d, Conv2dBackward: stride, padding, dilation ([h, w] each) and groups, counts 0..kDimChoices-1.
  std::array<std::size_t, 7> conv{};
  // ConvTranspose2d, ConvTranspose2dBackward: conv[] as for Conv2d, then padding_out [h, w], counts
  // (the 1-D ops read the width entries of both).
  Size2 padding_out{};
  // Conv3d, Conv3dBackward (with conv[] for height and width): the depth's stride, padding and
  // dilation; ConvTranspose3d, ConvTranspose3dBackward (with conv[] and padding_out[]) also its
  // padding_out. Counts.
  std::array<std::size_t, 4> depth{};
  // Rfft, Irfft (with dim): n given, and its code (fft_size_value: powers of two 1..32, then 3 and 0).
  bool has_fft_size = false;
  std::size_t fft_size = 0;
  // Interpolate, InterpolateBackward (with output_size): the mode code 0..4 (4: one the engine does
  // not know, interpolate-mode) and align_corners.
  std::size_t interpolate_mode = 0;
  bool align_corners = false;
  Size3 output_size_3d{};  // AdaptivePool3d (and the derived gradient of AdaptivePool3dBackward): counts
  // Attention: the mask (in `indices`) and the bias (tensors[3]) given, scale and softcap given
  // (float codes in scalar and max), causal.
  bool attention_mask = false, attention_bias = false, has_scale = false, has_softcap = false, causal = false;
  // ctc_loss (kCtcLossCode): log_probs in tensors[0]; the targets, input lengths and target lengths
  // (I64, int codes) and the blank (a count); the four shapes from the time, batch, classes and
  // max_target counts in ctc_dims ([time, batch, classes], [batch, max_target], [batch], [batch]),
  // or read one by one.
  bool ctc_explicit_shapes = false;
  std::array<std::size_t, 4> ctc_dims{};
  ArgTensor ctc_targets, ctc_input_lengths, ctc_target_lengths;
  std::size_t ctc_blank = 0;
  // deform_conv2d (kDeformConv2dCode): x and the weight in tensors[0] and [1], conv[] as Conv2d's
  // (groups: weight_groups), the offset groups (a count), the offset and, when flagged, the mask and
  // the bias: their shapes derived from x, the weight and the options (deform_conv2d's, conv2d's
  // output size), or read one by one.
  std::size_t deform_offset_groups = 0;
  bool deform_mask = false, deform_bias = false, deform_explicit_shapes = false;
  ArgTensor deform_offset, deform_mask_tensor, deform_bias_tensor;
  friend bool operator==(const OpArgsCase &, const OpArgsCase &) = default;
};

inline bool is_ctc_loss(const OpArgsCase &c) { return c.op_code == kCtcLossCode; }
inline bool is_deform_conv2d(const OpArgsCase &c) { return c.op_code == kDeformConv2dCode; }
// The shapes deform_conv2d expects of its offset, mask and bias for x, the weight and the options
// (rank-4 x and weight; otherwise [0]-shaped placeholders, which the checks refuse anyway).
struct DeformShapes {
  std::vector<std::size_t> offset, mask, bias;
};
DeformShapes deform_shapes(const OpArgsCase &c);

bool is_op(const OpArgsCase &c);
const OpInfo &op_of(const OpArgsCase &c);  // only when is_op(c)

template <class Io>
void shape(Io &io, std::vector<std::size_t> &dims, std::size_t max_rank) {
  list(io, dims, max_rank, [](Io &i, std::size_t &d) { i.pick(d, kDimChoices); });
}

// The codes of a tensor whose shape is known; the explicit flag first.
template <class Io>
void codes(Io &io, ArgTensor &t, std::size_t code_count) {
  bool explicit_codes = !t.codes.empty();
  io.flag(explicit_codes);
  if (!explicit_codes) {
    t.codes.clear();
    return;
  }
  std::size_t n = 1;
  for (std::size_t d : t.shape) n *= d;
  t.codes.resize(n);
  for (std::uint8_t &code : t.codes) {
    std::size_t v = code;
    io.pick(v, code_count);
    code = static_cast<std::uint8_t>(v);
  }
  if (n == 0) t.codes.clear();  // nothing to say: reads back as the fill
}

template <class Io>
void tensor(Io &io, ArgTensor &t, std::size_t code_count, std::size_t max_rank = kMaxRank) {
  shape(io, t.shape, max_rank);
  codes(io, t, code_count);
}

// The receiver's largest rank: kMaxRank, but one more for the 3-D module ops ([batch, channels,
// depth, height, width]). Only their op codes read the rank byte modulo 6, so every input of
// another op keeps its meaning.
// The 3-D convolutions, whose operands are all of rank 5.
inline bool is_volume_conv(OpSig sig) {
  return sig == OpSig::Conv3d || sig == OpSig::Conv3dBackward || sig == OpSig::Conv3dBiasBackward ||
         sig == OpSig::ConvTranspose3d || sig == OpSig::ConvTranspose3dBackward;
}
inline std::size_t receiver_max_rank(OpSig sig) {
  return sig == OpSig::AdaptivePool3d || sig == OpSig::AdaptivePool3dBackward || is_volume_conv(sig) ? kMaxRank + 1 : kMaxRank;
}
// An explicit shape after the first: rank 5 for the 3-D convolutions' weights and gradients (the
// other ops' stay at kMaxRank, so that their stored seeds keep their meaning).
inline std::size_t later_max_rank(OpSig sig) { return is_volume_conv(sig) ? kMaxRank + 1 : kMaxRank; }

// A tensor after the first: its mode, then its shape (when Explicit) and codes.
template <class Io>
void later_tensor(Io &io, OpArgsCase &c, std::size_t k, std::size_t code_count,
                  std::vector<std::size_t> (*derive)(const OpArgsCase &, ShapeMode, std::size_t)) {
  if (c.tensors.size() < k + 1) c.tensors.resize(k + 1);
  if (c.modes.size() < k) c.modes.resize(k);
  io.pick_enum(c.modes[k - 1], static_cast<std::size_t>(ShapeMode::kCount));
  if (c.modes[k - 1] == ShapeMode::Explicit)
    shape(io, c.tensors[k].shape, later_max_rank(op_of(c).sig));
  else if constexpr (Io::reading)
    c.tensors[k].shape = derive(c, c.modes[k - 1], k);
  codes(io, c.tensors[k], code_count);
}

// An optional tensor operand k (Burn's Option: a bias): a flag, then the tensor when it is set;
// read back absent, the case holds k tensors.
template <class Io>
void optional_tensor(Io &io, OpArgsCase &c, std::size_t k,
                     std::vector<std::size_t> (*derive)(const OpArgsCase &, ShapeMode, std::size_t)) {
  bool present = c.tensors.size() > k;
  io.flag(present);
  if (present) later_tensor(io, c, k, kFloatCodes, derive);
  if constexpr (Io::reading) {
    if (!present) c.tensors.resize(k);
  }
}

// interpolate's mode codes: InterpolateMode's four, then one past them.
inline constexpr std::size_t kInterpolateModeCodes = 5;
InterpolateOptions interpolate_options(const OpArgsCase &c);

// The derived shapes (op_args.cpp).
std::vector<std::size_t> binary_rhs_shape(const OpArgsCase &c, ShapeMode mode, std::size_t k);
std::vector<std::size_t> assign_values_shape(const OpArgsCase &c, ShapeMode mode, std::size_t k);
std::vector<std::size_t> gather_index_shape(const OpArgsCase &c);
std::vector<std::size_t> mask_shape(const OpArgsCase &c);
std::vector<std::size_t> scatter_values_shape(const OpArgsCase &c, ShapeMode mode, std::size_t k);
std::vector<std::size_t> block_values_shape(const OpArgsCase &c, ShapeMode mode, std::size_t k);
std::vector<std::size_t> nd_index_shape(const OpArgsCase &c);
std::vector<std::size_t> nd_values_shape(const OpArgsCase &c, ShapeMode mode, std::size_t k);
// A pooling's gradient (AvgPool2dBackward, AdaptivePool2dBackward, InterpolateBackward): LikeFirst the forward output's
// shape (the receiver's when the forward is invalid), Derived that with its batch one larger.
std::vector<std::size_t> pool_grad_shape(const OpArgsCase &c, ShapeMode mode, std::size_t k);
// embedding_backward's gradient: the forward output's shape [indices[0], indices[1], weights[1]]
// (the weights' shape when either rank is not 2), with its first dim one larger under Derived.
std::vector<std::size_t> embedding_grad_shape(const OpArgsCase &c, ShapeMode mode, std::size_t k);
// linear's and its backward passes' later operands (Linear: the weight [x's last dim, 3], then the
// bias [the weight's d_output]; LinearXBackward: the gradient [2, the weight's d_output];
// LinearWeightBackward: the gradient, x's leading dims and 3). Derived makes one dim one larger:
// the size the operands share, or the gradient's first (a gradient that does not fit).
std::vector<std::size_t> linear_operand_shape(const OpArgsCase &c, ShapeMode mode, std::size_t k);
// batch_norm's weight, bias, mean and variance: [x's dim 1] (Derived: one larger).
std::vector<std::size_t> batch_norm_operand_shape(const OpArgsCase &c, ShapeMode mode, std::size_t k);
// layer_norm's weight and bias: [x's last dim] (Derived: one larger).
std::vector<std::size_t> layer_norm_operand_shape(const OpArgsCase &c, ShapeMode mode, std::size_t k);
// attention's key [query's batch, heads, 3, head_dim], value [the key's batch, heads, seq_k, 2] and
// bias (the scores' shape [batch, heads, seq_q, seq_k]); Derived makes dim 2 (the key's, the
// value's) or dim 3 (the bias's) one larger.
std::vector<std::size_t> attention_operand_shape(const OpArgsCase &c, ShapeMode mode, std::size_t k);
AttentionOptions attention_options(const OpArgsCase &c);
// conv2d's later operands: the weight [2 groups, x's channels / groups, 2, 2], the bias [the
// weight's channels_out], the gradient (the forward output's shape; x's when the forward is
// invalid); conv2d_bias_backward's bias [3] and gradient [x's batch, the bias's size, 2, 2].
// Derived makes the weight's dim 1 one larger (a weight for other channels), any other operand's
// first dim (a shape that does not fit).
std::vector<std::size_t> conv_operand_shape(const OpArgsCase &c, ShapeMode mode, std::size_t k);
Conv2dOptions conv2d_options(const OpArgsCase &c);
ConvTranspose2dOptions conv_transpose2d_options(const OpArgsCase &c);
Conv1dOptions conv1d_options(const OpArgsCase &c);  // conv[] as for Conv2d, its widths' entries
ConvTranspose1dOptions conv_transpose1d_options(const OpArgsCase &c);  // conv[] and padding_out's widths' entries
Conv3dOptions conv3d_options(const OpArgsCase &c);  // depth[0..2] before conv[]'s height and width entries
ConvTranspose3dOptions conv_transpose3d_options(const OpArgsCase &c);  // depth[] before conv[]'s and padding_out's
AvgPool2dOptions avg_pool2d_options(const OpArgsCase &c);
MaxPool2dOptions max_pool2d_options(const OpArgsCase &c);
// The 1-D poolings read the width entries: window[1], [3], [5], dilation[1], output_size[1].
AvgPool1dOptions avg_pool1d_options(const OpArgsCase &c);
MaxPool1dOptions max_pool1d_options(const OpArgsCase &c);
// unfold4d, fold4d: window[] as kernel_size, stride, padding ([h, w] each), then dilation (fold4d's
// output size is output_size).
Size2 unfold_kernel(const OpArgsCase &c);
UnfoldOptions unfold_options(const OpArgsCase &c);

template <class Io>
void pool_window(Io &io, OpArgsCase &c) {
  for (std::size_t &v : c.window) io.pick(v, kDimChoices);
  io.flag(c.count_include_pad);
  io.flag(c.ceil_mode);
}
template <class Io>
void max_pool_window(Io &io, OpArgsCase &c) {
  for (std::size_t &v : c.window) io.pick(v, kDimChoices);
  for (std::size_t &v : c.dilation) io.pick(v, kDimChoices);
  io.flag(c.ceil_mode);
}
// max_pool2d_with_indices_backward's indices: an explicit shape, the gradient's (LikeFirst), or it
// with its batch one larger (Derived); values from the int table (0..7 are cells of small planes).
template <class Io>
void pool_index_tensor(Io &io, OpArgsCase &c) {
  io.pick(c.int_dtype, std::size(kIntDTypes));
  io.pick_enum(c.index_mode, static_cast<std::size_t>(ShapeMode::kCount));
  if (c.index_mode == ShapeMode::Explicit) {
    shape(io, c.indices.shape, kMaxRank);
  } else if constexpr (Io::reading) {
    c.indices.shape = c.tensors.size() > 1 ? c.tensors[1].shape : std::vector<std::size_t>{};
    if (c.index_mode == ShapeMode::Derived && !c.indices.shape.empty()) ++c.indices.shape[0];
  }
  codes(io, c.indices, kIntCodes);
}
template <class Io>
void output_size(Io &io, OpArgsCase &c) {
  for (std::size_t &v : c.output_size) io.pick(v, kDimChoices);
}

template <class Io>
void index_tensor(Io &io, OpArgsCase &c) {
  io.pick(c.int_dtype, std::size(kIntDTypes));
  list(io, c.indices.shape, 2, [](Io &i, std::size_t &d) { i.pick(d, kDimChoices); });
  codes(io, c.indices, kIntCodes);
}

// One index per element (Gather, Scatter): an explicit shape, or the receiver's (resized along dim).
template <class Io>
void gather_index_tensor(Io &io, OpArgsCase &c) {
  io.pick(c.int_dtype, std::size(kIntDTypes));
  io.pick_enum(c.index_mode, static_cast<std::size_t>(ShapeMode::kCount));
  if (c.index_mode == ShapeMode::Explicit) {
    shape(io, c.indices.shape, kMaxRank);
  } else {
    io.pick(c.index_size, kDimChoices);
    if constexpr (Io::reading) c.indices.shape = gather_index_shape(c);
  }
  codes(io, c.indices, kIntCodes);
}

// Index rows (GatherNd, ScatterNd): an explicit shape of rank <= 3, or [rows, k] with rows and
// k (the coordinates per row: up to the receiver's rank and one past it) read as counts.
template <class Io>
void nd_index_tensor(Io &io, OpArgsCase &c) {
  io.pick(c.int_dtype, std::size(kIntDTypes));
  io.pick_enum(c.index_mode, static_cast<std::size_t>(ShapeMode::kCount));
  if (c.index_mode == ShapeMode::Explicit) {
    shape(io, c.indices.shape, 3);
  } else {
    io.pick(c.index_size, kDimChoices);
    io.pick(c.k, kDimChoices);
    if constexpr (Io::reading) c.indices.shape = nd_index_shape(c);
  }
  codes(io, c.indices, kIntCodes);
}

// A mask (MaskWhere, MaskFill, MaskSelect): the receiver's shape, its last dim alone (broadcast), or explicit;
// a Bool tensor unless int_dtype names an int dtype (kMaskDTypeChoices: mostly Bool).
inline constexpr std::size_t kMaskDTypeChoices = std::size(kIntDTypes) + 4;
template <class Io>
void mask_tensor(Io &io, OpArgsCase &c) {
  io.pick(c.int_dtype, kMaskDTypeChoices);
  io.pick_enum(c.index_mode, static_cast<std::size_t>(ShapeMode::kCount));
  if (c.index_mode == ShapeMode::Explicit) {
    shape(io, c.indices.shape, kMaxRank);
  } else if constexpr (Io::reading) {
    c.indices.shape = mask_shape(c);
  }
  codes(io, c.indices, kIntCodes);
}

template <class Io>
void ctc_loss_schema(Io &io, OpArgsCase &c) {
  // Reading starts afresh; a case written here may come from another op (the mutators' crossover
  // and op-code changes) and hold no tensor yet.
  if constexpr (Io::reading) c.tensors.assign(1, ArgTensor{});
  if (c.tensors.empty()) c.tensors.resize(1);
  io.pick(c.ctc_blank, kDimChoices);
  io.flag(c.ctc_explicit_shapes);
  if (c.ctc_explicit_shapes) {
    for (std::vector<std::size_t> *dims :
         {&c.tensors[0].shape, &c.ctc_targets.shape, &c.ctc_input_lengths.shape, &c.ctc_target_lengths.shape})
      shape(io, *dims, kMaxRank);
  } else {
    for (std::size_t &d : c.ctc_dims) io.pick(d, kDimChoices);
    if constexpr (Io::reading) {
      const auto [time, batch, classes, max_target] = c.ctc_dims;
      c.tensors[0].shape = {time, batch, classes};
      c.ctc_targets.shape = {batch, max_target};
      c.ctc_input_lengths.shape = {batch};
      c.ctc_target_lengths.shape = {batch};
    }
  }
  codes(io, c.tensors[0], kFloatCodes);
  for (ArgTensor *t : {&c.ctc_targets, &c.ctc_input_lengths, &c.ctc_target_lengths}) codes(io, *t, kIntCodes);
}

template <class Io>
void deform_conv2d_schema(Io &io, OpArgsCase &c) {
  if constexpr (Io::reading) c.tensors.assign(2, ArgTensor{});
  if (c.tensors.size() < 2) c.tensors.resize(2);  // as ctc_loss_schema
  tensor(io, c.tensors[0], kFloatCodes);
  tensor(io, c.tensors[1], kFloatCodes);
  for (std::size_t &v : c.conv) io.pick(v, kDimChoices);
  io.pick(c.deform_offset_groups, kDimChoices);
  io.flag(c.deform_mask);
  io.flag(c.deform_bias);
  io.flag(c.deform_explicit_shapes);
  if (c.deform_explicit_shapes) {
    shape(io, c.deform_offset.shape, kMaxRank);
    if (c.deform_mask) shape(io, c.deform_mask_tensor.shape, kMaxRank);
    if (c.deform_bias) shape(io, c.deform_bias_tensor.shape, kMaxRank);
  } else if constexpr (Io::reading) {
    DeformShapes d = deform_shapes(c);
    c.deform_offset.shape = std::move(d.offset);
    if (c.deform_mask) c.deform_mask_tensor.shape = std::move(d.mask);
    if (c.deform_bias) c.deform_bias_tensor.shape = std::move(d.bias);
  }
  codes(io, c.deform_offset, kFloatCodes);
  if (c.deform_mask) codes(io, c.deform_mask_tensor, kFloatCodes);
  if (c.deform_bias) codes(io, c.deform_bias_tensor, kFloatCodes);
}

template <class Io>
void schema(Io &io, OpArgsCase &c) {
  backend(io, c.backend);
  io.flag(c.tracked);
  io.pick(c.op_code, oracle::kOpCodeSpace);
  io.flag(c.f64);
  if (is_ctc_loss(c)) {
    ctc_loss_schema(io, c);
    return;
  }
  if (is_deform_conv2d(c)) {
    deform_conv2d_schema(io, c);
    return;
  }
  if (!is_op(c)) return;
  const OpInfo &op = op_of(c);
  if constexpr (Io::reading) c.tensors.assign(op.sig == OpSig::Cat ? 0 : 1, ArgTensor{});
  // The receiver of a non-float op (int/bool -> float conversions) holds ints or bools.
  const std::size_t receiver_codes = op.operand == OpKind::Float ? kFloatCodes : kIntCodes;
  if (op.operand == OpKind::Int) io.pick(c.int_dtype, std::size(kIntDTypes));
  if (op.sig != OpSig::Cat) tensor(io, c.tensors[0], receiver_codes, receiver_max_rank(op.sig));
  switch (op.sig) {
    case OpSig::Unary:
      break;
    case OpSig::Binary:
      // An int or bool op's second operand is of its receiver's kind.
      later_tensor(io, c, 1, receiver_codes, &binary_rhs_shape);
      break;
    case OpSig::Scalar:
      io.pick(c.scalar, kFloatCodes);
      break;
    case OpSig::Bounds:
      io.pick(c.min, kFloatCodes);
      io.pick(c.max, kFloatCodes);
      break;
    case OpSig::Dim:
      io.pick(c.dim, kDimCodes);
      break;
    case OpSig::Rfft:
    case OpSig::Irfft:
      io.pick(c.dim, kDimCodes);
      io.flag(c.has_fft_size);
      if (c.has_fft_size) io.pick(c.fft_size, kFftSizeCodes);
      if (op.sig == OpSig::Irfft) later_tensor(io, c, 1, kFloatCodes, &binary_rhs_shape);  // the imaginary part
      break;
    case OpSig::DimPair:
      io.pick(c.dim, kDimCodes);
      io.pick(c.dim1, kDimCodes);
      break;
    case OpSig::ToShape:
      shape(io, c.shape, kMaxTargetRank);
      break;
    case OpSig::ToDType:
      io.pick(c.dtype, all_dtypes().size());
      break;
    case OpSig::Axes:
      list(io, c.axes, kMaxAxes, [](Io &i, std::size_t &a) { i.pick(a, kAxisCodes); });
      break;
    case OpSig::Ranges:
      list(io, c.ranges, kMaxRanges, [](Io &i, std::pair<std::size_t, std::size_t> &r) {
        i.pick(r.first, kBoundCodes);
        i.pick(r.second, kBoundCodes);
      });
      break;
    case OpSig::RangesAssign:
      list(io, c.ranges, kMaxRanges, [](Io &i, std::pair<std::size_t, std::size_t> &r) {
        i.pick(r.first, kBoundCodes);
        i.pick(r.second, kBoundCodes);
      });
      later_tensor(io, c, 1, kFloatCodes, &block_values_shape);
      break;
    case OpSig::Select:
      io.pick(c.dim, kDimCodes);
      index_tensor(io, c);
      break;
    case OpSig::SelectAssign:
      io.pick(c.dim, kDimCodes);
      index_tensor(io, c);
      later_tensor(io, c, 1, kFloatCodes, &assign_values_shape);
      break;
    case OpSig::Gather:
      io.pick(c.dim, kDimCodes);
      gather_index_tensor(io, c);
      break;
    case OpSig::Scatter:
      io.pick(c.dim, kDimCodes);
      gather_index_tensor(io, c);
      later_tensor(io, c, 1, kFloatCodes, &scatter_values_shape);
      break;
    case OpSig::ScatterUpdate:
      io.pick(c.dim, kDimCodes);
      gather_index_tensor(io, c);
      later_tensor(io, c, 1, kFloatCodes, &scatter_values_shape);
      io.pick(c.update, std::size(kIndexingUpdateOps));
      break;
    case OpSig::GatherNd:
      nd_index_tensor(io, c);
      break;
    case OpSig::ScatterNd:
      nd_index_tensor(io, c);
      later_tensor(io, c, 1, kFloatCodes, &nd_values_shape);
      io.pick(c.update, std::size(kIndexingUpdateOps));
      break;
    case OpSig::BinaryDim:
      // An int or bool op's second operand is of its receiver's kind.
      later_tensor(io, c, 1, receiver_codes, &binary_rhs_shape);
      io.pick(c.dim, kDimCodes);
      break;
    case OpSig::Affine:
      io.pick(c.alpha, kFloatCodes);
      io.pick(c.beta, kFloatCodes);
      break;
    case OpSig::Repeat:
      io.pick(c.dim, kDimCodes);
      io.pick(c.times, kDimChoices);
      break;
    case OpSig::Window:
      io.pick(c.dim, kDimCodes);
      io.pick(c.size, kDimChoices);
      io.pick(c.step, kDimChoices);
      break;
    case OpSig::Sort:
      io.pick(c.dim, kDimCodes);
      io.flag(c.descending);
      break;
    case OpSig::TopK:
      io.pick(c.dim, kDimCodes);
      io.pick(c.k, kDimChoices);
      break;
    case OpSig::MaskWhere:
      mask_tensor(io, c);
      // An int or bool op's second operand is of its receiver's kind.
      later_tensor(io, c, 1, receiver_codes, &binary_rhs_shape);
      break;
    case OpSig::MaskSelect:
      mask_tensor(io, c);
      break;
    case OpSig::MaskFill:
      mask_tensor(io, c);
      io.pick(c.scalar, kFloatCodes);
      break;
    case OpSig::AvgPool2d:
    case OpSig::AvgPool1d:
      pool_window(io, c);
      break;
    case OpSig::AvgPool2dBackward:
    case OpSig::AvgPool1dBackward:
      pool_window(io, c);
      later_tensor(io, c, 1, kFloatCodes, &pool_grad_shape);
      break;
    case OpSig::AdaptivePool2d:
    case OpSig::AdaptivePool1d:
      output_size(io, c);
      break;
    case OpSig::MaxPool2d:
    case OpSig::MaxPool1d:
      max_pool_window(io, c);
      break;
    case OpSig::MaxPool2dBackward:
    case OpSig::MaxPool1dBackward:
      max_pool_window(io, c);
      later_tensor(io, c, 1, kFloatCodes, &pool_grad_shape);
      pool_index_tensor(io, c);
      break;
    case OpSig::Fold4d:
      output_size(io, c);
      [[fallthrough]];
    case OpSig::Unfold4d:
      for (std::size_t &v : c.window) io.pick(v, kDimChoices);
      for (std::size_t &v : c.dilation) io.pick(v, kDimChoices);
      break;
    case OpSig::AdaptivePool1dBackward:
    case OpSig::AdaptivePool2dBackward:
      output_size(io, c);
      later_tensor(io, c, 1, kFloatCodes, &pool_grad_shape);
      break;
    case OpSig::AdaptivePool3d:
    case OpSig::AdaptivePool3dBackward:
      for (std::size_t &v : c.output_size_3d) io.pick(v, kDimChoices);
      if (op_of(c).sig == OpSig::AdaptivePool3dBackward) later_tensor(io, c, 1, kFloatCodes, &pool_grad_shape);
      break;
    case OpSig::Interpolate:
    case OpSig::InterpolateBackward:
      output_size(io, c);
      io.pick(c.interpolate_mode, kInterpolateModeCodes);
      io.flag(c.align_corners);
      if (op_of(c).sig == OpSig::InterpolateBackward) later_tensor(io, c, 1, kFloatCodes, &pool_grad_shape);
      break;
    case OpSig::Embedding:
      index_tensor(io, c);
      break;
    case OpSig::EmbeddingBackward:
      index_tensor(io, c);
      later_tensor(io, c, 1, kFloatCodes, &embedding_grad_shape);
      break;
    case OpSig::Linear: {
      later_tensor(io, c, 1, kFloatCodes, &linear_operand_shape);
      optional_tensor(io, c, 2, &linear_operand_shape);
      break;
    }
    case OpSig::LinearXBackward:
    case OpSig::LinearWeightBackward:
      later_tensor(io, c, 1, kFloatCodes, &linear_operand_shape);
      break;
    case OpSig::LayerNorm: {
      later_tensor(io, c, 1, kFloatCodes, &layer_norm_operand_shape);
      optional_tensor(io, c, 2, &layer_norm_operand_shape);
      io.pick(c.scalar, kFloatCodes);  // epsilon
      break;
    }
    case OpSig::BatchNorm:
      for (std::size_t k = 1; k <= 4; ++k) later_tensor(io, c, k, kFloatCodes, &batch_norm_operand_shape);
      io.pick(c.scalar, kFloatCodes);  // epsilon
      break;
    case OpSig::Attention: {
      later_tensor(io, c, 1, kFloatCodes, &attention_operand_shape);  // key
      later_tensor(io, c, 2, kFloatCodes, &attention_operand_shape);  // value
      io.flag(c.attention_mask);
      if (c.attention_mask) mask_tensor(io, c);  // of the scores' shape, unless Explicit
      io.flag(c.attention_bias);
      if (c.attention_bias) later_tensor(io, c, 3, kFloatCodes, &attention_operand_shape);
      if constexpr (Io::reading) {
        if (!c.attention_bias) c.tensors.resize(3);
      }
      io.flag(c.has_scale);
      if (c.has_scale) io.pick(c.scalar, kFloatCodes);
      io.flag(c.has_softcap);
      if (c.has_softcap) io.pick(c.max, kFloatCodes);
      io.flag(c.causal);
      break;
    }
    case OpSig::LinearBiasBackward:
      break;
    case OpSig::Conv2d: {
      for (std::size_t &v : c.conv) io.pick(v, kDimChoices);
      later_tensor(io, c, 1, kFloatCodes, &conv_operand_shape);
      optional_tensor(io, c, 2, &conv_operand_shape);
      break;
    }
    case OpSig::Conv2dBackward:
      for (std::size_t &v : c.conv) io.pick(v, kDimChoices);
      later_tensor(io, c, 1, kFloatCodes, &conv_operand_shape);
      later_tensor(io, c, 2, kFloatCodes, &conv_operand_shape);
      break;
    case OpSig::Conv2dBiasBackward:
      later_tensor(io, c, 1, kFloatCodes, &conv_operand_shape);
      later_tensor(io, c, 2, kFloatCodes, &conv_operand_shape);
      break;
    case OpSig::Conv1d: {
      for (std::size_t &v : c.conv) io.pick(v, kDimChoices);
      later_tensor(io, c, 1, kFloatCodes, &conv_operand_shape);
      optional_tensor(io, c, 2, &conv_operand_shape);
      break;
    }
    case OpSig::Conv1dBackward:
      for (std::size_t &v : c.conv) io.pick(v, kDimChoices);
      later_tensor(io, c, 1, kFloatCodes, &conv_operand_shape);
      later_tensor(io, c, 2, kFloatCodes, &conv_operand_shape);
      break;
    case OpSig::Conv1dBiasBackward:
      later_tensor(io, c, 1, kFloatCodes, &conv_operand_shape);
      later_tensor(io, c, 2, kFloatCodes, &conv_operand_shape);
      break;
    case OpSig::ConvTranspose2d:
    case OpSig::ConvTranspose1d: {
      for (std::size_t &v : c.conv) io.pick(v, kDimChoices);
      for (std::size_t &v : c.padding_out) io.pick(v, kDimChoices);
      later_tensor(io, c, 1, kFloatCodes, &conv_operand_shape);
      optional_tensor(io, c, 2, &conv_operand_shape);
      break;
    }
    case OpSig::ConvTranspose2dBackward:
    case OpSig::ConvTranspose1dBackward:
      for (std::size_t &v : c.conv) io.pick(v, kDimChoices);
      for (std::size_t &v : c.padding_out) io.pick(v, kDimChoices);
      later_tensor(io, c, 1, kFloatCodes, &conv_operand_shape);
      later_tensor(io, c, 2, kFloatCodes, &conv_operand_shape);
      break;
    case OpSig::Conv3d:
    case OpSig::Conv3dBackward:
    case OpSig::ConvTranspose3d:
    case OpSig::ConvTranspose3dBackward: {
      const bool transposed = op.sig == OpSig::ConvTranspose3d || op.sig == OpSig::ConvTranspose3dBackward;
      for (std::size_t &v : c.conv) io.pick(v, kDimChoices);
      if (transposed) {
        for (std::size_t &v : c.padding_out) io.pick(v, kDimChoices);
      }
      for (std::size_t d = 0; d < (transposed ? 4u : 3u); ++d) io.pick(c.depth[d], kDimChoices);
      later_tensor(io, c, 1, kFloatCodes, &conv_operand_shape);
      if (op.sig == OpSig::Conv3d || op.sig == OpSig::ConvTranspose3d) {
        optional_tensor(io, c, 2, &conv_operand_shape);
      } else {
        later_tensor(io, c, 2, kFloatCodes, &conv_operand_shape);
      }
      break;
    }
    case OpSig::Conv3dBiasBackward:
      later_tensor(io, c, 1, kFloatCodes, &conv_operand_shape);
      later_tensor(io, c, 2, kFloatCodes, &conv_operand_shape);
      break;
    case OpSig::Cat: {
      io.pick(c.dim, kDimCodes);
      std::size_t n = c.tensors.size();
      io.count(n, 0, kMaxCat);
      if constexpr (Io::reading) c.tensors.assign(n, ArgTensor{});
      c.modes.resize(n ? n - 1 : 0);
      c.sizes.resize(n ? n - 1 : 0);
      for (std::size_t k = 0; k < n; ++k) {
        if (k == 0) {
          tensor(io, c.tensors[0], kFloatCodes);
          continue;
        }
        // Explicit, or the first piece's shape with `dim` (when it names one) resized.
        io.pick_enum(c.modes[k - 1], static_cast<std::size_t>(ShapeMode::kCount));
        if (c.modes[k - 1] == ShapeMode::Explicit) {
          c.sizes[k - 1] = 0;
          shape(io, c.tensors[k].shape, kMaxRank);
        } else {
          io.pick(c.sizes[k - 1], kDimChoices);
          if constexpr (Io::reading) {
            c.tensors[k].shape = c.tensors[0].shape;
            const std::size_t d = size_value(c.dim, kDimCodes);
            if (d < c.tensors[k].shape.size()) c.tensors[k].shape[d] = c.sizes[k - 1];
          }
        }
        codes(io, c.tensors[k], kFloatCodes);
      }
      break;
    }
  }
}

std::string describe(const OpArgsCase &c);

// What the codes mean: the operands as host values (already in their dtype: F32 values rounded,
// ints converted, wrapping, to the int dtype), in reference_op's order, and the arguments.
struct ReferenceCall {
  std::vector<oracle::HostArray> operands;
  oracle::OpArgs args;
};
ReferenceCall reference_call(const OpArgsCase &c);  // only when is_op(c)

// ctc_loss's operands on the host (only when is_ctc_loss(c)): log_probs in the case's float dtype,
// the int operands as I64 values, each with its shape.
struct CtcLossCall {
  oracle::HostArray log_probs;
  oracle::HostArray targets, input_lengths, target_lengths;  // I64
  std::size_t blank = 0;
};
CtcLossCall ctc_loss_call(const OpArgsCase &c);

// deform_conv2d's operands on the host (only when is_deform_conv2d(c)), in the case's float dtype,
// and its options; `conv2d` is the case as conv2d(x, weight, bias) with the same geometry, whose
// reference names the panics of the checks deform_conv2d shares with it.
struct DeformConv2dCall {
  oracle::HostArray x, offset, weight;
  std::optional<oracle::HostArray> mask, bias;
  DeformConv2dOptions options;
  OpArgsCase conv2d;
};
DeformConv2dCall deform_conv2d_call(const OpArgsCase &c);

}  // namespace crossgrad::fuzz::op_args
