#pragma once
// Structure-aware mutation of the fuzz targets' scenarios (issue 13, item 2). For a target with a
// schema (Note [One schema, two directions]) the input is decoded into its scenario, one mutation
// of a named kind is applied to the struct (a backend, kind, depth, dtype, shape or data value
// changed; an op, leaf, command or probe inserted, removed or replaced; an index changed; or any
// one schema choice re-drawn), and the scenario is encoded back — canonically (encoding the
// decoding of the output gives the output), within the size libFuzzer allows. The byte format is
// the schema's, unchanged: every corpus file keeps its meaning.
//
// The libFuzzer hooks (libfuzzer_hooks.cpp, linked only into the -fsanitize=fuzzer executables)
// call custom_mutate / custom_cross_over with LLVMFuzzerMutate as the byte mutator. The policy:
//   - mode Bytes (CROSSGRAD_FUZZ_MUTATOR=bytes): libFuzzer's byte mutation only, and a byte
//     splice for crossover — switchable without a rebuild;
//   - mode Scenario (CROSSGRAD_FUZZ_MUTATOR=scenario): 1 in kByteShare calls, and every
//     call whose input does not decode or whose mutations all fail or overflow max_size, go to the
//     byte mutator (so what the schema cannot express is still reached); the rest are structural.
// Unset, each target runs in its default_mode(). Everything is a function of the arguments (the seed
// included): no global state but the mode.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "mutate/rng.hpp"

namespace crossgrad::fuzz::mutate {

using Bytes = std::span<const std::uint8_t>;
using ByteVector = std::vector<std::uint8_t>;
// libFuzzer's LLVMFuzzerMutate(data, size, max_size): mutates data in place, returns the new size.
using ByteMutator = std::function<std::size_t(std::uint8_t *data, std::size_t size, std::size_t max_size)>;

enum class Mode { Scenario, Bytes };
// Note [Default mutator per target]
// A target runs structure-aware by default only where that was measured better
// (docs/FUZZ_MUTATOR.md): ops_differential, gradients_api and grad_replace, at 10 minutes per
// trial, reach more features with equal edges, and find three of the planted bugs sooner with none
// later; op_args reaches the same edges and features and finds one of its two value-edge mutants
// sooner (the other ties). Every target with a schema mutator is measured and structure-aware now;
// a new one starts on bytes until its rounds are run.
Mode default_mode(std::string_view target);
inline constexpr std::size_t kByteShare = 4;  // 1 call in kByteShare goes to the byte mutator
inline constexpr std::size_t kTries = 8;      // structural attempts before falling back
// CROSSGRAD_FUZZ_MUTATOR: "bytes" or "scenario"; unset or empty: default_mode(target). Anything else
// is reported on stderr once and read as the default.
Mode mode_from_env(std::string_view target);

// One target's mutations, over its decoded scenario.
class ScenarioMutator {
 public:
  virtual ~ScenarioMutator() = default;
  virtual std::size_t kind_count() const = 0;
  virtual std::string_view kind_name(std::size_t kind) const = 0;
  // Kind `kind` applied once to the scenario `in` decodes to: the canonical encoding of the
  // result, or nothing when the kind does not apply to this scenario or left it unchanged.
  virtual std::optional<ByteVector> apply(std::size_t kind, Bytes in, Rng &rng) const = 0;
  // A child scenario made of parts of both parents (canonical), or nothing.
  virtual std::optional<ByteVector> cross(Bytes a, Bytes b, Rng &rng) const = 0;
  virtual ByteVector canonical(Bytes in) const = 0;  // encode(decode(in))
  virtual bool same_scenario(Bytes a, Bytes b) const = 0;
};

// The mutator of target `name` (grad_replace_fuzzer, gradients_api_fuzzer,
// ops_differential_fuzzer, op_args_fuzzer), or nullptr for a target without one.
const ScenarioMutator *scenario_mutator_for(std::string_view name);

// What one custom_mutate call did (for the unit test and the hooks' statistics).
struct MutateReport {
  bool byte_fallback = false;
  std::optional<std::size_t> kind;  // the structural kind applied
};

// LLVMFuzzerCustomMutator: data holds size bytes in a buffer of max_size; returns the new size
// (<= max_size).
std::size_t custom_mutate(const ScenarioMutator *m, Mode mode, std::uint8_t *data, std::size_t size,
                          std::size_t max_size, unsigned int seed, const ByteMutator &bytes,
                          MutateReport *report = nullptr);
// LLVMFuzzerCustomCrossOver: writes at most max_out bytes to out, returns how many.
std::size_t custom_cross_over(const ScenarioMutator *m, Mode mode, Bytes a, Bytes b, std::uint8_t *out,
                              std::size_t max_out, unsigned int seed);
// The byte splice (a prefix of a, a suffix of b) of mode Bytes, and the fallback of Scenario.
std::size_t byte_splice(Bytes a, Bytes b, std::uint8_t *out, std::size_t max_out, Rng &rng);

}  // namespace crossgrad::fuzz::mutate
