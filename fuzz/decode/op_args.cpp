#include "decode/op_args.hpp"

#include <crossgrad/oracle/render.hpp>
#include <limits>
#include <sstream>
#include <utility>

namespace crossgrad::fuzz::op_args {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kFloats[kFloatCodes] = {
    0.0,    -0.0,  1.0,     -1.0,  0.5,    -0.5,    2.0,   -2.0,   3.0,   -3.0,   1.5,
    -2.5,   0.25,  7.0,     -7.0,  0.1,    1.0 / 3, 100.0, -100.0, 65504, 1e-3,   1e30,
    -1e30,  3.4e38, 1e300,  -1e300, 1e-40, 5e-324, std::numeric_limits<double>::quiet_NaN(), kInf,
    -kInf,  4096.0};
constexpr std::int64_t kInts[kIntCodes] = {0,   1,    2,          3,           4,          5,
                                           -1,  -2,   6,          7,           100,        -100,
                                           2147483647, -2147483647 - 1, std::int64_t{1} << 40,
                                           std::numeric_limits<std::int64_t>::min()};
}  // namespace

double float_value(std::size_t code) { return kFloats[code % kFloatCodes]; }

std::int64_t int_operand_value(std::size_t code, DType dtype) {
  const auto [lowest, highest] = [&]() -> std::pair<std::int64_t, std::int64_t> {
    if (dtype == DType::I64) return {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
    if (dtype == DType::I32) return {std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()};
    if (dtype == DType::I8) return {-128, 127};
    return {0, 255};
  }();
  const std::int64_t table[kIntCodes] = {0, 1, -1, 2, -2, 3, 7, -7, 100, lowest, lowest + 1, highest, highest - 1,
                                         std::int64_t{1} << 40, 128, -129};
  const std::int64_t v = table[code % kIntCodes];
  // Values beyond a narrow dtype wrap into it (two's complement), as int_scalar does.
  if (dtype == DType::I32) return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
  if (dtype == DType::I8) return static_cast<std::int8_t>(static_cast<std::uint8_t>(v));
  if (dtype == DType::U8) return static_cast<std::uint8_t>(v);
  return v;
}
std::int64_t int_value(std::size_t code) { return kInts[code % kIntCodes]; }
std::size_t size_value(std::size_t code, std::size_t codes) {
  return code + 1 >= codes ? std::numeric_limits<std::size_t>::max() : code;
}

bool is_op(const OpArgsCase &c) { return c.op_code < kOpCount; }
const OpInfo &op_of(const OpArgsCase &c) { return kOps[c.op_code]; }

AvgPool2dOptions avg_pool2d_options(const OpArgsCase &c) {
  AvgPool2dOptions o;
  o.kernel_size = {c.window[0], c.window[1]};
  o.stride = {c.window[2], c.window[3]};
  o.padding = {c.window[4], c.window[5]};
  o.count_include_pad = c.count_include_pad;
  o.ceil_mode = c.ceil_mode;
  return o;
}

Conv2dOptions conv2d_options(const OpArgsCase &c) {
  Conv2dOptions o;
  o.stride = {c.conv[0], c.conv[1]};
  o.padding = {c.conv[2], c.conv[3]};
  o.dilation = {c.conv[4], c.conv[5]};
  o.groups = c.conv[6];
  return o;
}

ConvTranspose2dOptions conv_transpose2d_options(const OpArgsCase &c) {
  const Conv2dOptions conv = conv2d_options(c);
  ConvTranspose2dOptions o;
  o.stride = conv.stride;
  o.padding = conv.padding;
  o.padding_out = c.padding_out;
  o.dilation = conv.dilation;
  o.groups = conv.groups;
  return o;
}

Conv1dOptions conv1d_options(const OpArgsCase &c) {
  return Conv1dOptions{{c.conv[1]}, {c.conv[3]}, {c.conv[5]}, c.conv[6]};
}

ConvTranspose1dOptions conv_transpose1d_options(const OpArgsCase &c) {
  return ConvTranspose1dOptions{{c.conv[1]}, {c.conv[3]}, {c.padding_out[1]}, {c.conv[5]}, c.conv[6]};
}

Conv3dOptions conv3d_options(const OpArgsCase &c) {
  return Conv3dOptions{{c.depth[0], c.conv[0], c.conv[1]}, {c.depth[1], c.conv[2], c.conv[3]},
                       {c.depth[2], c.conv[4], c.conv[5]}, c.conv[6]};
}

ConvTranspose3dOptions conv_transpose3d_options(const OpArgsCase &c) {
  const Conv3dOptions conv = conv3d_options(c);
  return ConvTranspose3dOptions{conv.stride, conv.padding, {c.depth[3], c.padding_out[0], c.padding_out[1]}, conv.dilation,
                                conv.groups};
}

std::vector<std::size_t> conv_operand_shape(const OpArgsCase &c, ShapeMode mode, std::size_t k) {
  const std::vector<std::size_t> &x = c.tensors[0].shape;
  const OpSig sig = op_of(c).sig;
  std::vector<std::size_t> out;
  if (sig == OpSig::Conv3dBiasBackward) {  // {x, bias, grad}
    out = k == 1 ? std::vector<std::size_t>{3}
                 : std::vector<std::size_t>{x.empty() ? 1 : x[0], c.tensors[1].shape.empty() ? 1 : c.tensors[1].shape[0], 2, 2, 2};
  } else if (k == 1 && (sig == OpSig::Conv3d || sig == OpSig::Conv3dBackward)) {  // the weight
    const std::size_t groups = c.conv[6] == 0 ? 1 : c.conv[6];
    out = {2 * groups, x.size() == 5 ? x[1] / groups : 1, 2, 2, 2};
  } else if (sig == OpSig::Conv3d) {  // the bias
    out = {c.tensors[1].shape.empty() ? 1 : c.tensors[1].shape[0]};
  } else if (sig == OpSig::Conv3dBackward) {  // the gradient
    out = x;
    if (const auto shape = oracle::conv3d_shape(x, c.tensors[1].shape, conv3d_options(c))) out = *shape;
  } else if (k == 1 && (sig == OpSig::ConvTranspose3d || sig == OpSig::ConvTranspose3dBackward)) {
    out = {x.size() == 5 ? x[1] : 1, 2, 2, 2, 2};  // [channels_in, channels_out / groups, k_d, k_h, k_w]
  } else if (sig == OpSig::ConvTranspose3d) {  // the bias: the output channels
    out = {c.tensors[1].shape.size() == 5 ? c.tensors[1].shape[1] * (c.conv[6] == 0 ? 1 : c.conv[6]) : 1};
  } else if (sig == OpSig::ConvTranspose3dBackward) {  // the gradient
    out = x;
    if (const auto shape = oracle::conv_transpose3d_shape(x, c.tensors[1].shape, conv_transpose3d_options(c))) out = *shape;
  } else if (sig == OpSig::Conv1dBiasBackward) {  // {x, bias, grad}
    out = k == 1 ? std::vector<std::size_t>{3}
                 : std::vector<std::size_t>{x.empty() ? 1 : x[0], c.tensors[1].shape.empty() ? 1 : c.tensors[1].shape[0], 4};
  } else if (k == 1 && (sig == OpSig::Conv1d || sig == OpSig::Conv1dBackward)) {  // the weight
    const std::size_t groups = c.conv[6] == 0 ? 1 : c.conv[6];
    out = {2 * groups, x.size() == 3 ? x[1] / groups : 1, 2};
  } else if (sig == OpSig::Conv1d) {  // the bias
    out = {c.tensors[1].shape.empty() ? 1 : c.tensors[1].shape[0]};
  } else if (sig == OpSig::Conv1dBackward) {  // the gradient
    out = x;
    if (const auto shape = oracle::conv1d_shape(x, c.tensors[1].shape, conv1d_options(c))) out = *shape;
  } else if (k == 1 && (sig == OpSig::ConvTranspose1d || sig == OpSig::ConvTranspose1dBackward)) {
    out = {x.size() == 3 ? x[1] : 1, 2, 2};  // [channels_in, channels_out / groups, kernel]
  } else if (sig == OpSig::ConvTranspose1d) {  // the bias: the output channels
    out = {c.tensors[1].shape.size() == 3 ? c.tensors[1].shape[1] * (c.conv[6] == 0 ? 1 : c.conv[6]) : 1};
  } else if (sig == OpSig::ConvTranspose1dBackward) {  // the gradient
    out = x;
    if (const auto shape = oracle::conv_transpose1d_shape(x, c.tensors[1].shape, conv_transpose1d_options(c))) out = *shape;
  } else if (sig == OpSig::Conv2dBiasBackward) {  // {x, bias, grad}
    out = k == 1 ? std::vector<std::size_t>{3}
                 : std::vector<std::size_t>{x.empty() ? 1 : x[0], c.tensors[1].shape.empty() ? 1 : c.tensors[1].shape[0], 2, 2};
  } else if (k == 1 && (sig == OpSig::ConvTranspose2d || sig == OpSig::ConvTranspose2dBackward)) {
    out = {x.size() == 4 ? x[1] : 1, 2, 2, 2};  // [channels_in, channels_out / groups, k_h, k_w]
  } else if (sig == OpSig::ConvTranspose2d) {  // the bias: the output channels
    out = {c.tensors[1].shape.size() == 4 ? c.tensors[1].shape[1] * (c.conv[6] == 0 ? 1 : c.conv[6]) : 1};
  } else if (sig == OpSig::ConvTranspose2dBackward) {  // the gradient
    out = x;
    if (const auto shape = oracle::conv_transpose2d_shape(x, c.tensors[1].shape, conv_transpose2d_options(c))) out = *shape;
  } else if (k == 1) {  // the weight
    const std::size_t groups = c.conv[6] == 0 ? 1 : c.conv[6];
    out = {2 * groups, x.size() == 4 ? x[1] / groups : 1, 2, 2};
  } else if (sig == OpSig::Conv2d) {  // the bias
    out = {c.tensors[1].shape.empty() ? 1 : c.tensors[1].shape[0]};
  } else {  // the gradient
    out = x;
    if (const auto shape = oracle::conv2d_shape(x, c.tensors[1].shape, conv2d_options(c))) out = *shape;
  }
  // Derived: conv2d's weight's dim 1 one larger (a weight for other channels), else the first dim
  // (conv_transpose2d's weight's input channels).
  const bool weight = k == 1 && (sig == OpSig::Conv2d || sig == OpSig::Conv2dBackward || sig == OpSig::Conv1d ||
                                 sig == OpSig::Conv1dBackward || sig == OpSig::Conv3d || sig == OpSig::Conv3dBackward);
  if (mode == ShapeMode::Derived && out.size() > 1) ++out[weight ? 1 : 0];
  if (mode == ShapeMode::Derived && out.size() == 1) ++out[0];
  return out;
}

MaxPool2dOptions max_pool2d_options(const OpArgsCase &c) {
  MaxPool2dOptions o;
  o.kernel_size = {c.window[0], c.window[1]};
  o.stride = {c.window[2], c.window[3]};
  o.padding = {c.window[4], c.window[5]};
  o.dilation = c.dilation;
  o.ceil_mode = c.ceil_mode;
  return o;
}

AvgPool1dOptions avg_pool1d_options(const OpArgsCase &c) {
  return AvgPool1dOptions{{c.window[1]}, {c.window[3]}, {c.window[5]}, c.count_include_pad, c.ceil_mode};
}

MaxPool1dOptions max_pool1d_options(const OpArgsCase &c) {
  return MaxPool1dOptions{{c.window[1]}, {c.window[3]}, {c.window[5]}, {c.dilation[1]}, c.ceil_mode};
}

Size2 unfold_kernel(const OpArgsCase &c) { return {c.window[0], c.window[1]}; }

UnfoldOptions unfold_options(const OpArgsCase &c) {
  return UnfoldOptions{{c.window[2], c.window[3]}, {c.window[4], c.window[5]}, c.dilation};
}

InterpolateOptions interpolate_options(const OpArgsCase &c) {
  return InterpolateOptions{static_cast<InterpolateMode>(c.interpolate_mode), c.align_corners};
}

std::vector<std::size_t> pool_grad_shape(const OpArgsCase &c, ShapeMode mode, std::size_t) {
  const std::vector<std::size_t> &x = c.tensors[0].shape;
  std::vector<std::size_t> out = x;
  const OpSig sig = op_of(c).sig;
  if (sig == OpSig::AvgPool2dBackward) {
    if (const auto shape = oracle::avg_pool2d_shape(x, avg_pool2d_options(c))) out = *shape;
  } else if (sig == OpSig::MaxPool2dBackward) {
    if (const auto shape = oracle::max_pool2d_shape(x, max_pool2d_options(c))) out = *shape;
  } else if (sig == OpSig::AvgPool1dBackward) {
    if (const auto shape = oracle::avg_pool1d_shape(x, avg_pool1d_options(c))) out = *shape;
  } else if (sig == OpSig::MaxPool1dBackward) {
    if (const auto shape = oracle::max_pool1d_shape(x, max_pool1d_options(c))) out = *shape;
  } else if (sig == OpSig::AdaptivePool1dBackward && x.size() == 3) {
    out = {x[0], x[1], c.output_size[1]};
  } else if (sig == OpSig::AdaptivePool3dBackward && x.size() == 5) {
    out = {x[0], x[1], c.output_size_3d[0], c.output_size_3d[1], c.output_size_3d[2]};
  } else if ((sig == OpSig::AdaptivePool2dBackward || sig == OpSig::InterpolateBackward) && x.size() == 4) {
    out = {x[0], x[1], c.output_size[0], c.output_size[1]};
  }
  if (mode == ShapeMode::Derived && !out.empty()) ++out[0];
  return out;
}


std::vector<std::size_t> binary_rhs_shape(const OpArgsCase &c, ShapeMode mode, std::size_t) {
  std::vector<std::size_t> s = c.tensors[0].shape;
  if (mode == ShapeMode::Derived && s.size() >= 2) std::swap(s[s.size() - 1], s[s.size() - 2]);
  return s;
}

std::vector<std::size_t> assign_values_shape(const OpArgsCase &c, ShapeMode mode, std::size_t) {
  std::vector<std::size_t> s = c.tensors[0].shape;
  const std::size_t d = size_value(c.dim, kDimCodes);
  if (mode == ShapeMode::Derived && d < s.size() && c.indices.shape.size() == 1) s[d] = c.indices.shape[0];
  return s;
}

std::vector<std::size_t> gather_index_shape(const OpArgsCase &c) {
  std::vector<std::size_t> s = c.tensors[0].shape;
  const std::size_t d = size_value(c.dim, kDimCodes);
  if (c.index_mode == ShapeMode::Derived && d < s.size()) s[d] = c.index_size;
  return s;
}

// A mask holds bools unless int_dtype names an int dtype (kMaskDTypeChoices).
bool mask_is_bool(const OpArgsCase &c) { return c.int_dtype % kMaskDTypeChoices >= std::size(kIntDTypes); }

std::vector<std::size_t> mask_shape(const OpArgsCase &c) {
  if (op_of(c).sig == OpSig::Attention) return attention_operand_shape(c, c.index_mode, 3);
  const std::vector<std::size_t> &s = c.tensors[0].shape;
  if (c.index_mode == ShapeMode::Derived && !s.empty()) return {s.back()};
  return s;
}

// slice_assign's values: the receiver's shape, or (Derived) the block its valid ranges cut out.
std::vector<std::size_t> block_values_shape(const OpArgsCase &c, ShapeMode mode, std::size_t) {
  std::vector<std::size_t> s = c.tensors[0].shape;
  if (mode != ShapeMode::Derived) return s;
  for (std::size_t d = 0; d < c.ranges.size() && d < s.size(); ++d) {
    const std::size_t start = size_value(c.ranges[d].first, kBoundCodes), end = size_value(c.ranges[d].second, kBoundCodes);
    if (start <= end && end <= s[d]) s[d] = end - start;
  }
  return s;
}

std::vector<std::size_t> scatter_values_shape(const OpArgsCase &c, ShapeMode, std::size_t) { return c.indices.shape; }

std::vector<std::size_t> nd_index_shape(const OpArgsCase &c) { return {c.index_size, c.k}; }

std::vector<std::size_t> embedding_grad_shape(const OpArgsCase &c, ShapeMode mode, std::size_t) {
  const std::vector<std::size_t> &w = c.tensors[0].shape;
  const std::vector<std::size_t> &idx = c.indices.shape;
  std::vector<std::size_t> out = w;
  if (w.size() == 2 && idx.size() == 2) out = {idx[0], idx[1], w[1]};
  if (mode == ShapeMode::Derived && !out.empty()) ++out[0];
  return out;
}

std::vector<std::size_t> batch_norm_operand_shape(const OpArgsCase &c, ShapeMode mode, std::size_t) {
  const std::vector<std::size_t> &x = c.tensors[0].shape;
  return {(x.size() > 1 ? x[1] : 1) + (mode == ShapeMode::Derived ? 1 : 0)};
}

std::vector<std::size_t> layer_norm_operand_shape(const OpArgsCase &c, ShapeMode mode, std::size_t) {
  const std::vector<std::size_t> &x = c.tensors[0].shape;
  return {(x.empty() ? 1 : x.back()) + (mode == ShapeMode::Derived ? 1 : 0)};
}

std::vector<std::size_t> attention_operand_shape(const OpArgsCase &c, ShapeMode mode, std::size_t k) {
  const std::size_t bump = mode == ShapeMode::Derived ? 1 : 0;
  const auto dim = [](const std::vector<std::size_t> &s, std::size_t d, std::size_t otherwise) {
    return d < s.size() ? s[d] : otherwise;
  };
  const std::vector<std::size_t> &q = c.tensors[0].shape;
  if (k == 1) return {dim(q, 0, 1), dim(q, 1, 1), 3 + bump, dim(q, 3, 2)};
  const std::vector<std::size_t> &key = c.tensors[1].shape;
  if (k == 2) return {dim(key, 0, 1), dim(key, 1, 1), dim(key, 2, 3) + bump, 2};
  return {dim(q, 0, 1), dim(q, 1, 1), dim(q, 2, 1), dim(key, 2, 3) + bump};  // the mask, the bias
}

AttentionOptions attention_options(const OpArgsCase &c) {
  AttentionOptions o;
  if (c.has_scale) o.scale = float_value(c.scalar);
  if (c.has_softcap) o.softcap = float_value(c.max);
  o.is_causal = c.causal;
  return o;
}

std::vector<std::size_t> linear_operand_shape(const OpArgsCase &c, ShapeMode mode, std::size_t k) {
  const std::vector<std::size_t> &first = c.tensors[0].shape;
  const std::size_t bump = mode == ShapeMode::Derived ? 1 : 0;
  const std::size_t last = first.empty() ? 1 : first.back();
  const OpSig sig = op_of(c).sig;
  if (sig == OpSig::Linear && k == 1) return {last + bump, 3};
  if (sig == OpSig::Linear) {
    const std::vector<std::size_t> &w = c.tensors[1].shape;
    return {(w.size() == 2 ? w[1] : 3) + bump};
  }
  if (sig == OpSig::LinearXBackward) return {2, (first.size() == 2 ? first[1] : 1) + bump};  // {weight, grad}
  // LinearWeightBackward {x, grad}.
  std::vector<std::size_t> g(first.begin(), first.empty() ? first.end() : first.end() - 1);
  g.push_back(3);
  g.front() += bump;
  return g;
}

// The indices' shape without its last dim, then the receiver's dims from k on (when k fits).
std::vector<std::size_t> nd_values_shape(const OpArgsCase &c, ShapeMode mode, std::size_t) {
  const std::vector<std::size_t> &x = c.tensors[0].shape, &i = c.indices.shape;
  if (i.empty() || i.back() > x.size()) return x;
  std::vector<std::size_t> s(i.begin(), i.end() - 1);
  s.insert(s.end(), x.begin() + static_cast<std::ptrdiff_t>(i.back()), x.end());
  if (mode == ShapeMode::Derived && !s.empty()) ++s[0];
  return s;
}

namespace {

std::string size_text(std::size_t v) {
  return v == std::numeric_limits<std::size_t>::max() ? "SIZE_MAX" : std::to_string(v);
}

// A 2-D option as [h, w].
std::string pair_text(const Size2 &v) { return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + "]"; }

// A 3-D option as [d, h, w].
std::string sizes_text(const Size3 &v) {
  return "[" + size_text(v[0]) + ", " + size_text(v[1]) + ", " + size_text(v[2]) + "]";
}

std::string float_text(std::size_t code) {
  std::ostringstream os;
  os.precision(17);
  os << float_value(code);
  return os.str();
}

std::string int_operand_text(const ArgTensor &t, DType dtype) {
  std::string s = oracle::render_shape(t.shape);
  if (t.codes.empty()) return s + " fill";
  s += " {";
  for (std::size_t i = 0; i < t.codes.size(); ++i) s += (i ? ", " : "") + std::to_string(int_operand_value(t.codes[i], dtype));
  return s + "}";
}

std::string tensor_text(const ArgTensor &t, bool ints) {
  std::string s = oracle::render_shape(t.shape);
  if (t.codes.empty()) return s + " fill";
  s += " {";
  for (std::size_t i = 0; i < t.codes.size(); ++i) {
    if (i) s += ", ";
    s += ints ? std::to_string(int_value(t.codes[i])) : float_text(t.codes[i]);
  }
  return s + "}";
}

}  // namespace

namespace {

std::size_t count(const std::vector<std::size_t> &shape) {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

// The fill of a tensor without explicit codes: finite values (float codes 2..14), indices 0..5.
std::size_t code_at(const ArgTensor &t, std::size_t i, bool ints) {
  if (!t.codes.empty()) return t.codes[i];
  return ints ? i % 6 : 2 + (i * 7) % 13;
}

oracle::HostArray floats(const ArgTensor &t, DType dtype) {
  oracle::HostArray h{t.shape, dtype, std::vector<double>(count(t.shape))};
  for (std::size_t i = 0; i < h.values.size(); ++i) {
    const double v = float_value(code_at(t, i, false));
    h.values[i] = dtype == DType::F32 ? static_cast<double>(static_cast<float>(v)) : v;
  }
  return h;
}

template <class T>
double wrapped(std::int64_t v) {
  return static_cast<double>(static_cast<T>(v));
}

oracle::HostArray ints(const ArgTensor &t, DType dtype) {
  oracle::HostArray h{t.shape, dtype, std::vector<double>(count(t.shape))};
  for (std::size_t i = 0; i < h.values.size(); ++i) {
    const std::int64_t v = int_value(code_at(t, i, true));
    h.values[i] = dtype == DType::I64   ? wrapped<std::int64_t>(v)
                  : dtype == DType::I32 ? wrapped<std::int32_t>(v)
                  : dtype == DType::I8  ? wrapped<std::int8_t>(v)
                                        : wrapped<std::uint8_t>(v);
  }
  return h;
}

oracle::HostArray int_operands(const ArgTensor &t, DType dtype) {
  std::vector<std::int64_t> v(count(t.shape));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = int_operand_value(code_at(t, i, true), dtype);
  return oracle::int_array(t.shape, dtype, std::move(v));
}

oracle::HostArray bools(const ArgTensor &t) {
  oracle::HostArray h{t.shape, DType::Bool, std::vector<double>(count(t.shape))};
  for (std::size_t i = 0; i < h.values.size(); ++i) h.values[i] = code_at(t, i, true) % 2 == 1 ? 1 : 0;
  return h;
}

}  // namespace

ReferenceCall reference_call(const OpArgsCase &c) {
  const OpInfo &op = op_of(c);
  const DType float_dtype = c.f64 ? DType::F64 : DType::F32;
  const DType int_dtype = kIntDTypes[c.int_dtype % std::size(kIntDTypes)];
  ReferenceCall call;
  // The int ops' operands (every op of an int receiver but int_into_float) are all ints of one
  // dtype from the int operand table, the bool ops' all bools.
  const bool int_op = op.operand == OpKind::Int && op.result != OpKind::Float;
  const bool bool_op = op.operand == OpKind::Bool && op.result != OpKind::Float;
  for (std::size_t k = 0; k < c.tensors.size(); ++k) {
    if (int_op)
      call.operands.push_back(int_operands(c.tensors[k], int_dtype));
    else if (bool_op)
      call.operands.push_back(bools(c.tensors[k]));
    else if (k == 0 && op.operand == OpKind::Int)
      call.operands.push_back(ints(c.tensors[k], int_dtype));
    else if (k == 0 && op.operand == OpKind::Bool)
      call.operands.push_back(bools(c.tensors[k]));
    else
      call.operands.push_back(floats(c.tensors[k], float_dtype));
  }
  // {tensor, indices} or {tensor, indices, values}
  if (takes_mask(op.sig)) {
    call.operands.insert(call.operands.begin() + 1, mask_is_bool(c) ? bools(c.indices) : ints(c.indices, int_dtype));
  }
  if (takes_index_tensor(op.sig)) call.operands.insert(call.operands.begin() + 1, ints(c.indices, int_dtype));
  // attention: {query, key, value, [mask], [bias]}, the oracle's order.
  if (op.sig == OpSig::Attention && c.attention_mask) {
    call.operands.insert(call.operands.begin() + 3, mask_is_bool(c) ? bools(c.indices) : ints(c.indices, int_dtype));
  }
  oracle::OpArgs &a = call.args;
  a.scalar = float_value(c.scalar);
  a.alpha = float_value(c.alpha);
  a.beta = float_value(c.beta);
  a.times = c.times;
  a.size = c.size;
  a.step = c.step;
  a.descending = c.descending;
  a.k = c.k;
  a.update = kIndexingUpdateOps[c.update % std::size(kIndexingUpdateOps)];
  a.tracked = c.tracked;
  a.min = float_value(c.min);
  a.max = float_value(c.max);
  a.dim = size_value(c.dim, kDimCodes);
  a.dim1 = size_value(c.dim1, kDimCodes);
  a.shape = c.shape;
  a.dtype = all_dtypes()[c.dtype % all_dtypes().size()];
  for (std::size_t axis : c.axes) a.axes.push_back(size_value(axis, kAxisCodes));
  for (const auto &[start, end] : c.ranges)
    a.ranges.push_back(Range{size_value(start, kBoundCodes), size_value(end, kBoundCodes)});
  a.avg_pool2d = avg_pool2d_options(c);
  a.max_pool2d = max_pool2d_options(c);
  a.avg_pool1d = avg_pool1d_options(c);
  a.max_pool1d = max_pool1d_options(c);
  a.output_size_1d = {c.output_size[1]};
  a.unfold_kernel = unfold_kernel(c);
  a.unfold = unfold_options(c);
  a.output_size = c.output_size;
  a.interpolate = interpolate_options(c);
  a.output_size_3d = c.output_size_3d;
  a.conv2d = conv2d_options(c);
  a.conv_transpose2d = conv_transpose2d_options(c);
  a.conv1d = conv1d_options(c);
  a.conv_transpose1d = conv_transpose1d_options(c);
  a.fft_size = c.has_fft_size ? std::optional<std::size_t>(fft_size_value(c.fft_size)) : std::nullopt;
  a.conv3d = conv3d_options(c);
  a.conv_transpose3d = conv_transpose3d_options(c);
  a.attention = attention_options(c);
  a.attention_mask = op.sig == OpSig::Attention && c.attention_mask;
  a.attention_bias = op.sig == OpSig::Attention && c.attention_bias;
  return call;
}

std::string describe(const OpArgsCase &c) {
  std::ostringstream os;
  os << "op_args: backend " << c.backend
     << (c.backend < kKnownBackendCount ? " (" + std::string(kKnownBackends[c.backend].name) + ")" : std::string())
     << (c.tracked ? ", tracked" : ", plain") << ", " << (c.f64 ? "F64" : "F32") << ", op code " << c.op_code;
  if (is_deform_conv2d(c)) {
    os << " (deform_conv2d, composed of registry ops)\n  x: " << tensor_text(c.tensors[0], false) << "\n  weight: "
       << tensor_text(c.tensors[1], false) << "\n  offset: " << tensor_text(c.deform_offset, false);
    if (c.deform_mask) os << "\n  mask: " << tensor_text(c.deform_mask_tensor, false);
    if (c.deform_bias) os << "\n  bias: " << tensor_text(c.deform_bias_tensor, false);
    const Conv2dOptions o = conv2d_options(c);
    os << "\n  stride " << pair_text(o.stride) << ", padding " << pair_text(o.padding) << ", dilation " << pair_text(o.dilation)
       << ", weight_groups " << o.groups << ", offset_groups " << c.deform_offset_groups;
    return os.str();
  }
  if (is_ctc_loss(c)) {
    os << " (ctc_loss, composed of registry ops)\n  log_probs: " << tensor_text(c.tensors[0], false)
       << "\n  targets: " << tensor_text(c.ctc_targets, true) << "\n  input_lengths: " << tensor_text(c.ctc_input_lengths, true)
       << "\n  target_lengths: " << tensor_text(c.ctc_target_lengths, true) << "\n  blank " << c.ctc_blank;
    return os.str();
  }
  if (!is_op(c)) {
    os << " (not a registry op)";
    return os.str();
  }
  const OpInfo &op = op_of(c);
  os << " (" << op.name << ", Sig " << op_sig_name(op.sig) << ")";
  const bool int_receiver = op.operand != OpKind::Float;
  const bool same_kind = op.operand != OpKind::Float && op.result != OpKind::Float;  // the int and bool ops
  const DType int_dtype = kIntDTypes[c.int_dtype % std::size(kIntDTypes)];
  for (std::size_t k = 0; k < c.tensors.size(); ++k) {
    const bool of_receiver_kind = k == 0 || same_kind;
    if (same_kind && op.operand == OpKind::Int) {
      os << "\n  tensor " << k << ": " << int_operand_text(c.tensors[k], int_dtype);
    } else {
      os << "\n  tensor " << k << ": " << tensor_text(c.tensors[k], of_receiver_kind && int_receiver);
    }
    if (of_receiver_kind && op.operand == OpKind::Int) os << " " << dtype_name(int_dtype);
    if (of_receiver_kind && op.operand == OpKind::Bool) os << " Bool";
  }
  switch (op.sig) {
    case OpSig::Unary:
    case OpSig::Binary:
      break;
    case OpSig::Scalar:
      os << "\n  scalar " << float_text(c.scalar);
      break;
    case OpSig::Affine:
      os << "\n  alpha " << float_text(c.alpha) << ", beta " << float_text(c.beta);
      break;
    case OpSig::Repeat:
      os << "\n  dim " << size_text(size_value(c.dim, kDimCodes)) << ", times " << c.times;
      break;
    case OpSig::Window:
      os << "\n  dim " << size_text(size_value(c.dim, kDimCodes)) << ", size " << c.size << ", step " << c.step;
      break;
    case OpSig::Sort:
      os << "\n  dim " << size_text(size_value(c.dim, kDimCodes)) << (c.descending ? ", descending" : ", ascending");
      break;
    case OpSig::TopK:
      os << "\n  dim " << size_text(size_value(c.dim, kDimCodes)) << ", k " << c.k;
      break;
    case OpSig::MaskWhere:
    case OpSig::MaskSelect:
    case OpSig::MaskFill: {
      os << "\n  mask " << (mask_is_bool(c) ? "Bool" : dtype_name(kIntDTypes[c.int_dtype % std::size(kIntDTypes)])) << " "
         << tensor_text(c.indices, true);
      if (op.sig == OpSig::MaskFill) os << "\n  scalar " << float_text(c.scalar);
      break;
    }
    case OpSig::Bounds:
      os << "\n  min " << float_text(c.min) << ", max " << float_text(c.max);
      break;
    case OpSig::DimPair:
      os << "\n  dim0 " << size_text(size_value(c.dim, kDimCodes)) << ", dim1 "
         << size_text(size_value(c.dim1, kDimCodes));
      break;
    case OpSig::ToShape:
      os << "\n  shape " << oracle::render_shape(c.shape);
      break;
    case OpSig::ToDType:
      os << "\n  dtype " << dtype_name(all_dtypes()[c.dtype % all_dtypes().size()]);
      break;
    case OpSig::Axes: {
      os << "\n  axes [";
      for (std::size_t i = 0; i < c.axes.size(); ++i) os << (i ? ", " : "") << size_text(size_value(c.axes[i], kAxisCodes));
      os << "]";
      break;
    }
    case OpSig::Ranges:
    case OpSig::RangesAssign: {
      os << "\n  ranges [";
      for (std::size_t i = 0; i < c.ranges.size(); ++i) {
        os << (i ? ", " : "") << size_text(size_value(c.ranges[i].first, kBoundCodes)) << ".."
           << size_text(size_value(c.ranges[i].second, kBoundCodes));
      }
      os << "]";
      break;
    }
    case OpSig::Dim:
    case OpSig::Select:
    case OpSig::SelectAssign:
    case OpSig::Gather:
    case OpSig::Scatter:
    case OpSig::BinaryDim:
    case OpSig::Cat:
      os << "\n  dim " << size_text(size_value(c.dim, kDimCodes));
      break;
    case OpSig::ScatterUpdate:
      os << "\n  dim " << size_text(size_value(c.dim, kDimCodes)) << ", update "
         << indexing_update_name(kIndexingUpdateOps[c.update % std::size(kIndexingUpdateOps)]);
      break;
    case OpSig::AvgPool2d:
    case OpSig::AvgPool2dBackward: {
      const AvgPool2dOptions o = avg_pool2d_options(c);
      const auto pair = [](const Size2 &v) { return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + "]"; };
      os << "\n  kernel_size " << pair(o.kernel_size) << ", stride " << pair(o.stride) << ", padding "
         << pair(o.padding) << (o.count_include_pad ? ", count_include_pad" : "") << (o.ceil_mode ? ", ceil_mode" : "");
      break;
    }
    case OpSig::AdaptivePool2d:
    case OpSig::AdaptivePool2dBackward:
      os << "\n  output_size [" << c.output_size[0] << ", " << c.output_size[1] << "]";
      break;
    case OpSig::AvgPool1d:
    case OpSig::AvgPool1dBackward: {
      const AvgPool1dOptions o = avg_pool1d_options(c);
      os << "\n  kernel_size [" << o.kernel_size[0] << "], stride [" << o.stride[0] << "], padding [" << o.padding[0] << "]"
         << (o.count_include_pad ? ", count_include_pad" : "") << (o.ceil_mode ? ", ceil_mode" : "");
      break;
    }
    case OpSig::AdaptivePool1d:
    case OpSig::AdaptivePool1dBackward:
      os << "\n  output_size [" << c.output_size[1] << "]";
      break;
    case OpSig::AdaptivePool3d:
    case OpSig::AdaptivePool3dBackward:
      os << "\n  output_size [" << c.output_size_3d[0] << ", " << c.output_size_3d[1] << ", " << c.output_size_3d[2] << "]";
      break;
    case OpSig::Interpolate:
    case OpSig::InterpolateBackward: {
      static constexpr const char *kModes[] = {"nearest", "nearest_exact", "bilinear", "bicubic"};
      os << "\n  output_size [" << c.output_size[0] << ", " << c.output_size[1] << "], mode "
         << (c.interpolate_mode < 4 ? std::string(kModes[c.interpolate_mode]) : "code " + std::to_string(c.interpolate_mode))
         << (c.align_corners ? ", align_corners" : "");
      break;
    }
    case OpSig::Unfold4d:
    case OpSig::Fold4d: {
      const UnfoldOptions o = unfold_options(c);
      const auto pair = [](const Size2 &v) { return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + "]"; };
      if (op_of(c).sig == OpSig::Fold4d) os << "\n  output_size " << pair(c.output_size);
      os << "\n  kernel_size " << pair(unfold_kernel(c)) << ", stride " << pair(o.stride) << ", padding " << pair(o.padding)
         << ", dilation " << pair(o.dilation);
      break;
    }
    case OpSig::MaxPool1d:
    case OpSig::MaxPool1dBackward: {
      const MaxPool1dOptions o = max_pool1d_options(c);
      os << "\n  kernel_size [" << o.kernel_size[0] << "], stride [" << o.stride[0] << "], padding [" << o.padding[0]
         << "], dilation [" << o.dilation[0] << "]" << (o.ceil_mode ? ", ceil_mode" : "");
      break;
    }
    case OpSig::MaxPool2d:
    case OpSig::MaxPool2dBackward: {
      const MaxPool2dOptions o = max_pool2d_options(c);
      const auto pair = [](const Size2 &v) { return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + "]"; };
      os << "\n  kernel_size " << pair(o.kernel_size) << ", stride " << pair(o.stride) << ", padding " << pair(o.padding)
         << ", dilation " << pair(o.dilation) << (o.ceil_mode ? ", ceil_mode" : "");
      break;
    }
    case OpSig::GatherNd:
    case OpSig::Embedding:
    case OpSig::EmbeddingBackward:
    case OpSig::LinearXBackward:
    case OpSig::LinearWeightBackward:
    case OpSig::LinearBiasBackward:
      break;
    case OpSig::Linear:
      os << (c.tensors.size() > 2 ? "\n  with a bias" : "\n  no bias");
      break;
    case OpSig::LayerNorm:
      os << (c.tensors.size() > 2 ? "\n  with a bias" : "\n  no bias") << ", epsilon " << float_value(c.scalar);
      break;
    case OpSig::BatchNorm:
      os << "\n  epsilon " << float_value(c.scalar);
      break;
    case OpSig::Attention: {
      const AttentionOptions o = attention_options(c);
      os << "\n  " << (c.attention_mask ? "with a mask" : "no mask") << ", " << (c.attention_bias ? "with a bias" : "no bias")
         << ", scale " << (o.scale ? std::to_string(*o.scale) : std::string("default")) << ", softcap "
         << (o.softcap ? std::to_string(*o.softcap) : std::string("none")) << (o.is_causal ? ", causal" : "");
      if (c.attention_mask) os << "\n  mask " << tensor_text(c.indices, true);
      break;
    }
    case OpSig::Conv2d:
    case OpSig::Conv2dBackward: {
      const Conv2dOptions o = conv2d_options(c);
      const auto pair = [](const Size2 &v) { return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + "]"; };
      os << "\n  stride " << pair(o.stride) << ", padding " << pair(o.padding) << ", dilation " << pair(o.dilation)
         << ", groups " << o.groups;
      if (op.sig == OpSig::Conv2d) os << (c.tensors.size() > 2 ? ", with a bias" : ", no bias");
      break;
    }
    case OpSig::Conv2dBiasBackward:
      break;
    case OpSig::Conv1d:
    case OpSig::Conv1dBackward: {
      const Conv1dOptions o = conv1d_options(c);
      os << "\n  stride [" << o.stride[0] << "], padding [" << o.padding[0] << "], dilation [" << o.dilation[0] << "], groups "
         << o.groups;
      if (op.sig == OpSig::Conv1d) os << (c.tensors.size() > 2 ? ", with a bias" : ", no bias");
      break;
    }
    case OpSig::Conv1dBiasBackward:
      break;
    case OpSig::ConvTranspose1d:
    case OpSig::ConvTranspose1dBackward: {
      const ConvTranspose1dOptions o = conv_transpose1d_options(c);
      os << "\n  stride [" << o.stride[0] << "], padding [" << o.padding[0] << "], padding_out [" << o.padding_out[0]
         << "], dilation [" << o.dilation[0] << "], groups " << o.groups;
      if (op.sig == OpSig::ConvTranspose1d) os << (c.tensors.size() > 2 ? ", with a bias" : ", no bias");
      break;
    }
    case OpSig::ConvTranspose2d:
    case OpSig::ConvTranspose2dBackward: {
      const ConvTranspose2dOptions o = conv_transpose2d_options(c);
      const auto pair = [](const Size2 &v) { return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + "]"; };
      os << "\n  stride " << pair(o.stride) << ", padding " << pair(o.padding) << ", padding_out " << pair(o.padding_out)
         << ", dilation " << pair(o.dilation) << ", groups " << o.groups;
      if (op.sig == OpSig::ConvTranspose2d) os << (c.tensors.size() > 2 ? ", with a bias" : ", no bias");
      break;
    }
    case OpSig::Rfft:
    case OpSig::Irfft:
      os << "\n  dim " << size_text(size_value(c.dim, kDimCodes)) << ", n "
         << (c.has_fft_size ? std::to_string(fft_size_value(c.fft_size)) : std::string("none"));
      break;
    case OpSig::Conv3d:
    case OpSig::Conv3dBackward: {
      const Conv3dOptions o = conv3d_options(c);
      os << "\n  stride " << sizes_text(o.stride) << ", padding " << sizes_text(o.padding) << ", dilation "
         << sizes_text(o.dilation) << ", groups " << o.groups;
      if (op.sig == OpSig::Conv3d) os << (c.tensors.size() > 2 ? ", with a bias" : ", no bias");
      break;
    }
    case OpSig::Conv3dBiasBackward:
      break;
    case OpSig::ConvTranspose3d:
    case OpSig::ConvTranspose3dBackward: {
      const ConvTranspose3dOptions o = conv_transpose3d_options(c);
      os << "\n  stride " << sizes_text(o.stride) << ", padding " << sizes_text(o.padding) << ", padding_out "
         << sizes_text(o.padding_out) << ", dilation " << sizes_text(o.dilation) << ", groups " << o.groups;
      if (op.sig == OpSig::ConvTranspose3d) os << (c.tensors.size() > 2 ? ", with a bias" : ", no bias");
      break;
    }
    case OpSig::ScatterNd:
      os << "\n  update " << indexing_update_name(kIndexingUpdateOps[c.update % std::size(kIndexingUpdateOps)]);
      break;
  }
  if (takes_index_tensor(op.sig)) {
    os << "\n  indices " << dtype_name(kIntDTypes[c.int_dtype % std::size(kIntDTypes)]) << " "
       << tensor_text(c.indices, true);
  }
  return os.str();
}

CtcLossCall ctc_loss_call(const OpArgsCase &c) {
  CtcLossCall call;
  call.log_probs = floats(c.tensors.at(0), c.f64 ? DType::F64 : DType::F32);
  call.targets = ints(c.ctc_targets, DType::I64);
  call.input_lengths = ints(c.ctc_input_lengths, DType::I64);
  call.target_lengths = ints(c.ctc_target_lengths, DType::I64);
  call.blank = c.ctc_blank;
  return call;
}

DeformShapes deform_shapes(const OpArgsCase &c) {
  const std::vector<std::size_t> &x = c.tensors.at(0).shape, &w = c.tensors.at(1).shape;
  if (x.size() != 4 || w.size() != 4) return {{0}, {0}, {0}};
  const Conv2dOptions o = conv2d_options(c);
  std::size_t out[2] = {0, 0};
  for (std::size_t d = 0; d < 2; ++d) {
    const std::size_t span = o.dilation[d] * (w[2 + d] == 0 ? 0 : w[2 + d] - 1) + 1, padded = x[2 + d] + 2 * o.padding[d];
    out[d] = o.stride[d] == 0 || padded < span ? 0 : (padded - span) / o.stride[d] + 1;
  }
  const std::size_t taps = c.deform_offset_groups * w[2] * w[3];
  return {{x[0], 2 * taps, out[0], out[1]}, {x[0], taps, out[0], out[1]}, {w[0]}};
}

DeformConv2dCall deform_conv2d_call(const OpArgsCase &c) {
  const DType dtype = c.f64 ? DType::F64 : DType::F32;
  DeformConv2dCall call;
  call.x = floats(c.tensors.at(0), dtype);
  call.weight = floats(c.tensors.at(1), dtype);
  call.offset = floats(c.deform_offset, dtype);
  if (c.deform_mask) call.mask = floats(c.deform_mask_tensor, dtype);
  if (c.deform_bias) call.bias = floats(c.deform_bias_tensor, dtype);
  const Conv2dOptions o = conv2d_options(c);
  call.options = {o.stride, o.padding, o.dilation, o.groups, c.deform_offset_groups};
  call.conv2d = c;
  call.conv2d.op_code = static_cast<std::size_t>(OpId::conv2d);
  call.conv2d.modes.assign(c.deform_bias ? 2 : 1, ShapeMode::Explicit);
  if (c.deform_bias) call.conv2d.tensors.push_back(c.deform_bias_tensor);
  return call;
}

}  // namespace crossgrad::fuzz::op_args
