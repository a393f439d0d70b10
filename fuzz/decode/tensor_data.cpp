#include "decode/tensor_data.hpp"

#include <sstream>

namespace crossgrad::fuzz {
namespace {

std::string_view entry_name(DataEntry e) {
  switch (e) {
    case DataEntry::FromBytes:
      return "from_bytes";
    case DataEntry::TypedValues:
      return "typed_values";
    case DataEntry::Allocate:
      return "allocate";
    case DataEntry::kCount:
      break;
  }
  return "?";
}

std::string_view probe_name(DataProbe p) {
  switch (p) {
    case DataProbe::FloatFromData:
      return "float_from_data";
    case DataProbe::IntFromData:
      return "int_from_data";
    case DataProbe::BoolFromData:
      return "bool_from_data";
    case DataProbe::FloatIntoData:
      return "float_into_data";
    case DataProbe::IntIntoData:
      return "int_into_data";
    case DataProbe::BoolIntoData:
      return "bool_into_data";
    case DataProbe::ToF32:
      return "to_f32";
    case DataProbe::ToF64:
      return "to_f64";
    case DataProbe::ToI64:
      return "to_i64";
    case DataProbe::ToBool:
      return "to_bool";
    case DataProbe::CudaDevice:
      return "cuda_device";
    case DataProbe::AutodiffOfAutodiffDevice:
      return "autodiff_of_autodiff_device";
    case DataProbe::kCount:
      break;
  }
  return "?";
}

}  // namespace

std::string describe(const TensorDataScenario &s) {
  std::ostringstream os;
  os << "tensor_data: " << entry_name(s.entry) << " dtype=" << dtype_name(s.dtype) << " shape=[";
  for (std::size_t i = 0; i < s.dims.size(); ++i) os << (i ? ", " : "") << s.dims[i];
  os << "] bytes=" << s.bytes.size();
  if (!s.bytes.empty()) {
    os << " (";
    static const char *hex = "0123456789abcdef";
    for (std::size_t i = 0; i < s.bytes.size() && i < 16; ++i) os << hex[s.bytes[i] >> 4] << hex[s.bytes[i] & 15];
    if (s.bytes.size() > 16) os << "...";
    os << ")";
  }
  if (s.entry == DataEntry::Allocate) {
    const RandomCall r = random_call_of(s.bytes);
    os << "\n  float_random " << r.distribution.to_string() << " seed " << r.seed;
  }
  for (const DataProbeSpec &p : s.probes) {
    os << "\n  probe " << probe_name(p.probe) << " backend#" << p.backend;
    if (p.backend < kKnownBackendCount) os << " (" << kKnownBackends[p.backend].name << ")";
    os << (p.tracked ? " tracked" : " plain")
       << " index=" << p.index;
  }
  return os.str();
}

}  // namespace crossgrad::fuzz
