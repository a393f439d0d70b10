#include <crossgrad/core/dtype.hpp>

#include <array>

namespace crossgrad {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  std::size_t size;
  DTypeCategory category;
};

constexpr std::array kInfo = {
#define CROSSGRAD_X(name, size, category) DTypeInfo{DType::name, #name, size, DTypeCategory::category},
    CROSSGRAD_DTYPES(CROSSGRAD_X)
#undef CROSSGRAD_X
};

constexpr std::array kAll = {
#define CROSSGRAD_X(name, size, category) DType::name,
    CROSSGRAD_DTYPES(CROSSGRAD_X)
#undef CROSSGRAD_X
};

const DTypeInfo& info(DType d) { return kInfo[static_cast<std::size_t>(d)]; }

}  // namespace

std::span<const DType> all_dtypes() { return kAll; }
std::string_view dtype_name(DType d) { return info(d).name; }
std::size_t dtype_size(DType d) { return info(d).size; }
DTypeCategory dtype_category(DType d) { return info(d).category; }
bool is_implemented(DType d) { return d != DType::F16 && d != DType::BF16; }
bool is_backend_storable(DType d) { return is_implemented(d) && dtype_category(d) != DTypeCategory::Quantized; }

std::optional<DType> dtype_from_name(std::string_view name) {
  for (const DTypeInfo& i : kInfo) {
    if (i.name == name) return i.dtype;
  }
  return std::nullopt;
}

}  // namespace crossgrad
