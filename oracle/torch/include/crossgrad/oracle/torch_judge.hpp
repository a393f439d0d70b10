#pragma once
// The PyTorch differential's verdict on one op call, shared by the property suite
// (property.torch_differential: generated cases) and the fuzz corpus judge (op_args_vs_torch:
// op_args_fuzzer inputs, Note [Fuzzing against PyTorch] in fuzz/torch/op_args_vs_torch.cpp).
// The caller runs the engine; this computes the same call with ATen and PyTorch's autograd
// (torch_reference.hpp) and compares value and gradients element by element: exact ops bit for
// bit, the others within the oracle's bound (numeric.hpp), a disagreement excused only by a
// documented difference (pytorch_differences.hpp).
#include <crossgrad/oracle/reference_ops.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace crossgrad::oracle {

// What the judged calls came to, per op.
struct TorchTally {
  std::size_t compared = 0;  // judged against PyTorch
  std::size_t invalid = 0;   // the oracle's reference names a catalog panic: not compared
  std::size_t elements = 0;  // value and gradient elements compared
  std::map<std::string, std::size_t> excused;  // documented difference id -> elements (or refusals)
};

// The engine's answer: the op's value (its elements, in the result's order) and, with a
// cotangent, the gradient of sum(result * cotangent) per operand (empty for non-float operands).
struct EngineAnswer {
  std::vector<double> value;
  std::vector<std::optional<HostArray>> gradients;
};

// A cotangent of value's shape and dtype whose elements are powers of two (1, -1, 0.5, 2, -0.25:
// multiplying by them is exact), picked from `seed`.
HostArray torch_cotangent(const HostArray& value, std::uint64_t seed);

// Judges one call of `op`. `run_engine` gets the cotangent (null for ops without a backward rule)
// and runs the engine. Returns what disagreed (naming value or gradient, element, both numbers),
// or nothing when the engine agrees with PyTorch or the inputs are invalid (counted in `tally`).
std::optional<std::string> judge_against_torch(OpId op, const std::vector<HostArray>& operands, const OpArgs& args,
                                               bool non_contiguous, std::uint64_t cotangent_seed,
                                               const std::function<EngineAnswer(const HostArray* cotangent)>& run_engine,
                                               TorchTally& tally);

// One line per op of a tally map, then `summary_prefix` and a summary line (the property's and the
// corpus judge's report).
std::string render_torch_tallies(const std::map<std::string, TorchTally>& tallies, const std::string& summary_prefix);

}  // namespace crossgrad::oracle
