#pragma once
// Deterministic inputs for the size tests. Values are dyadic: multiples of 1/8 of magnitude at
// most 8, so F32 holds them exactly, products are multiples of 1/64 and every partial sum the
// size tests can form stays exactly representable (see check.hpp): sums and products then have
// one right answer whatever the order of accumulation, and a kernel that drops, repeats or
// misplaces a single term is caught exactly.
#include <crossgrad/backends/registry.hpp>
#include <crossgrad/core/tensor_data.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace crossgrad::sizes {

enum class Values {
  Signed,    // [-4, 4], zero included
  Positive,  // (0, 8]: log, sqrt, pow
  NonZero,   // [-4, -1/8] and [1/8, 4]: divisors
};
inline constexpr double kMaxSigned = 4.0;

std::vector<double> dyadic_values(std::size_t n, std::uint64_t seed, Values kind = Values::Signed);
// Uniform in [-4, 4) with full significands, rounded to `dtype`: sums of these round at every
// step, so they show how (in which precision) a kernel accumulates.
std::vector<double> rounding_values(std::size_t n, std::uint64_t seed, DType dtype);

// F32 or F64 data of `shape` holding `values` (exactly, they are dyadic).
TensorData float_data(const std::vector<double>& values, const std::vector<std::size_t>& shape, DType dtype);

template <class B>
typename B::Tensor upload(const TensorData& data) {
  return B::from_data(data, B::default_device());
}

// Positions to check against an independent formula: both ends, both sides of every multiple of
// `stride` (a grain, a block) up to 64 of them, and 48 seeded positions. Sorted, distinct, < n.
std::vector<std::size_t> sample_positions(std::size_t n, std::size_t stride, std::uint64_t seed);

}  // namespace crossgrad::sizes
