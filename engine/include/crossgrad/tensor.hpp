#pragma once
// Tensor: a friendlier value type over DispatchTensor, with operators and methods named as in
// Burn's Tensor API. Every call is one Dispatch call; panics are the same.
#include <crossgrad/dispatch/dispatch.hpp>

#include <optional>
#include <utility>

namespace crossgrad {

class Tensor {
 public:
  explicit Tensor(DispatchTensor inner) : inner_(std::move(inner)) {}
  static Tensor from_data(const TensorData& data, const DispatchDevice& device) {
    return Tensor(Dispatch::float_from_data(data, device));
  }

  const DispatchTensor& dispatch() const { return inner_; }
  TensorData into_data() const { return Dispatch::float_into_data(inner_); }
  DispatchDevice device() const { return Dispatch::float_device(inner_); }

  friend Tensor operator+(const Tensor& a, const Tensor& b) { return Tensor(Dispatch::float_add(a.inner_, b.inner_)); }
  friend Tensor operator-(const Tensor& a, const Tensor& b) { return Tensor(Dispatch::float_sub(a.inner_, b.inner_)); }
  friend Tensor operator*(const Tensor& a, const Tensor& b) { return Tensor(Dispatch::float_mul(a.inner_, b.inner_)); }
  friend Tensor operator/(const Tensor& a, const Tensor& b) { return Tensor(Dispatch::float_div(a.inner_, b.inner_)); }
  friend Tensor operator+(const Tensor& a, double s) { return Tensor(Dispatch::float_add_scalar(a.inner_, s)); }
  friend Tensor operator*(const Tensor& a, double s) { return Tensor(Dispatch::float_mul_scalar(a.inner_, s)); }
  Tensor operator-() const { return Tensor(Dispatch::float_neg(inner_)); }

  Tensor matmul(const Tensor& rhs) const { return Tensor(Dispatch::float_matmul(inner_, rhs.inner_)); }
  Tensor exp() const { return Tensor(Dispatch::float_exp(inner_)); }
  Tensor log() const { return Tensor(Dispatch::float_log(inner_)); }
  Tensor sqrt() const { return Tensor(Dispatch::float_sqrt(inner_)); }
  Tensor tanh() const { return Tensor(Dispatch::float_tanh(inner_)); }
  Tensor relu() const { return Tensor(Dispatch::relu(inner_)); }
  Tensor sigmoid() const { return Tensor(Dispatch::sigmoid(inner_)); }
  Tensor powf(double exponent) const { return Tensor(Dispatch::float_powf_scalar(inner_, exponent)); }
  Tensor sum() const { return Tensor(Dispatch::float_sum(inner_)); }
  Tensor mean() const { return Tensor(Dispatch::float_mean(inner_)); }
  Tensor sum_dim(std::size_t dim) const { return Tensor(Dispatch::float_sum_dim(inner_, dim)); }
  Tensor mean_dim(std::size_t dim) const { return Tensor(Dispatch::float_mean_dim(inner_, dim)); }
  Tensor reshape(const Shape& shape) const { return Tensor(Dispatch::float_reshape(inner_, shape)); }
  Tensor swap_dims(std::size_t d0, std::size_t d1) const { return Tensor(Dispatch::float_swap_dims(inner_, d0, d1)); }
  Tensor transpose() const;
  Tensor to_device(const DispatchDevice& device) const { return Tensor(Dispatch::float_to_device(inner_, device)); }
  Tensor cast(DType dtype) const { return Tensor(Dispatch::float_cast(inner_, dtype)); }

  Gradients backward() const { return Dispatch::backward(inner_); }
  std::optional<Tensor> grad(const Gradients& grads) const {
    auto g = Dispatch::grad(inner_, grads);
    return g ? std::optional<Tensor>(Tensor(std::move(*g))) : std::nullopt;
  }
  void grad_replace(Gradients& grads, const Tensor& grad) const { Dispatch::grad_replace(inner_, grads, grad.inner_); }
  Tensor inner() const { return Tensor(Dispatch::inner(inner_)); }
  static Tensor from_inner(const Tensor& t) { return Tensor(Dispatch::from_inner(t.inner_)); }

 private:
  DispatchTensor inner_;
};

// Swaps the last two dims (a matrix transpose, batched).
inline Tensor Tensor::transpose() const {
  const std::size_t rank = Dispatch::float_shape(inner_).rank();
  return rank < 2 ? *this : swap_dims(rank - 2, rank - 1);
}

}  // namespace crossgrad
