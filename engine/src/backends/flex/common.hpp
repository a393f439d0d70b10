#pragma once
// Helpers shared by Flex's kernel files (internal to the backend).
#include <crossgrad/backends/flex.hpp>
#include <crossgrad/backends/flex_tuning.hpp>
#include <crossgrad/core/panic.hpp>
#include <crossgrad/core/shape_rules.hpp>

#include <cstddef>
#include <string>
#include <utility>

namespace crossgrad::backends::flex {

// Fresh uninitialised Flex storage (HostTensor::empty panics tensor-too-large).
inline FlexTensor make_tensor(Shape shape, DType dtype) {
  return FlexTensor{HostTensor::empty(std::move(shape), dtype)};
}

// Calls f(T{}) with T = float or double for a dtype already checked to be F32 or F64.
template <class F>
decltype(auto) with_float_type(DType dtype, F&& f) {
  if (dtype == DType::F64) return f(double{});
  return f(float{});
}

// Elements per task below which element-wise kernels stay on the calling thread (Note [Flex tuning]).
inline constexpr std::size_t kElementwiseGrain = kTuning.elementwise_grain;

}  // namespace crossgrad::backends::flex
