#include <crossgrad/oracle/torch_deform_conv2d.hpp>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/autograd.h>

#include <cstdint>

namespace crossgrad::oracle {
namespace {

at::Tensor leaf(const std::vector<double>& v, at::IntArrayRef shape, at::ScalarType type) {
  std::vector<double> copy = v;
  return at::from_blob(copy.data(), shape, at::kDouble).clone().to(type).set_requires_grad(true);
}

std::vector<double> host(const at::Tensor& t) {
  const at::Tensor d = t.detach().to(at::kDouble).contiguous();
  return {d.data_ptr<double>(), d.data_ptr<double>() + d.numel()};
}

}  // namespace

TorchDeformConv2dResult torch_deform_conv2d(const DeformConv2dCase& c, DType dtype, const std::vector<double>& out_weights) {
  static const bool pinned = [] {  // one thread, as torch_reference: the same answer on every machine
    at::set_num_threads(1);
    return true;
  }();
  (void)pinned;
  const at::ScalarType type = dtype == DType::F64 ? at::kDouble : at::kFloat;
  const auto i64 = [](std::size_t v) { return static_cast<std::int64_t>(v); };
  const std::int64_t B = i64(c.batch), C = i64(c.channels_in), H = i64(c.height), W = i64(c.width);
  const std::int64_t CO = i64(c.channels_out), KH = i64(c.kernel_h), KW = i64(c.kernel_w), K = KH * KW;
  const std::int64_t OH = i64(c.out_h()), OW = i64(c.out_w()), G = i64(c.offset_groups), WG = i64(c.weight_groups);
  TorchDeformConv2dResult r;
  try {
    const at::Tensor x = leaf(c.x, {B, C, H, W}, type);
    const at::Tensor offset = leaf(c.offset, {B, 2 * G * K, OH, OW}, type);
    const at::Tensor weight = leaf(c.weight, {CO, C / WG, KH, KW}, type);
    const std::optional<at::Tensor> mask =
        c.mask ? std::optional<at::Tensor>(leaf(*c.mask, {B, G * K, OH, OW}, type)) : std::nullopt;
    const std::optional<at::Tensor> bias = c.bias ? std::optional<at::Tensor>(leaf(*c.bias, {CO}, type)) : std::nullopt;
    const auto opts = at::TensorOptions().dtype(type);

    // Tap k = (ky, kx) of output cell (oy, ox) reads (oy stride_h - padding_h + ky dilation_h + dy,
    // ox stride_w - padding_w + kx dilation_w + dx); offset channel g 2K + 2k is dy, the next dx.
    const at::Tensor ky = at::arange(KH, opts).mul(static_cast<double>(c.dilation_h)).repeat_interleave(KW);  // [K]
    const at::Tensor kx = at::arange(KW, opts).mul(static_cast<double>(c.dilation_w)).repeat({KH});           // [K]
    const at::Tensor oy = at::arange(OH, opts).mul(static_cast<double>(c.stride_h)).sub(static_cast<double>(c.padding_h));
    const at::Tensor ox = at::arange(OW, opts).mul(static_cast<double>(c.stride_w)).sub(static_cast<double>(c.padding_w));
    const at::Tensor off = offset.view({B, G, K, 2, OH, OW});
    const at::Tensor py = off.select(3, 0) + ky.view({1, 1, K, 1, 1}) + oy.view({1, 1, 1, OH, 1});  // [B, G, K, OH, OW]
    const at::Tensor px = off.select(3, 1) + kx.view({1, 1, K, 1, 1}) + ox.view({1, 1, 1, 1, OW});
    // grid_sampler_2d with align_corners false reads pixel ((g + 1) size - 1) / 2 at grid value g.
    const at::Tensor gy = (py * 2 + 1) / static_cast<double>(H) - 1;
    const at::Tensor gx = (px * 2 + 1) / static_cast<double>(W) - 1;
    const at::Tensor grid = at::stack({gx, gy}, -1);  // [B, G, K, OH, OW, 2]

    const std::int64_t CG = C / G;
    std::vector<at::Tensor> columns;  // per offset group: [B, CG, K, OH, OW]
    for (std::int64_t g = 0; g < G; ++g) {
      const at::Tensor plane = x.narrow(1, g * CG, CG);
      const at::Tensor where = grid.select(1, g).reshape({B, K * OH, OW, 2});
      at::Tensor sampled = at::grid_sampler_2d(plane, where, /*bilinear*/ 0, /*zeros*/ 0, /*align_corners*/ false)
                               .view({B, CG, K, OH, OW});
      if (mask) sampled = sampled * mask->view({B, G, K, OH, OW}).select(1, g).unsqueeze(1);
      columns.push_back(sampled);
    }
    const at::Tensor cols = at::cat(columns, 1);  // [B, C, K, OH, OW]
    const std::int64_t CI = C / WG, CP = CO / WG;
    std::vector<at::Tensor> outs;
    for (std::int64_t wg = 0; wg < WG; ++wg) {
      const at::Tensor a = weight.narrow(0, wg * CP, CP).reshape({CP, CI * K});
      const at::Tensor b = cols.narrow(1, wg * CI, CI).reshape({B, CI * K, OH * OW});
      outs.push_back(at::matmul(a, b));  // [B, CP, OH OW]
    }
    at::Tensor out = at::cat(outs, 1).view({B, CO, OH, OW});
    if (bias) out = out + bias->view({1, CO, 1, 1});

    std::vector<double> w = out_weights;
    const at::Tensor wt = at::from_blob(w.data(), {B, CO, OH, OW}, at::kDouble).clone().to(type);
    std::vector<at::Tensor> inputs{x, offset, weight};
    if (mask) inputs.push_back(*mask);
    if (bias) inputs.push_back(*bias);
    const auto grads = torch::autograd::grad({(out * wt).sum()}, inputs, {}, c10::nullopt, false, /*allow_unused*/ true);
    const auto grad_or_zeros = [&](std::size_t i) { return grads[i].defined() ? host(grads[i]) : host(at::zeros_like(inputs[i])); };
    r.out = host(out);
    r.x_grad = grad_or_zeros(0);
    r.offset_grad = grad_or_zeros(1);
    r.weight_grad = grad_or_zeros(2);
    std::size_t next = 3;
    if (mask) r.mask_grad = grad_or_zeros(next++);
    if (bias) r.bias_grad = grad_or_zeros(next++);
  } catch (const c10::Error& e) {
    r.error = e.what_without_backtrace();
  }
  return r;
}

}  // namespace crossgrad::oracle
