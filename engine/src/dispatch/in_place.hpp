#pragma once
// Note [Results built in place]
// A result's kind nests variants: DispatchTensorKind -> BackendTensor<B> -> the primitive, and
// Autodiff(...) adds a shared box around the inner kind. Built the obvious way (B's result, then
// BackendTensor<B>::Float(t), then DispatchTensorKind{...}, then DispatchTensor{...}) every layer
// moves the backend tensor once more and destroys the moved-from shell: on a one-element op that
// was about half of what Dispatch cost over the backend call (docs/DISPATCH_COST.md). Here each
// layer is built from an InPlace, which converts to what its callable returns: a variant's
// alternative (an aggregate) copy-initialises its member from the InPlace, the conversion yields a
// prvalue, and a prvalue initialises its object directly (C++17 guaranteed copy elision). So the
// backend's result is constructed once, in the storage it keeps for the tensor's lifetime.
// scripts/dispatch-cost shows the effect (docs/DISPATCH_COST.md).
#include <crossgrad/dispatch/kind.hpp>

#include <memory>
#include <type_traits>
#include <utility>
#include <variant>

namespace crossgrad::dispatch_detail {

template <class F>
struct InPlace {
  F make;
  // Implicit on purpose: only an implicit conversion takes part in copy-initialisation.
  operator std::invoke_result_t<F&>() { return make(); }
};
template <class F>
InPlace(F) -> InPlace<F>;

// BackendTensor<B>'s variant holding P<B>{make()}; P is FloatPrimitive, IntPrimitive,
// BoolPrimitive or AutodiffTensor (which, not being built from a B::Tensor, takes make()'s
// AutodiffTensor<B> through one move).
template <class B, template <class> class P, class Make>
typename BackendTensor<B>::Variant backend_variant(Make& make) {
  return typename BackendTensor<B>::Variant(std::in_place_type<P<B>>, InPlace{[&] { return make(); }});
}

// The kind B(P(make())).
template <class B, template <class> class P, class Make>
DispatchTensorKind backend_kind(Make&& make) {
  return DispatchTensorKind{DispatchTensorKind::Variant(std::in_place_type<BackendTensor<B>>,
                                                        InPlace{[&] { return backend_variant<B, P>(make); }})};
}

// The kind Autodiff(B(P(make()))): the boxed inner kind is built in place as well.
template <class B, template <class> class P, class Make>
DispatchTensorKind autodiff_kind(Make&& make) {
  auto box = std::make_shared<const DispatchTensorKind>(InPlace{[&] {
    return DispatchTensorKind::Variant(std::in_place_type<BackendTensor<B>>,
                                       InPlace{[&] { return backend_variant<B, P>(make); }});
  }});
  return DispatchTensorKind{DispatchTensorKind::Variant(std::in_place_type<AutodiffKind>, AutodiffKind{std::move(box)})};
}

}  // namespace crossgrad::dispatch_detail
