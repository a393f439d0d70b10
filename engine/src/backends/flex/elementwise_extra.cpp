// Flex float_abs, float_clamp, int_into_float and float_into_int: one value in, one value out, over flat ranges
// split by the pool above the element-wise grain.
#include "common.hpp"
#include "thread_pool.hpp"

#include <crossgrad/core/int_conversion.hpp>

#include <cmath>
#include <cstdint>
#include <string>

namespace crossgrad::backends {
namespace {

// out[i] = f(in[i]) over the flat storage, In and Out the element types.
template <class In, class Out, class F>
void map_flat(const FlexTensor& in, FlexTensor& out, F f) {
  const In* src = in.data<In>();
  Out* dst = out.mutable_data<Out>();
  flex::parallel_range(in.num_elements(), flex::kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) dst[i] = f(src[i]);
  });
}

template <class To>
void int_to(const FlexTensor& in, FlexTensor& out) {
  auto convert = [](auto v) { return static_cast<To>(v); };
  switch (in.dtype) {
    case DType::I64: return map_flat<std::int64_t, To>(in, out, convert);
    case DType::I32: return map_flat<std::int32_t, To>(in, out, convert);
    case DType::I8: return map_flat<std::int8_t, To>(in, out, convert);
    case DType::U8: return map_flat<std::uint8_t, To>(in, out, convert);
    // Refused by int_into_float's dtype check before this runs.
    case DType::F64:
    case DType::F32:
    case DType::F16:
    case DType::BF16:
    case DType::Bool:
    case DType::QInt8:
      break;
  }
  panic(PanicId::Unreachable);
}

}  // namespace

FlexTensor Flex::float_abs(const FlexTensor& t) {
  rules::check_float_dtype(t.dtype, "float_abs");
  FlexTensor out = flex::make_tensor(t.shape, t.dtype);
  flex::with_float_type(t.dtype, [&](auto zero) {
    using T = decltype(zero);
    map_flat<T, T>(t, out, [](T x) { return std::fabs(x); });
  });
  return out;
}

FlexTensor Flex::float_clamp(const FlexTensor& t, double min, double max) {
  rules::check_clamp(t.dtype, min, max);
  FlexTensor out = flex::make_tensor(t.shape, t.dtype);
  flex::with_float_type(t.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T lo = static_cast<T>(min), hi = static_cast<T>(max);
    // NaN fails both comparisons and stays NaN.
    map_flat<T, T>(t, out, [lo, hi](T x) { return x < lo ? lo : (x > hi ? hi : x); });
  });
  return out;
}

FlexTensor Flex::int_into_float(const FlexTensor& t, DType dtype) {
  if (t.dtype != DType::I64 && t.dtype != DType::I32 && t.dtype != DType::I8 && t.dtype != DType::U8) {
    panic(PanicId::UnsupportedDtype, {{"dtype", std::string(dtype_name(t.dtype))}, {"what", "int_into_float"}});
  }
  rules::check_float_dtype(dtype, "int_into_float");
  FlexTensor out = flex::make_tensor(t.shape, dtype);
  if (dtype == DType::F64) int_to<double>(t, out);
  else int_to<float>(t, out);
  return out;
}

FlexTensor Flex::float_into_int(const FlexTensor& t, DType dtype) {
  rules::check_into_int(t.dtype, dtype);
  FlexTensor out = flex::make_tensor(t.shape, dtype);
  flex::with_float_type(t.dtype, [&](auto zero) {
    using T = decltype(zero);
    // check_into_int has refused every other target.
    if (dtype == DType::I64) map_flat<T, std::int64_t>(t, out, [](T x) { return saturating_int<std::int64_t>(x); });
    else if (dtype == DType::I32) map_flat<T, std::int32_t>(t, out, [](T x) { return saturating_int<std::int32_t>(x); });
    else if (dtype == DType::I8) map_flat<T, std::int8_t>(t, out, [](T x) { return saturating_int<std::int8_t>(x); });
    else map_flat<T, std::uint8_t>(t, out, [](T x) { return saturating_int<std::uint8_t>(x); });
  });
  return out;
}

}  // namespace crossgrad::backends
