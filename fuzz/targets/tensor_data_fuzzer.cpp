// tensor_data_fuzzer: shape, dtype and raw values -> validation never crashes,
// every rejection is the catalog panic the contract names (exact message),
// every acceptance keeps the bytes, and valid data round-trips bit for bit
// through every backend, plain and tracked; an allocation's shape and dtype also
// make a float_random tensor (the bytes name its distribution and seed) that
// must equal the oracle's own sampler on every backend.
#include <crossgrad/core/host_buffer.hpp>
#include <crossgrad/crossgrad.hpp>
#include <crossgrad/oracle/oracle.hpp>
#include <crossgrad/oracle/random_reference.hpp>
#include <cmath>
#include <cstring>
#include <sstream>

#include "decode/tensor_data.hpp"
#include "harness/backends.hpp"
#include "harness/expect.hpp"
#include "harness/target.hpp"
#include "targets/targets.hpp"

namespace crossgrad::fuzz {
namespace {

// The dtype facts, written from CONTRACT section 1 rather than read from the
// engine.
struct DTypeFacts {
  std::size_t size;
  DTypeCategory category;
  bool implemented;
};
DTypeFacts facts(DType d) {
  switch (d) {
    case DType::F64:
      return {8, DTypeCategory::Float, true};
    case DType::F32:
      return {4, DTypeCategory::Float, true};
    case DType::F16:
      return {2, DTypeCategory::Float, false};
    case DType::BF16:
      return {2, DTypeCategory::Float, false};
    case DType::I64:
      return {8, DTypeCategory::Int, true};
    case DType::I32:
      return {4, DTypeCategory::Int, true};
    case DType::I8:
      return {1, DTypeCategory::Int, true};
    case DType::U8:
      return {1, DTypeCategory::Int, true};
    case DType::Bool:
      return {1, DTypeCategory::Bool, true};
    case DType::QInt8:
      return {1, DTypeCategory::Quantized, true};  // data only: no from_data
  }
  return {1, DTypeCategory::Float, false};
}
const char *category_word(DTypeCategory c) {
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
  return "?";
}

std::string render_dims(const std::vector<std::uint64_t> &dims) {
  std::vector<std::size_t> d(dims.begin(), dims.end());
  return oracle::render_shape(d);
}
// Any zero dim makes a shape empty, in any order (docs/OPS.md: [2^40, 2^40, 0] is empty, not an
// overflow); otherwise the product, or nothing when it overflows.
std::optional<std::uint64_t> element_count(const std::vector<std::uint64_t> &dims) {
  for (std::uint64_t d : dims) {
    if (d == 0) return 0;
  }
  std::uint64_t n = 1;
  for (std::uint64_t d : dims) {
    if (__builtin_mul_overflow(n, d, &n)) return std::nullopt;
  }
  return n;
}

Shape shape_of(const std::vector<std::uint64_t> &dims) {
  return Shape(std::vector<std::size_t>(dims.begin(), dims.end()));
}

std::string dname(DType d) { return oracle::render_dtype(d); }

// The contract's rejection of (dims, dtype, n values) for a data constructor;
// nullopt: accepted.
struct Rejection {
  PanicId id;
  std::string message;
};
std::optional<Rejection> length_rejection(const std::vector<std::uint64_t> &dims, std::uint64_t actual) {
  const auto n = element_count(dims);
  if (!n)
    return Rejection{PanicId::ShapeOverflow, "Shape " + render_dims(dims) + " has more elements than fit in memory."};
  if (actual != *n) {
    return Rejection{PanicId::DataLengthMismatch, "Tensor data has " + std::to_string(actual) + " values but shape " +
                                                      render_dims(dims) + " needs " + std::to_string(*n) + "."};
  }
  return std::nullopt;
}

std::vector<std::uint8_t> data_bytes(const TensorData &d) {
  std::vector<std::uint8_t> out(d.bytes().size());
  if (!out.empty()) std::memcpy(out.data(), d.bytes().data(), out.size());
  return out;
}

void check_same_data(const TensorData &expected, const TensorData &actual, std::string_view what) {
  if (!(expected == actual)) {
    fail(std::string(what) + ": data changed: shape " + expected.shape().to_string() + " -> " +
         actual.shape().to_string() + ", dtype " + dname(expected.dtype()) + " -> " + dname(actual.dtype()) + ", " +
         std::to_string(expected.bytes().size()) + " -> " + std::to_string(actual.bytes().size()) + " bytes");
  }
}

// float_random of the scenario's shape and dtype with the call its bytes name (random_call_of), on
// every available backend, plain and tracked: F32 / F64 give the oracle's reference_random values
// (bit for bit, Normal within its bound), other dtypes unsupported-dtype, a distribution without
// values its random-distribution message.
void check_random(const TensorDataScenario &s, std::uint64_t count, Outcome &out) {
  const RandomCall call = random_call_of(s.bytes);
  const bool float_dtype = s.dtype == DType::F32 || s.dtype == DType::F64;
  const oracle::RandomReference ref =
      oracle::reference_random(static_cast<std::size_t>(count), call.distribution, call.seed, s.dtype);
  for (std::size_t b = 0; b < backend_count(); ++b) {
    if (!backend_available(b)) continue;
    for (const bool tracked : {false, true}) {
      const DispatchDevice device = tracked ? DispatchDevice::Autodiff(backend_device(b)) : backend_device(b);
      const std::string what = "float_random " + call.distribution.to_string() + " on " + device.to_string();
      auto a = attempt([&] { return Dispatch::float_random(shape_of(s.dims), call.distribution, call.seed, device, s.dtype); });
      if (!float_dtype) {
        expect_panic(out, a, PanicId::UnsupportedDtype, "DType " + dname(s.dtype) + " is not supported by float_random.", what);
        continue;
      }
      if (ref.panic_message) {
        expect_panic(out, a, PanicId::RandomDistribution, *ref.panic_message, what);
        continue;
      }
      const DispatchTensor t = expect_value(a, what);
      if (t.kind.is_autodiff() != tracked) fail(what + ": tracked device gave an untracked kind or the reverse");
      const TensorData d = Dispatch::float_into_data(t);
      if (d.dtype() != s.dtype || d.shape() != shape_of(s.dims)) fail(what + ": wrong dtype or shape");
      const std::vector<double> got = d.to_f64();
      for (std::size_t i = 0; i < got.size(); ++i) {
        // Equal values first: an F32 sample past its range is inf in both, and inf - inf is NaN.
        if (got[i] == ref.values[i]) continue;
        if (!(std::fabs(got[i] - ref.values[i]) <= ref.tolerance)) {
          std::ostringstream os;
          os.precision(17);
          os << what << ": element " << i << " is " << got[i] << ", the reference " << ref.values[i];
          fail(os.str());
        }
      }
    }
  }
}

std::optional<TensorData> run_entry(const TensorDataScenario &s, Outcome &out) {
  const DTypeFacts f = facts(s.dtype);
  const std::string dt = dname(s.dtype);
  switch (s.entry) {
    case DataEntry::FromBytes: {
      auto a =
          attempt([&] { return TensorData::from_bytes(std::as_bytes(std::span(s.bytes)), shape_of(s.dims), s.dtype); });
      const std::string what = "from_bytes";
      if (!f.implemented) {
        expect_panic(out, a, PanicId::UnsupportedDtype, "DType " + dt + " is not supported by TensorData.", what);
        return std::nullopt;
      }
      const std::uint64_t actual = s.bytes.size() / f.size;
      std::optional<Rejection> r = length_rejection(s.dims, actual);
      if (!r && s.bytes.size() % f.size != 0) {
        r = Rejection{PanicId::DataLengthMismatch, "Tensor data has " + std::to_string(actual) + " values but shape " +
                                                       render_dims(s.dims) + " needs " + std::to_string(actual) + "."};
      }
      if (!r && f.category == DTypeCategory::Bool) {
        for (std::size_t i = 0; i < s.bytes.size(); ++i) {
          if (s.bytes[i] > 1) {
            r = Rejection{PanicId::InvalidBoolValue, "Bool data must hold 0 or 1, got byte " +
                                                         std::to_string(s.bytes[i]) + " at index " + std::to_string(i) +
                                                         "."};
            break;
          }
        }
      }
      if (r) {
        expect_panic(out, a, r->id, r->message, what);
        return std::nullopt;
      }
      TensorData d = expect_value(a, what);
      if (d.dtype() != s.dtype || d.shape() != shape_of(s.dims) || data_bytes(d) != s.bytes)
        fail("from_bytes changed the data");
      out.log.push_back("from_bytes -> ok");
      return d;
    }
    case DataEntry::TypedValues: {
      const std::size_t n = s.bytes.size() / f.size;
      std::vector<std::uint8_t> used(s.bytes.begin(), s.bytes.begin() + static_cast<std::ptrdiff_t>(n * f.size));
      auto typed = [&]<class T>(TensorData (*make)(std::vector<T>, Shape)) {
        std::vector<T> v(n);
        if (n) std::memcpy(v.data(), used.data(), n * sizeof(T));
        return attempt([&] { return make(std::move(v), shape_of(s.dims)); });
      };
      Attempt<TensorData> a;
      switch (s.dtype) {
        case DType::F64:
          a = typed(&TensorData::from_f64);
          break;
        case DType::F32:
          a = typed(&TensorData::from_f32);
          break;
        case DType::I64:
          a = typed(&TensorData::from_i64);
          break;
        case DType::I32:
          a = typed(&TensorData::from_i32);
          break;
        case DType::I8:
          a = typed(&TensorData::from_i8);
          break;
        case DType::U8:
          a = typed(&TensorData::from_u8);
          break;
        case DType::Bool: {
          std::vector<bool> v(n);
          for (std::size_t i = 0; i < n; ++i) v[i] = (used[i] & 1) != 0;
          for (auto &b : used) b &= 1;
          a = attempt([&] { return TensorData::from_bool(std::move(v), shape_of(s.dims)); });
          break;
        }
        case DType::F16:
        case DType::BF16:
        case DType::QInt8:
          out.log.push_back("typed_values: no typed constructor for " + dt);
          return std::nullopt;
      }
      const std::string what = "from_" + dt;
      if (auto r = length_rejection(s.dims, n)) {
        expect_panic(out, a, r->id, r->message, what);
        return std::nullopt;
      }
      TensorData d = expect_value(a, what);
      if (d.dtype() != s.dtype || d.shape() != shape_of(s.dims) || data_bytes(d) != used)
        fail(what + " changed the values");
      out.log.push_back(what + " -> ok");
      return d;
    }
    case DataEntry::Allocate: {
      auto a = attempt([&] { return checked_tensor_bytes(shape_of(s.dims), s.dtype); });
      const std::string what = "checked_tensor_bytes";
      const auto n = element_count(s.dims);
      if (!n) {
        expect_panic(out, a, PanicId::ShapeOverflow,
                     "Shape " + render_dims(s.dims) + " has more elements than fit in memory.", what);
        return std::nullopt;
      }
      std::uint64_t bytes = 0;
      const bool overflow = __builtin_mul_overflow(*n, std::uint64_t{f.size}, &bytes);
      const std::uint64_t limit = std::uint64_t{16} << 30;
      if (overflow || bytes > limit) {
        expect_panic(out, a, PanicId::TensorTooLarge,
                     "A tensor of shape " + render_dims(s.dims) + " and dtype " + dt + " needs " +
                         (overflow ? std::string("more than 2^64") : std::to_string(bytes)) +
                         " bytes, over the limit of " + std::to_string(limit) + " bytes.",
                     what);
        return std::nullopt;
      }
      if (expect_value(a, what) != bytes) fail(what + " returned a wrong byte count");
      if (bytes <= kMaxDataBytes) {
        HostBuffer b =
            expect_value(attempt([&] { return HostBuffer::allocate(shape_of(s.dims), s.dtype); }), "allocate");
        if (b.size() != bytes || b.data() == nullptr) fail("HostBuffer::allocate returned a wrong buffer");
        if (bytes) std::memset(b.data(), 0xab, bytes);  // ASan: the whole buffer is ours
        check_random(s, *n, out);
      }
      out.log.push_back(what + " -> " + std::to_string(bytes));
      return std::nullopt;
    }
    case DataEntry::kCount:
      break;
  }
  return std::nullopt;
}

DispatchDevice probe_device(const DataProbeSpec &p, std::optional<Device> device = std::nullopt) {
  DispatchDevice d = backend_device(p.backend, device);
  return p.tracked ? DispatchDevice::Autodiff(std::move(d)) : d;
}

DispatchTensor from_data_of(DTypeCategory c, const TensorData &d, const DispatchDevice &dev) {
  switch (c) {
    case DTypeCategory::Float:
      return Dispatch::float_from_data(d, dev);
    case DTypeCategory::Int:
      return Dispatch::int_from_data(d, dev);
    case DTypeCategory::Bool:
      return Dispatch::bool_from_data(d, dev);
    case DTypeCategory::Quantized:
      break;
  }
  fail("no from_data for quantized data");
}

// The debug rendering the oracle expects for a tensor built from `d` on the
// probe's device.
std::string expected_debug(const DataProbeSpec &p, const TensorData &d, const DispatchTensor &t) {
  oracle::KindSpec k;
  k.autodiff_depth = p.tracked ? 1 : 0;
  k.leaf.backend = p.backend;
  k.leaf.backend_name = backend_name(k.leaf.backend);
  k.leaf.device = oracle::all_backends().at(p.backend).default_device;  // Cpu, Cuda(0), Remote(0)
  const DTypeCategory c = facts(d.dtype()).category;
  k.leaf.primitive = c == DTypeCategory::Int    ? PrimitiveKind::Int
                     : c == DTypeCategory::Bool ? PrimitiveKind::Bool
                     : p.tracked                ? PrimitiveKind::Autodiff
                                                : PrimitiveKind::Float;
  k.leaf.shape = d.shape().dims();
  k.leaf.dtype = d.dtype();
  return oracle::render_kind(k, oracle::node_of(t.kind));
}

void run_probe(const DataProbeSpec &p, const TensorData &d, Outcome &out) {
  const std::size_t backend = p.backend;
  const DTypeCategory have = facts(d.dtype()).category;
  const std::string dt = dname(d.dtype());
  const bool available = backend_available(backend);
  auto from_probe = [&](DTypeCategory want, const char *op) {
    auto a = attempt([&] { return from_data_of(want, d, probe_device(p)); });
    const std::string what = std::string(op) + " on " + probe_device(p).to_string();
    if (want != have) {
      expect_panic(out, a, PanicId::DataKindMismatch,
                   std::string(op) + " needs " + category_word(want) + " data, got dtype " + dt + ".", what);
      return;
    }
    if (!available) {
      if (!a.panic || a.panic->id() != PanicId::DeviceUnavailable) fail(what + ": expected device-unavailable");
      out.panics.insert(PanicId::DeviceUnavailable);
      return;
    }
    DispatchTensor t = expect_value(a, what);
    TensorData back = have == DTypeCategory::Float ? Dispatch::float_into_data(t)
                      : have == DTypeCategory::Int ? Dispatch::int_into_data(t)
                                                   : Dispatch::bool_into_data(t);
    check_same_data(d, back, what + " round trip");
    if (p.tracked != t.kind.is_autodiff()) fail(what + ": tracked device gave an untracked kind or the reverse");
    out.log.push_back(what + " -> round trip ok");
  };
  const bool buildable = have != DTypeCategory::Quantized;  // quantized data has no from_data
  auto into_probe = [&](DTypeCategory want, const char *op, const char *kind_word) {
    if (!available || !buildable) return;
    DispatchTensor t = from_data_of(have, d, probe_device(p));
    auto a = attempt([&]() -> TensorData {
      switch (want) {
        case DTypeCategory::Float:
          return Dispatch::float_into_data(t);
        case DTypeCategory::Int:
          return Dispatch::int_into_data(t);
        case DTypeCategory::Bool:
          return Dispatch::bool_into_data(t);
        case DTypeCategory::Quantized:
          break;
      }
      fail("no into_data for quantized");
    });
    const std::string what = std::string(op) + " of a " + category_word(have) + " tensor";
    if (want != have) {
      expect_panic(out, a, PanicId::OpKindMismatch,
                   std::string(op) + " needs a tensor of kind " + kind_word + ", got " + expected_debug(p, d, t) + ".",
                   what);
      return;
    }
    check_same_data(d, expect_value(a, what), what);
  };
  auto reader_probe = [&](DTypeCategory want, const char *op, auto read) {
    auto a = attempt([&] { return read().size(); });
    if (want != have) {
      expect_panic(out, a, PanicId::DataKindMismatch,
                   std::string(op) + " needs " + category_word(want) + " data, got dtype " + dt + ".", op);
      return;
    }
    if (expect_value(a, op) != d.num_elements()) fail(std::string(op) + " returned a wrong number of values");
  };
  switch (p.probe) {
    case DataProbe::FloatFromData:
      return from_probe(DTypeCategory::Float, "float_from_data");
    case DataProbe::IntFromData:
      return from_probe(DTypeCategory::Int, "int_from_data");
    case DataProbe::BoolFromData:
      return from_probe(DTypeCategory::Bool, "bool_from_data");
    case DataProbe::FloatIntoData:
      return into_probe(DTypeCategory::Float, "float_into_data", "Float");
    case DataProbe::IntIntoData:
      return into_probe(DTypeCategory::Int, "int_into_data", "Int");
    case DataProbe::BoolIntoData:
      return into_probe(DTypeCategory::Bool, "bool_into_data", "Bool");
    case DataProbe::ToF32:
      return reader_probe(DTypeCategory::Float, "to_f32", [&] { return d.to_f32(); });
    case DataProbe::ToF64:
      return reader_probe(DTypeCategory::Float, "to_f64", [&] { return d.to_f64(); });
    case DataProbe::ToI64:
      return reader_probe(DTypeCategory::Int, "to_i64", [&] { return d.to_i64(); });
    case DataProbe::ToBool:
      return reader_probe(DTypeCategory::Bool, "to_bool", [&] { return d.to_bool(); });
    case DataProbe::CudaDevice: {
      if (!buildable) return;
      const Device cuda = Device::cuda(static_cast<int>(p.index));
      auto a = attempt([&] { return from_data_of(have, d, probe_device(p, cuda)); });
      const std::string what = "from_data on " + probe_device(p, cuda).to_string();
      if (backend_is_cpu_only(backend)) {
        if (!a.panic || a.panic->id() != PanicId::DeviceUnavailable) fail(what + ": expected device-unavailable");
        const std::string prefix =
            "Device " + cuda.to_string() + " of backend " + backend_name(backend) + " is not available: ";
        if (a.panic->message().rfind(prefix, 0) != 0) fail(what + ": wrong message " + a.panic->message());
        out.panics.insert(PanicId::DeviceUnavailable);
        out.log.push_back(what + " -> panic device-unavailable");
      } else if (a.panic && a.panic->id() != PanicId::DeviceUnavailable) {
        fail(what + ": unexpected panic " + a.panic->message());
      }
      return;
    }
    case DataProbe::AutodiffOfAutodiffDevice: {
      if (!buildable) return;
      const DispatchDevice dev = DispatchDevice::Autodiff(DispatchDevice::Autodiff(backend_device(backend)));
      auto a = attempt([&] { return from_data_of(have, d, dev); });
      expect_panic(out, a, PanicId::AutodiffWrapsAutodiff, "Autodiff should not wrap an autodiff tensor.",
                   "from_data on " + dev.to_string());
      return;
    }
    case DataProbe::kCount:
      break;
  }
}

void run(Bytes bytes, Outcome &out) {
  const Decoded<TensorDataScenario> decoded =
      decode_noting_uses<TensorDataScenario>(bytes, [](auto &io, auto &x) { schema(io, x); });
  if (skip_unless_applicable(decoded.uses, out)) return;
  const TensorDataScenario &s = decoded.scenario;
  std::optional<TensorData> d = run_entry(s, out);
  if (!d) return;
  // Every backend, plain and tracked, round-trips the data bit for bit.
  for (std::size_t b = 0; b < backend_count(); ++b) {
    if (!backend_available(b)) continue;
    for (bool tracked : {false, true}) {
      if (facts(d->dtype()).category == DTypeCategory::Quantized) break;
      DataProbeSpec p{DataProbe::FloatFromData, b, tracked, 0};
      const DTypeCategory c = facts(d->dtype()).category;
      p.probe = c == DTypeCategory::Float ? DataProbe::FloatFromData
                : c == DTypeCategory::Int ? DataProbe::IntFromData
                                          : DataProbe::BoolFromData;
      run_probe(p, *d, out);
    }
  }
  for (const DataProbeSpec &p : s.probes) run_probe(p, *d, out);
}

std::string describe_bytes(Bytes bytes) {
  return describe(decode_with<TensorDataScenario>(bytes, [](auto &io, auto &x) { schema(io, x); }));
}

}  // namespace

const Target kTensorDataTarget{"tensor_data_fuzzer", &describe_bytes, &run};

}  // namespace crossgrad::fuzz
