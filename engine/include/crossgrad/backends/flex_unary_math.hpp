#pragma once
// The Flex kernel table's one-argument math functions beyond exp, log, log1p, tanh and sigmoid, by
// their libm names: the trigonometric, hyperbolic and error functions behind Flex::float_<name>.
// One list gives the index (UnaryMath), the portable table's libm loops, the AVX2 table's SLEEF
// entries and the tests' rows. A header of its own, with nothing but the list, because sleef_shim.cpp
// (compiled with -mavx2) includes it and must not emit any inline function (that file says why).
#include <cstddef>

namespace crossgrad::backends::flex {

#define CROSSGRAD_FLEX_UNARY_MATH(X) \
  X(sin) X(cos) X(tan) X(asin) X(acos) X(atan) X(sinh) X(cosh) X(asinh) X(acosh) X(atanh) X(erf)

enum class UnaryMath : std::size_t {
#define CROSSGRAD_FLEX_UNARY_MATH_ENUM(name) name,
  CROSSGRAD_FLEX_UNARY_MATH(CROSSGRAD_FLEX_UNARY_MATH_ENUM)
#undef CROSSGRAD_FLEX_UNARY_MATH_ENUM
};
#define CROSSGRAD_FLEX_UNARY_MATH_ONE(name) +1
inline constexpr std::size_t kUnaryMathOps = 0 CROSSGRAD_FLEX_UNARY_MATH(CROSSGRAD_FLEX_UNARY_MATH_ONE);
#undef CROSSGRAD_FLEX_UNARY_MATH_ONE

}  // namespace crossgrad::backends::flex
