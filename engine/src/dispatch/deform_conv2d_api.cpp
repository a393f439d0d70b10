// Note [Deformable convolution as a composition]
// deform_conv2d (Dai et al. 2017, with Zhu et al.'s 2019 mask: torchvision's deform_conv2d, Burn's
// ModuleOps::deform_conv2d) is conv2d over a column matrix whose entries are read at moved
// positions: for output cell (oy, ox) and kernel tap (ky, kx) of offset group g, the position
//   y = oy stride_h - padding_h + ky dilation_h + dy[g, ky, kx, oy, ox]   (x likewise with dx)
// is read bilinearly from each channel of group g, 0 outside the image (a position outside
// (-1, height) x (-1, width) reads 0; a corner outside reads 0 with its weight), times the mask
// there when one is given. Here that is a composition of registry ops (floor, clamp, comparisons,
// float_into_int, gather, mask_fill, mul, matmul, ...), so every backend runs it with its own
// kernels and tracked operands get all five gradients from those ops' backward rules: the offset's
// through the bilinear weights (floor's gradient is 0, as the derivative of a bilinear
// interpolation inside a cell is). The checks run first (rules::plan_deform_conv2d).
#include "dispatch/dispatch_arms.hpp"

#include <crossgrad/core/module_rules.hpp>
#include <crossgrad/core/shape_rules.hpp>
#include <crossgrad/dispatch/dispatch.hpp>

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace crossgrad {
using namespace dispatch_detail;

namespace {

using D = Dispatch;

// Kinds and backends first (op-kind-mismatch, op-backend-mismatch), then the plan's checks.
rules::Conv2dPlan checked_plan(std::string_view op, const DispatchTensor& x, const DispatchTensor& offset, const DispatchTensor& weight,
                               const std::optional<DispatchTensor>& mask, const std::optional<DispatchTensor>& bias,
                               const DeformConv2dOptions& o) {
  const FloatView v = receiver_view<PrimitiveKind::Float>(op, x);
  for (const DispatchTensor* t : {&offset, &weight, mask ? &*mask : nullptr, bias ? &*bias : nullptr}) {
    if (t != nullptr) check_same_backend(op, x, v, *t, receiver_view<PrimitiveKind::Float>(op, *t));
  }
  const Shape mask_shape = mask ? D::float_shape(*mask) : Shape{};
  const Shape bias_shape = bias ? D::float_shape(*bias) : Shape{};
  return rules::plan_deform_conv2d(D::float_shape(x), D::float_dtype(x), D::float_shape(offset), D::float_dtype(offset),
                                   D::float_shape(weight), D::float_dtype(weight), mask ? &mask_shape : nullptr,
                                   mask ? D::float_dtype(*mask) : D::float_dtype(x), bias ? &bias_shape : nullptr,
                                   bias ? D::float_dtype(*bias) : D::float_dtype(x), o, op);
}

DispatchTensor composed_deform_conv2d(const DispatchTensor& x, const DispatchTensor& offset, const DispatchTensor& weight,
                                      const std::optional<DispatchTensor>& mask, const std::optional<DispatchTensor>& bias,
                                      const DeformConv2dOptions& o, const rules::Conv2dPlan& p) {
  const DispatchDevice device = D::float_device(x);
  const DType dtype = D::float_dtype(x);
  const std::size_t N = p.batch, C = p.channels_in, H = p.in_h, W = p.in_w, G = o.offset_groups, Cg = C / G;
  const std::size_t K = p.k_h * p.k_w, P = p.out_h * p.out_w, WG = o.weight_groups;
  if (N * p.channels_out * P == 0 || C * K == 0 || H * W == 0) {
    // An empty output, nothing to sum (no input channel) or nothing to read (an empty image, every
    // tap in the padding): zeros plus the bias, as conv2d's.
    DispatchTensor out = D::float_full(p.out, 0.0, device, dtype);
    if (bias) out = D::float_add(out, D::float_reshape(*bias, Shape{1, p.channels_out, 1, 1}));
    return out;
  }

  // Each tap's undisplaced position, [1, 1, K, P]: oy stride - padding + ky dilation.
  std::vector<double> base_y(K * P), base_x(K * P);
  for (std::size_t ky = 0; ky < p.k_h; ++ky) {
    for (std::size_t kx = 0; kx < p.k_w; ++kx) {
      for (std::size_t oy = 0; oy < p.out_h; ++oy) {
        for (std::size_t ox = 0; ox < p.out_w; ++ox) {
          const std::size_t i = (ky * p.k_w + kx) * P + oy * p.out_w + ox;
          base_y[i] = static_cast<double>(oy * o.stride[0] + ky * o.dilation[0]) - static_cast<double>(o.padding[0]);
          base_x[i] = static_cast<double>(ox * o.stride[1] + kx * o.dilation[1]) - static_cast<double>(o.padding[1]);
        }
      }
    }
  }
  const auto constant = [&](const std::vector<double>& v, Shape s) {
    return D::float_cast(D::float_from_data(TensorData::from_f64(v, std::move(s)), device), dtype);
  };
  // offset [N, G * K * 2, Ho, Wo] as [N, G, K, 2, P]: dy and dx of each group, tap and cell.
  const DispatchTensor pairs = D::float_reshape(offset, Shape{N, G, K, 2, P});
  const auto component = [&](std::size_t c) {
    return D::float_reshape(D::float_slice(pairs, {Range{0, N}, Range{0, G}, Range{0, K}, Range{c, c + 1}, Range{0, P}}),
                            Shape{N, G, K, P});
  };
  const DispatchTensor y = D::float_add(component(0), constant(base_y, Shape{1, 1, K, P}));
  const DispatchTensor xs = D::float_add(component(1), constant(base_x, Shape{1, 1, K, P}));
  const DispatchTensor inside =
      D::bool_and(D::bool_and(D::float_greater_elem(y, -1.0), D::float_lower_elem(y, static_cast<double>(H))),
                  D::bool_and(D::float_greater_elem(xs, -1.0), D::float_lower_elem(xs, static_cast<double>(W))));
  const DispatchTensor y0 = D::float_floor(y), x0 = D::float_floor(xs);
  const DispatchTensor ly = D::float_sub(y, y0), lx = D::float_sub(xs, x0);
  const DispatchTensor hy = D::float_add_scalar(D::float_neg(ly), 1.0), hx = D::float_add_scalar(D::float_neg(lx), 1.0);

  // x as [N, G, Cg, H W]: a channel's plane is one row the corners' flat indices read.
  const DispatchTensor planes = D::float_reshape(x, Shape{N, G, Cg, H * W});
  const Shape spread{N, G, 1, K * P};
  std::optional<DispatchTensor> sampled;
  for (const auto& [cy, cx, wy, wx] : std::array<std::array<const DispatchTensor*, 4>, 4>{
           {{&y0, &x0, &hy, &hx}, {&y0, nullptr, &hy, &lx}, {nullptr, &x0, &ly, &hx}, {nullptr, nullptr, &ly, &lx}}}) {
    // A null corner coordinate is the low one plus 1.
    const DispatchTensor ry = cy ? *cy : D::float_add_scalar(y0, 1.0);
    const DispatchTensor rx = cx ? *cx : D::float_add_scalar(x0, 1.0);
    const DispatchTensor valid = D::bool_and(
        inside, D::bool_and(D::bool_and(D::float_greater_equal_elem(ry, 0.0), D::float_lower_equal_elem(ry, static_cast<double>(H) - 1)),
                            D::bool_and(D::float_greater_equal_elem(rx, 0.0),
                                        D::float_lower_equal_elem(rx, static_cast<double>(W) - 1))));
    // The flat index of the clamped corner: only read where valid, so any in-range cell will do.
    const DispatchTensor flat = D::float_add(D::float_mul_scalar(D::float_clamp(ry, 0.0, static_cast<double>(H) - 1), static_cast<double>(W)),
                                             D::float_clamp(rx, 0.0, static_cast<double>(W) - 1));
    const DispatchTensor index = D::int_expand(D::int_reshape(D::float_into_int(flat, DType::I64), spread), Shape{N, G, Cg, K * P});
    const DispatchTensor corner = D::float_mul(D::float_gather(planes, 3, index), D::float_reshape(D::float_mul(*wy, *wx), spread));
    const DispatchTensor term = D::float_mask_fill(corner, D::bool_reshape(D::bool_not(valid), spread), 0.0);
    sampled = sampled ? D::float_add(*sampled, term) : term;
  }
  if (mask) sampled = D::float_mul(*sampled, D::float_reshape(*mask, spread));

  // The column matrix [N, WG, (C / WG) K, P] against the weight [1, WG, Cout / WG, (C / WG) K].
  const std::size_t rows = C / WG * K;
  const DispatchTensor columns = D::float_reshape(*sampled, Shape{N, WG, rows, P});
  const DispatchTensor kernels = D::float_reshape(weight, Shape{1, WG, p.channels_out / WG, rows});
  DispatchTensor out = D::float_reshape(D::float_matmul(kernels, columns), p.out);
  if (bias) out = D::float_add(out, D::float_reshape(*bias, Shape{1, p.channels_out, 1, 1}));
  return out;
}

}  // namespace

DispatchTensor Dispatch::deform_conv2d(const DispatchTensor& x, const DispatchTensor& offset, const DispatchTensor& weight,
                                       const std::optional<DispatchTensor>& mask, const std::optional<DispatchTensor>& bias,
                                       const DeformConv2dOptions& options) {
  const rules::Conv2dPlan plan = checked_plan("deform_conv2d", x, offset, weight, mask, bias, options);
  return composed_deform_conv2d(x, offset, weight, mask, bias, options, plan);
}

DeformConv2dBackward Dispatch::deform_conv2d_backward(const DispatchTensor& x, const DispatchTensor& offset,
                                                      const DispatchTensor& weight, const std::optional<DispatchTensor>& mask,
                                                      const std::optional<DispatchTensor>& bias, const DispatchTensor& output_grad,
                                                      const DeformConv2dOptions& options) {
  constexpr std::string_view op = "deform_conv2d_backward";
  const rules::Conv2dPlan plan = checked_plan(op, x, offset, weight, mask, bias, options);
  const FloatView v = receiver_view<PrimitiveKind::Float>(op, x);
  check_same_backend(op, x, v, output_grad, receiver_view<PrimitiveKind::Float>(op, output_grad));
  rules::check_same_dtype(float_dtype(x), float_dtype(output_grad), op);
  if (float_shape(output_grad) != plan.out) {
    panic(PanicId::PoolGradShape, {{"op", std::string(op)}, {"expected", plan.out.to_string()}, {"got", float_shape(output_grad).to_string()}});
  }
  if (v.tracked) panic(PanicId::NotDifferentiable, {{"op", std::string(op)}});
  // The backward pass through the composition, on Autodiff of the operands' own backend.
  const DispatchTensor tx = from_inner(x), toffset = from_inner(offset), tweight = from_inner(weight);
  const std::optional<DispatchTensor> tmask = mask ? std::optional(from_inner(*mask)) : std::nullopt;
  const std::optional<DispatchTensor> tbias = bias ? std::optional(from_inner(*bias)) : std::nullopt;
  const DispatchTensor out = composed_deform_conv2d(tx, toffset, tweight, tmask, tbias, options, plan);
  const Gradients grads = backward(float_sum(float_mul(out, from_inner(output_grad))));
  const auto gradient = [&](const DispatchTensor& leaf, const DispatchTensor& like) {
    std::optional<DispatchTensor> g = grad(leaf, grads);
    return g ? *g : float_zeros(float_shape(like), float_device(like), float_dtype(like));
  };
  return DeformConv2dBackward{gradient(tx, x), gradient(toffset, offset), gradient(tweight, weight),
                              mask ? std::optional(gradient(*tmask, *mask)) : std::nullopt,
                              bias ? std::optional(gradient(*tbias, *bias)) : std::nullopt};
}

}  // namespace crossgrad
