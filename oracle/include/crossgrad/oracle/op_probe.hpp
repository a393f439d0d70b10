#pragma once
// Single-op probes of the documented op panics (CONTRACT section 4's "other
// panics": shape, dtype, backend, kind and device errors of float ops), for
// ops_differential_fuzzer. Written from the catalog's templates; owned by the
// fuzzing harness (fuzz/). A probe may carry several faults at once: the engine
// must then raise one of them, with that fault's exact message (or, for the few
// whose text depends on implementation detail, a message the fault's own
// pattern accepts: everything but that detail pinned).
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
  Op op = Op::float_add;   // Binary: Add Sub Mul Div Matmul (others run Add); Unary:
                     // the op (binary and dim/shape ops run Neg)
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
  ProbeFault(std::string id, std::optional<std::string> exact, std::string regex = {})
      : panic_id(std::move(id)), message(std::move(exact)), pattern(std::move(regex)) {}
  std::string panic_id;
  std::optional<std::string> message;  // the exact message; nullopt: see pattern
  std::string pattern;                 // when message is nullopt: the oracle's own regex (full match),
                                       // pinning all but the implementation-defined part
};

// Runs the probe through Dispatch. Success is required when no fault applies,
// and then the result is checked: tracked iff the receiver is, on the
// receiver's backend (to_device: the target's), the shape of the op's rule
// (result_shape, or the kind's documented shape), the receiver's dtype
// (float_cast: the target; quantize then dequantize: F32) and, for to_device,
// the data bit for bit (a tracked move: the receiver's checkpointing, a new node across
// backends, CONTRACT section 7). Otherwise the engine's panic must be one of the faults,
// with its exact message or one its pattern accepts. `reached` receives the
// catalog id raised. Messages and patterns are the oracle's own, written from the
// catalog's templates (never read from the engine).
// Binary probes of a non-binary op run float_add, Unary probes of a binary or
// dim/shape op run float_neg (the decoder picks any op for any kind).
std::optional<std::string> check_op_probe(const OpProbe &probe, std::optional<std::string> *reached = nullptr);

}  // namespace crossgrad::oracle
