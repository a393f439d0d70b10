#pragma once
// NdArray: the reference CPU backend. Plain, obviously correct loops in F64-or-F32 arithmetic;
// it is the oracle every other backend is compared with, so it is never optimised.
#include <crossgrad/backends/backend_ops.hpp>
#include <crossgrad/backends/host_tensor.hpp>
#include <crossgrad/backends/quantized.hpp>

#include <string>
#include <string_view>

namespace crossgrad::backends {

struct NdArrayTensor : HostTensor {};

struct NdArray {
  static constexpr std::string_view name = "NdArray";
  using Tensor = NdArrayTensor;
  using Quantized = QuantizedTensor<NdArrayTensor>;
  static Device default_device() { return Device::cpu(); }
  static bool is_available() { return true; }
  static std::string unavailable_reason() { return {}; }
  CROSSGRAD_DECLARE_BACKEND_OPS(Tensor, Quantized)
};

}  // namespace crossgrad::backends
