#include <crossgrad/oracle/render.hpp>
#include <crossgrad/oracle/spec.hpp>

#include <sstream>

namespace crossgrad::oracle {

std::size_t element_count(const std::vector<std::size_t>& shape) {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

std::span<const DType> dtypes_for(PrimitiveKind primitive) {
  // Static lists: the decoders ask for every tensor spec they read.
  static constexpr DType kFloat[] = {DType::F32, DType::F64};
  static constexpr DType kInt[] = {DType::I64, DType::I32, DType::I8, DType::U8};
  static constexpr DType kBool[] = {DType::Bool};
  static constexpr DType kQuantized[] = {DType::QInt8};
  switch (primitive) {
    case PrimitiveKind::Float:
    case PrimitiveKind::Autodiff:
      return kFloat;
    case PrimitiveKind::Int:
      return kInt;
    case PrimitiveKind::Bool:
      return kBool;
    case PrimitiveKind::Quantized:
      return kQuantized;
  }
  return {};
}

bool is_well_formed(const KindSpec& kind) {
  if (kind.autodiff_depth == 0) return kind.leaf.primitive != PrimitiveKind::Autodiff;
  return kind.autodiff_depth == 1 && kind.leaf.primitive == PrimitiveKind::Autodiff;
}

KindSpec unwrap(const KindSpec& kind) {
  KindSpec inner = kind;
  if (inner.autodiff_depth > 0) --inner.autodiff_depth;
  return inner;
}

std::vector<double> effective_values(const TensorSpec& spec) {
  if (!spec.values.empty()) return spec.values;
  const std::size_t n = element_count(spec.shape);
  std::vector<double> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (spec.primitive) {
      case PrimitiveKind::Bool:
        values[i] = static_cast<double>(i % 2);
        break;
      case PrimitiveKind::Int:
        values[i] = static_cast<double>(i % 5);
        break;
      case PrimitiveKind::Float:
      case PrimitiveKind::Quantized:
      case PrimitiveKind::Autodiff:
        values[i] = 0.25 * static_cast<double>(i % 7) - 0.5;
        break;
    }
  }
  return values;
}

std::string describe(const TensorSpec& spec) {
  std::ostringstream os;
  os << spec.backend_name << "#" << spec.backend << " " << primitive_kind_name(spec.primitive) << " "
     << render_shape(spec.shape) << " " << render_dtype(spec.dtype) << " " << render_device(spec.device);
  if (spec.node_id) os << " node=" << *spec.node_id;
  if (!spec.values.empty()) {
    os << " values={";
    for (std::size_t i = 0; i < spec.values.size(); ++i) os << (i ? ", " : "") << spec.values[i];
    os << "}";
  }
  return os.str();
}

std::string describe(const KindSpec& spec) {
  std::string s;
  for (std::size_t i = 0; i < spec.autodiff_depth; ++i) s += "Autodiff(";
  s += spec.leaf.backend_name + "(" + std::string(primitive_kind_name(spec.leaf.primitive)) + ")";
  for (std::size_t i = 0; i < spec.autodiff_depth; ++i) s += ")";
  return s + " [" + describe(spec.leaf) + "]";
}

std::string describe(const DispatchSpec& spec) {
  std::string s = describe(spec.kind);
  if (!spec.checkpointing) return s + " checkpointing=none";
  return s + (*spec.checkpointing == CheckpointingStrategy::Balanced ? " checkpointing=Balanced"
                                                                     : " checkpointing=Disabled");
}

std::ostream& operator<<(std::ostream& os, const DeviceSpec& spec) { return os << render_device(spec); }
std::ostream& operator<<(std::ostream& os, const TensorSpec& spec) { return os << describe(spec); }
std::ostream& operator<<(std::ostream& os, const KindSpec& spec) { return os << describe(spec); }
std::ostream& operator<<(std::ostream& os, const DispatchSpec& spec) { return os << describe(spec); }

}  // namespace crossgrad::oracle
