// backward / grad / grad_remove / grad_replace / inner / from_inner: CONTRACT section 5.
#include "autodiff/gradient_entry.hpp"
#include "dispatch/dispatch_arms.hpp"

#include <crossgrad/dispatch/dispatch.hpp>

namespace crossgrad {
using namespace dispatch_detail;

Gradients Dispatch::backward(const DispatchTensor& root) {
  return with_receiver<Gradients>(root, []<class B>(const AutodiffTensor<B>& a) { return Autodiff<B>::backward(a); });
}

// Autodiff<B>::grad, with the entry copied straight into the result's B(Float(...)) inside the
// optional (Note [Results built in place]).
std::optional<DispatchTensor> Dispatch::grad(const DispatchTensor& t, const Gradients& grads) {
  return with_receiver<std::optional<DispatchTensor>>(t, [&]<class B>(const AutodiffTensor<B>& a) -> std::optional<DispatchTensor> {
    const typename B::Tensor* g = autodiff_detail::gradient_entry(a, grads);
    if (g == nullptr) return std::nullopt;
    const auto copy = [&] { return *g; };
    return std::optional<DispatchTensor>(std::in_place, arg_for<DispatchTensor>([&] { return backend_kind<B, FloatPrimitive>(copy); }));
  });
}

std::optional<DispatchTensor> Dispatch::grad_remove(const DispatchTensor& t, Gradients& grads) {
  return with_receiver<std::optional<DispatchTensor>>(t, [&]<class B>(const AutodiffTensor<B>& a) {
    auto g = Autodiff<B>::grad_remove(a, grads);
    return g ? std::optional<DispatchTensor>(plain<B>(std::move(*g))) : std::nullopt;
  });
}

namespace {

// Note [Panics with rendered arguments are raised out of line]
// grad_replace's cross-backend and should-be-float panics render strings for their arguments.
// Rendered in grad_replace itself, those temporaries gave its frame cleanups: every expected panic
// stopped at a landing pad there and resumed unwinding, and the personality routine read its
// call-site table in each phase. Here the strings are built and freed by a function that returns
// the Panic, and the raising helper throws it with nothing alive in its frame (Note [A panic
// throws from a frame with nothing to clean up], core/panic.cpp).
[[gnu::noinline]] Panic cross_backend_panic(const DispatchTensorKind& t, const DispatchTensorKind& g) {
  return make_panic(PanicId::CrossBackend, {{"t:?", debug(t)}, {"g:?", debug(g)}});
}
[[noreturn]] [[gnu::noinline]] [[gnu::cold]] void panic_cross_backend(const DispatchTensorKind& t,
                                                                      const DispatchTensorKind& g) {
  throw cross_backend_panic(t, g);
}

[[gnu::noinline]] Panic should_be_float_panic(PrimitiveKind got) {
  return make_panic(PanicId::ShouldBeFloat, {{"got", std::string(got_word(got))}});
}
[[noreturn]] [[gnu::noinline]] [[gnu::cold]] void panic_should_be_float(PrimitiveKind got) {
  throw should_be_float_panic(got);
}

}  // namespace

// Note [grad_replace decision order]
// The receiver is checked before the gradient, as Burn's match does: first that the tensor is
// Autodiff(inner); then, on the pair (inner, grad.kind): same backend -> the receiver must hold an
// Autodiff primitive (else unreachable) and the gradient a Float one (else should-be-float);
// inner = Autodiff(_) -> autodiff-wraps-autodiff; anything else, including a gradient that is
// itself Autodiff(...), is cross-backend. Nothing touches `grads` before every check has passed,
// and the gradient's checkpointing is never looked at.
void Dispatch::grad_replace(const DispatchTensor& t, Gradients& grads, const DispatchTensor& grad) {
  if (!t.kind.is_autodiff()) panic(PanicId::RequiresAutodiff);
  const DispatchTensorKind& inner = t.kind.autodiff_inner();
  std::visit(Overloaded{[](const AutodiffKind&) { panic(PanicId::AutodiffWrapsAutodiff); },
                        [&]<class B>(const BackendTensor<B>& bt) {
                          const auto* gb = std::get_if<BackendTensor<B>>(&grad.kind.value);
                          if (gb == nullptr) panic_cross_backend(inner, grad.kind);
                          const auto* a = std::get_if<AutodiffTensor<B>>(&bt.value);
                          if (a == nullptr) panic(PanicId::Unreachable);
                          const auto* g = std::get_if<FloatPrimitive<B>>(&gb->value);
                          if (g == nullptr) panic_should_be_float(gb->primitive_kind());
                          Autodiff<B>::grad_replace(*a, grads, g->tensor);
                        }},
             inner.value);
}

DispatchTensor Dispatch::inner(const DispatchTensor& t) {
  return with_receiver<DispatchTensor>(t, []<class B>(const AutodiffTensor<B>& a) { return plain<B>(a.primitive); });
}

DispatchTensor Dispatch::from_inner(const DispatchTensor& t) {
  return std::visit(Overloaded{[](const AutodiffKind&) -> DispatchTensor { panic(PanicId::AutodiffWrapsAutodiff); },
                               [&]<class B>(const BackendTensor<B>& bt) -> DispatchTensor {
                                 const auto* f = std::get_if<FloatPrimitive<B>>(&bt.value);
                                 if (f == nullptr) {
                                   panic(PanicId::ShouldBeFloat, {{"got", std::string(got_word(bt.primitive_kind()))}});
                                 }
                                 return tracked<B>(Autodiff<B>::from_inner(f->tensor), t.checkpointing);
                               }},
                    t.kind.value);
}

}  // namespace crossgrad
