// LibTorch: linear and its backward passes, ATen's own (aten/ops.cpp: at::linear, which is addmm
// for a 2-D input, and the matmuls and sum PyTorch's autograd runs for it), after the shared
// rules::plan_linear* checks. An empty operand never reaches the plugin (Note [Empty LibTorch
// tensors stay in the engine]): then the composite over LibTorch's own ops gives the zeros, or the
// bias alone.
#include "plugin.hpp"

#include "../composite_linear.hpp"

#include <crossgrad/core/module_rules.hpp>

namespace crossgrad::backends {
namespace {

using libtorch::Call;
using libtorch::op_code;

bool has_elements(const LibTorchTensor& t) { return t.shape.num_elements() != 0; }

}  // namespace

LibTorchTensor LibTorch::linear(const LibTorchTensor& tensor, const LibTorchTensor& weight,
                                const std::optional<LibTorchTensor>& bias) {
  const Shape bias_shape = bias ? bias->shape : Shape{};
  const rules::LinearPlan p = rules::plan_linear(tensor.shape, tensor.dtype, weight.shape, weight.dtype,
                                                 bias ? &bias_shape : nullptr, bias ? bias->dtype : tensor.dtype);
  if (p.rows == 0 || p.d_input == 0) return composite::linear<LibTorch>(tensor, weight, bias);
  Call call{op_code(OpId::linear), {&tensor, &weight}, {}, {}};
  if (bias) call.inputs.push_back(&*bias);
  return libtorch::run(call, p.out, tensor.dtype);
}

LibTorchTensor LibTorch::linear_x_backward(const LibTorchTensor& tensor, const LibTorchTensor& grad) {
  const rules::LinearPlan p = rules::plan_linear_x_backward(tensor.shape, tensor.dtype, grad.shape, grad.dtype);
  if (p.rows == 0 || !has_elements(grad)) return composite::linear_x_backward<LibTorch>(tensor, grad);
  return libtorch::run(Call{op_code(OpId::linear_x_backward), {&tensor, &grad}, {}, {}}, p.out, tensor.dtype);
}

LibTorchTensor LibTorch::linear_weight_backward(const LibTorchTensor& tensor, const LibTorchTensor& grad) {
  const rules::LinearPlan p = rules::plan_linear_weight_backward(tensor.shape, tensor.dtype, grad.shape, grad.dtype);
  if (p.rows == 0) return composite::linear_weight_backward<LibTorch>(tensor, grad);
  const std::vector<int64_t> folded{static_cast<int64_t>(p.rows), static_cast<int64_t>(p.d_input),
                                    static_cast<int64_t>(p.d_output)};
  return libtorch::run(Call{op_code(OpId::linear_weight_backward), {&tensor, &grad}, {}, folded}, p.out, tensor.dtype);
}

LibTorchTensor LibTorch::linear_bias_backward(const LibTorchTensor& tensor) {
  const rules::LinearPlan p = rules::plan_linear_bias_backward(tensor.shape, tensor.dtype);
  if (p.rows == 0) return composite::linear_bias_backward<LibTorch>(tensor);
  const std::vector<int64_t> folded{static_cast<int64_t>(p.rows), static_cast<int64_t>(p.d_output)};
  return libtorch::run(Call{op_code(OpId::linear_bias_backward), {&tensor}, {}, folded}, p.out, tensor.dtype);
}

}  // namespace crossgrad::backends
