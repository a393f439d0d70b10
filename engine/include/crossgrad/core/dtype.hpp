#pragma once
// Element types. One X-macro list; names print exactly as the enumerators (CONTRACT section 1).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace crossgrad {

// X(name, byte size, category)
#define CROSSGRAD_DTYPES(X) \
  X(F64, 8, Float)          \
  X(F32, 4, Float)          \
  X(F16, 2, Float)          \
  X(BF16, 2, Float)         \
  X(I64, 8, Int)            \
  X(I32, 4, Int)            \
  X(I8, 1, Int)             \
  X(U8, 1, Int)             \
  X(Bool, 1, Bool)          \
  X(QInt8, 1, Quantized)

enum class DType : std::uint8_t {
#define CROSSGRAD_X(name, size, category) name,
  CROSSGRAD_DTYPES(CROSSGRAD_X)
#undef CROSSGRAD_X
};

enum class DTypeCategory : std::uint8_t { Float, Int, Bool, Quantized };

std::span<const DType> all_dtypes();
std::string_view dtype_name(DType dtype);
std::optional<DType> dtype_from_name(std::string_view name);
std::size_t dtype_size(DType dtype);
DTypeCategory dtype_category(DType dtype);
inline bool is_float(DType d) { return dtype_category(d) == DTypeCategory::Float; }
inline bool is_int(DType d) { return dtype_category(d) == DTypeCategory::Int; }
// F16 and BF16 are named (CONTRACT section 1) but not implemented yet.
bool is_implemented(DType dtype);
// The one dtype-support rule of every backend's from_data: a backend tensor stores implemented
// float, int and bool dtypes as-is; QInt8 lives only inside a quantized tensor (it needs its scale).
bool is_backend_storable(DType dtype);

}  // namespace crossgrad
