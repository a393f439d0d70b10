#include "data.hpp"

#include <algorithm>

namespace crossgrad::sizes {
namespace {

// splitmix64: a fixed, platform-independent sequence (std:: distributions are not).
std::uint64_t next(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<double> dyadic_values(std::size_t n, std::uint64_t seed, Values kind) {
  std::uint64_t state = seed * 0x2545F4914F6CDD1Dull + 1;
  std::vector<double> v(n);
  for (double& x : v) {
    const std::uint64_t r = next(state);
    switch (kind) {
      case Values::Signed: x = (static_cast<double>(r % 65) - 32.0) / 8.0; break;
      case Values::Positive: x = static_cast<double>(r % 64 + 1) / 8.0; break;
      case Values::NonZero: {
        const double mag = static_cast<double>(r % 32 + 1) / 8.0;
        x = (r >> 32) & 1 ? mag : -mag;
        break;
      }
    }
  }
  return v;
}

std::vector<double> rounding_values(std::size_t n, std::uint64_t seed, DType dtype) {
  std::uint64_t state = seed * 0x9E3779B97F4A7C15ull + 3;
  std::vector<double> v(n);
  for (double& x : v) {
    const double unit = static_cast<double>(next(state) >> 11) * 0x1.0p-53;  // [0, 1)
    x = 8.0 * unit - 4.0;
    if (dtype == DType::F32) x = static_cast<double>(static_cast<float>(x));
  }
  return v;
}

TensorData float_data(const std::vector<double>& values, const std::vector<std::size_t>& shape, DType dtype) {
  if (dtype == DType::F64) return TensorData::from_f64(values, Shape(shape));
  return TensorData::from_f32(std::vector<float>(values.begin(), values.end()), Shape(shape));
}

std::vector<std::size_t> sample_positions(std::size_t n, std::size_t stride, std::uint64_t seed) {
  std::vector<std::size_t> at;
  if (n == 0) return at;
  for (std::size_t i : {std::size_t{0}, std::size_t{1}, n - 2, n - 1}) at.push_back(i);
  if (stride > 0) {
    for (std::size_t m = stride, count = 0; m < n && count < 64; m += stride, ++count) {
      at.push_back(m - 1);
      at.push_back(m);
    }
  }
  std::uint64_t state = seed + 77;
  for (int i = 0; i < 48; ++i) at.push_back(next(state) % n);
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  while (!at.empty() && at.back() >= n) at.pop_back();
  return at;
}

}  // namespace crossgrad::sizes
