#pragma once
// The derivatives of relu, sigmoid, gelu and log_sigmoid, written once over a backend's ops: the
// Autodiff<B> rules call them with B on a node's primitives, and Burn's ActivationOps entry points
// (Dispatch::relu_backward, ...; docs/OPS.md "Activation backward") with B or Autodiff<B>, so the
// two give the same bits. `Be` is B or Autodiff<B>; `T` its tensor type.
#include <numbers>

namespace crossgrad::activation_backward {

// g where x > 0, else +0 (g * 0 alone is -0 where g < 0; docs/OPS.md "Zero gradients are +0");
// relu(x) > 0 exactly where x > 0, so relu's output serves as x.
template <class Be, class T>
T relu(const T& x, const T& g) {
  const auto mask = Be::bool_into_float(Be::float_greater_scalar(x, 0.0), Be::dtype(x));
  return Be::float_add_scalar(Be::float_mul(g, mask), 0.0);
}

// g * y (1 - y) from sigmoid's output y.
template <class Be, class T>
T sigmoid(const T& y, const T& g) {
  return Be::float_mul(g, Be::float_mul(y, Be::float_add_scalar(Be::float_neg(y), 1.0)));
}

// d/dx gelu x = Phi(x) + x phi(x), in PyTorch's form: cdf = (1 + erf(x / sqrt 2)) / 2, pdf =
// exp(-x^2 / 2) / sqrt(2 pi), g * (cdf + x * pdf). (Burn's gelu_backward differentiates the tanh
// approximation; crossgrad's gelu is the erf form, and so is its derivative.)
template <class Be, class T>
T gelu(const T& x, const T& g) {
  const T cdf = Be::float_mul_scalar(Be::float_add_scalar(Be::float_erf(Be::float_mul_scalar(x, std::numbers::sqrt2 / 2)), 1.0), 0.5);
  const T pdf = Be::float_mul_scalar(Be::float_exp(Be::float_mul_scalar(Be::float_mul(x, x), -0.5)),
                                     std::numbers::inv_sqrtpi / std::numbers::sqrt2);
  return Be::float_mul(g, Be::float_add(cdf, Be::float_mul(x, pdf)));
}

// d/dx log sigmoid x = sigmoid(-x).
template <class Be, class T>
T log_sigmoid(const T& x, const T& g) {
  return Be::float_mul(g, Be::sigmoid(Be::float_neg(x)));
}

}  // namespace crossgrad::activation_backward
