#include <crossgrad/oracle/deform_conv2d_reference.hpp>

#include <cmath>

namespace crossgrad::oracle {
namespace {

using Real = long double;

// torchvision's bilinear read: 0 unless -1 < y < height and -1 < x < width; each of the four
// corners outside the image reads 0.
Real bilinear(const double* plane, std::size_t height, std::size_t width, Real y, Real x) {
  if (!(y > -1 && y < static_cast<Real>(height) && x > -1 && x < static_cast<Real>(width))) return 0;
  const Real y0 = std::floor(y), x0 = std::floor(x);
  const Real ly = y - y0, lx = x - x0;
  const auto at = [&](Real cy, Real cx) -> Real {
    if (cy < 0 || cx < 0 || cy > static_cast<Real>(height) - 1 || cx > static_cast<Real>(width) - 1) return 0;
    return plane[static_cast<std::size_t>(cy) * width + static_cast<std::size_t>(cx)];
  };
  return (1 - ly) * (1 - lx) * at(y0, x0) + (1 - ly) * lx * at(y0, x0 + 1) + ly * (1 - lx) * at(y0 + 1, x0) +
         ly * lx * at(y0 + 1, x0 + 1);
}

}  // namespace

std::vector<double> deform_conv2d_reference(const DeformConv2dCase& c) {
  const std::size_t oh = c.out_h(), ow = c.out_w(), taps = c.kernel_h * c.kernel_w;
  const std::size_t in_per_weight_group = c.channels_in / c.weight_groups;
  const std::size_t out_per_weight_group = c.channels_out / c.weight_groups;
  const std::size_t in_per_offset_group = c.channels_in / c.offset_groups;
  std::vector<double> out(c.batch * c.channels_out * oh * ow);
  for (std::size_t n = 0; n < c.batch; ++n) {
    for (std::size_t co = 0; co < c.channels_out; ++co) {
      const std::size_t wg = co / out_per_weight_group;
      for (std::size_t oy = 0; oy < oh; ++oy) {
        for (std::size_t ox = 0; ox < ow; ++ox) {
          Real sum = c.bias ? (*c.bias)[co] : 0.0;
          for (std::size_t ci = 0; ci < in_per_weight_group; ++ci) {
            const std::size_t channel = wg * in_per_weight_group + ci;
            const std::size_t g = channel / in_per_offset_group;
            // data() + offset, not &x[offset]: with height or width 0 (allowed with padding) the image
            // is empty and nothing is read, but indexing it would be out of range.
            const double* plane = c.x.data() + (n * c.channels_in + channel) * c.height * c.width;
            for (std::size_t ky = 0; ky < c.kernel_h; ++ky) {
              for (std::size_t kx = 0; kx < c.kernel_w; ++kx) {
                const std::size_t tap = g * taps + ky * c.kernel_w + kx;
                const auto cell = [&](std::size_t plane_index) { return (plane_index * oh + oy) * ow + ox; };
                const Real dy = c.offset[cell(n * 2 * c.offset_groups * taps + 2 * tap)];
                const Real dx = c.offset[cell(n * 2 * c.offset_groups * taps + 2 * tap + 1)];
                const Real y = static_cast<Real>(oy * c.stride_h + ky * c.dilation_h) - static_cast<Real>(c.padding_h) + dy;
                const Real x = static_cast<Real>(ox * c.stride_w + kx * c.dilation_w) - static_cast<Real>(c.padding_w) + dx;
                const Real m = c.mask ? (*c.mask)[cell(n * c.offset_groups * taps + tap)] : 1.0;
                const Real w = c.weight[((co * in_per_weight_group + ci) * c.kernel_h + ky) * c.kernel_w + kx];
                sum += w * m * bilinear(plane, c.height, c.width, y, x);
              }
            }
          }
          out[((n * c.channels_out + co) * oh + oy) * ow + ox] = static_cast<double>(sum);
        }
      }
    }
  }
  return out;
}

}  // namespace crossgrad::oracle
