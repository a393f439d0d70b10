#pragma once
// Note [Module ops]
// Burn's ModuleOps (pooling, and after it convolution, interpolation, ...) take their settings as
// options structs, one per op family, rather than loose arguments: a registry Sig names the struct
// once (CROSSGRAD_SIG_PARAMS_AvgPool2d, ops/op_list.hpp), the Remote wire, the fuzz decoders and the
// generators read and write it field by field, and every backend's kernel takes the plan that
// rules::plan_* (core/module_rules.hpp) derives from it after the argument checks. The window
// arithmetic below is the one definition every kernel uses (Cuda's included: CROSSGRAD_HOST_DEVICE),
// PyTorch's: a window starts at o * stride - padding, is cut at the padded edge, and then at the
// input's edge; count_include_pad divides by the size cut at the padded edge only.
#include <crossgrad/core/host_device.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace crossgrad {

// Two spatial sizes, [height, width].
using Size2 = std::array<std::size_t, 2>;
// One spatial size, [length] (the 1-D module ops').
using Size1 = std::array<std::size_t, 1>;
// Three spatial sizes, [depth, height, width] (the 3-D module ops').
using Size3 = std::array<std::size_t, 3>;

// avg_pool2d / avg_pool2d_backward (Burn's arguments of the same names, in Burn's order).
struct AvgPool2dOptions {
  Size2 kernel_size{1, 1};
  Size2 stride{1, 1};
  Size2 padding{0, 0};
  bool count_include_pad = true;
  bool ceil_mode = false;
  bool operator==(const AvgPool2dOptions&) const = default;
};

// max_pool2d, max_pool2d_indices, max_pool2d_with_indices_backward (Burn's arguments, in Burn's
// order). A window of kernel_size cells every dilation cells spans dilation (kernel_size - 1) + 1.
struct MaxPool2dOptions {
  Size2 kernel_size{1, 1};
  Size2 stride{1, 1};
  Size2 padding{0, 0};
  Size2 dilation{1, 1};
  bool ceil_mode = false;
  bool operator==(const MaxPool2dOptions&) const = default;
};

// avg_pool1d / avg_pool1d_backward (Burn's arguments, in Burn's order, each size one value):
// avg_pool2d over a single row.
struct AvgPool1dOptions {
  Size1 kernel_size{1};
  Size1 stride{1};
  Size1 padding{0};
  bool count_include_pad = true;
  bool ceil_mode = false;
  bool operator==(const AvgPool1dOptions&) const = default;
};

// max_pool1d, max_pool1d_indices, max_pool1d_with_indices_backward (Burn's arguments, in Burn's
// order): max_pool2d over a single row; an index is a cell of the row.
struct MaxPool1dOptions {
  Size1 kernel_size{1};
  Size1 stride{1};
  Size1 padding{0};
  Size1 dilation{1};
  bool ceil_mode = false;
  bool operator==(const MaxPool1dOptions&) const = default;
};

// unfold4d (Burn's UnfoldOptions, in Burn's order; the kernel size is its own argument): the
// sliding blocks of conv2d's windows, copied out, the cells of a block kernel_size cells every
// dilation cells from (oy * stride - padding, ox * stride - padding), padding cells 0.
struct UnfoldOptions {
  Size2 stride{1, 1};
  Size2 padding{0, 0};
  Size2 dilation{1, 1};
  bool operator==(const UnfoldOptions&) const = default;
};

// interpolate's algorithm (Burn's InterpolateMode, in Burn's order, without Lanczos3: PyTorch, the
// peer every value is compared with, has no such mode). The values are the wire's and the fuzz
// decoders' codes; any other value is refused (interpolate-mode).
enum class InterpolateMode : std::uint8_t { Nearest = 0, NearestExact = 1, Bilinear = 2, Bicubic = 3 };

