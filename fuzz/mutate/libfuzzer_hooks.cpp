// libFuzzer's custom mutator and crossover for the target CROSSGRAD_FUZZ_TARGET: linked only into
// the -fsanitize=fuzzer executables (fuzz/CMakeLists.txt), never into the replay executables, which
// have no LLVMFuzzerMutate. The mode (CROSSGRAD_FUZZ_MUTATOR=bytes|scenario, else the target's
// default_mode) is read once; the
// logic is in scenario_mutator.cpp (unit-tested in the default build).
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "entry/loop_clock.hpp"
#include "mutate/scenario_mutator.hpp"

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t *data, std::size_t size, std::size_t max_size);

namespace {
using namespace crossgrad::fuzz::mutate;

struct Setup {
  const ScenarioMutator *mutator = scenario_mutator_for(CROSSGRAD_FUZZ_TARGET);
  Mode mode = mode_from_env(CROSSGRAD_FUZZ_TARGET);
  Setup() {
    const bool is_default = mode == default_mode(CROSSGRAD_FUZZ_TARGET);
    std::fprintf(stderr, "crossgrad-fuzz: mutator %s%s\n",
                 mutator == nullptr ? "bytes (no schema mutator for this target)"
                 : mode == Mode::Bytes ? "bytes (byte-level; CROSSGRAD_FUZZ_MUTATOR=scenario for structure-aware)"
                                       : "scenario (structure-aware, 1 in 4 calls byte-level; CROSSGRAD_FUZZ_MUTATOR=bytes for byte-level)",
                 mutator == nullptr ? "" : is_default ? ", this target's default" : ", set by CROSSGRAD_FUZZ_MUTATOR");
  }
};
const Setup &setup() {
  static const Setup s;
  return s;
}
}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t *data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  const Setup &s = setup();
  const crossgrad::fuzz::loop_clock::Span timed(crossgrad::fuzz::loop_clock::totals.mutation);
  return custom_mutate(s.mutator, s.mode, data, size, max_size, seed, &LLVMFuzzerMutate);
}

extern "C" std::size_t LLVMFuzzerCustomCrossOver(const std::uint8_t *data1, std::size_t size1,
                                                 const std::uint8_t *data2, std::size_t size2, std::uint8_t *out,
                                                 std::size_t max_out_size, unsigned int seed) {
  const Setup &s = setup();
  const crossgrad::fuzz::loop_clock::Span timed(crossgrad::fuzz::loop_clock::totals.mutation);
  return custom_cross_over(s.mutator, s.mode, Bytes(data1, size1), Bytes(data2, size2), out, max_out_size, seed);
}
