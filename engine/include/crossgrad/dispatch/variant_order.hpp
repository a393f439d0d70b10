#pragma once
// Note [Variant indices are registry positions]
// DispatchTensorKind and DispatchDevice are variants expanded from the backend registry:
// Alt<B0>, ..., Alt<Bn-1>, Autodiff. Code compares the index of one with the index of the other
// (data_api.cpp: a tracked tensor may move only to a device of its own backend), and FloatView
// keeps a kind's index as "its backend". That is only sound while both variants list exactly the
// registry's built backends, in CROSSGRAD_BACKENDS order, with the Autodiff alternative last;
// lists_backends_in_registry_order checks it at compile time, one backend index at a time.
#include <crossgrad/backends/registry.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>
#include <variant>

namespace crossgrad {

template <class Variant, template <class> class Alt, class Last>
consteval bool lists_backends_in_registry_order() {
  return []<class... Bs>(BackendList<Bs...>) {
    if constexpr (std::variant_size_v<Variant> != sizeof...(Bs) + 1) {
      return false;
    } else {
      return []<std::size_t... I>(std::index_sequence<I...>) {
        return (std::is_same_v<std::variant_alternative_t<I, Variant>, Alt<Bs>> && ...) &&
               std::is_same_v<std::variant_alternative_t<sizeof...(Bs), Variant>, Last>;
      }(std::index_sequence_for<Bs...>{});
    }
  }(AllBackends{});
}

}  // namespace crossgrad
