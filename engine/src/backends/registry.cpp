#include <crossgrad/backends/registry.hpp>

namespace crossgrad {

std::vector<BackendInfo> registered_backends() {
  std::vector<BackendInfo> out;
  for_each_backend([&]<class B>() {
    const bool available = B::is_available();
    out.push_back(BackendInfo{B::name, available, available ? std::string() : B::unavailable_reason()});
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
