#include <crossgrad/core/host_buffer.hpp>
#include <crossgrad/core/panic.hpp>
#include <crossgrad/core/tensor_data.hpp>

#include <cstring>
#include <type_traits>

namespace crossgrad {
namespace {

void check_length(std::size_t actual, const Shape& shape) {
  const std::size_t expected = shape.num_elements();
  if (actual != expected) {
    panic(PanicId::DataLengthMismatch, {{"actual", std::to_string(actual)},
                                        {"shape", shape.to_string()},
                                        {"expected", std::to_string(expected)}});
  }
}

void check_implemented(DType dtype, const char* what) {
  if (!is_implemented(dtype)) {
    panic(PanicId::UnsupportedDtype, {{"dtype", std::string(dtype_name(dtype))}, {"what", what}});
  }
}

std::string_view category_word(DTypeCategory c) {
  switch (c) {
    case DTypeCategory::Float:
      return "float";
    case DTypeCategory::Int:
      return "int";
    case DTypeCategory::Bool:
      return "bool";
    case DTypeCategory::Quantized:
      return "quantized";
  }
  return "float";
}

template <class T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// A fresh HostBytes holding `bytes`. vector's range constructor copies element by element with a
// custom allocator; a fuzz build keeps that loop and traces its compare on every byte.
HostBytes copy_to_host_bytes(std::span<const std::byte> bytes) {
  HostBytes out(bytes.size());  // default-initialised (HostBytesAllocator): no zeroing
  if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

}  // namespace

template <class T>
TensorData TensorData::from_values(const std::vector<T>& values, Shape shape, DType dtype) {
  check_length(values.size(), shape);
  checked_tensor_bytes(shape, dtype);
  const auto* first = reinterpret_cast<const std::byte*>(values.data());
  return TensorData(std::move(shape), dtype, copy_to_host_bytes({first, values.size() * sizeof(T)}));
}

TensorData TensorData::from_f32(std::vector<float> v, Shape s) { return from_values(v, std::move(s), DType::F32); }
TensorData TensorData::from_f64(std::vector<double> v, Shape s) { return from_values(v, std::move(s), DType::F64); }
TensorData TensorData::from_i64(std::vector<std::int64_t> v, Shape s) { return from_values(v, std::move(s), DType::I64); }
TensorData TensorData::from_i32(std::vector<std::int32_t> v, Shape s) { return from_values(v, std::move(s), DType::I32); }
TensorData TensorData::from_i8(std::vector<std::int8_t> v, Shape s) { return from_values(v, std::move(s), DType::I8); }
TensorData TensorData::from_u8(std::vector<std::uint8_t> v, Shape s) { return from_values(v, std::move(s), DType::U8); }

TensorData TensorData::from_bool(std::vector<bool> values, Shape shape) {
  check_length(values.size(), shape);
  HostBytes bytes(values.size());  // every byte written below
  for (std::size_t i = 0; i < values.size(); ++i) bytes[i] = std::byte{values[i] ? std::uint8_t{1} : std::uint8_t{0}};
  return TensorData(std::move(shape), DType::Bool, std::move(bytes));
}

namespace {

// from_bytes' checks: unsupported dtype, shape overflow, byte count, bool bytes.
void check_bytes(std::span<const std::byte> bytes, const Shape& shape, DType dtype) {
  check_implemented(dtype, "TensorData");
  const std::size_t elements = shape.num_elements();
  const std::size_t size = dtype_size(dtype);
  if (bytes.size() % size != 0 || bytes.size() / size != elements) {
    panic(PanicId::DataLengthMismatch, {{"actual", std::to_string(bytes.size() / size)},
                                        {"shape", shape.to_string()},
                                        {"expected", std::to_string(elements)}});
  }
  if (dtype == DType::Bool) {
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      const auto b = std::to_integer<unsigned>(bytes[i]);
      if (b > 1) panic(PanicId::InvalidBoolValue, {{"value", std::to_string(b)}, {"index", std::to_string(i)}});
    }
  }
}

}  // namespace

void TensorData::validate_bytes(std::span<const std::byte> bytes, const Shape& shape, DType dtype) {
  check_bytes(bytes, shape, dtype);
}

TensorData TensorData::from_bytes(std::span<const std::byte> bytes, Shape shape, DType dtype) {
  check_bytes(bytes, shape, dtype);
  return TensorData(std::move(shape), dtype, copy_to_host_bytes(bytes));
}

TensorData TensorData::adopt_bytes(HostBytes&& bytes, Shape shape, DType dtype) {
  check_bytes(bytes, shape, dtype);
  return TensorData(std::move(shape), dtype, std::move(bytes));
}

template <class T>
std::vector<T> TensorData::read_as(const char* reader, DTypeCategory want) const {
  if (dtype_category(dtype_) != want || !is_implemented(dtype_)) {
    panic(PanicId::DataKindMismatch, {{"op", reader},
                                      {"expected", std::string(category_word(want))},
                                      {"dtype", std::string(dtype_name(dtype_))}});
  }
  // One loop per dtype, not a switch per element, and no loop at all where the stored type is the
  // one asked for: the oracle reads every value it compares through here, and a per-element
  // dtype_size call and switch was ~7% of the ops_differential replay (docs/FUZZ_THROUGHPUT.md,
  // round 8); in a sanitized fuzzer every iteration's comparison is traced as well.
  const std::size_t n = bytes_.size() / dtype_size(dtype_);
  const std::byte* const p = bytes_.data();
  const auto widen = [&]<class S>(S) {
    if constexpr (std::is_same_v<S, T>) {
      // The buffer comes from malloc or aligned_alloc (acquire_bytes): aligned for every dtype.
      const T* const first = reinterpret_cast<const T*>(p);
      return std::vector<T>(first, first + n);
    } else {
      std::vector<T> out(n);
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<T>(load<S>(p + i * sizeof(S)));
      return out;
    }
  };
  switch (dtype_) {
    case DType::F64: return widen(double{});
    case DType::F32: return widen(float{});
    case DType::I64: return widen(std::int64_t{});
    case DType::I32: return widen(std::int32_t{});
    case DType::I8: return widen(std::int8_t{});
    case DType::U8: return widen(std::uint8_t{});
    case DType::Bool: {
      std::vector<T> out(n);
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<T>(load<std::uint8_t>(p + i) != 0);
      return out;
    }
    case DType::F16:
    case DType::BF16:
    case DType::QInt8:
      break;
  }
  panic(PanicId::Unreachable);  // rejected above: reaching here is an engine bug
}

std::vector<float> TensorData::to_f32() const { return read_as<float>("to_f32", DTypeCategory::Float); }
std::vector<double> TensorData::to_f64() const { return read_as<double>("to_f64", DTypeCategory::Float); }
std::vector<std::int64_t> TensorData::to_i64() const { return read_as<std::int64_t>("to_i64", DTypeCategory::Int); }
std::vector<bool> TensorData::to_bool() const {
  const std::vector<std::uint8_t> raw = read_as<std::uint8_t>("to_bool", DTypeCategory::Bool);
  return std::vector<bool>(raw.begin(), raw.end());
}

}  // namespace crossgrad
