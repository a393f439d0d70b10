#pragma once
// The two comparisons of the size tests:
//  - every backend other than NdArray, under each of its execution configurations (exec.hpp),
//    against NdArray's result, with oracle::compare_values (NaN/inf/±0 classes) and a bound;
//  - NdArray itself against an independent formula written in the test, at sample positions.
//
// Bounds: ops the oracle calls exact are compared bit for bit, library functions within
// oracle::bound_for. Accumulations (sums, products) get an exact bound when the inputs make
// every summation order exact — dyadic terms (data.hpp) whose partial sums all fit the
// accumulator's significand — and oracle::bound_for otherwise. NdArray and Flex document their
// accumulators (sums in double, GEMM in the tensor's dtype); another backend is assumed to
// accumulate in the tensor's dtype.
#include "data.hpp"
#include "exec.hpp"

#include <crossgrad/oracle/numeric.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <source_location>
#include <string>
#include <vector>

namespace crossgrad::sizes {

using oracle::Bound;
using oracle::Op;

// v rounded to the dtype (F32 or F64).
double to_dtype(double v, DType dtype);

Bound exact_bound();
// Library functions (exp, log, tanh, sigmoid, pow): the oracle's per-op bound.
Bound library_bound(Op op, DType dtype);

// `terms` terms per output, each a multiple of `resolution` with |term| <= max_term, accumulated
// in `accumulator`: exact when terms * max_term fits the accumulator's significand at that
// resolution, else oracle::bound_for(op, dtype, terms, max_term).
Bound accumulation_bound(Op op, DType dtype, DType accumulator, std::size_t terms, double max_term,
                         double resolution);

// The bound for a CPU backend with a documented accumulator (NdArray, Flex) and for any other.
struct Bounds {
  Bound host;
  Bound other;
};
inline Bounds same_bound(const Bound& b) { return {b, b}; }
// Sums and means: host backends accumulate in double.
Bounds sum_bounds(Op op, DType dtype, std::size_t terms);
// Sums and means of values that round (rounding_values), where the accumulator matters: NdArray
// and Flex document double accumulation, so two orders differ by at most 2 n eps_F64 sum|x|
// before the one final rounding to the dtype (1 ulp either way); any other backend gets the
// oracle's bound. A kernel that accumulates F32 in float misses this bound at these sizes.
Bounds double_accumulation_bounds(Op op, DType dtype, std::size_t terms, double sum_abs, double max_abs);
// Matrix products: host backends accumulate in the tensor's dtype; terms are products of two
// Signed values.
Bounds matmul_bounds(DType dtype, std::size_t k);

// Fills released host blocks of this size with 0xFF bytes (NaN as floats, -1 as int8, an invalid
// bool) so that an output element a kernel forgets to write cannot keep the right value left there
// by the previous backend's run of the same op: HostBuffer hands released blocks out again (Note
// [Host buffer cache]), and so does malloc. Called before every compared run.
void scrub_released_blocks(const Shape& shape, DType dtype);

// Reports a comparison failure at the caller's line.
void report(const std::string& message, const std::source_location& where);

// `run` is a generic lambda []<class B>() -> TensorData computing the op on backend B. NdArray's
// result is `reference`; every other available backend runs under each execution configuration.
template <class Run>
void expect_backends_match(const std::string& what, const TensorData& reference, const Run& run,
                           const Bounds& bounds,
                           std::source_location where = std::source_location::current()) {
  for_each_backend([&]<class B>() {
    if constexpr (!std::is_same_v<B, backends::NdArray>) {
      if (!B::is_available()) return;
      const bool host = B::default_device() == Device::cpu();
      for (const ExecConfig& config : exec_configs<B>()) {
        std::string label = what + " on " + std::string(B::name) + config.describe();
        TensorData got = [&] {
          scrub_released_blocks(reference.shape(), reference.dtype());
          ScopedExec scope(config);
          return run.template operator()<B>();
        }();
        if (auto diff = oracle::compare_values(reference, got, host ? bounds.host : bounds.other, label)) {
          report(*diff, where);
        }
      }
    }
  });
}

// NdArray's `actual` at `positions` (flat indices) against formula(position), which returns the
// expected value already rounded to the dtype.
void expect_samples(const std::string& what, const TensorData& actual, const std::vector<std::size_t>& positions,
                    const std::function<double(std::size_t)>& formula, const Bound& bound,
                    std::source_location where = std::source_location::current());

}  // namespace crossgrad::sizes
