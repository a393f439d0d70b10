#pragma once
// Registry-indexed helpers for targets: no backend is named here. Indices are registry indices
// (Note [Registry indices do not depend on the build]); a target calls these only for backends its
// scenario was found applicable on (skip_unless_applicable), so every index here is built.
#include <crossgrad/crossgrad.hpp>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>

namespace crossgrad::fuzz {

// Every backend the engine knows, built or not.
inline std::size_t backend_count() { return kKnownBackendCount; }

// DispatchDevice::of<B>(device) for the backend at registry index `backend`; throws when that
// backend is not built here.
inline DispatchDevice backend_device(std::size_t backend, std::optional<Device> device = std::nullopt) {
  std::optional<DispatchDevice> out;
  with_backend_at(backend, [&]<class B>() { out = DispatchDevice::of<B>(device ? *device : B::default_device()); });
  if (!out) throw std::logic_error("fuzz: backend " + std::to_string(backend) + " is not built here");
  return *out;
}

inline std::string backend_name(std::size_t backend) { return std::string(kKnownBackends[backend].name); }
// Asks only that backend: registered_backends() builds every backend's record, with its reasons as
// strings and LibTorch's plugin lookup (a stat), about 60 allocations a call in the gcc build, and
// tensor_data_fuzzer asks once per backend per input.
inline bool backend_available(std::size_t backend) {
  bool available = false;
  with_backend_at(backend, [&]<class B>() { available = B::is_available(); });
  return available;
}
inline bool backend_is_cpu_only(std::size_t backend) {
  return kKnownBackends[backend].device_kind == Device::Kind::Cpu;
}

}  // namespace crossgrad::fuzz
