#pragma once
// PyTorch's answer to Dispatch::deform_conv2d (docs/OPS.md "Deformable convolution"). LibTorch has
// no deform_conv2d (torchvision's is not in libtorch), so this composes one from ATen ops with
// their own autograd: each kernel tap's sampling positions as a grid for grid_sampler_2d
// (bilinear, zeros padding, align_corners false: the same per-corner zeros outside the image as
// torchvision's bilinear), times the mask, then a grouped matmul with the weight, plus the bias.
// Nothing of the engine is used, so its values and all five gradients are a second opinion on
// both the engine's composition and the oracle's loops. Like torch_reference.hpp, this header
// includes no ATen.
#include <crossgrad/core/dtype.hpp>
#include <crossgrad/oracle/deform_conv2d_reference.hpp>

#include <optional>
#include <string>
#include <vector>

namespace crossgrad::oracle {

struct TorchDeformConv2dResult {
  std::optional<std::string> error;  // what ATen raised, if it refused the inputs
  std::vector<double> out;           // [batch, channels_out, out_h, out_w]
  // d sum(out * out_weights) / d operand, in each operand's layout; mask and bias only when the
  // case has them.
  std::vector<double> x_grad, offset_grad, weight_grad, mask_grad, bias_grad;
};

// The case's operands computed in `dtype` (F32 or F64); out_weights has out's size.
TorchDeformConv2dResult torch_deform_conv2d(const DeformConv2dCase& c, DType dtype, const std::vector<double>& out_weights);

}  // namespace crossgrad::oracle
