// The oracle's float_random (random_reference.hpp).
#include <crossgrad/oracle/random_reference.hpp>

#include <cmath>
#include <limits>
#include <sstream>

namespace crossgrad::oracle {
namespace {

std::uint64_t splitmix64(std::uint64_t state) {
  std::uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
// u(i) = (w(i) >> 11) 2^-53 with w(i) = SplitMix64(seed + (i + 1) * 0x9e3779b97f4a7c15).
double u(std::uint64_t seed, std::uint64_t i) {
  return std::ldexp(static_cast<double>(splitmix64(seed + (i + 1) * 0x9e3779b97f4a7c15ULL) >> 11), -53);
}

std::string shown(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

std::string render(const Distribution& d) {
  switch (d.kind) {
    case Distribution::Kind::Default: return "Default";
    case Distribution::Kind::Bernoulli: return "Bernoulli(" + shown(d.a) + ")";
    case Distribution::Kind::Uniform: return "Uniform(" + shown(d.a) + ", " + shown(d.b) + ")";
    case Distribution::Kind::Normal: return "Normal(" + shown(d.a) + ", " + shown(d.b) + ")";
  }
  return "?";
}

bool has_values(const Distribution& d) {
  const auto finite = [](double v) { return std::isfinite(v); };
  switch (d.kind) {
    case Distribution::Kind::Default: return true;
    case Distribution::Kind::Bernoulli: return 0 <= d.a && d.a <= 1;  // false for NaN
    case Distribution::Kind::Uniform: return finite(d.a) && finite(d.b) && d.a < d.b && finite(d.b - d.a);
    case Distribution::Kind::Normal: return finite(d.a) && finite(d.b) && d.b >= 0;
  }
  return false;
}

// x rounded to the dtype; a uniform sample at or above `high` is the dtype's largest value below it.
double in_dtype(DType dtype, double x) { return dtype == DType::F32 ? static_cast<double>(static_cast<float>(x)) : x; }
double below(DType dtype, double high) {
  double v = in_dtype(dtype, high);
  while (v >= high) {
    v = dtype == DType::F32 ? static_cast<double>(std::nextafter(static_cast<float>(v), -std::numeric_limits<float>::infinity()))
                            : std::nextafter(v, -std::numeric_limits<double>::infinity());
  }
  return v;
}

}  // namespace

RandomReference reference_random(std::size_t count, const Distribution& d, std::uint64_t seed, DType dtype,
                                 const std::string& op) {
  RandomReference r;
  if (!has_values(d)) {
    r.panic_message = op + " cannot sample " + render(d) + ".";
    return r;
  }
  r.values.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    switch (d.kind) {
      case Distribution::Kind::Default:
      case Distribution::Kind::Uniform: {
        const double low = d.kind == Distribution::Kind::Default ? 0.0 : d.a;
        const double high = d.kind == Distribution::Kind::Default ? 1.0 : d.b;
        const double v = in_dtype(dtype, low + (high - low) * u(seed, i));
        r.values[i] = v < high ? v : below(dtype, high);
        break;
      }
      case Distribution::Kind::Bernoulli: r.values[i] = u(seed, i) < d.a ? 1.0 : 0.0; break;
      case Distribution::Kind::Normal: {
        const double radius = std::sqrt(-2.0 * std::log(1.0 - u(seed, 2 * i)));
        const double z = radius * std::cos(2.0 * 3.14159265358979323846 * u(seed, 2 * i + 1));
        r.values[i] = in_dtype(dtype, d.a + d.b * z);
        break;
      }
    }
  }
  // Normal: the engine's series log and cos are within a few ulps of the library's, and
  // cos(2 pi u) against cos of the quarter-turn reduction differs by the rounding of 2 pi u:
  // bounded by 1e-13 of |std * z| (|z| < 9 for u >= 2^-53) plus the dtype's rounding of the sum.
  if (d.kind == Distribution::Kind::Normal) {
    const double eps = dtype == DType::F32 ? 0x1p-23 : 0x1p-52;
    r.tolerance = 1e-13 * std::fabs(d.b) * 9 + 2 * eps * (std::fabs(d.a) + 9 * std::fabs(d.b));
  }
  return r;
}

}  // namespace crossgrad::oracle
