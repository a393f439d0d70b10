#include <crossgrad/core/module_rules.hpp>
#include <crossgrad/core/panic.hpp>
#include <crossgrad/core/shape_rules.hpp>

#include <array>
#include <cmath>
#include <sstream>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace crossgrad::rules {
namespace {

// GCC's and clang's 128-bit integers (__extension__: -Wpedantic accepts them through these names).
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;


// One spatial value per dim, as the messages print it: [5] or [5, 3].
template <std::size_t N>
std::string sizes_text(const std::array<std::size_t, N>& s) {
  std::string out = "[";
  for (std::size_t d = 0; d < N; ++d) out += (d ? ", " : "") + std::to_string(s[d]);
  return out + "]";
}

// A window's span dilation (kernel - 1) + 1 and the padded size in + 2 padding, computed without
// wrapping: with options near 2^64 either can pass it, and a wrapped span once let max_pool1d plan
// 2^63 windows (a hang) where it should have panicked pool-kernel-too-large. Printed saturated.
struct WindowFit {
  UInt128 span, padded;
  bool fits() const { return padded >= span; }
  static std::size_t saturated(UInt128 v) {
    return v > std::numeric_limits<std::size_t>::max() ? std::numeric_limits<std::size_t>::max() : static_cast<std::size_t>(v);
  }
  // (padded - span) / stride + 1 when it fits; saturated, so a size past 2^64 - 1 panics in the
  // output shape's checks rather than wrapping.
  std::size_t windows(std::size_t stride) const { return saturated((padded - span) / stride + 1); }
};
WindowFit window_fit(std::size_t in, std::size_t padding, std::size_t kernel, std::size_t dilation) {
  return {static_cast<UInt128>(dilation) * (kernel - 1) + 1, static_cast<UInt128>(in) + 2 * static_cast<UInt128>(padding)};
}

// module-input-rank unless `shape` has the op's rank; `layout` names its dims.
void check_rank(const Shape& shape, std::size_t rank, std::string_view layout, std::string_view op,
                std::string_view operand) {
  if (shape.rank() == rank) return;
  panic(PanicId::ModuleInputRank, {{"op", std::string(op)},
                                   {"operand", std::string(operand)},
                                   {"rank", std::to_string(rank)},
                                   {"layout", std::string(layout)},
                                   {"shape", shape.to_string()}});
}

// The poolings' input and gradient: [batch, channels, height, width].
void check_rank4(const Shape& shape, std::string_view op, std::string_view operand) {
  check_rank(shape, 4, "[batch, channels, height, width]", op, operand);
}

template <std::size_t N>
void check_at_least_one(const std::array<std::size_t, N>& value, std::string_view option, std::string_view op) {
  for (std::size_t v : value) {
    if (v == 0) panic(PanicId::ModuleOptionZero, {{"op", std::string(op)}, {"option", std::string(option)}, {"value", sizes_text(value)}});
  }
}

void check_grad_dtype(DType x_dtype, DType grad_dtype, std::string_view op) {
  check_float_dtype(x_dtype, op);
  check_same_dtype(x_dtype, grad_dtype, op);
}

// A backward pass's gradient has its forward output's shape (pool-grad-shape).
void check_grad_is_output(const Shape& grad, const Shape& out, std::string_view op) {
  if (grad == out) return;
  panic(PanicId::PoolGradShape, {{"op", std::string(op)}, {"expected", out.to_string()}, {"got", grad.to_string()}});
}

std::size_t pooled_size(std::size_t in, std::size_t kernel, std::size_t stride, std::size_t padding, bool ceil_mode) {
  const std::size_t span = in + 2 * padding - kernel;  // >= 0: checked before
  std::size_t out = (span + (ceil_mode ? stride - 1 : 0)) / stride + 1;
  // Under ceil_mode the last window must start inside the input or its left padding.
  if (ceil_mode && (out - 1) * stride >= in + padding) --out;
  return out;
}

Pool2dPlan plan_of(const Shape& x, std::size_t out_h, std::size_t out_w) {
  Pool2dPlan p;
  p.planes = x[0] * x[1];
  p.in_h = x[2];
  p.in_w = x[3];
  p.out_h = out_h;
  p.out_w = out_w;
  p.out = Shape{x[0], x[1], out_h, out_w};
  return p;
}

// A 1-D pooling's plan: the single-row view's, with the 1-D output shape.
Pool2dPlan plan_of_row(const Shape& x, std::size_t out_length) {
  Pool2dPlan p;
  p.planes = x[0] * x[1];
  p.in_h = 1;
  p.in_w = x[2];
  p.out_h = 1;
  p.out_w = out_length;
  p.out = Shape{x[0], x[1], out_length};
  return p;
}

constexpr std::string_view kPool2dInput = "[batch, channels, height, width]";
constexpr std::string_view kPool1dInput = "[batch, channels, length]";

// The pooling checks shared by avg and max, over N = 2 (x [batch, channels, height, width]) or 1
// (x [batch, channels, length]) pooled dims: the rank, kernel_size, stride (and dilation for
// max), an empty pooled dim, padding against half the kernel_size, the padded input against the
// window's (dilated) span, then (max) every window reaching an input cell.
template <std::size_t N>
Pool2dPlan plan_window(const Shape& x, DType dtype, const std::array<std::size_t, N>& kernel,
                       const std::array<std::size_t, N>& stride, const std::array<std::size_t, N>& padding,
                       const std::array<std::size_t, N>* dilation, bool ceil_mode, std::string_view op) {
  using Sizes = std::array<std::size_t, N>;
  check_float_dtype(dtype, op);
  check_rank(x, N + 2, N == 2 ? kPool2dInput : kPool1dInput, op, "input");
  check_at_least_one(kernel, "kernel_size", op);
  check_at_least_one(stride, "stride", op);
  if (dilation != nullptr) check_at_least_one(*dilation, "dilation", op);
  // PyTorch's rule: with padding an empty pooled dim still has windows, of padding only (an
  // average of nothing: 0 / 0; no maximum).
  for (std::size_t d = 0; d < N; ++d) {
    if (x[2 + d] == 0) panic(PanicId::PoolEmptyInput, {{"op", std::string(op)}, {"shape", x.to_string()}});
  }
  Sizes span{}, padded{}, out{};
  std::array<WindowFit, N> fit{};
  for (std::size_t d = 0; d < N; ++d) {
    fit[d] = window_fit(x[2 + d], padding[d], kernel[d], dilation ? (*dilation)[d] : 1);
    span[d] = WindowFit::saturated(fit[d].span);
    padded[d] = WindowFit::saturated(fit[d].padded);
  }
  // PyTorch's rule, for max pooling too: half the kernel_size, not of the dilated span.
  for (std::size_t d = 0; d < N; ++d) {
    if (padding[d] > kernel[d] / 2) {
      panic(PanicId::PoolPadding, {{"op", std::string(op)}, {"padding", sizes_text(padding)}, {"kernel", sizes_text(kernel)}});
    }
  }
  for (std::size_t d = 0; d < N; ++d) {
    if (!fit[d].fits()) {
      panic(PanicId::PoolKernelTooLarge, {{"op", std::string(op)}, {"padded", sizes_text(padded)}, {"kernel", sizes_text(span)}});
    }
  }
  for (std::size_t d = 0; d < N; ++d) out[d] = pooled_size(x[2 + d], span[d], stride[d], padding[d], ceil_mode);
  // With dilation, a window's cells can step over the input altogether (kernel 2, dilation 2,
  // padding 1 on a size of 1: cells -1 and 1): it has no maximum (PyTorch returns -inf and an index
  // outside the plane there).
  // Only a window starting in the left padding can miss the input: every other starts inside it
  // (the checks above keep each start below the input's end). Such a window's first cell at or past
  // 0 lies within dilation - 1 of 0, so it can miss only where the input is shorter than the
  // dilation, and then the span check leaves kernel_size <= 2 and padding <= 1: this visits at most
  // two windows, never one per output (an empty tensor may have a dim of 2^40).
  if (dilation != nullptr) {
    for (std::size_t d = 0; d < N; ++d) {
      const std::size_t in = x[2 + d];
      if (in >= (*dilation)[d]) continue;
      for (std::size_t o = 0; o < out[d] && o * stride[d] < padding[d]; ++o) {
        const long long first = static_cast<long long>(o * stride[d]) - static_cast<long long>(padding[d]);
        const long long step = static_cast<long long>((*dilation)[d]);
        const long long i = first < 0 ? (-first + step - 1) / step : 0;  // the first cell at or past 0
        if (i < static_cast<long long>(kernel[d]) && first + i * step < static_cast<long long>(in)) continue;
        panic(PanicId::PoolEmptyWindow, {{"op", std::string(op)},
                                         {"dim", std::to_string(2 + d)},
                                         {"kernel", sizes_text(kernel)},
                                         {"dilation", sizes_text(*dilation)},
                                         {"padding", sizes_text(padding)},
                                         {"size", std::to_string(in)}});
      }
    }
  }
  return N == 2 ? plan_of(x, out[0], out[N - 1]) : plan_of_row(x, out[0]);
}

// A max pooling's backward pass, after the forward's checks (plan p): grad of the output's shape
// (pool-grad-shape), indices I64 or I32 (unsupported-dtype) of grad's shape (pool-indices-shape).
void check_max_pool_gradient(const Pool2dPlan& p, const Shape& grad, const Shape& indices, DType indices_dtype,
                             std::string_view op) {
  check_grad_is_output(grad, p.out, op);
  check_index_dtype(indices_dtype, op);
  if (indices != grad) {
    panic(PanicId::PoolIndicesShape, {{"op", std::string(op)}, {"expected", grad.to_string()}, {"got", indices.to_string()}});
  }
}

// avg_pool2d's checks, naming `op` (avg_pool2d, or the backward pass that was called).
Pool2dPlan plan_avg(const Shape& x, DType dtype, const AvgPool2dOptions& o, std::string_view op) {
  return plan_window<2>(x, dtype, o.kernel_size, o.stride, o.padding, nullptr, o.ceil_mode, op);
}

}  // namespace

