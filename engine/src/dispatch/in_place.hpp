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

// An argument that initialises a T from make(): the InPlace itself where T can be initialised from
// one (GCC: C++20 parenthesised aggregate initialisation, P0960), else T{make()} with one move
// (clang before 16 lacks P0960; the fuzz build uses clang).
template <class T, class F>
auto arg_for(F f) {
  if constexpr (std::is_constructible_v<T, InPlace<F>>) {
    return InPlace<F>{std::move(f)};
  } else {
    return T{f()};
  }
}

// BackendTensor<B>'s variant holding P<B>{make()}; P is FloatPrimitive, IntPrimitive,
// BoolPrimitive or AutodiffTensor (which, not being built from a B::Tensor, takes make()'s
// AutodiffTensor<B> through one move).
template <class B, template <class> class P, class Make>
typename BackendTensor<B>::Variant backend_variant(Make& make) {
  return typename BackendTensor<B>::Variant(std::in_place_type<P<B>>, arg_for<P<B>>([&] { return make(); }));
}

// The BackendTensor<B> alternative of DispatchTensorKind::Variant, holding P<B>{make()}.
template <class B, template <class> class P, class Make>
DispatchTensorKind::Variant backend_alternative(Make& make) {
  return DispatchTensorKind::Variant(std::in_place_type<BackendTensor<B>>,
                                     arg_for<BackendTensor<B>>([&] { return backend_variant<B, P>(make); }));
}

// The kind B(P(make())).
template <class B, template <class> class P, class Make>
DispatchTensorKind backend_kind(Make&& make) {
  return DispatchTensorKind{backend_alternative<B, P>(make)};
}

// The kind Autodiff(B(P(make()))): the boxed inner kind is built in place as well.
template <class B, template <class> class P, class Make>
DispatchTensorKind autodiff_kind(Make&& make) {
  auto box = std::make_shared<const DispatchTensorKind>(
      arg_for<DispatchTensorKind>([&] { return backend_alternative<B, P>(make); }));
  return DispatchTensorKind{DispatchTensorKind::Variant(std::in_place_type<AutodiffKind>, AutodiffKind{std::move(box)})};
}

}  // namespace crossgrad::dispatch_detail
