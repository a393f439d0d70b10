#pragma once
// Registry-indexed helpers for targets: no backend is named here.
#include <crossgrad/crossgrad.hpp>
#include <cstddef>
#include <optional>
#include <string>

namespace crossgrad::fuzz {

inline std::size_t backend_count() { return AllBackends::size; }

// DispatchDevice::of<B>(device) for the backend at registry index `backend`.
inline DispatchDevice backend_device(std::size_t backend, std::optional<Device> device = std::nullopt) {
  std::optional<DispatchDevice> out;
  std::size_t i = 0;
  for_each_backend([&]<class B>() {
    if (i++ == backend) out = DispatchDevice::of<B>(device ? *device : B::default_device());
  });
  return *out;
}

inline std::string backend_name(std::size_t backend) { return std::string(registered_backends().at(backend).name); }
inline bool backend_available(std::size_t backend) { return registered_backends().at(backend).available; }
inline bool backend_is_cpu_only(std::size_t backend) {
  bool cpu = false;
  std::size_t i = 0;
  for_each_backend([&]<class B>() {
    if (i++ == backend) cpu = B::default_device() == Device::cpu();
  });
  return cpu;
}

}  // namespace crossgrad::fuzz
