#pragma once
// The extreme values of every dtype TensorData can hold, for the data-path tests (issue 10, item 3):
// min, max, lowest, +-0, infinities, NaNs with payloads (quiet and signalling, both signs),
// subnormals; every int type's min/max and the values next to them; both bools; every QInt8 byte
// class. Float values are given as bit patterns so that a payload is exactly what was asked for.
#include <crossgrad/core/tensor_data.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace crossgrad::testing_support {

inline std::vector<std::uint64_t> f64_extreme_bits() {
  return {
      0x0000000000000000,  // +0
      0x8000000000000000,  // -0
      0x7ff0000000000000,  // +inf
      0xfff0000000000000,  // -inf
      0x7ff8000000000000,  // the default quiet NaN
      0xfff8000000000000,  // negative quiet NaN
      0x7ff8deadbeef0001,  // quiet NaN with a payload
      0x7ff0000000000001,  // signalling NaN (smallest payload)
      0xfff7ffffffffffff,  // negative signalling NaN (largest payload)
      0x0000000000000001,  // denorm_min
      0x8000000000000001,  // -denorm_min
      0x000fffffffffffff,  // largest subnormal
      0x0010000000000000,  // min_normal
      0x7fefffffffffffff,  // max
      0xffefffffffffffff,  // lowest
      0x3cb0000000000000,  // epsilon
      0x3ff0000000000000,  // 1
      0x47efffffe0000000,  // FLT_MAX (as F64)
      0x36a0000000000000,  // FLT_TRUE_MIN (as F64)
  };
}

inline std::vector<std::uint32_t> f32_extreme_bits() {
  return {
      0x00000000,  // +0
      0x80000000,  // -0
      0x7f800000,  // +inf
      0xff800000,  // -inf
      0x7fc00000,  // the default quiet NaN
      0xffc00000,  // negative quiet NaN
      0x7fc12345,  // quiet NaN with a payload
      0x7f800001,  // signalling NaN (smallest payload)
      0xffbfffff,  // negative signalling NaN (largest payload)
      0x00000001,  // denorm_min
      0x80000001,  // -denorm_min
      0x007fffff,  // largest subnormal
      0x00800000,  // min_normal
      0x7f7fffff,  // max
      0xff7fffff,  // lowest
      0x34000000,  // epsilon
      0x3f800000,  // 1
  };
}

template <class Bits>
std::vector<std::byte> bytes_of(const std::vector<Bits>& values) {
  std::vector<std::byte> out(values.size() * sizeof(Bits));
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

template <class I>
std::vector<I> int_extremes() {
  using L = std::numeric_limits<I>;
  std::vector<I> v = {L::min(), static_cast<I>(L::min() + 1), L::max(), static_cast<I>(L::max() - 1), I(0), I(1)};
  if constexpr (L::is_signed) v.push_back(I(-1));
  else v.push_back(static_cast<I>(L::max() / 2 + 1));  // 128 for U8: the top bit set
  return v;
}

// QInt8 bytes: -128, -127, -1, 0, 1, 127 (TensorData holds them; only quantize makes QInt8 primitives).
inline std::vector<std::int8_t> qint8_extremes() { return {-128, -127, -1, 0, 1, 127}; }

// One TensorData of `dtype` holding that dtype's extremes, as a [n] tensor.
inline TensorData extreme_data(DType dtype) {
  switch (dtype) {
    case DType::F64: {
      const auto b = f64_extreme_bits();
      return TensorData::from_bytes(bytes_of(b), {b.size()}, DType::F64);
    }
    case DType::F32: {
      const auto b = f32_extreme_bits();
      return TensorData::from_bytes(bytes_of(b), {b.size()}, DType::F32);
    }
    case DType::I64: {
      const auto v = int_extremes<std::int64_t>();
      return TensorData::from_i64(v, {v.size()});
    }
    case DType::I32: {
      const auto v = int_extremes<std::int32_t>();
      return TensorData::from_i32(v, {v.size()});
    }
    case DType::I8: {
      const auto v = int_extremes<std::int8_t>();
      return TensorData::from_i8(v, {v.size()});
    }
    case DType::U8: {
      const auto v = int_extremes<std::uint8_t>();
      return TensorData::from_u8(v, {v.size()});
    }
    case DType::Bool: return TensorData::from_bool({true, false, false, true}, {4});
    case DType::QInt8: {
      const auto v = qint8_extremes();
      return TensorData::from_bytes(bytes_of(v), {v.size()}, DType::QInt8);
    }
    case DType::F16:
    case DType::BF16: break;
  }
  return TensorData::from_f32({}, {0});  // F16/BF16 data cannot be made (unsupported-dtype)
}

// Every dtype TensorData can hold today, in CONTRACT order.
inline std::vector<DType> data_dtypes() {
  return {DType::F64, DType::F32, DType::I64, DType::I32, DType::I8, DType::U8, DType::Bool, DType::QInt8};
}

// `data` tiled to `n` elements (same dtype), for the sizes where kernels split their work.
inline TensorData tiled(const TensorData& data, std::size_t n) {
  const std::size_t size = dtype_size(data.dtype());
  const auto src = data.bytes();
  std::vector<std::byte> out(n * size);
  for (std::size_t i = 0; i < n; ++i) {
    std::memcpy(out.data() + i * size, src.data() + (i % data.num_elements()) * size, size);
  }
  return TensorData::from_bytes(out, {n}, data.dtype());
}

inline std::string bits_string(std::span<const std::byte> bytes, std::size_t element_size, std::size_t index) {
  std::string s = "0x";
  static const char* hex = "0123456789abcdef";
  for (std::size_t b = element_size; b-- > 0;) {
    const auto v = std::to_integer<unsigned>(bytes[index * element_size + b]);
    s += hex[v >> 4];
    s += hex[v & 15];
  }
  return s;
}

// The first element whose bytes differ, as "element i: want 0x.., got 0x.." (or a shape/dtype note).
inline std::string first_difference(const TensorData& want, const TensorData& got) {
  if (want.dtype() != got.dtype()) {
    return std::string("dtype ") + std::string(dtype_name(want.dtype())) + " vs " + std::string(dtype_name(got.dtype()));
  }
  if (!(want.shape() == got.shape())) return "shape " + want.shape().to_string() + " vs " + got.shape().to_string();
  const std::size_t size = dtype_size(want.dtype());
  for (std::size_t i = 0; i < want.num_elements(); ++i) {
    if (std::memcmp(want.bytes().data() + i * size, got.bytes().data() + i * size, size) != 0) {
      return "element " + std::to_string(i) + ": want " + bits_string(want.bytes(), size, i) + ", got " +
             bits_string(got.bytes(), size, i);
    }
  }
  return "equal";
}

}  // namespace crossgrad::testing_support
