#pragma once
// deform_conv2d from its definition (torchvision's deform_conv2d: Dai et al. 2017, Zhu et al. 2019),
// for the checks of Dispatch::deform_conv2d (docs/OPS.md "Deformable convolution"): for every output
// cell, kernel tap and input channel, the input read bilinearly at the tap's position moved by its
// offset (0 outside the image), times the mask, times the weight, summed in long double; plus the
// bias. Plain loops over host arrays, valid arguments only; nothing here calls the engine.
#include <cstddef>
#include <optional>
#include <vector>

namespace crossgrad::oracle {

struct DeformConv2dCase {
  std::size_t batch = 0, channels_in = 0, height = 0, width = 0;
  std::size_t channels_out = 0, kernel_h = 0, kernel_w = 0;
  std::size_t stride_h = 1, stride_w = 1, padding_h = 0, padding_w = 0, dilation_h = 1, dilation_w = 1;
  std::size_t weight_groups = 1, offset_groups = 1;
  std::vector<double> x;       // [batch, channels_in, height, width]
  std::vector<double> offset;  // [batch, 2 * offset_groups * kernel_h * kernel_w, out_h, out_w]
  std::vector<double> weight;  // [channels_out, channels_in / weight_groups, kernel_h, kernel_w]
  std::optional<std::vector<double>> mask;  // [batch, offset_groups * kernel_h * kernel_w, out_h, out_w]
  std::optional<std::vector<double>> bias;  // [channels_out]
  std::size_t out_h() const { return (height + 2 * padding_h - dilation_h * (kernel_h - 1) - 1) / stride_h + 1; }
  std::size_t out_w() const { return (width + 2 * padding_w - dilation_w * (kernel_w - 1) - 1) / stride_w + 1; }
};

// [batch, channels_out, out_h, out_w].
std::vector<double> deform_conv2d_reference(const DeformConv2dCase& c);

}  // namespace crossgrad::oracle
