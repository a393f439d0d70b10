// LibTorch: layer_norm, ATen's own (aten/ops.cpp: at::layer_norm over the last dim), after the
// shared rules::plan_layer_norm checks. An empty x never reaches the plugin (Note [Empty LibTorch
// tensors stay in the engine]): the composite shapes it.
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

}  // namespace crossgrad::backends
