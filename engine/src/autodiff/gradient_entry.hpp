#pragma once
// Reading a tracked tensor's entry of a Gradients container, for Autodiff<B>::grad / grad_remove
// and for Dispatch::grad, which copies the entry straight into its result (Note [Results built in
// place]) instead of taking Autodiff<B>::grad's copy and moving it again.
#include <crossgrad/autodiff/autodiff.hpp>
#include <crossgrad/core/panic.hpp>

#include <variant>

namespace crossgrad::autodiff_detail {

// An entry of another backend under this node's id can only come from a hand-assembled container.
template <class B>
const typename B::Tensor& entry_of(const AnyTensor& entry) {
  const auto* g = std::get_if<typename B::Tensor>(&entry);
  if (g == nullptr) panic(PanicId::Unreachable);
  return *g;
}

// t's gradient in `grads`, or nullptr when there is none.
template <class B>
const typename B::Tensor* gradient_entry(const AutodiffTensor<B>& t, const Gradients& grads) {
  const AnyTensor* entry = grads.find(t.id());
  if (entry == nullptr) return nullptr;
  return &entry_of<B>(*entry);
}

}  // namespace crossgrad::autodiff_detail
