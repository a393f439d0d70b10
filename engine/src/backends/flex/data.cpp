// Flex data movement: host copies in and out, fills, device moves, casts, comparisons.
#include "common.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace crossgrad::backends {

FlexTensor Flex::from_data(const TensorData& data, const Device& device) {
  flex::require_host_device(device, Flex::name);
  flex::require_storable_dtype(data.dtype(), Flex::name);
  FlexTensor out = flex::make_tensor(data.shape(), data.dtype());
  const auto bytes = data.bytes();
  if (!bytes.empty()) std::memcpy(out.buffer.data(), bytes.data(), bytes.size());
  return out;
}

TensorData Flex::into_data(const FlexTensor& tensor) { return tensor.to_data(); }
Shape Flex::shape(const FlexTensor& tensor) { return tensor.shape; }
DType Flex::dtype(const FlexTensor& tensor) { return tensor.dtype; }
Device Flex::device(const FlexTensor& tensor) { return tensor.device(); }

FlexTensor Flex::float_full(const Shape& shape, double value, DType dtype, const Device& device) {
  rules::check_float_dtype(dtype, "float_full");
  flex::require_host_device(device, Flex::name);
  FlexTensor out = flex::make_tensor(shape, dtype);
  flex::with_float_type(dtype, [&](auto zero) {
    using T = decltype(zero);
    T* dst = out.mutable_data<T>();
    const T v = static_cast<T>(value);
    flex::parallel_range(out.num_elements(), flex::kElementwiseGrain,
                         [&](std::size_t begin, std::size_t end) { std::fill(dst + begin, dst + end, v); });
  });
  return out;
}

FlexTensor Flex::float_to_device(const FlexTensor& tensor, const Device& device) {
  rules::check_float_dtype(tensor.dtype, "float_to_device");
  flex::require_host_device(device, Flex::name);
  return tensor;  // one device, and tensors are immutable: sharing is a copy
}

FlexTensor Flex::float_cast(const FlexTensor& tensor, DType dtype) {
  rules::check_float_dtype(tensor.dtype, "float_cast");
  rules::check_float_dtype(dtype, "float_cast");
  if (dtype == tensor.dtype) return tensor;
  FlexTensor out = flex::make_tensor(tensor.shape, dtype);
  const std::size_t n = tensor.num_elements();
  auto convert = [&](const auto* src, auto* dst) {
    using To = std::remove_pointer_t<decltype(dst)>;
    flex::parallel_range(n, flex::kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) dst[i] = static_cast<To>(src[i]);
    });
  };
  if (dtype == DType::F64) convert(tensor.data<float>(), out.mutable_data<double>());
  else convert(tensor.data<double>(), out.mutable_data<float>());
  return out;
}

namespace {
// A function of its own so that its byte stores cannot reload the pointers (Note [Byte stores in
// a row function], compare.cpp).
template <class T>
void greater_row(const T* x, T s, std::uint8_t* o, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) o[i] = x[i] > s ? 1 : 0;
}
}  // namespace

FlexTensor Flex::float_greater_scalar(const FlexTensor& tensor, double scalar) {
  rules::check_float_dtype(tensor.dtype, "float_greater_scalar");
  FlexTensor out = flex::make_tensor(tensor.shape, DType::Bool);
  const std::size_t n = tensor.num_elements();
  std::uint8_t* dst = out.mutable_data<std::uint8_t>();
  flex::with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* src = tensor.data<T>();
    const T s = static_cast<T>(scalar);  // compared in the tensor's dtype, like the scalar ops
    flex::parallel_range(n, flex::kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
      greater_row(src + begin, s, dst + begin, end - begin);
    });
  });
  return out;
}

FlexTensor Flex::bool_into_float(const FlexTensor& tensor, DType dtype) {
  if (tensor.dtype != DType::Bool) {
    panic(PanicId::UnsupportedDtype,
          {{"dtype", std::string(dtype_name(tensor.dtype))}, {"what", "bool_into_float"}});
  }
  rules::check_float_dtype(dtype, "bool_into_float");
  FlexTensor out = flex::make_tensor(tensor.shape, dtype);
  const std::size_t n = tensor.num_elements();
  const std::uint8_t* src = tensor.data<std::uint8_t>();
  flex::with_float_type(dtype, [&](auto zero) {
    using T = decltype(zero);
    T* dst = out.mutable_data<T>();
    flex::parallel_range(n, flex::kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) dst[i] = src[i] != 0 ? T(1) : T(0);
    });
  });
  return out;
}

// Every Flex op has finished when it returns.
void Flex::synchronize(const Device&) {}

}  // namespace crossgrad::backends
