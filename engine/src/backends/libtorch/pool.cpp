// LibTorch: avg_pool2d, adaptive_avg_pool2d, max_pool2d and their backward passes, ATen's own
// (aten/ops.cpp), after the shared rules::plan_* checks; the 1-D poolings run those on the single-row
// view (composite_pool.hpp).
#include "plugin.hpp"

#include "../composite_pool.hpp"

#include <crossgrad/core/module_rules.hpp>

namespace crossgrad::backends {
namespace {

using libtorch::Call;
using libtorch::op_code;

// AvgPool2dOptions as the plugin reads them: kernel_size, stride, padding, count_include_pad, ceil_mode.
std::vector<int64_t> pool_ints(const AvgPool2dOptions& o) {
  return {static_cast<int64_t>(o.kernel_size[0]),
          static_cast<int64_t>(o.kernel_size[1]),
          static_cast<int64_t>(o.stride[0]),
          static_cast<int64_t>(o.stride[1]),
          static_cast<int64_t>(o.padding[0]),
          static_cast<int64_t>(o.padding[1]),
          o.count_include_pad ? 1 : 0,
          o.ceil_mode ? 1 : 0};
}

}  // namespace

LibTorchTensor LibTorch::avg_pool2d(const LibTorchTensor& x, const AvgPool2dOptions& options) {
  const rules::Pool2dPlan p = rules::plan_avg_pool2d(x.shape, x.dtype, options);
  return libtorch::run(Call{op_code(OpId::avg_pool2d), {&x}, {}, pool_ints(options)}, p.out, x.dtype);
}

LibTorchTensor LibTorch::avg_pool2d_backward(const LibTorchTensor& x, const LibTorchTensor& grad,
                                             const AvgPool2dOptions& options) {
  rules::plan_avg_pool2d_backward(x.shape, x.dtype, grad.shape, grad.dtype, options);
  return libtorch::run(Call{op_code(OpId::avg_pool2d_backward), {&x, &grad}, {}, pool_ints(options)}, x.shape, x.dtype);
}

LibTorchTensor LibTorch::adaptive_avg_pool2d(const LibTorchTensor& x, const Size2& output_size) {
  const rules::Pool2dPlan p = rules::plan_adaptive_avg_pool2d(x.shape, x.dtype, output_size);
  return libtorch::run(Call{op_code(OpId::adaptive_avg_pool2d),
                            {&x},
                            {},
                            {static_cast<int64_t>(output_size[0]), static_cast<int64_t>(output_size[1])}},
                       p.out, x.dtype);
}

LibTorchTensor LibTorch::adaptive_avg_pool2d_backward(const LibTorchTensor& x, const LibTorchTensor& grad) {
  rules::plan_adaptive_avg_pool2d_backward(x.shape, x.dtype, grad.shape, grad.dtype);
  return libtorch::run(Call{op_code(OpId::adaptive_avg_pool2d_backward), {&x, &grad}, {}, {}}, x.shape, x.dtype);
}

namespace {

// MaxPool2dOptions as the plugin reads them: kernel_size, stride, padding, dilation, ceil_mode.
std::vector<int64_t> max_pool_ints(const MaxPool2dOptions& o) {
  std::vector<int64_t> out;
  for (const Size2* v : {&o.kernel_size, &o.stride, &o.padding, &o.dilation}) {
    out.push_back(static_cast<int64_t>((*v)[0]));
    out.push_back(static_cast<int64_t>((*v)[1]));
  }
  out.push_back(o.ceil_mode ? 1 : 0);
  return out;
}

}  // namespace

LibTorchTensor LibTorch::max_pool2d(const LibTorchTensor& x, const MaxPool2dOptions& options) {
  const rules::Pool2dPlan p = rules::plan_max_pool2d(x.shape, x.dtype, options, "max_pool2d");
  return libtorch::run(Call{op_code(OpId::max_pool2d), {&x}, {}, max_pool_ints(options)}, p.out, x.dtype);
}

LibTorchTensor LibTorch::max_pool2d_indices(const LibTorchTensor& x, const MaxPool2dOptions& options) {
  const rules::Pool2dPlan p = rules::plan_max_pool2d(x.shape, x.dtype, options, "max_pool2d_indices");
  return libtorch::run(Call{op_code(OpId::max_pool2d_indices), {&x}, {}, max_pool_ints(options)}, p.out, DType::I64);
}

// The indices are read on the host first, so that a bad one panics as on the other backends.
LibTorchTensor LibTorch::max_pool2d_with_indices_backward(const LibTorchTensor& x, const LibTorchTensor& grad,
                                                          const LibTorchTensor& indices,
                                                          const MaxPool2dOptions& options) {
  const rules::Pool2dPlan p =
      rules::plan_max_pool2d_backward(x.shape, x.dtype, grad.shape, grad.dtype, indices.shape, indices.dtype, options);
  const std::size_t plane = p.in_h * p.in_w;
  rules::check_pool_indices(libtorch::to_host(indices).to_i64(), plane);
  return libtorch::run(
      Call{op_code(OpId::max_pool2d_with_indices_backward), {&x, &grad, &indices}, {}, max_pool_ints(options)}, x.shape,
      x.dtype);
}

// The 1-D poolings and their backward passes: this backend's 2-D poolings on the single-row view.
LibTorchTensor LibTorch::avg_pool1d(const LibTorchTensor& tensor, const AvgPool1dOptions& options) {
  return composite::avg_pool1d<LibTorch>(tensor, options);
}
LibTorchTensor LibTorch::avg_pool1d_backward(const LibTorchTensor& tensor, const LibTorchTensor& grad, const AvgPool1dOptions& options) {
  return composite::avg_pool1d_backward<LibTorch>(tensor, grad, options);
}
LibTorchTensor LibTorch::adaptive_avg_pool1d(const LibTorchTensor& tensor, const Size1& output_size) {
  return composite::adaptive_avg_pool1d<LibTorch>(tensor, output_size);
}
LibTorchTensor LibTorch::adaptive_avg_pool1d_backward(const LibTorchTensor& tensor, const LibTorchTensor& grad) {
  return composite::adaptive_avg_pool1d_backward<LibTorch>(tensor, grad);
}
LibTorchTensor LibTorch::max_pool1d(const LibTorchTensor& tensor, const MaxPool1dOptions& options) {
  return composite::max_pool1d<LibTorch>(tensor, options, false);
}
LibTorchTensor LibTorch::max_pool1d_indices(const LibTorchTensor& tensor, const MaxPool1dOptions& options) {
  return composite::max_pool1d<LibTorch>(tensor, options, true);
}
LibTorchTensor LibTorch::max_pool1d_with_indices_backward(const LibTorchTensor& tensor, const LibTorchTensor& grad, const LibTorchTensor& indices,
                                                const MaxPool1dOptions& options) {
  return composite::max_pool1d_with_indices_backward<LibTorch>(tensor, grad, indices, options);
}

}  // namespace crossgrad::backends
