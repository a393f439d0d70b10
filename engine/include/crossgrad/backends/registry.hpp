#pragma once
// Note [The backend registry]
// The one list of backends. Everything that must know every backend — DispatchTensorKind's
// alternatives and constructors, DispatchDevice, debug names, Gradients' entry type, the dispatch
// arms, the harness's generators and the benchmarks — is expanded from CROSSGRAD_BACKENDS, in this
// order (CONTRACT section 1). Adding a backend is one X(...) line here plus its header and kernels.
#include <crossgrad/config.hpp>
#include <crossgrad/backends/flex.hpp>
#include <crossgrad/backends/ndarray.hpp>
#if CROSSGRAD_WITH_CUDA
#include <crossgrad/backends/cuda.hpp>
#define CROSSGRAD_CUDA_ENTRY(X) X(Cuda)
#else
#define CROSSGRAD_CUDA_ENTRY(X)
#endif

#include <string>
#include <string_view>
#include <tuple>
#include <variant>
#include <vector>

// X(Name): Name is both the backend struct in crossgrad::backends and its debug name.
#define CROSSGRAD_BACKENDS(X) \
  X(NdArray)                  \
  X(Flex)                     \
  CROSSGRAD_CUDA_ENTRY(X)

namespace crossgrad {

template <class... Bs>
struct BackendList {
  template <template <class...> class F>
  using apply = F<Bs...>;
  static constexpr std::size_t size = sizeof...(Bs);
};

// Comma-safe expansion: each entry contributes ", backends::Name" after a leading void.
template <class, class... Bs>
struct DropFirst {
  using type = BackendList<Bs...>;
};
#define CROSSGRAD_X(Name) , backends::Name
using AllBackends = DropFirst<void CROSSGRAD_BACKENDS(CROSSGRAD_X)>::type;
#undef CROSSGRAD_X

// One float primitive of any registered backend (the entry type of Gradients).
template <class... Bs>
using AnyTensorOf = std::variant<typename Bs::Tensor...>;
using AnyTensor = AllBackends::apply<AnyTensorOf>;

// Calls f.template operator()<B>() for each backend B, in registry order.
template <class F>
void for_each_backend(F&& f) {
#define CROSSGRAD_X(Name) f.template operator()<backends::Name>();
  CROSSGRAD_BACKENDS(CROSSGRAD_X)
#undef CROSSGRAD_X
}

// Runtime view of the registry for tools, generators and reports.
struct BackendInfo {
  std::string_view name;
  bool available;
  std::string unavailable_reason;  // empty when available
};
std::vector<BackendInfo> registered_backends();
// The names of the backends with a device here, in registry order.
std::vector<std::string_view> available_backends();

}  // namespace crossgrad
