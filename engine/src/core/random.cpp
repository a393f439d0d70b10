// float_random's values (core/random.hpp): a counter-based generator and IEEE arithmetic only.
#include <crossgrad/core/panic.hpp>
#include <crossgrad/core/random.hpp>
#include <crossgrad/core/shape_rules.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <vector>

namespace crossgrad {
namespace {

constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

// SplitMix64's output function: a bijection of the counter with full avalanche, so neighbouring
// counters give unrelated words (Steele, Lea and Flood, "Fast splittable pseudorandom number
// generators", 2014).
std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
std::uint64_t word(std::uint64_t seed, std::uint64_t counter) { return mix(seed + (counter + 1) * kGolden); }

// In [0, 1) with 53 random bits: exact in double.
double unit(std::uint64_t w) { return static_cast<double>(w >> 11) * 0x1p-53; }

// ln(x) for finite x > 0 from +, -, *, / only: x = m 2^e with m in [sqrt(1/2), sqrt(2)), ln m =
// 2 atanh(s) with s = (m - 1) / (m + 1), |s| < 0.172, summed to s^29 (the next term is below
// 2^-70 of the sum). Within a few ulps of the true value; the same bits everywhere.
double ln(double x) {
  int e = 0;
  double m = std::frexp(x, &e);  // exact: m in [0.5, 1)
  if (m < 0.70710678118654752) {
    m *= 2;
    --e;
  }
  const double s = (m - 1) / (m + 1), s2 = s * s;
  double term = s, sum = 0;
  for (int k = 1; k <= 29; k += 2) {
    sum += term / k;
    term *= s2;
  }
  return 2 * sum + e * 0.69314718055994531;
}

// cos(2 pi u) for u in [0, 1): the quarter turn q = floor(4u) is exact, the rest f = 4u - q in
// [0, 1) becomes the angle f pi / 2 in [0, pi / 2), where sin and cos are their Taylor series to
// the 27th / 26th power (the next terms are below 2^-70); then cos(q pi/2 + a) by the quadrant.
double cos_turn(double u) {
  const double v = 4 * u;
  const int q = static_cast<int>(v);
  const double a = (v - q) * 1.5707963267948966, a2 = a * a;
  double c = 0, s = 0, tc = 1, ts = a;
  for (int k = 0; k < 14; ++k) {
    c += tc;
    s += ts;
    tc *= -a2 / ((2 * k + 1) * (2 * k + 2));
    ts *= -a2 / ((2 * k + 2) * (2 * k + 3));
  }
  switch (q & 3) {
    case 0: return c;
    case 1: return -s;
    case 2: return -c;
    default: return s;
  }
}

bool valid(const Distribution& d) {
  switch (d.kind) {
    case Distribution::Kind::Default: return true;
    case Distribution::Kind::Bernoulli: return d.a >= 0 && d.a <= 1;
    case Distribution::Kind::Uniform: return std::isfinite(d.a) && std::isfinite(d.b) && d.a < d.b && std::isfinite(d.b - d.a);
    case Distribution::Kind::Normal: return std::isfinite(d.a) && std::isfinite(d.b) && d.b >= 0;
  }
  return false;
}

// The sample in double, then rounded once to T. Uniform samples that round up to `high` (F32, or
// low + (high - low) u rounding up) take the largest T below it: the interval stays [low, high).
template <class T>
T sample(const Distribution& d, std::uint64_t seed, std::uint64_t i) {
  switch (d.kind) {
    case Distribution::Kind::Default:
    case Distribution::Kind::Uniform: {
      const double low = d.kind == Distribution::Kind::Default ? 0.0 : d.a;
      const double high = d.kind == Distribution::Kind::Default ? 1.0 : d.b;
      const T v = static_cast<T>(low + (high - low) * unit(word(seed, i)));
      if (static_cast<double>(v) < high) return v;
      T below = static_cast<T>(high);
      while (static_cast<double>(below) >= high) below = std::nextafter(below, -std::numeric_limits<T>::infinity());
      return below;
    }
    case Distribution::Kind::Bernoulli: return unit(word(seed, i)) < d.a ? T(1) : T(0);
    case Distribution::Kind::Normal: {
      // Box-Muller: r = sqrt(-2 ln(1 - u1)) with 1 - u1 in (0, 1], times cos(2 pi u2).
      const double u1 = unit(word(seed, 2 * i)), u2 = unit(word(seed, 2 * i + 1));
      const double r = std::sqrt(-2 * ln(1 - u1));
      return static_cast<T>(d.a + d.b * (r * cos_turn(u2)));
    }
  }
  return T(0);
}

std::string number(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

}  // namespace

std::string Distribution::to_string() const {
  switch (kind) {
    case Kind::Default: return "Default";
    case Kind::Bernoulli: return "Bernoulli(" + number(a) + ")";
    case Kind::Uniform: return "Uniform(" + number(a) + ", " + number(b) + ")";
    case Kind::Normal: return "Normal(" + number(a) + ", " + number(b) + ")";
  }
  return "Default";
}

TensorData random_data(const Shape& shape, const Distribution& distribution, std::uint64_t seed, DType dtype,
                       const char* op) {
  rules::check_float_dtype(dtype, op);
  if (!valid(distribution)) {
    panic(PanicId::RandomDistribution, {{"op", op}, {"distribution", distribution.to_string()}});
  }
  checked_tensor_bytes(shape, dtype);
  const std::size_t n = shape.num_elements();
  if (dtype == DType::F32) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = sample<float>(distribution, seed, i);
    return TensorData::from_f32(std::move(v), shape);
  }
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = sample<double>(distribution, seed, i);
  return TensorData::from_f64(std::move(v), shape);
}

}  // namespace crossgrad