Pool2dPlan plan_max_pool2d(const Shape& x, DType dtype, const MaxPool2dOptions& o, std::string_view op) {
  return plan_window<2>(x, dtype, o.kernel_size, o.stride, o.padding, &o.dilation, o.ceil_mode, op);
}

Pool2dPlan plan_max_pool2d_backward(const Shape& x, DType x_dtype, const Shape& grad, DType grad_dtype,
                                    const Shape& indices, DType indices_dtype, const MaxPool2dOptions& options) {
  constexpr std::string_view op = "max_pool2d_with_indices_backward";
  check_grad_dtype(x_dtype, grad_dtype, op);
  Pool2dPlan p = plan_max_pool2d(x, x_dtype, options, op);
  check_max_pool_gradient(p, grad, indices, indices_dtype, op);
  return p;
}

void pool_index_out_of_range(long long index, std::size_t plane_size, std::string_view op) {
  index_out_of_range(op, index, 2, plane_size);
}

void check_pool_indices(std::span<const std::int64_t> indices, std::size_t plane_size, std::string_view op) {
  for (const std::int64_t at : indices) {
    if (at < 0 || static_cast<std::uint64_t>(at) >= plane_size) pool_index_out_of_range(at, plane_size, op);
  }
}

namespace {
Pool2dPlan plan_interpolate_named(const Shape& x, DType dtype, const Size2& output_size, const InterpolateOptions& o,
                                  std::string_view op) {
  check_float_dtype(dtype, op);
  check_rank4(x, op, "input");
  if (static_cast<unsigned>(o.mode) > static_cast<unsigned>(InterpolateMode::Bicubic)) {
    panic(PanicId::InterpolateMode, {{"op", std::string(op)}, {"mode", std::to_string(static_cast<unsigned>(o.mode))}});
  }
  check_at_least_one(output_size, "output_size", op);
  if (x[2] == 0 || x[3] == 0) panic(PanicId::PoolEmptyInput, {{"op", std::string(op)}, {"shape", x.to_string()}});
  const Pool2dPlan p = plan_of(x, output_size[0], output_size[1]);
  (void)p.out.num_elements();  // shape-overflow
  return p;
}
}  // namespace

Pool2dPlan plan_avg_pool2d(const Shape& x, DType dtype, const AvgPool2dOptions& options) {
  return plan_avg(x, dtype, options, "avg_pool2d");
}

Pool2dPlan plan_avg_pool2d_backward(const Shape& x, DType x_dtype, const Shape& grad, DType grad_dtype,
                                    const AvgPool2dOptions& options) {
  constexpr std::string_view op = "avg_pool2d_backward";
  check_grad_dtype(x_dtype, grad_dtype, op);
  Pool2dPlan p = plan_avg(x, x_dtype, options, op);
  check_grad_is_output(grad, p.out, op);
  return p;
}

namespace {
// The adaptive poolings' backward passes (1-D, 2-D, 3-D): grad of x's dtype, both of the op's rank,
// grad of x's batch and channels (its pooled dims are the output size).
void check_adaptive_backward(const Shape& x, DType x_dtype, const Shape& grad, DType grad_dtype, std::size_t rank,
                             std::string_view layout, std::string_view op) {
  check_grad_dtype(x_dtype, grad_dtype, op);
  check_rank(x, rank, layout, op, "input");
  check_rank(grad, rank, layout, op, "gradient");
  if (grad[0] == x[0] && grad[1] == x[1]) return;
  std::vector<std::size_t> expected{x[0], x[1]};
  for (std::size_t d = 2; d < rank; ++d) expected.push_back(grad[d]);
  panic(PanicId::PoolGradShape, {{"op", std::string(op)}, {"expected", Shape(expected).to_string()}, {"got", grad.to_string()}});
}
}  // namespace

Pool2dPlan plan_adaptive_avg_pool2d(const Shape& x, DType dtype, const Size2& output_size) {
  constexpr std::string_view op = "adaptive_avg_pool2d";
  check_float_dtype(dtype, op);
  check_rank4(x, op, "input");
  check_at_least_one(output_size, "output_size", op);
  if (x[2] == 0 || x[3] == 0) panic(PanicId::PoolEmptyInput, {{"op", std::string(op)}, {"shape", x.to_string()}});
  return plan_of(x, output_size[0], output_size[1]);
}

Pool2dPlan plan_adaptive_avg_pool2d_backward(const Shape& x, DType x_dtype, const Shape& grad, DType grad_dtype) {
  constexpr std::string_view op = "adaptive_avg_pool2d_backward";
  check_adaptive_backward(x, x_dtype, grad, grad_dtype, 4, kPool2dInput, op);
  check_at_least_one(Size2{grad[2], grad[3]}, "output_size", op);
  if (x[2] == 0 || x[3] == 0) panic(PanicId::PoolEmptyInput, {{"op", std::string(op)}, {"shape", x.to_string()}});
  return plan_of(x, grad[2], grad[3]);
}

Pool2dPlan plan_avg_pool1d(const Shape& x, DType dtype, const AvgPool1dOptions& o) {
  return plan_window<1>(x, dtype, o.kernel_size, o.stride, o.padding, nullptr, o.ceil_mode, "avg_pool1d");
}

Pool2dPlan plan_avg_pool1d_backward(const Shape& x, DType x_dtype, const Shape& grad, DType grad_dtype, const AvgPool1dOptions& o) {
  constexpr std::string_view op = "avg_pool1d_backward";
  check_grad_dtype(x_dtype, grad_dtype, op);
  Pool2dPlan p = plan_window<1>(x, x_dtype, o.kernel_size, o.stride, o.padding, nullptr, o.ceil_mode, op);
  check_grad_is_output(grad, p.out, op);
  return p;
}

