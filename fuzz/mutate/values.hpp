#pragma once
// Value-level mutations shared by every scenario: data values (through the decoder's one-byte value
// codebook, decode/specs.hpp, so every value written is one the schema can store: small exact
// values and the specials NaN, +-inf, -0, huge, tiny/denormal), shapes, and choices in a range.
#include <cstddef>
#include <vector>

#include "mutate/rng.hpp"

namespace crossgrad::fuzz::mutate {

// A new value for `old`: a special (NaN, +-inf, +-0, huge, tiny) about half the time, else a
// nearby code, a negation or any small exact value.
double mutated_value(Rng &rng, double old);
// Changes `values` (one per element of a tensor of `elements` elements): empty (the deterministic
// fill) becomes explicit; else one element changes, all become one special, or back to the fill.
// False when nothing could change.
bool mutate_values(Rng &rng, std::vector<double> &values, std::size_t elements);
// One dim changed, inserted or removed (rank <= max_rank, each dim < dim_choices).
bool mutate_shape(Rng &rng, std::vector<std::size_t> &dims, std::size_t max_rank, std::size_t dim_choices);
// A value in [0, n) other than `old` (when n > 1).
std::size_t other_than(Rng &rng, std::size_t old, std::size_t n);

}  // namespace crossgrad::fuzz::mutate
