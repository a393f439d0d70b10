#pragma once
// The mutator's only source of randomness: one generator seeded from libFuzzer's Seed argument, so
// a mutation is a pure function of (input, max size, seed) and a run replays exactly.
#include <cstddef>
#include <cstdint>
#include <random>

namespace crossgrad::fuzz::mutate {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : gen_(seed) {}
  // Uniform in [0, n); 0 when n == 0.
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(gen_() % n); }
  // True with probability num / den.
  bool chance(std::size_t num, std::size_t den) { return below(den) < num; }
  std::uint64_t next() { return gen_(); }

 private:
  std::mt19937_64 gen_;
};

}  // namespace crossgrad::fuzz::mutate