Pool2dPlan plan_adaptive_avg_pool1d(const Shape& x, DType dtype, const Size1& output_size) {
  constexpr std::string_view op = "adaptive_avg_pool1d";
  check_float_dtype(dtype, op);
  check_rank(x, 3, kPool1dInput, op, "input");
  check_at_least_one(output_size, "output_size", op);
  if (x[2] == 0) panic(PanicId::PoolEmptyInput, {{"op", std::string(op)}, {"shape", x.to_string()}});
  return plan_of_row(x, output_size[0]);
}

Pool2dPlan plan_adaptive_avg_pool1d_backward(const Shape& x, DType x_dtype, const Shape& grad, DType grad_dtype) {
  constexpr std::string_view op = "adaptive_avg_pool1d_backward";
  check_adaptive_backward(x, x_dtype, grad, grad_dtype, 3, kPool1dInput, op);
  check_at_least_one(Size1{grad[2]}, "output_size", op);
  if (x[2] == 0) panic(PanicId::PoolEmptyInput, {{"op", std::string(op)}, {"shape", x.to_string()}});
  return plan_of_row(x, grad[2]);
}

Pool2dPlan plan_max_pool1d(const Shape& x, DType dtype, const MaxPool1dOptions& o, std::string_view op) {
  return plan_window<1>(x, dtype, o.kernel_size, o.stride, o.padding, &o.dilation, o.ceil_mode, op);
}

Pool2dPlan plan_max_pool1d_backward(const Shape& x, DType x_dtype, const Shape& grad, DType grad_dtype, const Shape& indices,
                                    DType indices_dtype, const MaxPool1dOptions& options) {
  constexpr std::string_view op = "max_pool1d_with_indices_backward";
  check_grad_dtype(x_dtype, grad_dtype, op);
  Pool2dPlan p = plan_max_pool1d(x, x_dtype, options, op);
  check_max_pool_gradient(p, grad, indices, indices_dtype, op);
  return p;
}

Conv2dPlan plan_unfold4d(const Shape& x, DType dtype, const Size2& kernel, const UnfoldOptions& o) {
  constexpr std::string_view op = "unfold4d";
  check_float_dtype(dtype, op);
  check_rank(x, 4, kPool2dInput, op, "input");
  check_at_least_one(kernel, "kernel_size", op);
  check_at_least_one(o.stride, "stride", op);
  check_at_least_one(o.dilation, "dilation", op);
  if (x[2] == 0 || x[3] == 0) panic(PanicId::PoolEmptyInput, {{"op", std::string(op)}, {"shape", x.to_string()}});
  const WindowFit rows = window_fit(x[2], o.padding[0], kernel[0], o.dilation[0]);
  const WindowFit cols = window_fit(x[3], o.padding[1], kernel[1], o.dilation[1]);
  if (!rows.fits() || !cols.fits()) {
    const Size2 span{WindowFit::saturated(rows.span), WindowFit::saturated(cols.span)};
    const Size2 padded{WindowFit::saturated(rows.padded), WindowFit::saturated(cols.padded)};
    panic(PanicId::PoolKernelTooLarge, {{"op", std::string(op)}, {"padded", sizes_text(padded)}, {"kernel", sizes_text(span)}});
  }
  Conv2dPlan p;
  p.batch = x[0];
  p.channels_in = x[1];
  p.in_h = x[2];
  p.in_w = x[3];
  p.k_h = kernel[0];
  p.k_w = kernel[1];
  p.out_h = rows.windows(o.stride[0]);
  p.out_w = cols.windows(o.stride[1]);
  p.channels_out = Shape{x[1], kernel[0], kernel[1]}.num_elements();  // shape-overflow
  p.out = Shape{p.batch, p.channels_out, Shape{p.out_h, p.out_w}.num_elements()};
  (void)p.out.num_elements();
  return p;
}

// fold4d's grid of blocks over the padded output, one dim: padded = out + 2 padding computed without
// wrapping (a padding near 2^63 gives a grid no input dim 2 can match, never a wrapped small one).
namespace {
struct FoldDim {
  bool fits;         // the padded output holds the dilated kernel
  std::size_t padded;  // when it does not (then no wrap happened)
  UInt128 blocks;
};
FoldDim fold_dim(std::size_t out, std::size_t padding, std::size_t kernel, std::size_t dilation, std::size_t stride) {
  const UInt128 padded = static_cast<UInt128>(out) + 2 * static_cast<UInt128>(padding);
  const UInt128 span = static_cast<UInt128>(dilation) * (kernel - 1) + 1;
  if (padded < span) return {false, static_cast<std::size_t>(padded), 0};
  return {true, 0, (padded - span) / stride + 1};
}
}  // namespace

Conv2dPlan plan_fold4d(const Shape& x, DType dtype, const Size2& output_size, const Size2& kernel, const UnfoldOptions& o) {
  constexpr std::string_view op = "fold4d";
  check_float_dtype(dtype, op);
  check_rank(x, 3, "[batch, block_cells, blocks]", op, "input");
  check_at_least_one(kernel, "kernel_size", op);
  check_at_least_one(o.stride, "stride", op);
  check_at_least_one(o.dilation, "dilation", op);
  check_at_least_one(output_size, "output_size", op);
  const std::size_t cells = Shape{kernel[0], kernel[1]}.num_elements();  // shape-overflow
  if (x[1] % cells != 0) {
    panic(PanicId::FoldChannels,
          {{"op", std::string(op)}, {"cells", std::to_string(cells)}, {"kernel", sizes_text(kernel)}, {"shape", x.to_string()}});
  }
  const FoldDim rows = fold_dim(output_size[0], o.padding[0], kernel[0], o.dilation[0], o.stride[0]);
  const FoldDim cols = fold_dim(output_size[1], o.padding[1], kernel[1], o.dilation[1], o.stride[1]);
  if (!rows.fits || !cols.fits) {
    const Size2 span{o.dilation[0] * (kernel[0] - 1) + 1, o.dilation[1] * (kernel[1] - 1) + 1};
    const Size2 padded{rows.fits ? output_size[0] + 2 * o.padding[0] : rows.padded,
                       cols.fits ? output_size[1] + 2 * o.padding[1] : cols.padded};
    panic(PanicId::PoolKernelTooLarge, {{"op", std::string(op)}, {"padded", sizes_text(padded)}, {"kernel", sizes_text(span)}});
  }
  const UInt128 blocks = rows.blocks * cols.blocks;  // each below 2^65: no wrap
  if (blocks != x[2]) {
    const auto text = [](UInt128 v) {
      return v > std::numeric_limits<std::size_t>::max() ? std::string("2^64 or more") : std::to_string(static_cast<std::size_t>(v));
    };
    panic(PanicId::FoldBlocks, {{"op", std::string(op)},
                                {"rows", text(rows.blocks)},
                                {"cols", text(cols.blocks)},
                                {"blocks", text(blocks)},
                                {"shape", x.to_string()}});
  }
  Conv2dPlan p;
  p.batch = x[0];
  p.channels_in = x[1] / cells;
  p.channels_out = x[1];
  p.in_h = output_size[0];
  p.in_w = output_size[1];
  p.k_h = kernel[0];
  p.k_w = kernel[1];
  p.out_h = static_cast<std::size_t>(rows.blocks);
  p.out_w = static_cast<std::size_t>(cols.blocks);
  p.out = Shape{p.batch, p.channels_in, output_size[0], output_size[1]};
  (void)p.out.num_elements();  // shape-overflow
  return p;
}

Pool2dPlan plan_interpolate(const Shape& x, DType dtype, const Size2& output_size, const InterpolateOptions& o) {
  return plan_interpolate_named(x, dtype, output_size, o, "interpolate");
}

