// LibTorch: layer_norm and batch_norm, ATen's own (aten/ops.cpp: at::layer_norm over the last dim,
// at::batch_norm in inference mode with the given statistics), after the shared rules::plan_*
// checks. An empty x never reaches the plugin (Note [Empty LibTorch tensors stay in the engine]):
// the composite shapes it.
#include "plugin.hpp"

#include "../composite_norm.hpp"

#include <crossgrad/core/module_rules.hpp>

namespace crossgrad::backends {

LibTorchTensor LibTorch::layer_norm(const LibTorchTensor& tensor, const LibTorchTensor& weight,
                                    const std::optional<LibTorchTensor>& bias, double epsilon) {
  const Shape bias_shape = bias ? bias->shape : Shape{};
  const rules::LayerNormPlan p = rules::plan_layer_norm(tensor.shape, tensor.dtype, weight.shape, weight.dtype,
                                                        bias ? &bias_shape : nullptr, bias ? bias->dtype : tensor.dtype);
  if (p.rows == 0) return composite::layer_norm<LibTorch>(tensor, weight, bias, epsilon);
  libtorch::Call call{libtorch::op_code(OpId::layer_norm), {&tensor, &weight}, {epsilon}, {}};
  if (bias) call.inputs.push_back(&*bias);
  return libtorch::run(call, p.out, tensor.dtype);
}

LibTorchTensor LibTorch::batch_norm(const LibTorchTensor& tensor, const LibTorchTensor& weight, const LibTorchTensor& bias,
                                    const LibTorchTensor& mean, const LibTorchTensor& variance, double epsilon) {
  const rules::BatchNormPlan p = rules::plan_batch_norm(tensor.shape, tensor.dtype, weight.shape, weight.dtype, bias.shape,
                                                        bias.dtype, mean.shape, mean.dtype, variance.shape, variance.dtype);
  if (p.out.num_elements() == 0) return composite::batch_norm<LibTorch>(tensor, weight, bias, mean, variance, epsilon);
  return libtorch::run(libtorch::Call{libtorch::op_code(OpId::batch_norm), {&tensor, &weight, &bias, &mean, &variance}, {epsilon}, {}},
                       p.out, tensor.dtype);
}

}  // namespace crossgrad::backends