// interpolate / interpolate_backward (Burn's InterpolateOptions; the output size is its own
// argument). align_corners maps the corner cells' centres onto each other (Burn's default); false
// maps the half-pixel grids. The nearest modes ignore it (PyTorch takes none for them).
struct InterpolateOptions {
  InterpolateMode mode = InterpolateMode::Nearest;
  bool align_corners = true;
  bool operator==(const InterpolateOptions&) const = default;
};

// conv2d and its backward passes (Burn's ConvOptions<2>, in Burn's order). The kernel size is the
// weight's last two dims; a kernel of k cells every dilation cells spans dilation (k - 1) + 1.
struct Conv2dOptions {
  Size2 stride{1, 1};
  Size2 padding{0, 0};
  Size2 dilation{1, 1};
  std::size_t groups = 1;
  bool operator==(const Conv2dOptions&) const = default;
};

// deform_conv2d and deform_conv2d_backward (Burn's DeformConvOptions<2>, in Burn's order):
// conv2d's geometry, the weight's groups (conv2d's groups) and the offset groups, groups of
// consecutive input channels that share one set of sampling offsets.
struct DeformConv2dOptions {
  Size2 stride{1, 1};
  Size2 padding{0, 0};
  Size2 dilation{1, 1};
  std::size_t weight_groups = 1;
  std::size_t offset_groups = 1;
  bool operator==(const DeformConv2dOptions&) const = default;
};

// conv1d and its backward passes (Burn's ConvOptions<1>, in Burn's order): conv2d over a single row
// (Burn's default conv1d is that conv2d); the kernel size is the weight's last dim.
struct Conv1dOptions {
  Size1 stride{1};
  Size1 padding{0};
  Size1 dilation{1};
  std::size_t groups = 1;
  bool operator==(const Conv1dOptions&) const = default;
};

// conv_transpose2d and its backward passes (Burn's ConvTransposeOptions<2>, in Burn's order): the
// gradient of conv2d with respect to its input, as an op of its own. Input cell (iy, ix) adds
// x * weight tap (i, j) to output cell (iy * stride + i * dilation - padding, ...); padding_out
// cells are appended past the last reachable row and column (PyTorch's output_padding: it must
// stay below stride or dilation, so that it only resolves which of the conv2d inputs of one
// output size is meant).
struct ConvTranspose2dOptions {
  Size2 stride{1, 1};
  Size2 padding{0, 0};
  Size2 padding_out{0, 0};
  Size2 dilation{1, 1};
  std::size_t groups = 1;
  bool operator==(const ConvTranspose2dOptions&) const = default;
};

// conv_transpose1d and its backward passes (Burn's ConvTransposeOptions<1>, in Burn's order):
// conv_transpose2d over a single row, as Conv1dOptions is conv2d's; padding_out obeys the same rule.
struct ConvTranspose1dOptions {
  Size1 stride{1};
  Size1 padding{0};
  Size1 padding_out{0};
  Size1 dilation{1};
  std::size_t groups = 1;
  bool operator==(const ConvTranspose1dOptions&) const = default;
};

// conv3d and its backward passes (Burn's ConvOptions<3>, in Burn's order): conv2d with a depth
// dim first; the kernel size is the weight's last three dims.
struct Conv3dOptions {
  Size3 stride{1, 1, 1};
  Size3 padding{0, 0, 0};
  Size3 dilation{1, 1, 1};
  std::size_t groups = 1;
  bool operator==(const Conv3dOptions&) const = default;
};

// conv_transpose3d and its backward passes (Burn's ConvTransposeOptions<3>, in Burn's order):
// conv_transpose2d with a depth dim first; padding_out obeys the same rule.
struct ConvTranspose3dOptions {
  Size3 stride{1, 1, 1};
  Size3 padding{0, 0, 0};
  Size3 padding_out{0, 0, 0};
  Size3 dilation{1, 1, 1};
  std::size_t groups = 1;
  bool operator==(const ConvTranspose3dOptions&) const = default;
};