Pool2dPlan plan_interpolate_backward(const Shape& x, DType x_dtype, const Shape& grad, DType grad_dtype, const Size2& output_size,
                                     const InterpolateOptions& o) {
  constexpr std::string_view op = "interpolate_backward";
  check_grad_dtype(x_dtype, grad_dtype, op);
  const Pool2dPlan p = plan_interpolate_named(x, x_dtype, output_size, o, op);
  check_grad_is_output(grad, p.out, op);
  return p;
}

namespace {
constexpr std::string_view kPool3dInput = "[batch, channels, depth, height, width]";
Pool3dPlan plan_of_volume(const Shape& x, const Size3& out, std::string_view op) {
  if (x[2] == 0 || x[3] == 0 || x[4] == 0) panic(PanicId::PoolEmptyInput, {{"op", std::string(op)}, {"shape", x.to_string()}});
  Pool3dPlan p;
  p.planes = x[0] * x[1];
  p.in = {x[2], x[3], x[4]};
  p.out_size = out;
  p.out = Shape{x[0], x[1], out[0], out[1], out[2]};
  (void)p.out.num_elements();  // shape-overflow
  return p;
}
}  // namespace

Pool3dPlan plan_adaptive_avg_pool3d(const Shape& x, DType dtype, const Size3& output_size) {
  constexpr std::string_view op = "adaptive_avg_pool3d";
  check_float_dtype(dtype, op);
  check_rank(x, 5, kPool3dInput, op, "input");
  check_at_least_one(output_size, "output_size", op);
  return plan_of_volume(x, output_size, op);
}

Pool3dPlan plan_adaptive_avg_pool3d_backward(const Shape& x, DType x_dtype, const Shape& grad, DType grad_dtype) {
  constexpr std::string_view op = "adaptive_avg_pool3d_backward";
  check_adaptive_backward(x, x_dtype, grad, grad_dtype, 5, kPool3dInput, op);
  const Size3 out{grad[2], grad[3], grad[4]};
  check_at_least_one(out, "output_size", op);
  return plan_of_volume(x, out, op);
}

AvgPool2dOptions avg_pool2d_options_of(const AvgPool1dOptions& o) {
  return AvgPool2dOptions{{1, o.kernel_size[0]}, {1, o.stride[0]}, {0, o.padding[0]}, o.count_include_pad, o.ceil_mode};
}

MaxPool2dOptions max_pool2d_options_of(const MaxPool1dOptions& o) {
  return MaxPool2dOptions{{1, o.kernel_size[0]}, {1, o.stride[0]}, {0, o.padding[0]}, {1, o.dilation[0]}, o.ceil_mode};
}

namespace {

EmbeddingPlan plan_embedding_named(const Shape& weights, DType weights_dtype, const Shape& indices, DType indices_dtype,
                                   std::string_view op) {
  check_float_dtype(weights_dtype, op);
  check_rank(weights, 2, "[n_embeddings, d_model]", op, "weight");
  check_index_dtype(indices_dtype, op);
  check_rank(indices, 2, "[batch, seq_length]", op, "index");
  EmbeddingPlan p;
  p.n_embeddings = weights[0];
  p.d_model = weights[1];
  p.positions = indices[0] * indices[1];
  p.out = Shape{indices[0], indices[1], weights[1]};
  return p;
}

}  // namespace

EmbeddingPlan plan_embedding(const Shape& weights, DType weights_dtype, const Shape& indices, DType indices_dtype) {
  return plan_embedding_named(weights, weights_dtype, indices, indices_dtype, "embedding");
}

EmbeddingPlan plan_embedding_backward(const Shape& weights, DType weights_dtype, const Shape& grad, DType grad_dtype,
                                      const Shape& indices, DType indices_dtype) {
  constexpr std::string_view op = "embedding_backward";
  check_grad_dtype(weights_dtype, grad_dtype, op);
  EmbeddingPlan p = plan_embedding_named(weights, weights_dtype, indices, indices_dtype, op);
  check_grad_is_output(grad, p.out, op);
  return p;
}

void embedding_index_out_of_range(std::string_view op, long long index, std::size_t n_embeddings) {
  index_out_of_range(op, index, 0, n_embeddings);
}

void check_embedding_indices(std::span<const std::int64_t> indices, std::size_t n_embeddings, std::string_view op) {
  for (const std::int64_t at : indices) {
    if (at < 0 || static_cast<std::uint64_t>(at) >= n_embeddings) embedding_index_out_of_range(op, at, n_embeddings);
  }
}

namespace {

constexpr std::string_view kLinearInput = "[..., d_input]";
constexpr std::string_view kLinearGradient = "[..., d_output]";

void check_not_scalar(const Shape& shape, std::string_view layout, std::string_view op, std::string_view operand) {
  if (shape.rank() >= 1) return;
  panic(PanicId::ModuleInputScalar, {{"op", std::string(op)},
                                     {"operand", std::string(operand)},
                                     {"layout", std::string(layout)},
                                     {"shape", shape.to_string()}});
}

void check_dim_match(std::string_view op, std::string_view lhs, const Shape& lhs_shape, std::size_t lhs_dim,
                     std::string_view rhs, const Shape& rhs_shape, std::size_t rhs_dim) {
  if (lhs_shape[lhs_dim] == rhs_shape[rhs_dim]) return;
  panic(PanicId::ModuleDimMismatch, {{"op", std::string(op)},
                                     {"lhs", std::string(lhs)},
                                     {"lhs_shape", lhs_shape.to_string()},
                                     {"rhs", std::string(rhs)},
                                     {"rhs_shape", rhs_shape.to_string()},
                                     {"lhs_dim", std::to_string(lhs_dim)},
                                     {"lhs_size", std::to_string(lhs_shape[lhs_dim])},
                                     {"rhs_dim", std::to_string(rhs_dim)},
                                     {"rhs_size", std::to_string(rhs_shape[rhs_dim])}});
}

// `leading` (a shape's dims but the last) with `last` appended, its size checked (shape-overflow);
// rows as LinearPlan defines them.
LinearPlan linear_plan_of(const Shape& leading_of, std::size_t last, std::size_t d_input, std::size_t d_output) {
  std::vector<std::size_t> dims(leading_of.dims().begin(), leading_of.dims().end() - 1);
  dims.push_back(last);
  LinearPlan p;
  p.out = Shape(std::move(dims));
  const std::size_t elements = p.out.num_elements();
  p.rows = elements == 0 ? 0 : elements / last;
  p.d_input = d_input;
  p.d_output = d_output;
  return p;
}

}  // namespace

LinearPlan plan_linear(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape* bias,
                       DType bias_dtype) {
  constexpr std::string_view op = "linear";
  check_grad_dtype(x_dtype, weight_dtype, op);
  if (bias != nullptr) check_same_dtype(x_dtype, bias_dtype, op);
  check_not_scalar(x, kLinearInput, op, "input");
  check_rank(weight, 2, "[d_input, d_output]", op, "weight");
  if (bias != nullptr) check_rank(*bias, 1, "[d_output]", op, "bias");
  check_dim_match(op, "input", x, x.rank() - 1, "weight", weight, 0);
  if (bias != nullptr) check_dim_match(op, "bias", *bias, 0, "weight", weight, 1);
  return linear_plan_of(x, weight[1], weight[0], weight[1]);
}

LinearPlan plan_linear_x_backward(const Shape& weight, DType weight_dtype, const Shape& grad, DType grad_dtype) {
  constexpr std::string_view op = "linear_x_backward";
  check_grad_dtype(weight_dtype, grad_dtype, op);
  check_rank(weight, 2, "[d_input, d_output]", op, "weight");
  check_not_scalar(grad, kLinearGradient, op, "gradient");
  check_dim_match(op, "gradient", grad, grad.rank() - 1, "weight", weight, 1);
  return linear_plan_of(grad, weight[0], weight[0], weight[1]);
}

