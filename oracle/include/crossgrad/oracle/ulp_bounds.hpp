#pragma once
// Note [One table of ulp bounds]
// How far every backend's kernel of an element-wise float op may land from the correctly rounded
// result, in ulps of the result's dtype: the distance between the two values counted in
// representable numbers (0: the correctly rounded value itself; 1: a neighbour). It is the one
// statement of each op's accuracy: the accuracy properties measure every available backend against
// an MPFR value over the op's whole argument range (properties/ulp_accuracy_props.cpp), bound_for
// derives its relative bound for these ops from it (numeric.cpp), docs/OPS.md's "Accuracy in ulps"
// table must say the same (OpAccuracyDocs, tests/unit/ulp_bounds_docs_test.cpp) and the kernels'
// comments quote it (Flex's kernels in static_asserts, kMathUlps). The values are the largest of the
// backends' libraries: glibc's libm on the CPU backends (and Flex's vectorised expf, Note [Flex
// vectorised expf], and SLEEF's u10 functions, Note [Flex transcendental kernels on SLEEF]), CUDA's documented maximum
// errors of its device functions (CUDA C++ Programming Guide, "Mathematical Functions") on Cuda.
//
// The switch over OpId has no default (-Werror=switch-enum): a new registry op fails the build
// until it says whether it is such an op and what it keeps.
#include <crossgrad/core/dtype.hpp>
#include <crossgrad/ops/op_list.hpp>

#include <optional>

namespace crossgrad::oracle {

struct UlpBound {
  double f32 = 0;
  double f64 = 0;
  double of(DType dtype) const { return dtype == DType::F64 ? f64 : f32; }
};

// The bound of `op`, or nullopt when `op` is not an element-wise op on one float tensor (binary
// ops, reductions, layout, comparisons, conversions).
std::optional<UlpBound> ulp_bound(OpId op);

}  // namespace crossgrad::oracle
