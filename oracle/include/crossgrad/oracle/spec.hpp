#pragma once
// Plain value types describing a scenario without the engine: which backend, which primitive,
// which DispatchTensorKind nesting, which values. Every kind is Autodiff^depth(B(primitive))
// (a primitive holds no kind), so KindSpec expresses every well-formed and malformed structure
// of CONTRACT section 2: depth 0 with an Autodiff primitive is B(Autodiff(..)), depth 1 with a
// Float primitive is Autodiff(B(Float(..))), depth 2 is Autodiff(Autodiff(B(..))).
#include <crossgrad/core/dtype.hpp>
#include <crossgrad/dispatch/kind.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace crossgrad::oracle {

struct DeviceSpec {
  enum class Kind { Cpu, Cuda, Remote };
  Kind kind = Kind::Cpu;
  int index = 0;
  friend bool operator==(const DeviceSpec&, const DeviceSpec&) = default;
};

// One primitive of one backend. Quantized primitives store QInt8 values: dtype is QInt8 and
// `values` are the floats that were quantized.
struct TensorSpec {
  std::size_t backend = 0;   // index in registered_backends() (registry order)
  std::string backend_name;  // registered_backends()[backend].name
  PrimitiveKind primitive = PrimitiveKind::Float;
  std::vector<std::size_t> shape;  // {} is a scalar
  DType dtype = DType::F32;
  DeviceSpec device;
  std::vector<double> values;  // one per element; empty: filled with small deterministic values
  std::optional<std::uint64_t> node_id;  // Autodiff primitive: this id (leaf_with_id), else fresh
  friend bool operator==(const TensorSpec&, const TensorSpec&) = default;
};

// Autodiff(...) applied `autodiff_depth` times around B(leaf).
struct KindSpec {
  std::size_t autodiff_depth = 0;
  TensorSpec leaf;
  friend bool operator==(const KindSpec&, const KindSpec&) = default;
};

// A float tensor as Dispatch ops take it: B(Float(p)) or the well-formed Autodiff(B(Autodiff(a))).
inline bool is_float_view(const KindSpec& k) {
  return (k.autodiff_depth == 0 && k.leaf.primitive == PrimitiveKind::Float) ||
         (k.autodiff_depth == 1 && k.leaf.primitive == PrimitiveKind::Autodiff);
}

struct DispatchSpec {
  KindSpec kind;
  std::optional<CheckpointingStrategy> checkpointing;
  friend bool operator==(const DispatchSpec&, const DispatchSpec&) = default;
};

std::size_t element_count(const std::vector<std::size_t>& shape);
// The dtypes a primitive kind may hold (Float/Autodiff: F32 F64; Int: I64 I32 I8 U8; Bool; QInt8).
std::span<const DType> dtypes_for(PrimitiveKind primitive);
// Autodiff(B(Autodiff(..))) or B(Float|Int|Bool|Quantized): what the engine itself creates.
bool is_well_formed(const KindSpec& kind);
// The kind Autodiff(..) wraps; only when autodiff_depth > 0.
KindSpec unwrap(const KindSpec& kind);
// The values the built tensor holds (spec.values, or the deterministic fill).
std::vector<double> effective_values(const TensorSpec& spec);

// Readable one-line descriptions, used by RapidCheck counterexamples and fuzz repro output.
std::string describe(const TensorSpec& spec);
std::string describe(const KindSpec& spec);
std::string describe(const DispatchSpec& spec);
std::ostream& operator<<(std::ostream& os, const DeviceSpec& spec);
std::ostream& operator<<(std::ostream& os, const TensorSpec& spec);
std::ostream& operator<<(std::ostream& os, const KindSpec& spec);
std::ostream& operator<<(std::ostream& os, const DispatchSpec& spec);

}  // namespace crossgrad::oracle
