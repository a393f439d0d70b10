#pragma once
// Note [Dispatch arms]
// The only place that turns a runtime kind into a typed backend call. Each helper visits the kind
// variant generated from the backend registry, so no backend is named here and none can be
// missing: std::visit has no default arm. The registry's ops (ops_api_bodies.hpp) expand into one call of
// map_op, zip_op, indexed_op or list_op each, chosen by the op's signature.
#include <crossgrad/core/panic.hpp>
#include <crossgrad/dispatch/debug.hpp>
#include <crossgrad/dispatch/kind.hpp>

#include "dispatch/in_place.hpp"

#include <string_view>

namespace crossgrad::dispatch_detail {

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

// B(Float(make())), built in place (Note [Results built in place]).
template <class B, class Make>
DispatchTensor plain_from(Make&& make) {
  return DispatchTensor{backend_kind<B, FloatPrimitive>(make)};
}
template <class B>
DispatchTensor plain(typename B::Tensor t) {
  return plain_from<B>([&] { return std::move(t); });
}

// Note [Checkpointing of op results]
// CONTRACT section 2: absent means "not tracked". So every result whose kind is Autodiff(...)
// carries a strategy: its receiver's (the tensor argument; the lhs of a binary op), or Disabled
// when the receiver has none (x_from_data on an autodiff device: Disabled). Every plain result
// carries none. Checked by properties/checkpointing_props.cpp.
inline CheckpointingStrategy result_checkpointing(std::optional<CheckpointingStrategy> receiver) {
  return receiver ? *receiver : CheckpointingStrategy::Disabled;
}
// Autodiff(B(P(make()))) with the receiver's strategy; P is AutodiffTensor for float results.
template <class B, template <class> class P, class Make>
DispatchTensor tracked_from(Make&& make, std::optional<CheckpointingStrategy> checkpointing) {
  return {autodiff_kind<B, P>(make), result_checkpointing(checkpointing)};
}
template <class B>
DispatchTensor tracked(AutodiffTensor<B> t, std::optional<CheckpointingStrategy> checkpointing) {
  return tracked_from<B, AutodiffTensor>([&] { return std::move(t); }, checkpointing);
}

// The panics are out of line and cold: building their messages inline made every arm too large
// to inline its checks (docs/DISPATCH_COST.md).
// The Panic is built in one function and thrown from another with nothing left to clean up: an
// expected panic then unwinds no landing pad here (Note [A panic throws from a frame with nothing
// to clean up], core/panic.cpp).
[[gnu::cold, gnu::noinline]] inline Panic kind_mismatch_panic(std::string_view op, std::string_view expected,
                                                             const DispatchTensorKind& kind) {
  return make_panic(PanicId::OpKindMismatch,
                    {{"op", std::string(op)}, {"expected", std::string(expected)}, {"kind:?", debug(kind)}});
}
[[noreturn, gnu::cold, gnu::noinline]] inline void kind_mismatch(std::string_view op, std::string_view expected,
                                                                const DispatchTensorKind& kind) {
  throw kind_mismatch_panic(op, expected, kind);
}

// A float tensor as ops see it: B(Float(p)) or the well-formed Autodiff(B(Autodiff(a))).
struct FloatView {
  std::size_t backend;  // the kind's variant index: the backend's position in CROSSGRAD_BACKENDS
  bool tracked;
};
// FloatView::backend is compared across tensors and with DispatchDevice indices
// (Note [Variant indices are registry positions]).
static_assert(lists_backends_in_registry_order<DispatchTensorKind::Variant, BackendTensor, AutodiffKind>());

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

// The result of a registry op in the kind its Result gives it: B(Float|Int|Bool(p)) for a plain
// receiver; for a tracked one Autodiff(B(Autodiff(a))) (Float) or Autodiff(B(Int|Bool(p))), the
// kind int and bool tensors have on an autodiff device.
// Both take make(), the backend call itself, so that its result is built in place.
template <class B, PrimitiveKind R, class Make>
DispatchTensor wrap_plain(Make&& make) {
  static_assert(R == PrimitiveKind::Float || R == PrimitiveKind::Int || R == PrimitiveKind::Bool);
  if constexpr (R == PrimitiveKind::Float) return DispatchTensor{backend_kind<B, FloatPrimitive>(make)};
  if constexpr (R == PrimitiveKind::Int) return DispatchTensor{backend_kind<B, IntPrimitive>(make)};
  if constexpr (R == PrimitiveKind::Bool) return DispatchTensor{backend_kind<B, BoolPrimitive>(make)};
}
template <class B, PrimitiveKind R, class Make>
DispatchTensor wrap_tracked(Make&& make, std::optional<CheckpointingStrategy> checkpointing) {
  static_assert(R == PrimitiveKind::Float || R == PrimitiveKind::Int || R == PrimitiveKind::Bool);
  if constexpr (R == PrimitiveKind::Float) return tracked_from<B, AutodiffTensor>(make, checkpointing);
  if constexpr (R == PrimitiveKind::Int) return tracked_from<B, IntPrimitive>(make, checkpointing);
  if constexpr (R == PrimitiveKind::Bool) return tracked_from<B, BoolPrimitive>(make, checkpointing);
}

// An int or bool tensor as ops see it: B(Int(p)) or Autodiff(B(Int(p))) (likewise Bool).
inline std::optional<FloatView> primitive_view(const DispatchTensorKind& kind, PrimitiveKind want) {
  const bool tracked = kind.is_autodiff();
  const DispatchTensorKind& k = tracked ? kind.autodiff_inner() : kind;
  return std::visit(Overloaded{[](const AutodiffKind&) -> std::optional<FloatView> { return std::nullopt; },
                               [&](const auto& bt) -> std::optional<FloatView> {
                                 if (bt.primitive_kind() != want) return std::nullopt;
                                 return FloatView{k.value.index(), tracked};
                               }},
                    k.value);
}

template <class B>
const typename B::Tensor& primitive_of(const BackendTensor<B>& bt, PrimitiveKind kind) {
  switch (kind) {
    case PrimitiveKind::Int:
      return std::get<IntPrimitive<B>>(bt.value).tensor;
    case PrimitiveKind::Bool:
      return std::get<BoolPrimitive<B>>(bt.value).tensor;
    case PrimitiveKind::Float:
      return std::get<FloatPrimitive<B>>(bt.value).tensor;
    case PrimitiveKind::Quantized:
    case PrimitiveKind::Autodiff:
      break;
  }
  panic(PanicId::Unreachable);
}

// B's primitive wrapper for a kind: FloatPrimitive<B>, IntPrimitive<B> or BoolPrimitive<B>.
template <class B, PrimitiveKind K>
using primitive_variant = std::conditional_t<K == PrimitiveKind::Float, FloatPrimitive<B>,
                                             std::conditional_t<K == PrimitiveKind::Int, IntPrimitive<B>, BoolPrimitive<B>>>;

// Visits the backend tensor inside a kind that a view has already resolved; an Autodiff arm here
// is an engine bug, reported as the catalog's unreachable panic rather than undefined behaviour.
template <class R, class F>
R visit_backend(const DispatchTensorKind& k, F&& f) {
  return std::visit(Overloaded{[](const AutodiffKind&) -> R { panic(PanicId::Unreachable); },
                               [&]<class B>(const BackendTensor<B>& bt) -> R { return f.template operator()<B>(bt); }},
                    k.value);
}

// The receiver's view for a registry op whose receiver is Operand; op-kind-mismatch otherwise.
template <PrimitiveKind Operand>
FloatView receiver_view(std::string_view op, const DispatchTensor& t) {
  const std::optional<FloatView> v = Operand == PrimitiveKind::Float ? float_view(t.kind) : primitive_view(t.kind, Operand);
  if (!v) kind_mismatch(op, primitive_kind_name(Operand), t.kind);
  return *v;
}

// A second tensor operand must be on the receiver's backend and tracked alike.
[[gnu::cold, gnu::noinline]] inline Panic backend_mismatch_panic(std::string_view op, const DispatchTensor& a,
                                                                const DispatchTensor& b) {
  return make_panic(PanicId::OpBackendMismatch,
                    {{"op", std::string(op)}, {"lhs:?", debug(a.kind)}, {"rhs:?", debug(b.kind)}});
}
[[noreturn, gnu::cold, gnu::noinline]] inline void backend_mismatch(std::string_view op, const DispatchTensor& a,
                                                                   const DispatchTensor& b) {
  throw backend_mismatch_panic(op, a, b);
}
inline void check_same_backend(std::string_view op, const DispatchTensor& a, FloatView va, const DispatchTensor& b, FloatView vb) {
  if (va.backend != vb.backend || va.tracked != vb.tracked) backend_mismatch(op, a, b);
}

// f.template operator()<Be>(x) with Be = B on plain tensors and Be = Autodiff<B> on tracked ones
// (x: B's primitive, or for a float receiver on Autodiff<B> its AutodiffTensor).
template <PrimitiveKind Operand, PrimitiveKind R, class F>
DispatchTensor map_op(std::string_view op, const DispatchTensor& t, F&& f) {
  const FloatView v = receiver_view<Operand>(op, t);
  const DispatchTensorKind& k = v.tracked ? t.kind.autodiff_inner() : t.kind;
  return visit_backend<DispatchTensor>(k, [&]<class B>(const BackendTensor<B>& bt) -> DispatchTensor {
    if (!v.tracked) return wrap_plain<B, R>([&] { return f.template operator()<B>(primitive_of<B>(bt, Operand)); });
    if constexpr (Operand == PrimitiveKind::Float) {
      return wrap_tracked<B, R>([&] { return f.template operator()<Autodiff<B>>(std::get<AutodiffTensor<B>>(bt.value)); },
                                t.checkpointing);
    } else {
      return wrap_tracked<B, R>([&] { return f.template operator()<Autodiff<B>>(primitive_of<B>(bt, Operand)); },
                                t.checkpointing);
    }
  });
}

// Every pair zip_op's fast path does not take: the checks (and their panics) in their order, then
// the tracked call. Two plain tensors of the Operand kind that pass the checks are one backend's
// plain pair, which the fast path always takes, so here they are an engine bug. On an autodiff
// device a float pair is two AutodiffTensors; an int or bool pair is two of B's primitives.
template <PrimitiveKind Operand, PrimitiveKind R, class F>
DispatchTensor zip_op_checked(std::string_view op, const DispatchTensor& a, const DispatchTensor& b, F& f) {
  const FloatView va = receiver_view<Operand>(op, a);
  const FloatView vb = receiver_view<Operand>(op, b);
  check_same_backend(op, a, va, b, vb);
  if (!va.tracked) panic(PanicId::Unreachable);
  const DispatchTensorKind& kb = b.kind.autodiff_inner();
  return visit_backend<DispatchTensor>(a.kind.autodiff_inner(), [&]<class B>(const BackendTensor<B>& ta) -> DispatchTensor {
    const BackendTensor<B>& tb = std::get<BackendTensor<B>>(kb.value);
    if constexpr (Operand == PrimitiveKind::Float) {
      return wrap_tracked<B, R>([&] { return f.template operator()<Autodiff<B>>(std::get<AutodiffTensor<B>>(ta.value),
                                                                                std::get<AutodiffTensor<B>>(tb.value)); },
                                a.checkpointing);
    } else {
      return wrap_tracked<B, R>([&] { return f.template operator()<Autodiff<B>>(primitive_of<B>(ta, Operand),
                                                                                primitive_of<B>(tb, Operand)); },
                                a.checkpointing);
    }
  });
}

// Note [The plain binary fast path]
// Two plain float tensors of one backend are the common case (every op of an untracked graph),
// and for them the general resolution's two views, backend check and second visit cost about as
// much as a one-element kernel's own bookkeeping (docs/DISPATCH_COST.md). Here one visit of the
// lhs kind and three index tests recognise that case and call the backend; anything else, every
// panic included, goes through zip_op_checked.
template <PrimitiveKind Operand, PrimitiveKind R, class F>
DispatchTensor zip_op(std::string_view op, const DispatchTensor& a, const DispatchTensor& b, F&& f) {
  return std::visit(Overloaded{[&](const AutodiffKind&) { return zip_op_checked<Operand, R>(op, a, b, f); },
                               [&]<class B>(const BackendTensor<B>& ta) -> DispatchTensor {
                                 using P = primitive_variant<B, Operand>;
                                 const auto* tb = std::get_if<BackendTensor<B>>(&b.kind.value);
                                 const auto* pa = std::get_if<P>(&ta.value);
                                 const auto* pb = tb ? std::get_if<P>(&tb->value) : nullptr;
                                 if (pa == nullptr || pb == nullptr) return zip_op_checked<Operand, R>(op, a, b, f);
                                 return wrap_plain<B, R>([&] { return f.template operator()<B>(pa->tensor, pb->tensor); });
                               }},
                    a.kind.value);
}

// A receiver of kind Operand (Float, or Int / Bool for the layout ops of those kinds), an Int index
// tensor (or, for the masked ops, a Bool mask) and (ASSIGN, MASKED) a values tensor of the
// receiver's kind, all of one backend and tracked alike. f gets (x, indices) or (x, indices,
// values); indices and masks are always B's primitive, and so is x when it is not a float.
template <bool WithValues, PrimitiveKind IndexKind = PrimitiveKind::Int, PrimitiveKind Operand = PrimitiveKind::Float, class F>
DispatchTensor indexed_op(std::string_view op, const DispatchTensor& t, const DispatchTensor& indices,
                          const DispatchTensor* values, F&& f) {
  const FloatView vt = receiver_view<Operand>(op, t);
  const std::optional<FloatView> vi = primitive_view(indices.kind, IndexKind);
  if (!vi) kind_mismatch(op, primitive_kind_name(IndexKind), indices.kind);
  check_same_backend(op, t, vt, indices, *vi);
  std::optional<FloatView> vv;
  if (values != nullptr) {
    vv = receiver_view<Operand>(op, *values);
    check_same_backend(op, t, vt, *values, *vv);
  }
  const auto inner = [](const DispatchTensor& x, bool tracked) -> const DispatchTensorKind& {
    return tracked ? x.kind.autodiff_inner() : x.kind;
  };
  return visit_backend<DispatchTensor>(inner(t, vt.tracked), [&]<class B>(const BackendTensor<B>& bt) -> DispatchTensor {
    using IndexPrimitive = std::variant_alternative_t<static_cast<std::size_t>(IndexKind), typename BackendTensor<B>::Variant>;
    const typename B::Tensor& idx = std::get<IndexPrimitive>(std::get<BackendTensor<B>>(inner(indices, vt.tracked).value).value).tensor;
    const BackendTensor<B>* bv = values ? &std::get<BackendTensor<B>>(inner(*values, vt.tracked).value) : nullptr;
    if constexpr (Operand != PrimitiveKind::Float) {
      // An int or bool receiver: B's op on the primitives, tracked or not (no graph).
      const auto call = [&]<class Be>() {
        if constexpr (WithValues) {
          return f.template operator()<Be>(primitive_of<B>(bt, Operand), idx, primitive_of<B>(*bv, Operand));
        } else {
          return f.template operator()<Be>(primitive_of<B>(bt, Operand), idx);
        }
      };
      if (vt.tracked) return wrap_tracked<B, Operand>([&] { return call.template operator()<Autodiff<B>>(); }, t.checkpointing);
      return wrap_plain<B, Operand>([&] { return call.template operator()<B>(); });
    } else {
      if (vt.tracked) {
        const AutodiffTensor<B>& x = std::get<AutodiffTensor<B>>(bt.value);
        if constexpr (WithValues) {
          return tracked<B>(f.template operator()<Autodiff<B>>(x, idx, std::get<AutodiffTensor<B>>(bv->value)), t.checkpointing);
        } else {
          return tracked<B>(f.template operator()<Autodiff<B>>(x, idx), t.checkpointing);
        }
      }
      const typename B::Tensor& x = std::get<FloatPrimitive<B>>(bt.value).tensor;
      if constexpr (WithValues) {
        return plain<B>(f.template operator()<B>(x, idx, std::get<FloatPrimitive<B>>(bv->value).tensor));
      } else {
        return plain<B>(f.template operator()<B>(x, idx));
      }
    }
  });
}

// A list of tensors of kind Operand, all on the first one's backend and tracked alike; cat-empty
// for none. Int and bool pieces are B's primitives on an autodiff device too.
template <PrimitiveKind Operand = PrimitiveKind::Float, class F>
DispatchTensor list_op(std::string_view op, const std::vector<DispatchTensor>& ts, F&& f) {
  if (ts.empty()) panic(PanicId::CatEmpty, {{"op", std::string(op)}});
  const FloatView v0 = receiver_view<Operand>(op, ts.front());
  for (const DispatchTensor& t : ts) check_same_backend(op, ts.front(), v0, t, receiver_view<Operand>(op, t));
  const auto inner = [&](const DispatchTensor& x) -> const DispatchTensorKind& {
    return v0.tracked ? x.kind.autodiff_inner() : x.kind;
  };
  return visit_backend<DispatchTensor>(inner(ts.front()), [&]<class B>(const BackendTensor<B>&) -> DispatchTensor {
    if constexpr (Operand != PrimitiveKind::Float) {
      std::vector<typename B::Tensor> xs;
      for (const DispatchTensor& t : ts) xs.push_back(primitive_of<B>(std::get<BackendTensor<B>>(inner(t).value), Operand));
      if (v0.tracked) return wrap_tracked<B, Operand>([&] { return f.template operator()<Autodiff<B>>(xs); }, ts.front().checkpointing);
      return wrap_plain<B, Operand>([&] { return f.template operator()<B>(xs); });
    } else {
      if (v0.tracked) {
        std::vector<AutodiffTensor<B>> xs;
        for (const DispatchTensor& t : ts) xs.push_back(std::get<AutodiffTensor<B>>(std::get<BackendTensor<B>>(inner(t).value).value));
        return tracked<B>(f.template operator()<Autodiff<B>>(xs), ts.front().checkpointing);
      }
      std::vector<typename B::Tensor> xs;
      for (const DispatchTensor& t : ts) xs.push_back(std::get<FloatPrimitive<B>>(std::get<BackendTensor<B>>(inner(t).value).value).tensor);
      return plain<B>(f.template operator()<B>(xs));
    }
  });
}

// Two float tensors and an optional third (linear's x, weight and bias), all of one backend and
// tracked alike. f gets (x, w, b) with b a std::optional of the layer's tensor: B's primitives, or
// AutodiffTensor<B> on an autodiff device.
template <class F>
DispatchTensor zip_optional_op(std::string_view op, const DispatchTensor& t, const DispatchTensor& w,
                               const std::optional<DispatchTensor>& b, F&& f) {
  const FloatView vt = receiver_view<PrimitiveKind::Float>(op, t);
  check_same_backend(op, t, vt, w, receiver_view<PrimitiveKind::Float>(op, w));
  if (b) check_same_backend(op, t, vt, *b, receiver_view<PrimitiveKind::Float>(op, *b));
  const auto inner = [&](const DispatchTensor& x) -> const DispatchTensorKind& {
    return vt.tracked ? x.kind.autodiff_inner() : x.kind;
  };
  return visit_backend<DispatchTensor>(inner(t), [&]<class B>(const BackendTensor<B>& bt) -> DispatchTensor {
    const BackendTensor<B>& bw = std::get<BackendTensor<B>>(inner(w).value);
    const BackendTensor<B>* bb = b ? &std::get<BackendTensor<B>>(inner(*b).value) : nullptr;
    if (vt.tracked) {
      std::optional<AutodiffTensor<B>> bias;
      if (bb != nullptr) bias = std::get<AutodiffTensor<B>>(bb->value);
      return tracked<B>(f.template operator()<Autodiff<B>>(std::get<AutodiffTensor<B>>(bt.value),
                                                            std::get<AutodiffTensor<B>>(bw.value), bias),
                        t.checkpointing);
    }
    std::optional<typename B::Tensor> bias;
    if (bb != nullptr) bias = std::get<FloatPrimitive<B>>(bb->value).tensor;
    return plain<B>(f.template operator()<B>(std::get<FloatPrimitive<B>>(bt.value).tensor,
                                             std::get<FloatPrimitive<B>>(bw.value).tensor, bias));
  });
}

// Three float tensors of one backend, tracked alike (conv2d_x_backward's x, weight and gradient):
// zip_optional_op with the third always present.
template <class F>
DispatchTensor zip3_op(std::string_view op, const DispatchTensor& a, const DispatchTensor& b, const DispatchTensor& c, F&& f) {
  return zip_optional_op(op, a, b, std::optional<DispatchTensor>(c),
                         [&]<class Be>(const auto& x, const auto& y, const auto& z) { return f.template operator()<Be>(x, y, *z); });
}

// Five float tensors of one backend, tracked alike (batch_norm's x, weight, bias, mean and
// variance). f gets them as B's primitives, or AutodiffTensor<B> on an autodiff device.
template <class F>
DispatchTensor zip5_op(std::string_view op, const DispatchTensor& a, const DispatchTensor& b, const DispatchTensor& c,
                       const DispatchTensor& d, const DispatchTensor& e, F&& f) {
  const FloatView va = receiver_view<PrimitiveKind::Float>(op, a);
  for (const DispatchTensor* t : {&b, &c, &d, &e}) check_same_backend(op, a, va, *t, receiver_view<PrimitiveKind::Float>(op, *t));
  const auto inner = [&](const DispatchTensor& x) -> const DispatchTensorKind& {
    return va.tracked ? x.kind.autodiff_inner() : x.kind;
  };
  return visit_backend<DispatchTensor>(inner(a), [&]<class B>(const BackendTensor<B>& ba) -> DispatchTensor {
    const auto of = [&](const DispatchTensor& x) -> const BackendTensor<B>& { return std::get<BackendTensor<B>>(inner(x).value); };
    if (va.tracked) {
      const auto t = [&](const BackendTensor<B>& x) -> const AutodiffTensor<B>& { return std::get<AutodiffTensor<B>>(x.value); };
      return tracked<B>(f.template operator()<Autodiff<B>>(t(ba), t(of(b)), t(of(c)), t(of(d)), t(of(e))), a.checkpointing);
    }
    const auto p = [&](const BackendTensor<B>& x) -> const typename B::Tensor& { return std::get<FloatPrimitive<B>>(x.value).tensor; };
    return plain<B>(f.template operator()<B>(p(ba), p(of(b)), p(of(c)), p(of(d)), p(of(e))));
  });
}

// attention's operands: query, key, value and the optional bias, float tensors of one backend
// tracked alike, and the optional Bool mask of that backend (B's primitive on an autodiff device
// too, as indexed_op's masks). f gets (q, k, v, mask, bias) with mask a std::optional of B's
// tensor and bias one of the layer's.
template <class F>
DispatchTensor attention_op(std::string_view op, const DispatchTensor& q, const DispatchTensor& k, const DispatchTensor& v,
                            const std::optional<DispatchTensor>& mask, const std::optional<DispatchTensor>& bias, F&& f) {
  const FloatView vq = receiver_view<PrimitiveKind::Float>(op, q);
  check_same_backend(op, q, vq, k, receiver_view<PrimitiveKind::Float>(op, k));
  check_same_backend(op, q, vq, v, receiver_view<PrimitiveKind::Float>(op, v));
  if (mask) {
    const std::optional<FloatView> vm = primitive_view(mask->kind, PrimitiveKind::Bool);
    if (!vm) kind_mismatch(op, primitive_kind_name(PrimitiveKind::Bool), mask->kind);
    check_same_backend(op, q, vq, *mask, *vm);
  }
  if (bias) check_same_backend(op, q, vq, *bias, receiver_view<PrimitiveKind::Float>(op, *bias));
  const auto inner = [&](const DispatchTensor& x) -> const DispatchTensorKind& {
    return vq.tracked ? x.kind.autodiff_inner() : x.kind;
  };
  return visit_backend<DispatchTensor>(inner(q), [&]<class B>(const BackendTensor<B>& bq) -> DispatchTensor {
    const BackendTensor<B>& bk = std::get<BackendTensor<B>>(inner(k).value);
    const BackendTensor<B>& bv = std::get<BackendTensor<B>>(inner(v).value);
    std::optional<typename B::Tensor> m;
    if (mask) m = primitive_of<B>(std::get<BackendTensor<B>>(inner(*mask).value), PrimitiveKind::Bool);
    if (vq.tracked) {
      std::optional<AutodiffTensor<B>> b;
      if (bias) b = std::get<AutodiffTensor<B>>(std::get<BackendTensor<B>>(inner(*bias).value).value);
      return tracked<B>(f.template operator()<Autodiff<B>>(std::get<AutodiffTensor<B>>(bq.value), std::get<AutodiffTensor<B>>(bk.value),
                                                            std::get<AutodiffTensor<B>>(bv.value), m, b),
                        q.checkpointing);
    }
    std::optional<typename B::Tensor> b;
    if (bias) b = std::get<FloatPrimitive<B>>(std::get<BackendTensor<B>>(inner(*bias).value).value).tensor;
    return plain<B>(f.template operator()<B>(std::get<FloatPrimitive<B>>(bq.value).tensor, std::get<FloatPrimitive<B>>(bk.value).tensor,
                                             std::get<FloatPrimitive<B>>(bv.value).tensor, m, b));
  });
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
