#pragma once
// KindSpec -> engine tensors, through the engine's public constructors, choosing the backend by
// its registry index (for_each_backend), never by name.
#include <crossgrad/oracle/spec.hpp>

#include <crossgrad/core/device.hpp>
#include <crossgrad/core/tensor_data.hpp>
#include <crossgrad/dispatch/device.hpp>
#include <crossgrad/dispatch/kind.hpp>

#include <cstdint>
#include <optional>

namespace crossgrad::oracle {

Device to_device(const DeviceSpec& device);
DeviceSpec device_spec(const Device& device);
// backend's device `device` (registry index), optionally wrapped in Autodiff(..).
DispatchDevice dispatch_device(std::size_t backend, const DeviceSpec& device, bool autodiff = false);

// The host data of a leaf: its dtype's data; for Quantized, the F32 data that gets quantized.
TensorData leaf_data(const TensorSpec& spec);
// The backend primitive wrapped in B(..).
DispatchTensorKind build_backend_kind(const TensorSpec& spec);
DispatchTensorKind build_kind(const KindSpec& spec);
DispatchTensor build(const DispatchSpec& spec);

// Structure of a built kind, read with std::get_if on its variants (never from a rendering).
std::size_t autodiff_depth_of(const DispatchTensorKind& kind);
// The node id of the innermost primitive when it is an Autodiff primitive.
std::optional<std::uint64_t> node_of(const DispatchTensorKind& kind);
// The registry index of the innermost backend kind.
std::size_t backend_of(const DispatchTensorKind& kind);
PrimitiveKind primitive_of(const DispatchTensorKind& kind);

}  // namespace crossgrad::oracle
