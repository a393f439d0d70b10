#pragma once
// Helpers shared by Flex's kernel files (internal to the backend).
#include <crossgrad/backends/flex.hpp>
#include <crossgrad/backends/flex_tuning.hpp>
#include <crossgrad/core/panic.hpp>
#include <crossgrad/core/shape_rules.hpp>

#include <crossgrad/backends/host_common.hpp>

#include <cstddef>
#include <string>
#include <utility>

namespace crossgrad::backends::flex {

// Fresh uninitialised Flex storage (HostTensor::empty panics tensor-too-large).
inline FlexTensor make_tensor(Shape shape, DType dtype) {
  return FlexTensor{HostTensor::empty(std::move(shape), dtype)};
}

// The host backends' shared helpers (crossgrad/backends/host_common.hpp): the device check,
// from_data's dtype rule and the float-type dispatch (F32 -> float, F64 -> double, anything else
// the unreachable panic).
using host::require_host_device;
using host::require_storable_dtype;
using host::with_float_type;
using host::with_element_bits;

// Elements per task below which element-wise kernels stay on the calling thread (Note [Flex tuning]).
inline constexpr std::size_t kElementwiseGrain = kTuning.elementwise_grain;

}  // namespace crossgrad::backends::flex
