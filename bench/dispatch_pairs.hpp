#pragma once
// The Direct / Dispatch pairs that measure what the Dispatch layer costs over calling a backend
// (or Autodiff<B>) directly: the same operation on the same inputs, once through the typed API
// and once through the runtime one. Shared by bench/dispatch_bench.cpp (time, Google Benchmark)
// and bench/dispatch_cost (instructions per call under callgrind, scripts/dispatch-cost), so both
// measure exactly the same calls.
//
// Each pair builds its inputs once; direct() and dispatch() are one call each, returning what the
// call returns so the caller decides how to keep the optimiser from dropping it.
#include <crossgrad/crossgrad.hpp>

#include <array>
#include <optional>
#include <string_view>

namespace crossgrad::bench::dispatch_pairs {

// The operations, in report order: a one-element add; grad_replace on a mul+sum graph of a 2x2
// leaf; grad and backward of a one-op graph (y = x * x on one element).
inline constexpr std::array<std::string_view, 4> kOperations = {"add", "grad_replace", "grad", "backward"};

inline TensorData one_element() { return TensorData::from_f32({1.5f}, {1}); }
inline TensorData two_by_two() { return TensorData::from_f32({1, 2, 3, 4}, {2, 2}); }

template <class B>
DispatchDevice device_of() {
  return DispatchDevice::of<B>(B::default_device());
}

template <class B>
struct AddPair {
  typename B::Tensor a = B::from_data(one_element(), B::default_device());
  DispatchTensor da = Dispatch::float_from_data(one_element(), device_of<B>());

  typename B::Tensor direct() { return B::float_add(a, a); }
  DispatchTensor dispatch() { return Dispatch::float_add(da, da); }
};

template <class B>
struct GradReplacePair {
  using AD = Autodiff<B>;
  typename AD::Tensor x = AD::from_data(two_by_two(), B::default_device());
  Gradients grads = AD::backward(AD::float_sum(AD::float_mul(x, x)));
  typename B::Tensor g = B::from_data(two_by_two(), B::default_device());

  DispatchTensor dx = Dispatch::float_from_data(two_by_two(), DispatchDevice::Autodiff(device_of<B>()));
  Gradients dgrads = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(dx, dx)));
  DispatchTensor dg = Dispatch::float_from_data(two_by_two(), device_of<B>());

  void direct() { AD::grad_replace(x, grads, g); }
  void dispatch() { Dispatch::grad_replace(dx, dgrads, dg); }
};

// y = x * x on one element: the smallest graph with a backward rule.
template <class B>
struct OneOpGraph {
  using AD = Autodiff<B>;
  typename AD::Tensor x = AD::from_data(one_element(), B::default_device());
  typename AD::Tensor y = AD::float_mul(x, x);

  DispatchTensor dx = Dispatch::float_from_data(one_element(), DispatchDevice::Autodiff(device_of<B>()));
  DispatchTensor dy = Dispatch::float_mul(dx, dx);
};

template <class B>
struct GradPair : OneOpGraph<B> {
  using AD = Autodiff<B>;
  Gradients grads = AD::backward(this->y);
  Gradients dgrads = Dispatch::backward(this->dy);

  std::optional<typename B::Tensor> direct() { return AD::grad(this->x, grads); }
  std::optional<DispatchTensor> dispatch() { return Dispatch::grad(this->dx, dgrads); }
};

template <class B>
struct BackwardPair : OneOpGraph<B> {
  using AD = Autodiff<B>;
  Gradients direct() { return AD::backward(this->y); }
  Gradients dispatch() { return Dispatch::backward(this->dy); }
};

// f.template operator()<Pair>(operation name) for each operation of backend B, in kOperations order.
template <class B, class F>
void for_each_pair(F&& f) {
  f.template operator()<AddPair<B>>(kOperations[0]);
  f.template operator()<GradReplacePair<B>>(kOperations[1]);
  f.template operator()<GradPair<B>>(kOperations[2]);
  f.template operator()<BackwardPair<B>>(kOperations[3]);
}

}  // namespace crossgrad::bench::dispatch_pairs
