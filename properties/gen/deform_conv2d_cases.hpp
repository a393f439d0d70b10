#pragma once
// deform_conv2d cases (docs/OPS.md "Deformable convolution"): every option the op takes (stride,
// padding, dilation, weight and offset groups, mask and bias present or not) over small shapes, and
// offsets whose fractional part stays in [0.1, 0.9] so that no sampling position is a whole cell
// (where the bilinear weights, and so the gradients, have a kink); some taps are moved far outside
// the image (read as 0). Shrinks toward small cases.
#include <crossgrad/oracle/deform_conv2d_reference.hpp>

#include <rapidcheck.h>

#include <cstddef>
#include <vector>

namespace crossgrad::properties::gen {

// n values in [lo, hi] in steps of 1/1000.
inline std::vector<double> deform_values(std::size_t n, int lo, int hi) {
  std::vector<double> v(n);
  for (double& x : v) x = *rc::gen::inRange(lo * 1000, hi * 1000 + 1) / 1000.0;
  return v;
}

inline rc::Gen<oracle::DeformConv2dCase> deform_conv2d_case() {
  return rc::gen::resize(100, rc::gen::exec([] {
    const auto pick = [](std::size_t lo, std::size_t hi) { return *rc::gen::inRange(lo, hi + 1); };
    oracle::DeformConv2dCase c;
    c.batch = pick(1, 2);
    c.offset_groups = pick(1, 2);
    c.weight_groups = pick(1, 2);
    c.channels_in = c.offset_groups * c.weight_groups * pick(1, 2);
    c.channels_out = c.weight_groups * pick(1, 2);
    c.kernel_h = pick(1, 3);
    c.kernel_w = pick(1, 3);
    c.stride_h = pick(1, 2);
    c.stride_w = pick(1, 2);
    c.padding_h = pick(0, 1);
    c.padding_w = pick(0, 1);
    c.dilation_h = pick(1, 2);
    c.dilation_w = pick(1, 2);
    c.height = pick(c.dilation_h * (c.kernel_h - 1) + 1, 6);
    c.width = pick(c.dilation_w * (c.kernel_w - 1) + 1, 6);
    const std::size_t cells = c.out_h() * c.out_w(), taps = c.offset_groups * c.kernel_h * c.kernel_w;
    c.x = deform_values(c.batch * c.channels_in * c.height * c.width, -2, 2);
    c.offset.resize(c.batch * 2 * taps * cells);
    for (double& o : c.offset) {
      const double fraction = *rc::gen::inRange(100, 901) / 1000.0;
      o = *rc::gen::inRange(0, 12) == 0 ? 7.0 + fraction : *rc::gen::inRange(-2, 2) + fraction;
    }
    c.weight = deform_values(c.channels_out * c.channels_in / c.weight_groups * c.kernel_h * c.kernel_w, -1, 1);
    if (*rc::gen::arbitrary<bool>()) c.mask = deform_values(c.batch * taps * cells, 0, 1);
    if (*rc::gen::arbitrary<bool>()) c.bias = deform_values(c.channels_out, -1, 1);
    return c;
  }));
}

}  // namespace crossgrad::properties::gen
