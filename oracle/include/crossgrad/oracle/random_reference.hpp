#pragma once
// The oracle's own float_random (docs/OPS.md "Creation"), written from the documented formula and
// not from the engine's sampler: SplitMix64 from its published constants, the C library's log and
// cos for Box-Muller (the engine writes them as series: Normal samples are compared within a
// bound, the others bit for bit).
#include <crossgrad/core/dtype.hpp>
#include <crossgrad/core/random.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace crossgrad::oracle {

struct RandomReference {
  std::optional<std::string> panic_message;  // the distribution has no values: the exact message
  std::vector<double> values;                // else element i, rounded to the dtype
  double tolerance = 0;                      // |engine - reference| allowed per element (Normal)
};

// `op` is the calling function's name in the message ("float_random").
RandomReference reference_random(std::size_t count, const Distribution& distribution, std::uint64_t seed, DType dtype,
                                 const std::string& op = "float_random");

}  // namespace crossgrad::oracle
