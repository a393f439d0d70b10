#pragma once
// Dispatch: Burn's Backend / AutodiffBackend API over runtime tensors (CONTRACT section 6).
// Each op routes a DispatchTensor to its backend — B for B(Float(...)), Autodiff<B> for
// Autodiff(B(Autodiff(...))) — through the arms generated from the backend registry.
#include <crossgrad/core/random.hpp>
#include <crossgrad/core/tensor_data.hpp>
#include <crossgrad/dispatch/device.hpp>
#include <crossgrad/dispatch/kind.hpp>
#include <crossgrad/ops/op_list.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#define CROSSGRAD_DISPATCH_OP_DECL(name, method, Sig, Operand, Result, Rule) \
  static DispatchTensor name CROSSGRAD_SIG_PARAMS_##Sig(DispatchTensor, DispatchTensor);

namespace crossgrad {

// deform_conv2d_backward's gradients, one per operand (Burn's DeformConv2dBackward); the mask's and
// the bias's only when the call had them.
struct DeformConv2dBackward;

struct Dispatch {
  // Data. float/int/bool_from_data panic data-kind-mismatch on data of another kind.
  static DispatchTensor float_from_data(const TensorData& data, const DispatchDevice& device);
  static TensorData float_into_data(const DispatchTensor& tensor);
  static DispatchTensor int_from_data(const TensorData& data, const DispatchDevice& device);
  static TensorData int_into_data(const DispatchTensor& tensor);
  static DispatchTensor bool_from_data(const TensorData& data, const DispatchDevice& device);
  static TensorData bool_into_data(const DispatchTensor& tensor);
  // Creation (Burn's float_full, float_zeros, float_ones, float_empty, float_random): a float
  // tensor of `shape` on `device` (a tracked leaf on an autodiff device). float_empty's contents
  // are +0, not whatever memory held: a result never depends on it. float_random samples
  // `distribution` from `seed` (core/random.hpp): the same bits on every backend and machine.
  static DispatchTensor float_full(const Shape& shape, double value, const DispatchDevice& device, DType dtype = DType::F32);
  static DispatchTensor float_zeros(const Shape& shape, const DispatchDevice& device, DType dtype = DType::F32);
  static DispatchTensor float_ones(const Shape& shape, const DispatchDevice& device, DType dtype = DType::F32);
  static DispatchTensor float_empty(const Shape& shape, const DispatchDevice& device, DType dtype = DType::F32);
  static DispatchTensor float_random(const Shape& shape, const Distribution& distribution, std::uint64_t seed,
                                     const DispatchDevice& device, DType dtype = DType::F32);
  static DispatchDevice float_device(const DispatchTensor& tensor);
  static Shape float_shape(const DispatchTensor& tensor);
  static DType float_dtype(const DispatchTensor& tensor);
  // Burn's int_ and bool_ creation and device functions (docs/OPS.md "Creation"). Not registry
  // ops: they take no receiver, so they are built from from_data and int_expand / bool_expand and
  // every backend gives the same values without a kernel of its own. Each conversion is one the
  // int ops already define (a `value` as an int op's scalar, arange's elements as int_cast,
  // int_random's samples as float_into_int, floored first for Uniform), so no new rounding rule
  // exists; int_arange_step follows Burn's Range::step_by (empty for start >= end, unfold-step
  // for step 0). On an autodiff device the results are Autodiff(B(Int/Bool(...))), never
  // tracked, and to_device keeps plain and autodiff apart (device-kind-mismatch) as
  // float_to_device does.
  static DispatchTensor int_full(const Shape& shape, double value, const DispatchDevice& device, DType dtype = DType::I64);
  static DispatchTensor int_zeros(const Shape& shape, const DispatchDevice& device, DType dtype = DType::I64);
  static DispatchTensor int_ones(const Shape& shape, const DispatchDevice& device, DType dtype = DType::I64);
  static DispatchTensor int_empty(const Shape& shape, const DispatchDevice& device, DType dtype = DType::I64);
  static DispatchTensor int_random(const Shape& shape, const Distribution& distribution, std::uint64_t seed,
                                   const DispatchDevice& device, DType dtype = DType::I64);
  static DispatchTensor int_arange(std::int64_t start, std::int64_t end, const DispatchDevice& device, DType dtype = DType::I64);
  static DispatchTensor int_arange_step(std::int64_t start, std::int64_t end, std::size_t step, const DispatchDevice& device,
                                        DType dtype = DType::I64);
  static DispatchTensor bool_zeros(const Shape& shape, const DispatchDevice& device);
  static DispatchTensor bool_ones(const Shape& shape, const DispatchDevice& device);
  static DispatchTensor bool_empty(const Shape& shape, const DispatchDevice& device);
  static DispatchDevice int_device(const DispatchTensor& tensor);
  static Shape int_shape(const DispatchTensor& tensor);
  static DType int_dtype(const DispatchTensor& tensor);
  static DispatchDevice bool_device(const DispatchTensor& tensor);
  static Shape bool_shape(const DispatchTensor& tensor);
  static DType bool_dtype(const DispatchTensor& tensor);
  static DispatchTensor int_to_device(const DispatchTensor& t, const DispatchDevice& device);
  static DispatchTensor bool_to_device(const DispatchTensor& t, const DispatchDevice& device);

