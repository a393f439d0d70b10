#pragma once
// Note [Dispatch arms]
// The only place that turns a runtime kind into a typed backend call. Each helper visits the kind
// variant generated from the backend registry, so no backend is named here and none can be
// missing: std::visit has no default arm. Ops in ops_api.cpp are one-liners over these helpers.
#include <crossgrad/core/panic.hpp>
#include <crossgrad/dispatch/debug.hpp>
#include <crossgrad/dispatch/kind.hpp>

#include <string_view>

namespace crossgrad::dispatch_detail {

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

template <class B>
DispatchTensor plain(typename B::Tensor t) {
  return {DispatchTensorKind{BackendTensor<B>::Float(std::move(t))}, std::nullopt};
}

// Note [Checkpointing of op results]
// CONTRACT section 2: absent means "not tracked". So every result whose kind is Autodiff(...)
// carries a strategy: its receiver's (the tensor argument; the lhs of a binary op), or Disabled
// when the receiver has none (x_from_data on an autodiff device: Disabled). Every plain result
// carries none. Checked by properties/checkpointing_props.cpp.
template <class B>
DispatchTensor tracked(AutodiffTensor<B> t, std::optional<CheckpointingStrategy> checkpointing) {
  return {DispatchTensorKind::Autodiff(DispatchTensorKind{BackendTensor<B>::Autodiff(std::move(t))}),
          checkpointing ? checkpointing : CheckpointingStrategy::Disabled};
}

[[noreturn]] inline void kind_mismatch(std::string_view op, std::string_view expected,
                                       const DispatchTensorKind& kind) {
  panic(PanicId::OpKindMismatch, {{"op", std::string(op)}, {"expected", std::string(expected)}, {"kind:?", debug(kind)}});
}

// A float tensor as ops see it: B(Float(p)) or the well-formed Autodiff(B(Autodiff(a))).
struct FloatView {
  std::size_t backend;  // index of the backend in the registry
  bool tracked;
};

inline std::optional<FloatView> float_view(const DispatchTensorKind& kind) {
  return std::visit(
      Overloaded{[](const AutodiffKind& ak) -> std::optional<FloatView> {
                   const DispatchTensorKind& inner = *ak.inner;
                   if (inner.is_autodiff()) return std::nullopt;
                   const auto& prim_is_autodiff = [](const auto& bt) {
                     return bt.primitive_kind() == PrimitiveKind::Autodiff;
                   };
                   const bool ok = std::visit(Overloaded{[&](const AutodiffKind&) { return false; },
                                                         [&](const auto& bt) { return prim_is_autodiff(bt); }},
                                              inner.value);
                   if (!ok) return std::nullopt;
                   return FloatView{inner.value.index(), true};
                 },
                 [&](const auto& bt) -> std::optional<FloatView> {
                   if (bt.primitive_kind() != PrimitiveKind::Float) return std::nullopt;
                   return FloatView{kind.value.index(), false};
                 }},
      kind.value);
}

// f.template operator()<Be>(x) with Be = B on plain tensors and Be = Autodiff<B> on tracked ones.
template <class F>
DispatchTensor map_float(std::string_view op, const DispatchTensor& t, F&& f) {
  if (!float_view(t.kind)) kind_mismatch(op, "Float", t.kind);
  if (!t.kind.is_autodiff()) {
    return std::visit(Overloaded{[](const AutodiffKind&) -> DispatchTensor { __builtin_unreachable(); },
                                 [&]<class B>(const BackendTensor<B>& bt) -> DispatchTensor {
                                   return plain<B>(f.template operator()<B>(std::get<FloatPrimitive<B>>(bt.value).tensor));
                                 }},
                      t.kind.value);
  }
  return std::visit(Overloaded{[](const AutodiffKind&) -> DispatchTensor { __builtin_unreachable(); },
                               [&]<class B>(const BackendTensor<B>& bt) -> DispatchTensor {
                                 return tracked<B>(f.template operator()<Autodiff<B>>(std::get<AutodiffTensor<B>>(bt.value)),
                                                   t.checkpointing);
                               }},
                    t.kind.autodiff_inner().value);
}

// Binary float ops: both operands float, on one backend, both plain or both tracked.
template <class F>
DispatchTensor zip_float(std::string_view op, const DispatchTensor& a, const DispatchTensor& b, F&& f) {
  const std::optional<FloatView> va = float_view(a.kind);
  if (!va) kind_mismatch(op, "Float", a.kind);
  const std::optional<FloatView> vb = float_view(b.kind);
  if (!vb) kind_mismatch(op, "Float", b.kind);
  if (va->backend != vb->backend || va->tracked != vb->tracked) {
    panic(PanicId::OpBackendMismatch, {{"op", std::string(op)}, {"lhs:?", debug(a.kind)}, {"rhs:?", debug(b.kind)}});
  }
  const DispatchTensorKind& ka = va->tracked ? a.kind.autodiff_inner() : a.kind;
  const DispatchTensorKind& kb = vb->tracked ? b.kind.autodiff_inner() : b.kind;
  return std::visit(
      Overloaded{[](const AutodiffKind&) -> DispatchTensor { __builtin_unreachable(); },
                 [&]<class B>(const BackendTensor<B>& ta) -> DispatchTensor {
                   const BackendTensor<B>& tb = std::get<BackendTensor<B>>(kb.value);
                   if (va->tracked) {
                     return tracked<B>(f.template operator()<Autodiff<B>>(std::get<AutodiffTensor<B>>(ta.value),
                                                                          std::get<AutodiffTensor<B>>(tb.value)),
                                       a.checkpointing);
                   }
                   return plain<B>(f.template operator()<B>(std::get<FloatPrimitive<B>>(ta.value).tensor,
                                                            std::get<FloatPrimitive<B>>(tb.value).tensor));
                 }},
      ka.value);
}

// Resolves the receiver of an autodiff operation exactly as CONTRACT section 5 orders the checks:
// not Autodiff(...) -> requires-autodiff; Autodiff(Autodiff(...)) -> autodiff-wraps-autodiff;
// Autodiff(B(p)) with p not an Autodiff primitive -> unreachable. Then f<B>(autodiff tensor).
template <class R, class F>
R with_receiver(const DispatchTensor& t, F&& f) {
  if (!t.kind.is_autodiff()) panic(PanicId::RequiresAutodiff);
  return std::visit(Overloaded{[](const AutodiffKind&) -> R { panic(PanicId::AutodiffWrapsAutodiff); },
                               [&]<class B>(const BackendTensor<B>& bt) -> R {
                                 const auto* a = std::get_if<AutodiffTensor<B>>(&bt.value);
                                 if (a == nullptr) panic(PanicId::Unreachable);
                                 return f.template operator()<B>(*a);
                               }},
                    t.kind.autodiff_inner().value);
}

// "int", "bool", ... as in Burn's "Should be float, got int".
inline std::string_view got_word(PrimitiveKind kind) {
  switch (kind) {
    case PrimitiveKind::Float:
      return "float";
    case PrimitiveKind::Int:
      return "int";
    case PrimitiveKind::Bool:
      return "bool";
    case PrimitiveKind::Quantized:
      return "quantized";
    case PrimitiveKind::Autodiff:
      return "autodiff";
  }
  return "float";
}

}  // namespace crossgrad::dispatch_detail
