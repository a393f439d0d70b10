#pragma once
// Dispatch: Burn's Backend / AutodiffBackend API over runtime tensors (CONTRACT section 6).
// Each op routes a DispatchTensor to its backend — B for B(Float(...)), Autodiff<B> for
// Autodiff(B(Autodiff(...))) — through the arms generated from the backend registry.
#include <crossgrad/core/tensor_data.hpp>
#include <crossgrad/dispatch/device.hpp>
#include <crossgrad/dispatch/kind.hpp>

#include <cstddef>
#include <optional>

namespace crossgrad {

struct Dispatch {
  // Data. float/int/bool_from_data panic data-kind-mismatch on data of another kind.
  static DispatchTensor float_from_data(const TensorData& data, const DispatchDevice& device);
  static TensorData float_into_data(const DispatchTensor& tensor);
  static DispatchTensor int_from_data(const TensorData& data, const DispatchDevice& device);
  static TensorData int_into_data(const DispatchTensor& tensor);
  static DispatchTensor bool_from_data(const TensorData& data, const DispatchDevice& device);
  static TensorData bool_into_data(const DispatchTensor& tensor);
  static DispatchDevice float_device(const DispatchTensor& tensor);
  static Shape float_shape(const DispatchTensor& tensor);
  static DType float_dtype(const DispatchTensor& tensor);

  // Float ops (NumPy broadcasting for the binary ones).
  static DispatchTensor float_add(const DispatchTensor& lhs, const DispatchTensor& rhs);
  static DispatchTensor float_sub(const DispatchTensor& lhs, const DispatchTensor& rhs);
  static DispatchTensor float_mul(const DispatchTensor& lhs, const DispatchTensor& rhs);
  static DispatchTensor float_div(const DispatchTensor& lhs, const DispatchTensor& rhs);
  static DispatchTensor float_matmul(const DispatchTensor& lhs, const DispatchTensor& rhs);
  static DispatchTensor float_neg(const DispatchTensor& t);
  static DispatchTensor float_exp(const DispatchTensor& t);
  static DispatchTensor float_log(const DispatchTensor& t);
  static DispatchTensor float_sqrt(const DispatchTensor& t);
  static DispatchTensor float_tanh(const DispatchTensor& t);
  static DispatchTensor relu(const DispatchTensor& t);
  static DispatchTensor sigmoid(const DispatchTensor& t);
  static DispatchTensor float_powf_scalar(const DispatchTensor& t, double exponent);
  static DispatchTensor float_add_scalar(const DispatchTensor& t, double scalar);
  static DispatchTensor float_mul_scalar(const DispatchTensor& t, double scalar);
  static DispatchTensor float_sum(const DispatchTensor& t);
  static DispatchTensor float_mean(const DispatchTensor& t);
  static DispatchTensor float_sum_dim(const DispatchTensor& t, std::size_t dim);
  static DispatchTensor float_mean_dim(const DispatchTensor& t, std::size_t dim);
  static DispatchTensor float_reshape(const DispatchTensor& t, const Shape& shape);
  static DispatchTensor float_swap_dims(const DispatchTensor& t, std::size_t dim0, std::size_t dim1);
  // Across backends for plain tensors; within one backend for autodiff tensors (differentiable).
  static DispatchTensor float_to_device(const DispatchTensor& t, const DispatchDevice& device);
  static DispatchTensor float_cast(const DispatchTensor& t, DType dtype);

  // Quantized primitives (per-tensor symmetric int8).
  static DispatchTensor quantize(const DispatchTensor& t);
  static DispatchTensor dequantize(const DispatchTensor& t);

  // Autodiff (CONTRACT section 5).
  static Gradients backward(const DispatchTensor& root);
  static std::optional<DispatchTensor> grad(const DispatchTensor& t, const Gradients& grads);
  static std::optional<DispatchTensor> grad_remove(const DispatchTensor& t, Gradients& grads);
  static void grad_replace(const DispatchTensor& t, Gradients& grads, const DispatchTensor& grad);
  static DispatchTensor inner(const DispatchTensor& t);
  static DispatchTensor from_inner(const DispatchTensor& t);
};

}  // namespace crossgrad
