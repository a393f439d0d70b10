#pragma once
// Single-op probes of the documented op panics (CONTRACT section 4's "other
// panics": shape, dtype, backend, kind and device errors of float ops), for
// ops_differential_fuzzer. Written from the catalog's templates; owned by the
// fuzzing harness (fuzz/). A probe may carry several faults at once: the engine
// must then raise one of them, with that fault's exact message (or, for the few
// whose text depends on implementation detail, a message the catalog pattern
// accepts).
#include <crossgrad/oracle/expect.hpp>
#include <crossgrad/oracle/graph.hpp>
#include <crossgrad/oracle/spec.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace crossgrad::oracle {

struct OpProbe {
  enum class Kind { Binary, Unary, SumDim, MeanDim, Reshape, SwapDims, ToDevice, Cast, Quantize, kCount };
  Kind kind = Kind::Unary;
  Op op = Op::Add;   // Binary: Add Sub Mul Div Matmul (others map to Add); Unary:
                     // the op
  DispatchSpec lhs;  // the receiver (any kind, malformed ones included)
  DispatchSpec rhs;  // Binary only
  std::size_t dim = 0,
              dim1 = 0;               // SumDim / MeanDim / SwapDims (not reduced modulo the rank)
  std::vector<std::size_t> to_shape;  // Reshape
  std::size_t target_backend = 0;     // ToDevice
  bool target_tracked = false;        // ToDevice: Autodiff(device)
  bool target_nested = false;         // ToDevice: Autodiff(Autodiff(device))
  DType dtype = DType::F32;           // Cast
  friend bool operator==(const OpProbe &, const OpProbe &) = default;
};
std::string_view probe_kind_name(OpProbe::Kind kind);
std::string describe(const OpProbe &probe);

struct ProbeFault {
  std::string panic_id;
  std::optional<std::string> message;  // nullopt: any message the catalog pattern accepts
};

// Runs the probe through Dispatch. Success is required when no fault applies
// (and results keep shape/dtype rules and, for to_device, the data bit for
// bit); otherwise the engine's panic must be one of the faults. `reached`
// receives the catalog id raised. Panics outside the catalog id set are
// failures; checking that the message matches the catalog pattern is the
// caller's job.
std::optional<std::string> check_op_probe(const OpProbe &probe, std::optional<std::string> *reached = nullptr);

}  // namespace crossgrad::oracle
