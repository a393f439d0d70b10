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

namespace crossgrad {

// Two spatial sizes, [height, width].
using Size2 = std::array<std::size_t, 2>;

// avg_pool2d / avg_pool2d_backward (Burn's arguments of the same names, in Burn's order).
struct AvgPool2dOptions {
  Size2 kernel_size{1, 1};
  Size2 stride{1, 1};
  Size2 padding{0, 0};
  bool count_include_pad = true;
  bool ceil_mode = false;
  bool operator==(const AvgPool2dOptions&) const = default;
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

}  // namespace crossgrad
