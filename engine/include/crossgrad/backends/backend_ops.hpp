#pragma once
// The backend interface. Every backend is a struct of static functions over its own tensor type T
// (float, int and bool primitives share T and differ by dtype) and quantized type Q. Declared once
// here and expanded in each backend's header, so no backend can forget an entry; Autodiff<B> and
// Dispatch call only these. Shape and dtype checks come from core/shape_rules.hpp so that every
// backend raises the same catalog panic for the same bad input.
#include <crossgrad/core/device.hpp>
#include <crossgrad/core/tensor_data.hpp>

#define CROSSGRAD_DECLARE_BACKEND_OPS(T, Q)                                                     \
  /* Copies validated data (float, int or bool dtype) onto `device`; panics device-unavailable. */ \
  static T from_data(const ::crossgrad::TensorData& data, const ::crossgrad::Device& device);    \
  /* Copies back to host memory, bit for bit. */                                                 \
  static ::crossgrad::TensorData into_data(const T& tensor);                                     \
  static ::crossgrad::Shape shape(const T& tensor);                                              \
  static ::crossgrad::DType dtype(const T& tensor);                                              \
  static ::crossgrad::Device device(const T& tensor);                                            \
  /* Returns once all work queued on `device` is done (ops may return before; CPU: no-op). */    \
  static void synchronize(const ::crossgrad::Device& device);                                    \
  /* A float tensor of `shape` filled with `value` (F32 or F64). */                              \
  static T float_full(const ::crossgrad::Shape& shape, double value, ::crossgrad::DType dtype,  \
                      const ::crossgrad::Device& device);                                        \
  /* Element-wise binary ops with NumPy broadcasting; operands share one float dtype. */        \
  static T float_add(const T& lhs, const T& rhs);                                                \
  static T float_sub(const T& lhs, const T& rhs);                                                \
  static T float_mul(const T& lhs, const T& rhs);                                                \
  static T float_div(const T& lhs, const T& rhs);                                                \
  /* Element-wise unary ops; results keep shape and dtype. */                                    \
  static T float_neg(const T& tensor);                                                           \
  static T float_exp(const T& tensor);                                                           \
  static T float_log(const T& tensor);                                                           \
  static T float_sqrt(const T& tensor);                                                          \
  static T float_tanh(const T& tensor);                                                          \
  static T relu(const T& tensor);                                                                \
  static T sigmoid(const T& tensor);                                                             \
  /* Element-wise with a scalar, computed in the tensor's dtype. */                             \
  static T float_powf_scalar(const T& tensor, double exponent);                                  \
  static T float_add_scalar(const T& tensor, double scalar);                                     \
  static T float_mul_scalar(const T& tensor, double scalar);                                     \
  /* [..., m, k] x [..., k, n] with broadcast batch dims (rules::plan_matmul). */                \
  static T float_matmul(const T& lhs, const T& rhs);                                             \
  /* Sum / mean of all elements, shape [1]. */                                                   \
  static T float_sum(const T& tensor);                                                           \
  static T float_mean(const T& tensor);                                                          \
  /* Along `dim`, keeping it with size 1. */                                                     \
  static T float_sum_dim(const T& tensor, std::size_t dim);                                      \
  static T float_mean_dim(const T& tensor, std::size_t dim);                                     \
  static T float_reshape(const T& tensor, const ::crossgrad::Shape& shape);                      \
  static T float_swap_dims(const T& tensor, std::size_t dim0, std::size_t dim1);                 \
  /* Same backend, another device (a copy; identity when the device is the same). */             \
  static T float_to_device(const T& tensor, const ::crossgrad::Device& device);                  \
  /* Between float dtypes (F32 <-> F64); panics unsupported-dtype for others. */                 \
  static T float_cast(const T& tensor, ::crossgrad::DType dtype);                                \
  /* Bool tensor: tensor > scalar (relu's backward uses it). */                                  \
  static T float_greater_scalar(const T& tensor, double scalar);                                 \
  /* Bool tensor to 0/1 floats of `dtype`. */                                                    \
  static T bool_into_float(const T& tensor, ::crossgrad::DType dtype);                           \
  /* Per-tensor symmetric int8 (backends/quantized.hpp); panics quantize-non-finite. */          \
  static Q quantize(const T& tensor);                                                            \
  /* Back to F32. */                                                                             \
  static T dequantize(const Q& tensor);
