// LibTorch: attention through ATen (aten/ops.cpp: matmul, masked_fill, softmax, matmul, the math
// path of PyTorch's scaled dot product attention) with Burn's semantics (Note [A fully masked row
// attends to nothing]), after the shared rules::plan_attention checks. Empty operands never reach
// the plugin (Note [Empty LibTorch tensors stay in the engine]): the composite over LibTorch's own
// ops gives their zeros (or head_dim 0's NaN).
#include "plugin.hpp"

#include "../composite_attention.hpp"

#include <crossgrad/core/module_rules.hpp>

namespace crossgrad::backends {

LibTorchTensor LibTorch::attention(const LibTorchTensor& tensor, const LibTorchTensor& key, const LibTorchTensor& value,
                                   const std::optional<LibTorchTensor>& mask, const std::optional<LibTorchTensor>& bias,
                                   const AttentionOptions& options) {
  const Shape mask_shape = mask ? mask->shape : Shape{};
  const Shape bias_shape = bias ? bias->shape : Shape{};
  const rules::AttentionPlan p = rules::plan_attention(
      tensor.shape, tensor.dtype, key.shape, key.dtype, value.shape, value.dtype, mask ? &mask_shape : nullptr,
      mask ? mask->dtype : DType::Bool, bias ? &bias_shape : nullptr, bias ? bias->dtype : tensor.dtype, options);
  if (p.out.num_elements() == 0 || p.scores.num_elements() == 0 || p.head_dim == 0) {
    return composite::attention<LibTorch>(tensor, key, value, mask, bias, options);
  }
  // ints: mask given, bias given, causal, softcap given; scalars: scale, softcap.
  libtorch::Call call{libtorch::op_code(OpId::attention),
                      {&tensor, &key, &value},
                      {p.scale, options.softcap.value_or(1.0)},
                      {mask ? 1 : 0, bias ? 1 : 0, options.is_causal ? 1 : 0, options.softcap ? 1 : 0}};
  if (mask) call.inputs.push_back(&*mask);
  if (bias) call.inputs.push_back(&*bias);
  return libtorch::run(call, p.out, tensor.dtype);
}

}  // namespace crossgrad::backends
