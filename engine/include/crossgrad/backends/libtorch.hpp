#pragma once
// LibTorch: PyTorch's ATen on the CPU, as crossgrad's fifth backend. The engine never links torch:
// every op checks the contract here with the shared rules (core/shape_rules.hpp, the same panics in
// the same order as NdArray) and then calls the ATen plugin (libcrossgrad_aten.so), which the
// engine loads on the first LibTorch op (Note [The LibTorch plugin's ABI] in
// engine/src/backends/libtorch/aten_abi.h). Results follow crossgrad's semantics, not PyTorch's,
// where the two differ (docs/OPS.md, section "LibTorch"). Autodiff<LibTorch> is the generic
// decorator: crossgrad's backward rules over these ops, never torch's autograd. Present only when
// built with LibTorch (CROSSGRAD_WITH_LIBTORCH).
#include <crossgrad/backends/backend_ops.hpp>
#include <crossgrad/backends/quantized.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace crossgrad::backends {

// One tensor held by the plugin; its destructor releases it there.
class LibTorchHandle;

struct LibTorchTensor {
  Shape shape;
  DType dtype = DType::F32;
  std::shared_ptr<LibTorchHandle> handle;
  Device device() const { return Device::cpu(); }
};

struct LibTorch {
  static constexpr std::string_view name = "LibTorch";
  using Tensor = LibTorchTensor;
  using Quantized = QuantizedTensor<LibTorchTensor>;
  static Device default_device() { return Device::cpu(); }
  // True when the plugin file exists; it is loaded (and may still fail to load) on the first op,
  // so listing backends never pays libtorch's start-up.
  static bool is_available();
  static std::string unavailable_reason();
  CROSSGRAD_DECLARE_BACKEND_OPS(Tensor, Quantized)
};

namespace libtorch {
// The plugin path the backend uses: $CROSSGRAD_LIBTORCH_PLUGIN, else the build tree's plugin when
// it exists, else the installed one (both fixed at build time).
std::string plugin_path();
}  // namespace libtorch

}  // namespace crossgrad::backends
