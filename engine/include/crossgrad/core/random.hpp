#pragma once
// The values of float_random (Burn's FloatTensorOps::float_random): a Distribution of Burn's four
// kinds, sampled by a counter-based generator from a seed the caller gives, so that a seed means
// the same tensor, bit for bit, on every backend, thread count and machine (a corpus input or a
// counterexample with a random tensor replays as itself). docs/OPS.md, "Creation".
#include <crossgrad/core/dtype.hpp>
#include <crossgrad/core/shape.hpp>
#include <crossgrad/core/tensor_data.hpp>

#include <cstdint>
#include <string>

namespace crossgrad {

struct Distribution {
  enum class Kind { Default, Bernoulli, Uniform, Normal };
  Kind kind = Kind::Default;
  double a = 0;  // Bernoulli: p; Uniform: low; Normal: mean
  double b = 0;  // Uniform: high; Normal: standard deviation

  static Distribution standard() { return {}; }  // uniform in [0, 1)
  static Distribution bernoulli(double p) { return {Kind::Bernoulli, p, 0}; }
  static Distribution uniform(double low, double high) { return {Kind::Uniform, low, high}; }
  static Distribution normal(double mean, double std) { return {Kind::Normal, mean, std}; }

  // "Default", "Bernoulli(0.25)", "Uniform(-1, 1)", "Normal(0, 2)": Burn's Debug form, for messages.
  std::string to_string() const;
};

// Element i of `shape` (row-major) from the 64-bit word SplitMix64(seed + (i + 1) * golden) (two
// words, 2i and 2i + 1, for Normal); the arithmetic after it is IEEE double +, -, *, / and sqrt
// only, no C library call, so no platform's libm changes a bit. Panics random-distribution for a
// distribution without values (Bernoulli p outside [0, 1]; Uniform not low < high, both finite,
// high - low finite; Normal mean or std not finite, or std < 0), unsupported-dtype for a
// non-float dtype, tensor-too-large for a shape past memory; `op` names the caller in them.
TensorData random_data(const Shape& shape, const Distribution& distribution, std::uint64_t seed, DType dtype,
                       const char* op = "float_random");

}  // namespace crossgrad
