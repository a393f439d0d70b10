#pragma once
// tensor_data_fuzzer's scenario: a shape, a dtype and raw bytes, handed to one
// validating entry point, then (when valid) round-tripped through every backend
// and probed with wrong-kind calls.
#include <crossgrad/core/dtype.hpp>
#include <crossgrad/core/random.hpp>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "decode/backends.hpp"
#include "decode/dims.hpp"
#include "harness/io.hpp"

namespace crossgrad::fuzz {

inline constexpr std::size_t kMaxDataBytes = 4096 * 8;  // 4096 F64 elements
inline constexpr std::size_t kMaxRank = 6;

enum class DataEntry : std::uint8_t {
  FromBytes,    // TensorData::from_bytes(bytes, shape, dtype)
  TypedValues,  // from_f32 / from_f64 / from_i64 / ... with bytes.size() / dtype
                // size values
  Allocate,     // checked_tensor_bytes(shape, dtype), then HostBuffer::allocate
                // when small, and float_random of that shape and dtype (random_call_of)
  kCount
};

// Allocate's bytes name a float_random call: byte 0 the distribution's kind (of 4), bytes 1 and
// 2 its parameters (kRandomParameters), bytes 3..10 the seed (little endian); missing bytes are 0.
// 1 + 2^-23 is the float after 1: Uniform(1, it) rounds about half its F32 samples up to high.
inline constexpr double kRandomParameters[] = {0.0, 1.0, -1.0, 0.5, 2.0, -3.0, 0.25, 1.0 + 0x1p-23, 5.0, -0.0, 1e-300,
                                               1e300, -1e300, 1e308, 3.0e38, -7.5};
struct RandomCall {
  Distribution distribution;
  std::uint64_t seed = 0;
};
inline RandomCall random_call_of(const std::vector<std::uint8_t> &b) {
  const auto at = [&](std::size_t i) -> std::uint8_t { return i < b.size() ? b[i] : 0; };
  const double a = kRandomParameters[at(1) % std::size(kRandomParameters)];
  // The second parameter's last code is NaN (and the first's next-to-last +inf with it), so
  // parameters without values come up as often as a fuzzer flips a byte.
  const double second = at(2) == 255 ? std::numeric_limits<double>::quiet_NaN()
                        : at(2) == 254 ? std::numeric_limits<double>::infinity()
                                       : kRandomParameters[at(2) % std::size(kRandomParameters)];
  RandomCall c;
  switch (at(0) % 4) {
    case 0: c.distribution = Distribution::standard(); break;
    case 1: c.distribution = Distribution::bernoulli(second); break;
    case 2: c.distribution = Distribution::uniform(a, second); break;
    default: c.distribution = Distribution::normal(a, second); break;
  }
  for (std::size_t i = 0; i < 8; ++i) c.seed |= std::uint64_t{at(3 + i)} << (8 * i);
  return c;
}

// One extra call on valid data: the wrong from_data / into_data / reader, an
// unavailable device, an Autodiff(Autodiff(..)) device.
enum class DataProbe : std::uint8_t {
  FloatFromData,
  IntFromData,
  BoolFromData,  // on probe_backend, plain or tracked
  FloatIntoData,
  IntIntoData,
  BoolIntoData,  // after the matching from_data
  ToF32,
  ToF64,
  ToI64,
  ToBool,      // TensorData readers
  CudaDevice,  // from_data on probe_backend with Device::cuda(index)
  AutodiffOfAutodiffDevice,
  kCount
};

struct DataProbeSpec {
  DataProbe probe = DataProbe::ToF32;
  std::size_t backend = 0;  // registry index (Note [Backend bytes name registry indices])
  bool tracked = false;
  std::size_t index = 0;  // Cuda device index, 0..3
  friend bool operator==(const DataProbeSpec &, const DataProbeSpec &) = default;
};

struct TensorDataScenario {
  DataEntry entry = DataEntry::FromBytes;
  std::vector<std::uint64_t> dims;
  DType dtype = DType::F32;
  std::vector<std::uint8_t> bytes;
  std::vector<DataProbeSpec> probes;  // at most 4
  friend bool operator==(const TensorDataScenario &, const TensorDataScenario &) = default;
};

template <class Io>
void schema(Io &io, std::uint64_t &dim) {
  dim_schema(io, dim);
}

template <class Io>
void schema(Io &io, DataProbeSpec &p) {
  io.pick_enum(p.probe, static_cast<std::size_t>(DataProbe::kCount));
  backend(io, p.backend);
  io.flag(p.tracked);
  io.pick(p.index, 4);
}

template <class Io>
void schema(Io &io, TensorDataScenario &s) {
  io.pick_enum(s.entry, static_cast<std::size_t>(DataEntry::kCount));
  io.pick_enum(s.dtype, all_dtypes().size());
  list(io, s.dims, kMaxRank, [](Io &i, std::uint64_t &d) { schema(i, d); });
  list(io, s.probes, 4, [](Io &i, DataProbeSpec &p) { schema(i, p); });
  io.blob(s.bytes, kMaxDataBytes);
}

std::string describe(const TensorDataScenario &s);

}  // namespace crossgrad::fuzz
