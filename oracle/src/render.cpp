#include <crossgrad/oracle/render.hpp>

namespace crossgrad::oracle {

std::string render_shape(const std::vector<std::size_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

// CONTRACT section 1 fixes the names; written out here rather than asked of the engine.
std::string render_dtype(DType dtype) {
  switch (dtype) {
    case DType::F64: return "F64";
    case DType::F32: return "F32";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
    case DType::I64: return "I64";
    case DType::I32: return "I32";
    case DType::I8: return "I8";
    case DType::U8: return "U8";
    case DType::Bool: return "Bool";
    case DType::QInt8: return "QInt8";
  }
  return "?";
}

std::string render_device(const DeviceSpec& device) {
  switch (device.kind) {
    case DeviceSpec::Kind::Cpu: return "Cpu";
    case DeviceSpec::Kind::Cuda: return "Cuda(" + std::to_string(device.index) + ")";
    case DeviceSpec::Kind::Remote: return "Remote(" + std::to_string(device.index) + ")";
  }
  return "?";
}

namespace {

// Appended into one string (renderings are built for every input of the fuzz targets).
void append_struct(std::string& s, const TensorSpec& spec) {
  s += spec.backend_name;
  s += "Tensor { shape: ";
  s += render_shape(spec.shape);
  s += ", dtype: ";
  s += render_dtype(spec.dtype);
  s += ", device: ";
  s += render_device(spec.device);
  s += " }";
}

void append_primitive(std::string& s, const TensorSpec& spec, std::optional<std::uint64_t> node) {
  const auto wrapped = [&](std::string_view name) {
    s += name;
    s += '(';
    append_struct(s, spec);
    s += ')';
  };
  switch (spec.primitive) {
    case PrimitiveKind::Float: return wrapped("Float");
    case PrimitiveKind::Int: return wrapped("Int");
    case PrimitiveKind::Bool: return wrapped("Bool");
    case PrimitiveKind::Quantized: return wrapped("Quantized");
    case PrimitiveKind::Autodiff:
      s += "Autodiff(AutodiffTensor { primitive: ";
      append_struct(s, spec);
      s += ", node: NodeId(";
      s += node ? std::to_string(*node) : std::string("?");
      s += ") })";
      return;
  }
  s += '?';
}

}  // namespace

std::string render_struct(const TensorSpec& spec) {
  std::string s;
  s.reserve(96);
  append_struct(s, spec);
  return s;
}

std::string render_primitive(const TensorSpec& spec, std::optional<std::uint64_t> node) {
  std::string s;
  s.reserve(128);
  append_primitive(s, spec, node);
  return s;
}

std::string render_kind(const KindSpec& spec, std::optional<std::uint64_t> node) {
  std::string s;
  s.reserve(160);
  for (std::size_t i = 0; i < spec.autodiff_depth; ++i) s += "Autodiff(";
  s += spec.leaf.backend_name;
  s += '(';
  append_primitive(s, spec.leaf, node);
  s += ')';
  for (std::size_t i = 0; i < spec.autodiff_depth; ++i) s += ')';
  return s;
}

const std::string& kind_grammar_regex() {
  // A kind of depth <= 2 is enough for the harness; the grammar nests Autodiff( .. ) freely.
  static const std::string re = [] {
    const std::string backend = "[A-Z][A-Za-z0-9]*";
    const std::string shape = R"(\[(?:[0-9]+(?:, [0-9]+)*)?\])";
    const std::string dtype = "(?:F64|F32|F16|BF16|I64|I32|I8|U8|Bool|QInt8)";
    const std::string device = R"((?:Cpu|Cuda\([0-9]+\)|Remote\([0-9]+\)))";  // CONTRACT section 3
    const std::string st = backend + "Tensor \\{ shape: " + shape + ", dtype: " + dtype + ", device: " + device + " \\}";
    const std::string prim = "(?:(?:Float|Int|Bool|Quantized)\\(" + st + "\\)|Autodiff\\(AutodiffTensor \\{ primitive: " +
                             st + ", node: NodeId\\([0-9]+\\) \\}\\))";
    const std::string base = backend + "\\(" + prim + "\\)";
    return "(?:Autodiff\\()*" + base + "\\)*";
  }();
  return re;
}

}  // namespace crossgrad::oracle