LinearPlan plan_linear_weight_backward(const Shape& x, DType x_dtype, const Shape& grad, DType grad_dtype) {
  constexpr std::string_view op = "linear_weight_backward";
  check_grad_dtype(x_dtype, grad_dtype, op);
  check_not_scalar(x, kLinearInput, op, "input");
  check_not_scalar(grad, kLinearGradient, op, "gradient");
  std::vector<std::size_t> expected(x.dims().begin(), x.dims().end() - 1);
  expected.push_back(grad[grad.rank() - 1]);
  if (grad != Shape(expected)) {
    panic(PanicId::PoolGradShape,
          {{"op", std::string(op)}, {"expected", Shape(std::move(expected)).to_string()}, {"got", grad.to_string()}});
  }
  const std::size_t d_input = x[x.rank() - 1], d_output = grad[grad.rank() - 1];
  LinearPlan p;
  p.out = Shape{d_input, d_output};
  p.d_input = d_input;
  p.d_output = d_output;
  // x holds rows * d_input elements, and a non-empty result has d_input >= 1.
  p.rows = p.out.num_elements() == 0 ? 0 : x.num_elements() / d_input;
  return p;
}

LinearPlan plan_linear_bias_backward(const Shape& grad, DType grad_dtype) {
  constexpr std::string_view op = "linear_bias_backward";
  check_float_dtype(grad_dtype, op);
  check_not_scalar(grad, kLinearGradient, op, "gradient");
  const std::size_t d_output = grad[grad.rank() - 1];
  LinearPlan p;
  p.out = Shape{d_output};
  p.d_output = d_output;
  p.rows = d_output == 0 ? 0 : grad.num_elements() / d_output;
  return p;
}

namespace {

constexpr std::string_view kConvInput = "[batch, channels_in, height, width]";
constexpr std::string_view kConvWeight = "[channels_out, channels_per_group, kernel_height, kernel_width]";
constexpr std::string_view kConv1dInput = "[batch, channels_in, length]";
constexpr std::string_view kConv3dInput = "[batch, channels_in, depth, height, width]";

// The input layout of an N-d convolution, and its output's (the gradient's).
constexpr std::string_view conv_input_layout(std::size_t n) {
  return n == 3 ? kConv3dInput : n == 2 ? kConvInput : kConv1dInput;
}
constexpr std::string_view conv_output_layout(std::size_t n) {
  return n == 3   ? "[batch, channels_out, depth, height, width]"
         : n == 2 ? "[batch, channels_out, height, width]"
                  : "[batch, channels_out, length]";
}

// The plan's geometry for N spatial dims: each size right-aligned into (depth, height, width), the
// missing leading ones 1 (a 1-D op's plan is the single-row view's, a 2-D op's a single plane's),
// out [batch, channels_out, out...] with the op's own N dims.
template <std::size_t N>
void fill_conv_geometry(Conv2dPlan& p, const std::array<std::size_t, N>& input, const std::array<std::size_t, N>& kernel,
                        const std::array<std::size_t, N>& out) {
  Size3 in3{1, 1, 1}, k3{1, 1, 1}, out3{1, 1, 1};
  for (std::size_t d = 0; d < N; ++d) {
    in3[3 - N + d] = input[d];
    k3[3 - N + d] = kernel[d];
    out3[3 - N + d] = out[d];
  }
  p.in_d = in3[0], p.in_h = in3[1], p.in_w = in3[2];
  p.k_d = k3[0], p.k_h = k3[1], p.k_w = k3[2];
  p.out_d = out3[0], p.out_h = out3[1], p.out_w = out3[2];
  std::vector<std::size_t> dims{p.batch, p.channels_out};
  dims.insert(dims.end(), out.begin(), out.end());
  p.out = Shape(std::move(dims));
  (void)p.out.num_elements();  // shape-overflow
}

// conv1d's and conv2d's channel checks, in their order: groups at least 1 dividing x's channels
// (dim 1) and the weight's output channels (dim 0) (conv-groups), the weight's dim 1 the input
// channels / groups (conv-channels), the bias's size the output channels (module-dim-mismatch).
void check_conv_channels(const Shape& x, const Shape& weight, const Shape* bias, std::size_t groups, std::string_view op) {
  if (groups == 0 || x[1] % groups != 0 || weight[0] % groups != 0) {
    panic(PanicId::ConvGroups, {{"op", std::string(op)},
                                {"groups", std::to_string(groups)},
                                {"channels_in", std::to_string(x[1])},
                                {"channels_out", std::to_string(weight[0])}});
  }
  if (weight[1] != x[1] / groups) {
    panic(PanicId::ConvChannels, {{"op", std::string(op)},
                                  {"channels_in", std::to_string(x[1])},
                                  {"groups", std::to_string(groups)},
                                  {"expected", std::to_string(x[1] / groups)},
                                  {"weight", weight.to_string()}});
  }
  if (bias != nullptr) check_dim_match(op, "bias", *bias, 0, "weight", weight, 0);
}

// conv2d's (Conv2dOptions, N = 2) and conv1d's (Conv1dOptions, N = 1) checks in conv2d's order,
// over x [batch, channels_in, spatial...] and a weight [channels_out, channels_per_group,
// kernel...]; a 1-D op's plan is conv2d's on the single-row view with its own 1-D output shape.
template <class Options>
Conv2dPlan plan_conv_named(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape* bias,
                           DType bias_dtype, const Options& o, std::string_view op) {
  constexpr std::size_t N = std::tuple_size_v<decltype(o.stride)>;
  using Sizes = std::array<std::size_t, N>;
  check_grad_dtype(x_dtype, weight_dtype, op);
  if (bias != nullptr) check_same_dtype(x_dtype, bias_dtype, op);
  check_rank(x, N + 2, conv_input_layout(N), op, "input");
  check_rank(weight, N + 2,
             N == 3   ? std::string_view("[channels_out, channels_per_group, kernel_depth, kernel_height, kernel_width]")
             : N == 2 ? kConvWeight
                      : std::string_view("[channels_out, channels_per_group, kernel_size]"),
             op, "weight");
  if (bias != nullptr) check_rank(*bias, 1, "[channels_out]", op, "bias");
  Sizes input{}, kernel{}, span{}, padded{}, out{};
  for (std::size_t d = 0; d < N; ++d) {
    input[d] = x[2 + d];
    kernel[d] = weight[2 + d];
  }
  check_at_least_one(o.stride, "stride", op);
  check_at_least_one(o.dilation, "dilation", op);
  check_at_least_one(kernel, "kernel_size", op);
  check_conv_channels(x, weight, bias, o.groups, op);
  std::array<WindowFit, N> fit{};
  for (std::size_t d = 0; d < N; ++d) {
    fit[d] = window_fit(x[2 + d], o.padding[d], kernel[d], o.dilation[d]);
    span[d] = WindowFit::saturated(fit[d].span);
    padded[d] = WindowFit::saturated(fit[d].padded);
  }
  for (std::size_t d = 0; d < N; ++d) {
    if (!fit[d].fits()) {
      panic(PanicId::PoolKernelTooLarge, {{"op", std::string(op)}, {"padded", sizes_text(padded)}, {"kernel", sizes_text(span)}});
    }
  }
  for (std::size_t d = 0; d < N; ++d) out[d] = fit[d].windows(o.stride[d]);
  Conv2dPlan p;
  p.batch = x[0];
  p.channels_in = x[1];
  p.channels_out = weight[0];
  p.groups = o.groups;
  fill_conv_geometry<N>(p, input, kernel, out);
  return p;
}

// conv2d_bias_backward's checks (N = 2) and conv1d's (N = 1, also the transposed ops' bias passes):
// float x, bias and grad of x's dtype, x and grad of rank N + 2, bias of rank 1, grad of x's batch
// and the bias's channels (pool-grad-shape).
template <std::size_t N>
Shape plan_bias_backward(const Shape& x, DType x_dtype, const Shape& bias, DType bias_dtype, const Shape& grad,
                         DType grad_dtype, std::string_view op) {
  check_grad_dtype(x_dtype, bias_dtype, op);
  check_same_dtype(x_dtype, grad_dtype, op);
  check_rank(x, N + 2, conv_input_layout(N), op, "input");
  check_rank(bias, 1, "[channels_out]", op, "bias");
  check_rank(grad, N + 2, conv_output_layout(N), op, "gradient");
  if (grad[0] != x[0] || grad[1] != bias[0]) {
    std::vector<std::size_t> expected = grad.dims();
    expected[0] = x[0];
    expected[1] = bias[0];
    panic(PanicId::PoolGradShape,
          {{"op", std::string(op)}, {"expected", Shape(std::move(expected)).to_string()}, {"got", grad.to_string()}});
  }
  return bias;
}

}  // namespace

