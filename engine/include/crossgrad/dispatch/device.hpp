#pragma once
#include <crossgrad/backends/registry.hpp>
#include <crossgrad/dispatch/variant_order.hpp>

#include <memory>
#include <string>
#include <variant>

namespace crossgrad {

template <class B>
struct BackendDevice {
  Device device;
  friend bool operator==(const BackendDevice&, const BackendDevice&) = default;
};

class DispatchDevice;
struct AutodiffDevice {
  std::shared_ptr<const DispatchDevice> inner;
};

template <class... Bs>
using DeviceVariantOf = std::variant<BackendDevice<Bs>..., AutodiffDevice>;

// Where a tensor is created: a backend's device, or Autodiff(backend device).
class DispatchDevice {
 public:
  using Variant = AllBackends::apply<DeviceVariantOf>;
  Variant value;

  static DispatchDevice NdArray() { return {BackendDevice<backends::NdArray>{Device::cpu()}}; }
  static DispatchDevice Flex() { return {BackendDevice<backends::Flex>{Device::cpu()}}; }
#if CROSSGRAD_WITH_CUDA
  static DispatchDevice Cuda(int index = 0) { return {BackendDevice<backends::Cuda>{Device::cuda(index)}}; }
#endif
#if CROSSGRAD_WITH_REMOTE
  // The server at position `index` of the configured endpoints (crossgrad/backends/remote_config.hpp).
  static DispatchDevice Remote(int index = 0) { return {BackendDevice<backends::Remote>{Device::remote(index)}}; }
#endif
#if CROSSGRAD_WITH_LIBTORCH
  // PyTorch's ATen on the CPU (crossgrad/backends/libtorch.hpp).
  static DispatchDevice LibTorch() { return {BackendDevice<backends::LibTorch>{Device::cpu()}}; }
#endif
  template <class B>
  static DispatchDevice of(Device device) { return {BackendDevice<B>{device}}; }
  static DispatchDevice Autodiff(DispatchDevice inner) {
    return {AutodiffDevice{std::make_shared<const DispatchDevice>(std::move(inner))}};
  }
  // "Flex(Cpu)", "Autodiff(Cuda(Cuda(0)))", "Remote(Remote(1))": for messages and test names.
  std::string to_string() const;
  friend bool operator==(const DispatchDevice& a, const DispatchDevice& b);
};
// A device's variant index names its backend (Note [Variant indices are registry positions]).
static_assert(lists_backends_in_registry_order<DispatchDevice::Variant, BackendDevice, AutodiffDevice>());

}  // namespace crossgrad
