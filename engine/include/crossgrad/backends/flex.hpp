#pragma once
// Flex: the optimised CPU backend and the default. Independent of NdArray's kernels; checked
// against them by the property suite and the differential fuzzer.
#include <crossgrad/backends/backend_ops.hpp>
#include <crossgrad/backends/host_tensor.hpp>
#include <crossgrad/backends/quantized.hpp>

#include <string>
#include <string_view>

namespace crossgrad::backends {

struct FlexTensor : HostTensor {};

struct Flex {
  static constexpr std::string_view name = "Flex";
  using Tensor = FlexTensor;
  using Quantized = QuantizedTensor<FlexTensor>;
  static Device default_device() { return Device::cpu(); }
  static bool is_available() { return true; }
  static std::string unavailable_reason() { return {}; }
  CROSSGRAD_DECLARE_BACKEND_OPS(Tensor, Quantized)
};

}  // namespace crossgrad::backends