Conv2dPlan plan_conv2d(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape* bias,
                       DType bias_dtype, const Conv2dOptions& options) {
  return plan_conv_named(x, x_dtype, weight, weight_dtype, bias, bias_dtype, options, "conv2d");
}

Conv2dPlan plan_deform_conv2d(const Shape& x, DType x_dtype, const Shape& offset, DType offset_dtype, const Shape& weight,
                              DType weight_dtype, const Shape* mask, DType mask_dtype, const Shape* bias, DType bias_dtype,
                              const DeformConv2dOptions& o, std::string_view op) {
  const Conv2dOptions geometry{o.stride, o.padding, o.dilation, o.weight_groups};
  const Conv2dPlan p = plan_conv_named(x, x_dtype, weight, weight_dtype, bias, bias_dtype, geometry, op);
  check_same_dtype(x_dtype, offset_dtype, op);
  if (mask != nullptr) check_same_dtype(x_dtype, mask_dtype, op);
  if (o.offset_groups == 0 || p.channels_in % o.offset_groups != 0) {
    panic(PanicId::DeformOffsetGroups, {{"op", std::string(op)},
                                        {"channels_in", std::to_string(p.channels_in)},
                                        {"groups", std::to_string(o.offset_groups)}});
  }
  const std::size_t taps = o.offset_groups * p.k_h * p.k_w;
  const auto check = [&](const Shape& got, std::size_t per_cell, std::string_view operand) {
    const Shape expected{p.batch, per_cell, p.out_h, p.out_w};
    if (got != expected) {
      panic(PanicId::DeformOperandShape,
            {{"op", std::string(op)}, {"operand", std::string(operand)}, {"expected", expected.to_string()}, {"got", got.to_string()}});
    }
  };
  check(offset, 2 * taps, "an offset");
  if (mask != nullptr) check(*mask, taps, "a mask");
  return p;
}

Conv2dPlan plan_conv2d_backward(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape& grad,
                                DType grad_dtype, const Conv2dOptions& options, std::string_view op) {
  check_grad_dtype(x_dtype, grad_dtype, op);
  Conv2dPlan p = plan_conv_named(x, x_dtype, weight, weight_dtype, nullptr, x_dtype, options, op);
  check_grad_is_output(grad, p.out, op);
  return p;
}

Shape plan_conv2d_bias_backward(const Shape& x, DType x_dtype, const Shape& bias, DType bias_dtype, const Shape& grad,
                                DType grad_dtype, std::string_view op) {
  return plan_bias_backward<2>(x, x_dtype, bias, bias_dtype, grad, grad_dtype, op);
}

namespace {


// A decimal rendering of a 128-bit value (std::to_string has no overload for it).
std::string int128_string(Int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  UInt128 m = negative ? static_cast<UInt128>(-(v + 1)) + 1 : static_cast<UInt128>(v);
  std::string digits;
  for (; m != 0; m /= 10) digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
  return negative ? "-" + digits : digits;
}

// One dim of conv_transpose2d's output, (in - 1) stride + dilation (k - 1) + 1 + padding_out -
// 2 padding, exactly, as in stride + dilation (k - 1) + 1 + padding_out less stride + 2 padding:
// every term is below 2^64, so each product is below 2^128 and only their sum can pass it
// (nullopt: 2^127 or more, past every size the checks accept).
std::optional<Int128> transposed_size(std::size_t in, std::size_t stride, std::size_t dilation, std::size_t kernel,
                                        std::size_t padding_out, std::size_t padding) {
  using U = UInt128;
  U full = static_cast<U>(in) * stride;
  if (__builtin_add_overflow(full, static_cast<U>(dilation) * (kernel - 1), &full)) return std::nullopt;  // kernel >= 1
  if (__builtin_add_overflow(full, static_cast<U>(padding_out) + 1, &full)) return std::nullopt;
  if (full >= (static_cast<U>(1) << 127)) return std::nullopt;
  return static_cast<Int128>(full) - static_cast<Int128>(stride) - 2 * static_cast<Int128>(padding);
}

// conv_transpose2d's (N = 2) and conv_transpose1d's (N = 1) options, spatial dims first.
template <std::size_t N>
struct TransposedOptions {
  std::array<std::size_t, N> stride, padding, padding_out, dilation;
  std::size_t groups;
};

// The transposed convolutions' checks in their order over x [batch, channels_in, spatial...] and a
// weight [channels_in, channels_out / groups, kernel...]; the plan is conv_transpose2d's, a 1-D
// op's on the single-row view (rows of 1 everywhere) with its own 1-D output shape.
template <std::size_t N>
Conv2dPlan plan_conv_transpose_named(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype,
                                     const Shape* bias, DType bias_dtype, const TransposedOptions<N>& o,
                                     std::string_view op) {
  using Sizes = std::array<std::size_t, N>;
  check_grad_dtype(x_dtype, weight_dtype, op);
  if (bias != nullptr) check_same_dtype(x_dtype, bias_dtype, op);
  check_rank(x, N + 2, conv_input_layout(N), op, "input");
  check_rank(weight, N + 2,
             N == 3   ? std::string_view("[channels_in, channels_out_per_group, kernel_depth, kernel_height, kernel_width]")
             : N == 2 ? std::string_view("[channels_in, channels_out_per_group, kernel_height, kernel_width]")
                      : std::string_view("[channels_in, channels_out_per_group, kernel_size]"),
             op, "weight");
  if (bias != nullptr) check_rank(*bias, 1, "[channels_out]", op, "bias");
  Sizes kernel{}, input{};
  for (std::size_t d = 0; d < N; ++d) {
    kernel[d] = weight[2 + d];
    input[d] = x[2 + d];
  }
  check_at_least_one(o.stride, "stride", op);
  check_at_least_one(o.dilation, "dilation", op);
  check_at_least_one(kernel, "kernel_size", op);
  // The output channels are weight dim 1 * groups, a multiple of groups by construction; a product
  // past 2^64 - 1 is no channel count (shape-overflow of [weight dim 1, groups], before the messages
  // below name it).
  std::size_t channels_out = 0;
  if (__builtin_mul_overflow(weight[1], o.groups, &channels_out)) (void)Shape{weight[1], o.groups}.num_elements();
  if (o.groups == 0 || x[1] % o.groups != 0) {
    panic(PanicId::ConvGroups, {{"op", std::string(op)},
                                {"groups", std::to_string(o.groups)},
                                {"channels_in", std::to_string(x[1])},
                                {"channels_out", std::to_string(channels_out)}});
  }
  if (weight[0] != x[1]) {
    panic(PanicId::ConvTransposeWeight,
          {{"op", std::string(op)}, {"channels_in", std::to_string(x[1])}, {"weight", weight.to_string()}});
  }
  if (bias != nullptr && (*bias)[0] != channels_out) {
    panic(PanicId::ConvBiasChannels, {{"op", std::string(op)},
                                      {"channels_out", std::to_string(channels_out)},
                                      {"per_group", std::to_string(weight[1])},
                                      {"groups", std::to_string(o.groups)},
                                      {"bias", bias->to_string()}});
  }
  for (std::size_t d = 0; d < N; ++d) {
    if (o.padding_out[d] >= o.stride[d] && o.padding_out[d] >= o.dilation[d]) {
      panic(PanicId::ConvPaddingOut, {{"op", std::string(op)},
                                      {"padding_out", sizes_text(o.padding_out)},
                                      {"stride", sizes_text(o.stride)},
                                      {"dilation", sizes_text(o.dilation)}});
    }
  }
  std::optional<Int128> size[N];
  bool fits = true;
  for (std::size_t d = 0; d < N; ++d) {
    size[d] = transposed_size(input[d], o.stride[d], o.dilation[d], kernel[d], o.padding_out[d], o.padding[d]);
    fits = fits && input[d] >= 1 && size[d] && *size[d] >= 1 && *size[d] <= static_cast<Int128>(~std::size_t{0});
  }
  if (!fits) {
    const auto text = [](const std::optional<Int128>& v) { return v ? int128_string(*v) : std::string("2^127 or more"); };
    std::string sizes = "[";
    for (std::size_t d = 0; d < N; ++d) sizes += (d ? ", " : "") + text(size[d]);
    panic(PanicId::ConvTransposeSize, {{"op", std::string(op)}, {"input", sizes_text(input)}, {"size", sizes + "]"}});
  }
  Conv2dPlan p;
  p.batch = x[0];
  p.channels_in = x[1];
  p.channels_out = channels_out;
  p.groups = o.groups;
  Sizes out{};
  for (std::size_t d = 0; d < N; ++d) out[d] = static_cast<std::size_t>(*size[d]);
  fill_conv_geometry<N>(p, input, kernel, out);
  return p;
}

Conv2dPlan plan_conv_transpose2d_named(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype,
                                       const Shape* bias, DType bias_dtype, const ConvTranspose2dOptions& o,
                                       std::string_view op) {
  const TransposedOptions<2> t{o.stride, o.padding, o.padding_out, o.dilation, o.groups};
  return plan_conv_transpose_named<2>(x, x_dtype, weight, weight_dtype, bias, bias_dtype, t, op);
}

Conv2dPlan plan_conv_transpose1d_named(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype,
                                       const Shape* bias, DType bias_dtype, const ConvTranspose1dOptions& o,
                                       std::string_view op) {
  const TransposedOptions<1> t{o.stride, o.padding, o.padding_out, o.dilation, o.groups};
  return plan_conv_transpose_named<1>(x, x_dtype, weight, weight_dtype, bias, bias_dtype, t, op);
}

Conv2dPlan plan_conv_transpose3d_named(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype,
                                       const Shape* bias, DType bias_dtype, const ConvTranspose3dOptions& o,
                                       std::string_view op) {
  const TransposedOptions<3> t{o.stride, o.padding, o.padding_out, o.dilation, o.groups};
  return plan_conv_transpose_named<3>(x, x_dtype, weight, weight_dtype, bias, bias_dtype, t, op);
}

}  // namespace

