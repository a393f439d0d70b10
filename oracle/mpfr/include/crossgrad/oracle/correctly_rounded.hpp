#pragma once
// Correctly rounded values of the element-wise float ops, from MPFR (Note [One table of ulp
// bounds]): the yardstick of the accuracy properties. Independent of the engine: each op's
// mathematical definition (docs/OPS.md "Op semantics") evaluated with 256-bit MPFR arithmetic and
// rounded once to the dtype (round to nearest, ties to even, subnormals and overflow included).
// A separate library (crossgrad_correctly_rounded) so that only the tests need MPFR: the oracle
// that the fuzz targets link does not.
#include <crossgrad/core/dtype.hpp>
#include <crossgrad/ops/op_list.hpp>

#include <cstdint>
#include <optional>

namespace crossgrad::oracle {

// The arguments an element-wise op takes besides its element, as the op receives them (doubles);
// each is rounded to the dtype first, as every backend does (docs/OPS.md "Scalar arguments").
struct ElementArgs {
  double scalar = 0;  // Scalar ops
  double min = 0;     // float_clamp
  double max = 0;
};

// op(x) correctly rounded to `dtype` (F32 or F64; x is a value of that dtype), or nullopt when `op`
// is not an op of the ulp table (ulp_bound(op) is nullopt). NaN where the op's value is NaN.
std::optional<double> correctly_rounded(OpId op, double x, const ElementArgs& args, DType dtype);

// The distance from got to want in representable values of `dtype`: 0 when they are equal (any NaN
// equals any NaN), 1 for neighbours (-0 and +0 are neighbours: a zero of the wrong sign is off by
// one), infinity when exactly one is NaN. The infinities follow the largest finite values.
double ulp_distance(double got, double want, DType dtype);

}  // namespace crossgrad::oracle