  // Every op of the registry (Note [The op registry]; semantics in docs/OPS.md). A tracked
  // receiver gives a tracked result: Autodiff(B(Autodiff(...))) for Float results,
  // Autodiff(B(Int(...))) / Autodiff(B(Bool(...))) for Int and Bool results (no gradient flows
  // through them), and a new leaf for int/bool -> float conversions. Index tensors are Int
  // tensors of the receiver's backend, tracked-ness matching the receiver's.
  CROSSGRAD_OPS(CROSSGRAD_DISPATCH_OP_DECL)
  // Burn's two-result ops, each a pair of the registry ops above (so tracked-ness, panics and
  // gradients are theirs): (values, positions) as (float_sort, float_argsort), (float_topk,
  // float_argtopk), (float_max_dim, float_argmax) and (float_min_dim, float_argmin), which pick
  // the same element of every lane (docs/OPS.md).
  static std::pair<DispatchTensor, DispatchTensor> float_sort_with_indices(const DispatchTensor& tensor, std::size_t dim,
                                                                           bool descending);
  static std::pair<DispatchTensor, DispatchTensor> float_topk_with_indices(const DispatchTensor& tensor, std::size_t dim,
                                                                           std::size_t k);
  static std::pair<DispatchTensor, DispatchTensor> float_max_dim_with_indices(const DispatchTensor& tensor, std::size_t dim);
  static std::pair<DispatchTensor, DispatchTensor> float_min_dim_with_indices(const DispatchTensor& tensor, std::size_t dim);
  // Burn's max_pool2d_with_indices: (max_pool2d, max_pool2d_indices), which scan the same windows.
  static std::pair<DispatchTensor, DispatchTensor> max_pool2d_with_indices(const DispatchTensor& tensor,
                                                                           const MaxPool2dOptions& options);
  // Burn's max_pool1d_with_indices: (max_pool1d, max_pool1d_indices).
  static std::pair<DispatchTensor, DispatchTensor> max_pool1d_with_indices(const DispatchTensor& tensor,
                                                                           const MaxPool1dOptions& options);
  // Burn's int_ forms, (int_max_dim, int_argmax), (int_min_dim, int_argmin), (int_sort,
  // int_argsort) and (int_topk, int_argtopk): the int reductions take the first extreme in index
  // order and the int sort is stable, so both halves name the same element.
  static std::pair<DispatchTensor, DispatchTensor> int_max_dim_with_indices(const DispatchTensor& tensor, std::size_t dim);
  static std::pair<DispatchTensor, DispatchTensor> int_min_dim_with_indices(const DispatchTensor& tensor, std::size_t dim);
  static std::pair<DispatchTensor, DispatchTensor> int_sort_with_indices(const DispatchTensor& tensor, std::size_t dim,
                                                                         bool descending);
  static std::pair<DispatchTensor, DispatchTensor> int_topk_with_indices(const DispatchTensor& tensor, std::size_t dim,
                                                                         std::size_t k);
  // More of Burn's names, each a composition of registry ops (docs/OPS.md "Composed ops"):
  // float_greater_elem is float_greater_scalar; float_powi_scalar is float_powf_scalar with the
  // scalar converted as Rust's `as i64` (toward zero, NaN to 0, saturating); float_powi is
  // float_powf with the Int exponents converted to the base's dtype (Burn's default).
  static DispatchTensor float_greater_elem(const DispatchTensor& tensor, double scalar);
  static DispatchTensor float_powi_scalar(const DispatchTensor& tensor, double scalar);
  static DispatchTensor float_powi(const DispatchTensor& lhs, const DispatchTensor& rhs);
  // Burn's bool_equal_elem / bool_not_equal_elem: comparing with a constant is the tensor itself
  // or bool_not of it, so no registry op and no scalar conversion is needed.
  static DispatchTensor bool_equal_elem(const DispatchTensor& tensor, bool value);
  static DispatchTensor bool_not_equal_elem(const DispatchTensor& tensor, bool value);
  // Burn's ActivationOps backward entry points: the gradient of the activation at x (for relu and
  // sigmoid: given their output, as Burn's) times `grad`, by the formulas of the Autodiff<B> rules
  // (the same bits); differentiable on tracked tensors.
  static DispatchTensor relu_backward(const DispatchTensor& output, const DispatchTensor& grad);
  static DispatchTensor sigmoid_backward(const DispatchTensor& output, const DispatchTensor& grad);
  static DispatchTensor gelu_backward(const DispatchTensor& x, const DispatchTensor& grad);
  static DispatchTensor log_sigmoid_backward(const DispatchTensor& x, const DispatchTensor& grad);
  // Burn's ModuleOps::ctc_loss, composed of registry ops as Burn's ctc_loss_default (docs/OPS.md
  // "CTC loss"): log_probs [time, batch, classes] (float), targets [batch, max_target_length],
  // input_lengths and target_lengths [batch] (Int, on log_probs' backend and device kind); the
  // per-sample negative log-likelihood [batch], +inf where no alignment exists. On tracked tensors
  // it is differentiable through the composition. has_ctc_loss_backward is false, as
  // burn-dispatch's: Autodiff differentiates the composition. ctc_loss_backward gives that
  // gradient of sum(ctc_loss(...) * grad_loss) for plain tensors (Burn's has only a backend's native
  // kernel there); on an autodiff device it panics not-differentiable, as the module backward ops.
  static DispatchTensor ctc_loss(const DispatchTensor& log_probs, const DispatchTensor& targets,
                                 const DispatchTensor& input_lengths, const DispatchTensor& target_lengths, std::size_t blank);
  static bool has_ctc_loss_backward();
  static DispatchTensor ctc_loss_backward(const DispatchTensor& log_probs, const DispatchTensor& targets,
                                          const DispatchTensor& input_lengths, const DispatchTensor& target_lengths,
                                          const DispatchTensor& grad_loss, std::size_t blank);
  // Burn's ModuleOps::deform_conv2d (deformable convolution v2, torchvision's definition; docs/OPS.md
  // "Deformable convolution"), composed of registry ops: x [batch, channels_in, height, width]
  // sampled bilinearly (0 outside) at each kernel tap moved by its offset, times the mask when given,
  // then conv2d's weight [channels_out, channels_in / weight_groups, k_h, k_w] and bias. On tracked
  // operands it is differentiable in all five through the composition; deform_conv2d_backward gives
  // those gradients for plain operands and an output gradient, by a backward pass (the same bits).
  static DispatchTensor deform_conv2d(const DispatchTensor& x, const DispatchTensor& offset, const DispatchTensor& weight,
                                      const std::optional<DispatchTensor>& mask, const std::optional<DispatchTensor>& bias,
                                      const DeformConv2dOptions& options);
  static DeformConv2dBackward deform_conv2d_backward(const DispatchTensor& x, const DispatchTensor& offset,
                                                     const DispatchTensor& weight, const std::optional<DispatchTensor>& mask,
                                                     const std::optional<DispatchTensor>& bias, const DispatchTensor& output_grad,
                                                     const DeformConv2dOptions& options);
  // Across backends for plain tensors; within one backend for autodiff tensors (differentiable).
  static DispatchTensor float_to_device(const DispatchTensor& t, const DispatchDevice& device);

