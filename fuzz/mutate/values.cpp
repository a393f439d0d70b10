#include "mutate/values.hpp"

#include <bit>
#include <cstdint>

#include "decode/specs.hpp"

namespace crossgrad::fuzz::mutate {
namespace {

// The codebook (decode/specs.hpp): 0..239 small exact values (code - 120) / 8, 240..255 specials.
constexpr std::size_t kCodes = 256;
constexpr std::size_t kFirstSpecial = 240;
constexpr std::size_t kZeroCode = 120;

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

}  // namespace

std::size_t other_than(Rng &rng, std::size_t old, std::size_t n) {
  if (n <= 1) return 0;
  const std::size_t v = rng.below(n - 1);
  return v >= old % n ? v + 1 : v;
}

double mutated_value(Rng &rng, double old) {
  const std::size_t code = value_code(old);
  std::size_t next = code;
  switch (rng.below(6)) {
    case 0:
    case 1:
    case 2:  // specials are where the bugs are: NaN, +-inf, -0, huge, tiny (denormal in F32)
      next = kFirstSpecial + rng.below(kCodes - kFirstSpecial);
      break;
    case 3:  // a neighbour
      next = code < kFirstSpecial ? (rng.chance(1, 2) ? code + 1 : code + kFirstSpecial - 1) % kFirstSpecial
                                  : kZeroCode + rng.below(17);
      break;
    case 4:  // negated, or +0
      next = code < kFirstSpecial ? (2 * kZeroCode - code) % kFirstSpecial : kZeroCode;
      break;
    default:
      next = rng.below(kFirstSpecial);
      break;
  }
  double v = value_of_code(next);
  if (same_bits(v, old)) v = value_of_code(other_than(rng, code, kCodes));
  return v;
}

bool mutate_values(Rng &rng, std::vector<double> &values, std::size_t elements) {
  if (elements == 0) return false;
  if (values.size() != elements) {  // the fill: become explicit, small values or one special
    values.assign(elements, 0.0);
    for (double &v : values) v = value_of_code(kZeroCode - 8 + rng.below(17));
    if (rng.chance(1, 2)) values[rng.below(elements)] = mutated_value(rng, 0.0);
    return true;
  }
  switch (rng.below(8)) {
    case 0: {  // every element one special
      const double s = mutated_value(rng, values[0]);
      for (double &v : values) v = s;
      return true;
    }
    case 1:
      values.clear();  // back to the deterministic fill
      return true;
    default: {
      double &v = values[rng.below(elements)];
      v = mutated_value(rng, v);
      return true;
    }
  }
}

bool mutate_shape(Rng &rng, std::vector<std::size_t> &dims, std::size_t max_rank, std::size_t dim_choices) {
  const std::size_t op = rng.below(4);
  if ((op == 0 || dims.empty()) && dims.size() < max_rank) {  // insert a dim (often 1: broadcasting)
    const std::size_t d = rng.chance(1, 3) ? 1 : rng.below(dim_choices);
    dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(rng.below(dims.size() + 1)), d);
    return true;
  }
  if (dims.empty()) return false;
  const std::size_t at = rng.below(dims.size());
  if (op == 1) {
    dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(at));
    return true;
  }
  if (op == 2) {  // 0 and 1 are the edge sizes
    dims[at] = dims[at] == 1 ? 0 : 1;
    return true;
  }
  dims[at] = other_than(rng, dims[at], dim_choices);
  return true;
}

}  // namespace crossgrad::fuzz::mutate
