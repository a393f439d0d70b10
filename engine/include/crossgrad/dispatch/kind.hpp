#pragma once
// The runtime tensor of the dispatch layer (mirrors Burn's burn-dispatch, CONTRACT section 2).
// Every constructor is public, malformed shapes included: the harness builds them on purpose.
#include <crossgrad/autodiff/autodiff.hpp>
#include <crossgrad/backends/registry.hpp>
#include <crossgrad/dispatch/variant_order.hpp>

#include <memory>
#include <optional>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <variant>

namespace crossgrad {

template <class B> struct FloatPrimitive { typename B::Tensor tensor; };
template <class B> struct IntPrimitive { typename B::Tensor tensor; };
template <class B> struct BoolPrimitive { typename B::Tensor tensor; };
template <class B> struct QuantizedPrimitive { typename B::Quantized tensor; };

enum class PrimitiveKind { Float, Int, Bool, Quantized, Autodiff };
std::string_view primitive_kind_name(PrimitiveKind kind);  // "Float", ...

// One primitive of backend B: Float | Int | Bool | Quantized | Autodiff (CONTRACT section 2).
template <class B>
struct BackendTensor {
  using Variant = std::variant<FloatPrimitive<B>, IntPrimitive<B>, BoolPrimitive<B>,
                               QuantizedPrimitive<B>, AutodiffTensor<B>>;
  Variant value;

  // primitive_kind() casts the variant index to PrimitiveKind: the alternatives must stay in
  // PrimitiveKind's order, one per enumerator.
  static_assert(std::variant_size_v<Variant> == static_cast<std::size_t>(PrimitiveKind::Autodiff) + 1);
  static_assert(std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(PrimitiveKind::Float), Variant>, FloatPrimitive<B>>);
  static_assert(std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(PrimitiveKind::Int), Variant>, IntPrimitive<B>>);
  static_assert(std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(PrimitiveKind::Bool), Variant>, BoolPrimitive<B>>);
  static_assert(std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(PrimitiveKind::Quantized), Variant>, QuantizedPrimitive<B>>);
  static_assert(std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(PrimitiveKind::Autodiff), Variant>, AutodiffTensor<B>>);

  static BackendTensor Float(typename B::Tensor t) { return {FloatPrimitive<B>{std::move(t)}}; }
  static BackendTensor Int(typename B::Tensor t) { return {IntPrimitive<B>{std::move(t)}}; }
  static BackendTensor Bool(typename B::Tensor t) { return {BoolPrimitive<B>{std::move(t)}}; }
  static BackendTensor Quantized(typename B::Quantized t) { return {QuantizedPrimitive<B>{std::move(t)}}; }
  static BackendTensor Autodiff(AutodiffTensor<B> t) { return {std::move(t)}; }

  PrimitiveKind primitive_kind() const { return static_cast<PrimitiveKind>(value.index()); }
};

class DispatchTensorKind;
// Autodiff(kind), boxed. Kinds are immutable, so the box is shared.
struct AutodiffKind {
  std::shared_ptr<const DispatchTensorKind> inner;
};

template <class... Bs>
using KindVariantOf = std::variant<BackendTensor<Bs>..., AutodiffKind>;

class DispatchTensorKind {
 public:
  using Variant = AllBackends::apply<KindVariantOf>;
  Variant value;

  // NdArray(...), Flex(...), Cuda(...): one constructor per registered backend.
#define CROSSGRAD_X(Name) \
  static DispatchTensorKind Name(BackendTensor<backends::Name> t) { return {Variant{std::move(t)}}; }
  CROSSGRAD_BACKENDS(CROSSGRAD_X)
#undef CROSSGRAD_X
  static DispatchTensorKind Autodiff(DispatchTensorKind inner) {
    return {Variant{AutodiffKind{std::make_shared<const DispatchTensorKind>(std::move(inner))}}};
  }

  bool is_autodiff() const { return std::holds_alternative<AutodiffKind>(value); }
  // The kind inside Autodiff(...); only when is_autodiff().
  const DispatchTensorKind& autodiff_inner() const { return *std::get<AutodiffKind>(value).inner; }
  // The backend's name for a backend kind; "Autodiff" for an autodiff kind.
  std::string_view backend_name() const;
};
// A kind's variant index names its backend (Note [Variant indices are registry positions]).
static_assert(lists_backends_in_registry_order<DispatchTensorKind::Variant, BackendTensor, AutodiffKind>());

enum class CheckpointingStrategy { Disabled, Balanced };

// A runtime tensor: its kind plus, for tracked tensors, a checkpointing strategy. The strategy
// never affects grad_replace (CONTRACT section 2).
struct DispatchTensor {
  DispatchTensorKind kind;
  // Absent unless given. Spelled out (rather than left to value-initialisation) because GCC then
  // builds a DispatchTensor{kind} without first clearing all of it (Note [Results built in place]).
  std::optional<CheckpointingStrategy> checkpointing = std::nullopt;
};

}  // namespace crossgrad
