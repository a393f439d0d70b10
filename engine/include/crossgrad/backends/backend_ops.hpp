#pragma once
// The backend interface. Every backend is a struct of static functions over its own tensor type T
// (float, int and bool primitives share T and differ by dtype) and quantized type Q. Declared once
// here and expanded in each backend's header, so no backend can forget an entry; Autodiff<B> and
// Dispatch call only these. Shape and dtype checks come from core/shape_rules.hpp so that every
// backend raises the same catalog panic for the same bad input.
#include <crossgrad/core/device.hpp>
#include <crossgrad/core/tensor_data.hpp>
#include <crossgrad/ops/op_list.hpp>

#include <vector>

// One registry entry as a backend member, over the backend's `Tensor` (index tensors included:
// float, int and bool primitives share it). Every backend names its tensor type `Tensor`.
#define CROSSGRAD_BACKEND_OP_DECL(name, method, Sig, Operand, Result, Rule) \
  static Tensor name CROSSGRAD_SIG_PARAMS_##Sig(Tensor, Tensor);

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
  /* Same backend, another device (a copy; identity when the device is the same). */             \
  static T float_to_device(const T& tensor, const ::crossgrad::Device& device);                  \
  /* Every op of the registry (ops/op_list.hpp; semantics in docs/OPS.md), T for index tensors. */ \
  CROSSGRAD_OPS(CROSSGRAD_BACKEND_OP_DECL)                                                       \
  /* Per-tensor symmetric int8 (backends/quantized.hpp); panics quantize-non-finite. */          \
  static Q quantize(const T& tensor);                                                            \
  /* Back to F32. */                                                                             \
  static T dequantize(const Q& tensor);
