#include <crossgrad/backends/registry.hpp>

namespace crossgrad {
namespace {

// Why a known backend is absent from this build (Note [Registry indices do not depend on the build]).
std::string not_built_reason(std::string_view name) {
  if (name == "Cuda") return "not built with CUDA";
  if (name == "Remote") return "not built with gRPC";
  if (name == "LibTorch") return "not built with LibTorch";
  return "not built";
}

}  // namespace

std::vector<BackendInfo> registered_backends() {
  std::vector<BackendInfo> out;
  for (std::size_t i = 0; i < kKnownBackendCount; ++i) {
    BackendInfo info;
    info.index = i;
    info.name = kKnownBackends[i].name;
    info.device_kind = kKnownBackends[i].device_kind;
    info.unavailable_reason = not_built_reason(info.name);
    out.push_back(std::move(info));
  }
  for_each_backend([&]<class B>() {
    BackendInfo& info = out[registry_index_of<B>()];
    info.built = true;
    info.available = B::is_available();
    info.unavailable_reason = info.available ? std::string() : B::unavailable_reason();
    if constexpr (requires { B::device_count(); }) {
      info.device_count = info.available ? static_cast<std::size_t>(B::device_count()) : 0;
    } else {
      info.device_count = info.available ? 1 : 0;
    }
  });
  return out;
}

std::vector<std::string_view> available_backends() {
  std::vector<std::string_view> out;
  for (const BackendInfo& info : registered_backends()) {
    if (info.available) out.push_back(info.name);
  }
  return out;
}

}  // namespace crossgrad