Conv2dPlan plan_conv_transpose2d(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape* bias,
                                 DType bias_dtype, const ConvTranspose2dOptions& options) {
  return plan_conv_transpose2d_named(x, x_dtype, weight, weight_dtype, bias, bias_dtype, options, "conv_transpose2d");
}

Conv2dPlan plan_conv_transpose2d_backward(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype,
                                          const Shape& grad, DType grad_dtype, const ConvTranspose2dOptions& options,
                                          std::string_view op) {
  check_grad_dtype(x_dtype, grad_dtype, op);
  Conv2dPlan p = plan_conv_transpose2d_named(x, x_dtype, weight, weight_dtype, nullptr, x_dtype, options, op);
  check_grad_is_output(grad, p.out, op);
  return p;
}

Conv2dPlan plan_conv_transpose1d(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape* bias,
                                 DType bias_dtype, const ConvTranspose1dOptions& options) {
  return plan_conv_transpose1d_named(x, x_dtype, weight, weight_dtype, bias, bias_dtype, options, "conv_transpose1d");
}

Conv2dPlan plan_conv_transpose1d_backward(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype,
                                          const Shape& grad, DType grad_dtype, const ConvTranspose1dOptions& options,
                                          std::string_view op) {
  check_grad_dtype(x_dtype, grad_dtype, op);
  Conv2dPlan p = plan_conv_transpose1d_named(x, x_dtype, weight, weight_dtype, nullptr, x_dtype, options, op);
  check_grad_is_output(grad, p.out, op);
  return p;
}

ConvTranspose2dOptions conv_transpose2d_options_of(const ConvTranspose1dOptions& o) {
  return ConvTranspose2dOptions{{1, o.stride[0]}, {0, o.padding[0]}, {0, o.padding_out[0]}, {1, o.dilation[0]}, o.groups};
}

Conv2dPlan plan_conv1d(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape* bias,
                       DType bias_dtype, const Conv1dOptions& options) {
  return plan_conv_named(x, x_dtype, weight, weight_dtype, bias, bias_dtype, options, "conv1d");
}

Conv2dPlan plan_conv1d_backward(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape& grad,
                                DType grad_dtype, const Conv1dOptions& options, std::string_view op) {
  check_grad_dtype(x_dtype, grad_dtype, op);
  Conv2dPlan p = plan_conv_named(x, x_dtype, weight, weight_dtype, nullptr, x_dtype, options, op);
  check_grad_is_output(grad, p.out, op);
  return p;
}

Shape plan_conv1d_bias_backward(const Shape& x, DType x_dtype, const Shape& bias, DType bias_dtype, const Shape& grad,
                                DType grad_dtype, std::string_view op) {
  return plan_bias_backward<1>(x, x_dtype, bias, bias_dtype, grad, grad_dtype, op);
}

Conv2dOptions conv2d_options_of(const Conv1dOptions& o) {
  return Conv2dOptions{{1, o.stride[0]}, {0, o.padding[0]}, {1, o.dilation[0]}, o.groups};
}

LayerNormPlan plan_layer_norm(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape* bias,
                              DType bias_dtype) {
  constexpr std::string_view op = "layer_norm";
  check_grad_dtype(x_dtype, weight_dtype, op);
  if (bias != nullptr) check_same_dtype(x_dtype, bias_dtype, op);
  check_not_scalar(x, "[..., d_model]", op, "input");
  check_rank(weight, 1, "[d_model]", op, "weight");
  if (bias != nullptr) check_rank(*bias, 1, "[d_model]", op, "bias");
  check_dim_match(op, "input", x, x.rank() - 1, "weight", weight, 0);
  if (bias != nullptr) check_dim_match(op, "bias", *bias, 0, "weight", weight, 0);
  LayerNormPlan p;
  p.out = x;
  p.d_model = weight[0];
  const std::size_t elements = x.num_elements();
  p.rows = elements == 0 ? 0 : elements / p.d_model;
  return p;
}

BatchNormPlan plan_batch_norm(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape& bias,
                              DType bias_dtype, const Shape& mean, DType mean_dtype, const Shape& variance, DType variance_dtype) {
  constexpr std::string_view op = "batch_norm";
  check_grad_dtype(x_dtype, weight_dtype, op);
  for (DType d : {bias_dtype, mean_dtype, variance_dtype}) check_same_dtype(x_dtype, d, op);
  if (x.rank() < 2) {
    panic(PanicId::ModuleInputMinRank,
          {{"op", std::string(op)}, {"rank", "2"}, {"layout", "[batch, channels, ...]"}, {"shape", x.to_string()}});
  }
  const std::pair<const Shape*, std::string_view> stats[] = {{&weight, "weight"}, {&bias, "bias"}, {&mean, "mean"}, {&variance, "variance"}};
  for (const auto& [shape, name] : stats) check_rank(*shape, 1, "[channels]", op, name);
  for (const auto& [shape, name] : stats) check_dim_match(op, name, *shape, 0, "input", x, 1);
  BatchNormPlan p;
  p.out = x;
  p.channels = x[1];
  return p;
}

