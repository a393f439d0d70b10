#pragma once
// Note [The backend registry]
// The one list of backends. Everything that must know every backend — DispatchTensorKind's
// alternatives and constructors, DispatchDevice, debug names, Gradients' entry type, the dispatch
// arms, the harness's generators and the benchmarks — is expanded from CROSSGRAD_BACKENDS, in this
// order (CONTRACT section 1). Adding a backend is one X(...) line here plus its header and kernels,
// one line of CROSSGRAD_KNOWN_BACKENDS below and its Autodiff<B> instantiation
// (engine/src/autodiff/instantiate_<backend>.cpp; without it the link fails).
//
// Note [Registry indices do not depend on the build]
// CROSSGRAD_BACKENDS lists the backends *built* here (Cuda only with CROSSGRAD_WITH_CUDA, Remote
// only with CROSSGRAD_WITH_REMOTE, LibTorch only with CROSSGRAD_WITH_LIBTORCH); the types are expanded from it. CROSSGRAD_KNOWN_BACKENDS lists every backend the engine knows, built
// or not, with the kind of device it runs on, in the same CONTRACT order. A registry index is a
// position in the known list, so index 2 is Cuda in a CPU-only build too (not built, unavailable
// "not built with CUDA"), and a stored index — a fuzz corpus byte, a property counterexample —
// names the same backend in every build and on every machine; likewise index 3 is Remote (not built:
// "not built with gRPC") and index 4 LibTorch (not built: "not built with LibTorch"). Backends are only ever appended, so existing indices keep their meaning.
#include <crossgrad/config.hpp>
#include <crossgrad/backends/flex.hpp>
#include <crossgrad/backends/ndarray.hpp>
#if CROSSGRAD_WITH_CUDA
#include <crossgrad/backends/cuda.hpp>
#define CROSSGRAD_CUDA_ENTRY(X) X(Cuda)
#else
#define CROSSGRAD_CUDA_ENTRY(X)
#endif
#if CROSSGRAD_WITH_REMOTE
#include <crossgrad/backends/remote.hpp>
#define CROSSGRAD_REMOTE_ENTRY(X) X(Remote)
#else
#define CROSSGRAD_REMOTE_ENTRY(X)
#endif
#if CROSSGRAD_WITH_LIBTORCH
#include <crossgrad/backends/libtorch.hpp>
#define CROSSGRAD_LIBTORCH_ENTRY(X) X(LibTorch)
#else
#define CROSSGRAD_LIBTORCH_ENTRY(X)
#endif

#include <crossgrad/core/device.hpp>

#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>
#include <tuple>
#include <variant>
#include <vector>

// X(Name): Name is both the backend struct in crossgrad::backends and its debug name.
#define CROSSGRAD_BACKENDS(X) \
  X(NdArray)                  \
  X(Flex)                     \
  CROSSGRAD_CUDA_ENTRY(X)     \
  CROSSGRAD_REMOTE_ENTRY(X)     \
  CROSSGRAD_LIBTORCH_ENTRY(X)

// X(Name, DeviceKind): every backend the engine knows, built or not (Note [Registry indices do not
// depend on the build]). DeviceKind Cpu: the one host device; Cuda: indexed GPUs; Remote: indexed
// servers (the configured endpoints).
#define CROSSGRAD_KNOWN_BACKENDS(X) \
  X(NdArray, Cpu)                   \
  X(Flex, Cpu)                      \
  X(Cuda, Cuda)                     \
  X(Remote, Remote)                 \
  X(LibTorch, Cpu)

namespace crossgrad {

struct KnownBackend {
  std::string_view name;
  Device::Kind device_kind;
};
#define CROSSGRAD_X(Name, DeviceKind) KnownBackend{#Name, Device::Kind::DeviceKind},
inline constexpr KnownBackend kKnownBackends[] = {CROSSGRAD_KNOWN_BACKENDS(CROSSGRAD_X)};
#undef CROSSGRAD_X
inline constexpr std::size_t kKnownBackendCount = std::size(kKnownBackends);

// The registry index of a built backend B (its position in the known list).
template <class B>
consteval std::size_t registry_index_of() {
  for (std::size_t i = 0; i < kKnownBackendCount; ++i) {
    if (kKnownBackends[i].name == B::name) return i;
  }
  throw "backend missing from CROSSGRAD_KNOWN_BACKENDS";  // consteval: a compile error
}

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

// Calls f.template operator()<B>() for the backend B at registry index `index` and returns true;
// returns false without calling f when that backend is not built here (Note [Registry indices do
// not depend on the build]).
template <class F>
bool with_backend_at(std::size_t index, F&& f) {
  bool found = false;
  for_each_backend([&]<class B>() {
    if (registry_index_of<B>() != index) return;
    f.template operator()<B>();
    found = true;
  });
  return found;
}

// Runtime view of the registry for tools, generators and reports.
struct BackendInfo {
  std::size_t index = 0;  // registry index: position in CROSSGRAD_KNOWN_BACKENDS
  std::string_view name;
  Device::Kind device_kind = Device::Kind::Cpu;  // Cuda, Remote: devices are indexed 0..device_count-1
  bool built = false;                            // compiled into this build
  bool available = false;                        // built and with a usable device here
  std::string unavailable_reason;                // empty when available; "not built with CUDA", "not built with gRPC", ...
  std::size_t device_count = 0;                  // usable devices here (0 when unavailable)
};
// Every known backend, built or not, in registry order (its size does not depend on the build).
std::vector<BackendInfo> registered_backends();
// The names of the backends with a device here, in registry order.
std::vector<std::string_view> available_backends();

}  // namespace crossgrad
