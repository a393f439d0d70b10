#include "mutate/scenario_mutator.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "mutate/scenario_targets.hpp"

namespace crossgrad::fuzz::mutate {

Mode default_mode(std::string_view target) {
  return target == "ops_differential_fuzzer" || target == "gradients_api_fuzzer" || target == "grad_replace_fuzzer" ||
                 target == "op_args_fuzzer"
             ? Mode::Scenario
             : Mode::Bytes;
}

Mode mode_from_env(std::string_view target) {
  const Mode fallback = default_mode(target);
  const char *v = std::getenv("CROSSGRAD_FUZZ_MUTATOR");
  if (v == nullptr || *v == '\0') return fallback;
  const std::string s(v);
  if (s == "bytes") return Mode::Bytes;
  if (s == "scenario") return Mode::Scenario;
  std::fprintf(stderr, "crossgrad-fuzz: CROSSGRAD_FUZZ_MUTATOR=%s is neither 'bytes' nor 'scenario'; using %s\n", v,
               fallback == Mode::Bytes ? "bytes" : "scenario");
  return fallback;
}

const ScenarioMutator *scenario_mutator_for(std::string_view name) {
  if (name == "grad_replace_fuzzer") return &grad_replace_mutator();
  if (name == "gradients_api_fuzzer") return &gradients_api_mutator();
  if (name == "ops_differential_fuzzer") return &ops_differential_mutator();
  if (name == "op_args_fuzzer") return &op_args_mutator();
  return nullptr;
}

std::size_t custom_mutate(const ScenarioMutator *m, Mode mode, std::uint8_t *data, std::size_t size,
                          std::size_t max_size, unsigned int seed, const ByteMutator &bytes, MutateReport *report) {
  MutateReport local;
  MutateReport &r = report != nullptr ? *report : local;
  r = MutateReport{};
  Rng rng(seed);
  const auto fallback = [&] {
    r.byte_fallback = true;
    return bytes(data, size, max_size);
  };
  if (m == nullptr || mode == Mode::Bytes || rng.chance(1, kByteShare)) return fallback();
  try {
    const Bytes in(data, size);
    for (std::size_t t = 0; t < kTries; ++t) {
      const std::size_t kind = rng.below(m->kind_count());
      const std::optional<ByteVector> out = m->apply(kind, in, rng);
      if (!out || out->empty() || out->size() > max_size) continue;
      std::memcpy(data, out->data(), out->size());
      r.kind = kind;
      return out->size();
    }
  } catch (const std::exception &) {
    // an input the decoder cannot take: the bytes are mutated as bytes
  }
  return fallback();
}

std::size_t byte_splice(Bytes a, Bytes b, std::uint8_t *out, std::size_t max_out, Rng &rng) {
  const std::size_t cut = std::min(rng.below(a.size() + 1), max_out);
  const std::size_t from = rng.below(b.size() + 1);
  const std::size_t tail = std::min(b.size() - from, max_out - cut);
  if (cut) std::memcpy(out, a.data(), cut);
  if (tail) std::memcpy(out + cut, b.data() + from, tail);
  return cut + tail;
}

std::size_t custom_cross_over(const ScenarioMutator *m, Mode mode, Bytes a, Bytes b, std::uint8_t *out,
                              std::size_t max_out, unsigned int seed) {
  Rng rng(seed);
  if (m != nullptr && mode == Mode::Scenario) {
    try {
      const std::optional<ByteVector> child = m->cross(a, b, rng);
      if (child && !child->empty() && child->size() <= max_out) {
        std::memcpy(out, child->data(), child->size());
        return child->size();
      }
    } catch (const std::exception &) {
    }
  }
  return byte_splice(a, b, out, max_out, rng);
}

}  // namespace crossgrad::fuzz::mutate