namespace {

void check_scores_shape(const Shape& operand, const Shape& scores, std::string_view name, std::string_view op) {
  if (operand == scores) return;
  panic(PanicId::AttentionOperandShape, {{"op", std::string(op)},
                                         {"operand", std::string(name)},
                                         {"expected", scores.to_string()},
                                         {"got", operand.to_string()}});
}

std::string softcap_text(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

}  // namespace

AttentionPlan plan_attention(const Shape& query, DType query_dtype, const Shape& key, DType key_dtype, const Shape& value,
                             DType value_dtype, const Shape* mask, DType mask_dtype, const Shape* bias, DType bias_dtype,
                             const AttentionOptions& o) {
  constexpr std::string_view op = "attention";
  check_grad_dtype(query_dtype, key_dtype, op);
  check_same_dtype(query_dtype, value_dtype, op);
  if (bias != nullptr) check_same_dtype(query_dtype, bias_dtype, op);
  if (mask != nullptr) check_bool_dtype(mask_dtype, op);
  if (o.softcap && !(*o.softcap > 0.0)) {
    panic(PanicId::AttentionSoftcap, {{"op", std::string(op)}, {"softcap", softcap_text(*o.softcap)}});
  }
  check_rank(query, 4, "[batch, heads, seq_q, head_dim]", op, "query");
  check_rank(key, 4, "[batch, heads, seq_k, head_dim]", op, "key");
  check_rank(value, 4, "[batch, heads, seq_k, value_dim]", op, "value");
  for (std::size_t d : {0, 1, 3}) check_dim_match(op, "key", key, d, "query", query, d);
  for (std::size_t d : {0, 1, 2}) check_dim_match(op, "value", value, d, "key", key, d);
  AttentionPlan p;
  p.batch = query[0];
  p.heads = query[1];
  p.seq_q = query[2];
  p.head_dim = query[3];
  p.seq_k = key[2];
  p.value_dim = value[3];
  p.scores = Shape{p.batch, p.heads, p.seq_q, p.seq_k};
  if (mask != nullptr) check_scores_shape(*mask, p.scores, "mask", op);
  if (bias != nullptr) check_scores_shape(*bias, p.scores, "bias", op);
  p.out = Shape{p.batch, p.heads, p.seq_q, p.value_dim};
  (void)p.out.num_elements();
  (void)p.scores.num_elements();
  p.scale = o.scale ? *o.scale : 1.0 / std::sqrt(static_cast<double>(p.head_dim));
  return p;
}

void not_differentiable(std::string_view op) { panic(PanicId::NotDifferentiable, {{"op", std::string(op)}}); }


Conv2dPlan plan_conv3d(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape* bias,
                       DType bias_dtype, const Conv3dOptions& options) {
  return plan_conv_named(x, x_dtype, weight, weight_dtype, bias, bias_dtype, options, "conv3d");
}

Conv2dPlan plan_conv3d_backward(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape& grad,
                                DType grad_dtype, const Conv3dOptions& options, std::string_view op) {
  check_grad_dtype(x_dtype, grad_dtype, op);
  Conv2dPlan p = plan_conv_named(x, x_dtype, weight, weight_dtype, nullptr, x_dtype, options, op);
  check_grad_is_output(grad, p.out, op);
  return p;
}

Shape plan_conv3d_bias_backward(const Shape& x, DType x_dtype, const Shape& bias, DType bias_dtype, const Shape& grad,
                                DType grad_dtype, std::string_view op) {
  return plan_bias_backward<3>(x, x_dtype, bias, bias_dtype, grad, grad_dtype, op);
}

Conv2dPlan plan_conv_transpose3d(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype, const Shape* bias,
                                 DType bias_dtype, const ConvTranspose3dOptions& options) {
  return plan_conv_transpose3d_named(x, x_dtype, weight, weight_dtype, bias, bias_dtype, options, "conv_transpose3d");
}

Conv2dPlan plan_conv_transpose3d_backward(const Shape& x, DType x_dtype, const Shape& weight, DType weight_dtype,
                                          const Shape& grad, DType grad_dtype, const ConvTranspose3dOptions& options,
                                          std::string_view op) {
  check_grad_dtype(x_dtype, grad_dtype, op);
  Conv2dPlan p = plan_conv_transpose3d_named(x, x_dtype, weight, weight_dtype, nullptr, x_dtype, options, op);
  check_grad_is_output(grad, p.out, op);
  return p;
}

namespace {

bool is_power_of_two(std::size_t v) { return v != 0 && (v & (v - 1)) == 0; }

// The transform size n (or `fallback`) checked (fft-size), and the plan's dims around `dim` (which
// the caller has checked: its fallback reads operand[dim]).
FftPlan fft_plan(const Shape& operand, std::size_t dim, std::optional<std::size_t> n, std::size_t fallback, std::string_view op) {
  const std::size_t size = n.value_or(fallback);
  if (!is_power_of_two(size)) {
    panic(PanicId::FftSize, {{"op", std::string(op)}, {"dim", std::to_string(dim)}, {"size", std::to_string(size)}});
  }
  FftPlan p;
  p.dim = dim;
  p.n_fft = size;
  p.bins = size / 2 + 1;
  p.length = operand[dim];
  p.outer = 1;
  p.inner = 1;
  for (std::size_t d = 0; d < dim; ++d) p.outer *= operand[d];
  for (std::size_t d = dim + 1; d < operand.rank(); ++d) p.inner *= operand[d];
  return p;
}

}  // namespace

FftPlan plan_rfft(const Shape& signal, DType dtype, std::size_t dim, std::optional<std::size_t> n) {
  constexpr std::string_view op = "rfft";
  check_float_dtype(dtype, op);
  check_dim(dim, signal.rank(), op);
  FftPlan p = fft_plan(signal, dim, n, signal[dim], op);
  std::vector<std::size_t> out = signal.dims();
  out[dim] = p.bins;
  std::size_t doubled = 0;  // the real parts, then the imaginary parts
  if (__builtin_mul_overflow(out[0], std::size_t{2}, &doubled)) (void)Shape{out[0], 2}.num_elements();  // shape-overflow
  out[0] = doubled;
  p.out = Shape(std::move(out));
  (void)p.out.num_elements();
  return p;
}

FftPlan plan_irfft(const Shape& real, DType real_dtype, const Shape& imaginary, DType imaginary_dtype, std::size_t dim,
                   std::optional<std::size_t> n) {
  constexpr std::string_view op = "irfft";
  check_float_dtype(real_dtype, op);
  check_same_dtype(real_dtype, imaginary_dtype, op);
  if (real != imaginary) {
    panic(PanicId::FftSpectrumShape, {{"op", std::string(op)}, {"real", real.to_string()}, {"imaginary", imaginary.to_string()}});
  }
  check_dim(dim, real.rank(), op);
  // 2 (bins - 1), saturated where it would pass SIZE_MAX (no power of two: fft-size).
  const std::size_t bins = real[dim];
  const std::size_t size = bins == 0 ? 0 : bins - 1 > SIZE_MAX / 2 ? SIZE_MAX : 2 * (bins - 1);
  FftPlan p = fft_plan(real, dim, n, size, op);
  std::vector<std::size_t> out = real.dims();
  out[dim] = p.n_fft;
  p.out = Shape(std::move(out));
  (void)p.out.num_elements();
  return p;
}

}  // namespace crossgrad::rules
