// Burn's ops that are compositions of registry ops at the Dispatch level (docs/OPS.md "Composed
// ops"): their checks, panics, tracked-ness and gradients are those of the ops they call.
#include "dispatch/dispatch_arms.hpp"
#include "ops/activation_backward.hpp"

#include <crossgrad/dispatch/dispatch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

namespace crossgrad {
using namespace dispatch_detail;

std::pair<DispatchTensor, DispatchTensor> Dispatch::float_sort_with_indices(const DispatchTensor& tensor,
                                                                            std::size_t dim, bool descending) {
  DispatchTensor values = float_sort(tensor, dim, descending);
  return {std::move(values), float_argsort(tensor, dim, descending)};
}
std::pair<DispatchTensor, DispatchTensor> Dispatch::max_pool2d_with_indices(const DispatchTensor& tensor,
                                                                            const MaxPool2dOptions& options) {
  DispatchTensor values = max_pool2d(tensor, options);
  return {std::move(values), max_pool2d_indices(tensor, options)};
}
std::pair<DispatchTensor, DispatchTensor> Dispatch::max_pool1d_with_indices(const DispatchTensor& tensor,
                                                                            const MaxPool1dOptions& options) {
  DispatchTensor values = max_pool1d(tensor, options);
  return {std::move(values), max_pool1d_indices(tensor, options)};
}
std::pair<DispatchTensor, DispatchTensor> Dispatch::float_topk_with_indices(const DispatchTensor& tensor,
                                                                            std::size_t dim, std::size_t k) {
  DispatchTensor values = float_topk(tensor, dim, k);
  return {std::move(values), float_argtopk(tensor, dim, k)};
}
std::pair<DispatchTensor, DispatchTensor> Dispatch::float_max_dim_with_indices(const DispatchTensor& tensor,
                                                                               std::size_t dim) {
  DispatchTensor values = float_max_dim(tensor, dim);
  return {std::move(values), float_argmax(tensor, dim)};
}
std::pair<DispatchTensor, DispatchTensor> Dispatch::float_min_dim_with_indices(const DispatchTensor& tensor,
                                                                               std::size_t dim) {
  DispatchTensor values = float_min_dim(tensor, dim);
  return {std::move(values), float_argmin(tensor, dim)};
}

std::pair<DispatchTensor, DispatchTensor> Dispatch::int_max_dim_with_indices(const DispatchTensor& tensor, std::size_t dim) {
  DispatchTensor values = int_max_dim(tensor, dim);
  return {std::move(values), int_argmax(tensor, dim)};
}
std::pair<DispatchTensor, DispatchTensor> Dispatch::int_min_dim_with_indices(const DispatchTensor& tensor, std::size_t dim) {
  DispatchTensor values = int_min_dim(tensor, dim);
  return {std::move(values), int_argmin(tensor, dim)};
}
std::pair<DispatchTensor, DispatchTensor> Dispatch::int_sort_with_indices(const DispatchTensor& tensor, std::size_t dim,
                                                                          bool descending) {
  DispatchTensor values = int_sort(tensor, dim, descending);
  return {std::move(values), int_argsort(tensor, dim, descending)};
}
std::pair<DispatchTensor, DispatchTensor> Dispatch::int_topk_with_indices(const DispatchTensor& tensor, std::size_t dim,
                                                                          std::size_t k) {
  DispatchTensor values = int_topk(tensor, dim, k);
  return {std::move(values), int_argtopk(tensor, dim, k)};
}

// t == true is t and t == false is !t (t != v the other way round). The kind is checked here, under
// the function's own name, so that both values of the constant refuse a non-Bool tensor alike
// (op-kind-mismatch), and the unchanged tensor is returned as is: tensors are immutable.
DispatchTensor Dispatch::bool_equal_elem(const DispatchTensor& tensor, bool value) {
  (void)receiver_view<PrimitiveKind::Bool>("bool_equal_elem", tensor);
  return value ? tensor : bool_not(tensor);
}
DispatchTensor Dispatch::bool_not_equal_elem(const DispatchTensor& tensor, bool value) {
  (void)receiver_view<PrimitiveKind::Bool>("bool_not_equal_elem", tensor);
  return value ? bool_not(tensor) : tensor;
}

DispatchTensor Dispatch::float_greater_elem(const DispatchTensor& tensor, double scalar) {
  return float_greater_scalar(tensor, scalar);
}

// Rust's `as i64` of the scalar, as Burn's elem::<i64>(): toward zero, NaN to 0, saturating at the
// ends of i64; then x^n as float_powf_scalar computes it (C's pow, the gradient n x^(n-1)).
DispatchTensor Dispatch::float_powi_scalar(const DispatchTensor& tensor, double scalar) {
  double n = 0;
  if (std::isnan(scalar)) n = 0;
  else if (scalar >= 0x1p63) n = static_cast<double>(std::numeric_limits<std::int64_t>::max());
  else if (scalar <= -0x1p63) n = -0x1p63;
  else n = static_cast<double>(static_cast<std::int64_t>(scalar));
  return float_powf_scalar(tensor, n);
}

// Burn's default: the int exponents converted to the base's float dtype, then float_powf.
DispatchTensor Dispatch::float_powi(const DispatchTensor& lhs, const DispatchTensor& rhs) {
  return float_powf(lhs, int_into_float(rhs, float_dtype(lhs)));
}

#define CROSSGRAD_ACTIVATION_BACKWARD(name)                                                                  \
  DispatchTensor Dispatch::name##_backward(const DispatchTensor& x, const DispatchTensor& grad) {          \
    return zip_op<PrimitiveKind::Float, PrimitiveKind::Float>(#name "_backward", x, grad, [&]<class Be>(const auto& a, const auto& g) { \
      return activation_backward::name<Be>(a, g);                                                        \
    });                                                                                                    \
  }
CROSSGRAD_ACTIVATION_BACKWARD(relu)
CROSSGRAD_ACTIVATION_BACKWARD(sigmoid)
CROSSGRAD_ACTIVATION_BACKWARD(gelu)
CROSSGRAD_ACTIVATION_BACKWARD(log_sigmoid)
#undef CROSSGRAD_ACTIVATION_BACKWARD

}  // namespace crossgrad