  // Quantized primitives (per-tensor symmetric int8).
  static DispatchTensor quantize(const DispatchTensor& t);
  static DispatchTensor dequantize(const DispatchTensor& t);

  // Autodiff (CONTRACT section 5).
  static Gradients backward(const DispatchTensor& root);
  static std::optional<DispatchTensor> grad(const DispatchTensor& t, const Gradients& grads);
  static std::optional<DispatchTensor> grad_remove(const DispatchTensor& t, Gradients& grads);
  static void grad_replace(const DispatchTensor& t, Gradients& grads, const DispatchTensor& grad);
  static DispatchTensor inner(const DispatchTensor& t);
  // Burn's tracking calls (docs/OPS.md "Tracking"; every tracked leaf receives its gradient):
  // float_detach gives a tracked tensor's values as a new tracked leaf (a plain one unchanged);
  // float_is_require_grad is true for a tracked leaf; float_set_require_grad(t, false) is the plain
  // inner tensor, (t, true) a plain tensor's tracked leaf (from_inner), a leaf itself, or for an op's
  // result the panic require-grad-non-leaf (Burn's). Int and bool tensors: op-kind-mismatch.
  static DispatchTensor float_detach(const DispatchTensor& tensor);
  static DispatchTensor float_set_require_grad(const DispatchTensor& tensor, bool require_grad);
  static bool float_is_require_grad(const DispatchTensor& tensor);
  static DispatchTensor from_inner(const DispatchTensor& t);
};

struct DeformConv2dBackward {
  DispatchTensor x_grad, offset_grad, weight_grad;
  std::optional<DispatchTensor> mask_grad, bias_grad;
};

}  // namespace crossgrad