// attention (Burn's AttentionModuleOptions, in Burn's order): scores = query @ key^T * scale
// (1 / sqrt(head_dim) when unset), then softcap * tanh(scores / softcap) when set (positive, or
// attention-softcap), masked cells and (is_causal) cells past the diagonal set to -inf (the
// diagonal ends at the bottom-right corner: key position j is masked for query i when
// j > i + seq_k - seq_q), the bias added, a softmax over the keys that gives a row of zeros where
// every cell is -inf, and that times value (docs/OPS.md "attention").
struct AttentionOptions {
  std::optional<double> scale;
  std::optional<double> softcap;
  bool is_causal = false;
  bool operator==(const AttentionOptions&) const = default;
};

// One pooled dim of one output position: the input range [start, end) it averages (never empty
// once the options passed rules::plan_avg_pool2d) and the count it divides by.
struct PoolWindow {
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::int64_t count = 0;  // with padding (count_include_pad), else end - start
};
CROSSGRAD_HOST_DEVICE inline PoolWindow pool_window(std::int64_t o, std::int64_t in, std::int64_t kernel,
                                                    std::int64_t stride, std::int64_t padding, bool count_include_pad) {
  const std::int64_t first = o * stride - padding;
  const std::int64_t padded_end = first + kernel < in + padding ? first + kernel : in + padding;
  PoolWindow w;
  w.start = first < 0 ? 0 : first;
  w.end = padded_end < in ? padded_end : in;
  w.count = count_include_pad ? padded_end - first : w.end - w.start;
  return w;
}

// adaptive_avg_pool2d's window of output position o along a dim of `in` elements pooled to `out`:
// [floor(o * in / out), ceil((o + 1) * in / out)) (PyTorch's and Burn's).
CROSSGRAD_HOST_DEVICE inline std::int64_t adaptive_start(std::int64_t o, std::int64_t in, std::int64_t out) {
  return (o * in) / out;
}
CROSSGRAD_HOST_DEVICE inline std::int64_t adaptive_end(std::int64_t o, std::int64_t in, std::int64_t out) {
  return ((o + 1) * in + out - 1) / out;
}

// max_pool2d's scan of one window (output oh, ow) of one plane of in_h x in_w cells, rows and columns
// every dilation cells from o * stride - padding, padding cells skipped: PyTorch's rule, a cell
// replaces the kept one when it is greater or NaN, from -inf at the window's first input cell. So
// the first of equal maxima is kept (-0 before +0 as they come), and of several NaNs the last.
// Returns the kept cell's index in the plane (h * in_w + w); every window has an input cell once
// the options passed rules::plan_max_pool2d.
struct MaxPoolWindow {
  std::int64_t in_h, in_w, kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
};
template <class T>
CROSSGRAD_HOST_DEVICE std::int64_t max_pool_argmax(const T* plane, const MaxPoolWindow& g, std::int64_t oh, std::int64_t ow) {
  std::int64_t h0 = oh * g.stride_h - g.pad_h, w0 = ow * g.stride_w - g.pad_w;
  const std::int64_t h_end = h0 + (g.kernel_h - 1) * g.dilation_h + 1, w_end = w0 + (g.kernel_w - 1) * g.dilation_w + 1;
  while (h0 < 0) h0 += g.dilation_h;
  while (w0 < 0) w0 += g.dilation_w;
  std::int64_t best = h0 * g.in_w + w0;
  T kept = -static_cast<T>(__builtin_huge_val());
  for (std::int64_t h = h0; h < h_end && h < g.in_h; h += g.dilation_h) {
    for (std::int64_t w = w0; w < w_end && w < g.in_w; w += g.dilation_w) {
      const T v = plane[h * g.in_w + w];
      if (v > kept || v != v) {
        kept = v;
        best = h * g.in_w + w;
      }
    }
  }
  return best;
}

}  // namespace crossgrad
