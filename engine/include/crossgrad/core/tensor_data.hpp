#pragma once
// TensorData: typed values plus a shape, always validated on construction.
#include <crossgrad/core/dtype.hpp>
#include <crossgrad/core/host_buffer.hpp>
#include <crossgrad/core/shape.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace crossgrad {

class TensorData {
 public:
  // Each panics data-length-mismatch when values.size() != shape.num_elements().
  static TensorData from_f32(std::vector<float> values, Shape shape);
  static TensorData from_f64(std::vector<double> values, Shape shape);
  static TensorData from_i64(std::vector<std::int64_t> values, Shape shape);
  static TensorData from_i32(std::vector<std::int32_t> values, Shape shape);
  static TensorData from_i8(std::vector<std::int8_t> values, Shape shape);
  static TensorData from_u8(std::vector<std::uint8_t> values, Shape shape);
  static TensorData from_bool(std::vector<bool> values, Shape shape);
  // Raw little-endian bytes, as a fuzzer or a file would give them. Validates everything:
  // unsupported dtype, shape overflow, byte count, bool bytes.
  static TensorData from_bytes(std::span<const std::byte> bytes, Shape shape, DType dtype);
  // from_bytes with the same checks, keeping `bytes` without a copy (a received buffer of tens of MiB).
  static TensorData adopt_bytes(HostBytes&& bytes, Shape shape, DType dtype);
  // from_bytes' checks alone, the same panics in the same order, building nothing (for bytes that
  // become a backend's storage directly).
  static void validate_bytes(std::span<const std::byte> bytes, const Shape& shape, DType dtype);

  // Readers convert within a category (to_f32 on F64 data rounds; to_i64 widens any int);
  // across categories they panic data-kind-mismatch.
  std::vector<float> to_f32() const;
  std::vector<double> to_f64() const;
  std::vector<std::int64_t> to_i64() const;
  std::vector<bool> to_bool() const;

  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  std::size_t num_elements() const { return shape_.num_elements(); }
  std::span<const std::byte> bytes() const { return bytes_; }

  // Bitwise equality of shape, dtype and bytes (so NaN payloads and -0.0 count).
  // Spelled out for memcmp: std::equal compares std::byte one at a time.
  friend bool operator==(const TensorData& a, const TensorData& b) {
    return a.shape_ == b.shape_ && a.dtype_ == b.dtype_ && a.bytes_.size() == b.bytes_.size() &&
           (a.bytes_.empty() || std::memcmp(a.bytes_.data(), b.bytes_.data(), a.bytes_.size()) == 0);
  }

 private:
  TensorData(Shape shape, DType dtype, HostBytes bytes)
      : shape_(std::move(shape)), dtype_(dtype), bytes_(std::move(bytes)) {}
  template <class T>
  static TensorData from_values(const std::vector<T>& values, Shape shape, DType dtype);
  template <class T>
  std::vector<T> read_as(const char* reader, DTypeCategory want) const;

  Shape shape_;
  DType dtype_ = DType::F32;
  HostBytes bytes_;  // large ones from the host buffer cache (host_buffer.hpp)
};

}  // namespace crossgrad
