#pragma once
// What the two host backends (NdArray, Flex) share: the device check, the dtype-support rule of
// from_data and the float- and int-type dispatch. Kernels stay per backend; this header is public (like
// cuda_kernels/) only so that tests can reach the helpers without including engine/src.
#include <crossgrad/core/device.hpp>
#include <crossgrad/core/dtype.hpp>
#include <crossgrad/core/panic.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace crossgrad::backends::host {

// A host backend has exactly one device, the CPU; anything else is the catalog's
// device-unavailable panic ("<backend> runs on the CPU only"), never a silent fallback.
inline void require_host_device(const Device& device, std::string_view backend_name) {
  if (device == Device::cpu()) return;
  panic(PanicId::DeviceUnavailable, {{"device", device.to_string()},
                                     {"backend", std::string(backend_name)},
                                     {"reason", std::string(backend_name) + " runs on the CPU only"}});
}

// from_data stores what is_backend_storable allows (core/dtype.cpp, the rule Cuda uses too) and
// raises unsupported-dtype for the rest, naming "<backend>::from_data".
inline void require_storable_dtype(DType dtype, std::string_view backend_name) {
  if (is_backend_storable(dtype)) return;
  panic(PanicId::UnsupportedDtype, {{"dtype", std::string(dtype_name(dtype))},
                                    {"what", std::string(backend_name) + "::from_data"}});
}

// Calls f(float{}) for F32 and f(double{}) for F64. Callers run rules::check_float_dtype first, so
// any other dtype here is an engine bug: the catalog's unreachable panic, never a kernel reading
// int or bool bytes as floats.
template <class F>
decltype(auto) with_float_type(DType dtype, F&& f) {
  if (dtype == DType::F32) return std::forward<F>(f)(float{});
  if (dtype == DType::F64) return std::forward<F>(f)(double{});
  panic(PanicId::Unreachable);
}

// Calls f(I{}) with I the C++ type of an int dtype (I64, I32, I8, U8). Callers check the dtype
// first (rules::check_int_dtype), so any other dtype here is an engine bug.
template <class F>
decltype(auto) with_int_type(DType dtype, F&& f) {
  if (dtype == DType::I64) return std::forward<F>(f)(std::int64_t{});
  if (dtype == DType::I32) return std::forward<F>(f)(std::int32_t{});
  if (dtype == DType::I8) return std::forward<F>(f)(std::int8_t{});
  if (dtype == DType::U8) return std::forward<F>(f)(std::uint8_t{});
  panic(PanicId::Unreachable);
}

// Calls f(T{}) with T the C++ type of the dtype's elements: float, double, the int types, and
// uint8_t for Bool (bytes 0 / 1). For the ops whose kinds share one kernel that reads the values
// (scans, sorting, the index updates); callers check the dtype against the op's kind first.
template <class F>
decltype(auto) with_element_type(DType dtype, F&& f) {
  if (dtype == DType::F32 || dtype == DType::F64) return with_float_type(dtype, std::forward<F>(f));
  if (dtype == DType::Bool) return std::forward<F>(f)(std::uint8_t{});
  return with_int_type(dtype, std::forward<F>(f));
}

// Calls f(U{}) with U the unsigned integer of the dtype's element size (uint8_t for I8, U8 and
// Bool, uint32_t for F32 and I32, uint64_t for F64 and I64): the layout ops move elements as
// bits, so one instantiation serves every kind and NaN payloads and -0 keep their bits.
template <class F>
decltype(auto) with_element_bits(DType dtype, F&& f) {
  const std::size_t size = dtype_size(dtype);
  if (size == 8) return std::forward<F>(f)(std::uint64_t{});
  if (size == 4) return std::forward<F>(f)(std::uint32_t{});
  if (size == 1) return std::forward<F>(f)(std::uint8_t{});
  panic(PanicId::Unreachable);
}

}  // namespace crossgrad::backends::host
