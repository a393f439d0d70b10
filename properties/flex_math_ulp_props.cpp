// Flex's transcendental kernels (exp, log, log1p, tanh, sigmoid, pow, and the trigonometric,
// hyperbolic and error functions of the UnaryMath list) at the edges of their argument
// ranges, against MPFR's correctly rounded value (oracle/mpfr), on both kernel tables called
// directly: the portable table (libm loops) and, on a CPU with AVX2, the AVX2 table (SLEEF's vector
// functions with libm lanes around them, Note [Flex transcendental kernels on SLEEF]). The op-level
// sweep (ulp_accuracy_props.cpp) measures only the table in use; this one measures both, at the
// points where each kernel switches between SLEEF and libm, where SLEEF changes branch (tanh's
// saturation, log1p's overflow), at the overflow and underflow thresholds, subnormals, and the
// specials. Checked for every element:
//   - within the oracle's ulp bound for the op (ulp_bound), which is what the kernels promise;
//   - at NaN, ±inf and ±0 the AVX2 table gives the portable table's (glibc's) bits, NaN as a class:
//     docs/OPS.md's edges (log(-0) = -inf, tanh(-0) = -0, sigmoid(-inf) = 0, pow's C99 cases);
//   - its value alone (a one-element call, the padded tail) and in place (in == out) are the bits
//     it gets inside the whole array: an element's result does not depend on where a range starts.
#include "gen/op_cases.hpp"

#include <crossgrad/backends/flex_testing.hpp>
#include <crossgrad/oracle/correctly_rounded.hpp>
#include <crossgrad/oracle/ulp_bounds.hpp>
#include <crossgrad/ops/op_list.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

using namespace crossgrad;
namespace og = crossgrad::oracle;
namespace flex = crossgrad::backends::flex;
using crossgrad::properties::gen::show;

namespace {

// The ops of the table's UnaryMath entries, by the same list: UnaryMath::f is Flex::float_f.
#define CROSSGRAD_UNARY_MATH_OP(name) OpId::float_##name,
constexpr OpId kUnaryMathOps[] = {CROSSGRAD_FLEX_UNARY_MATH(CROSSGRAD_UNARY_MATH_OP)};
constexpr OpId kMathOps[] = {OpId::float_exp, OpId::float_log, OpId::float_log1p, OpId::float_tanh,
                             OpId::sigmoid, OpId::float_powf_scalar,
                             CROSSGRAD_FLEX_UNARY_MATH(CROSSGRAD_UNARY_MATH_OP)};
#undef CROSSGRAD_UNARY_MATH_OP

// The UnaryMath entry of `op`, or none.
int unary_math_index(OpId op) {
  for (std::size_t f = 0; f < flex::kUnaryMathOps; ++f)
    if (kUnaryMathOps[f] == op) return static_cast<int>(f);
  return -1;
}

template <class T>
void run_kernel(const flex::TypedKernels<T>& k, OpId op, T p, const T* in, T* out, std::size_t n) {
  if (const int f = unary_math_index(op); f >= 0) k.unary_math[f](in, out, n);
  else if (op == OpId::float_exp) k.exp(in, out, n);
  else if (op == OpId::float_log) k.log(in, out, n);
  else if (op == OpId::float_log1p) k.log1p(in, out, n);
  else if (op == OpId::float_tanh) k.tanh(in, out, n);
  else if (op == OpId::sigmoid) k.sigmoid(in, out, n);
  else k.powf(in, p, out, n);
}

template <class T>
T step(T v, int ulps) {
  for (int i = 0; i < std::abs(ulps); ++i) v = std::nextafter(v, ulps < 0 ? -INFINITY : INFINITY);
  return v;
}

// The edges of `op` in T, each with its neighbours 3 ulps either side, both signs.
template <class T>
std::vector<T> edges(OpId op) {
  using lim = std::numeric_limits<T>;
  const bool f32 = sizeof(T) == 4;
  const double eps = f32 ? 0x1p-23 : 0x1p-52;
  // Every op: the specials, subnormals, the normal range's ends, 1 and small integers.
  std::vector<double> t{0,    lim::denorm_min(), 4 * lim::denorm_min(), lim::min() / 2, lim::min(),
                        lim::max(), 0.5, 1,    2,    3,   10,   1e-8, std::numbers::ln2, 0x1p-24, 0x1p-53};
  const double ln_max = f32 ? 88.72283905206835 : 709.782712893384;       // exp overflows above
  const double ln_min = f32 ? -87.33654475055310 : -708.3964185322641;    // exp subnormal below
  const double ln_tiny = f32 ? -103.97207708399179 : -745.1332191019411;  // exp is 0 below
  const double stands_lo = f32 ? 87 : 708, stands_hi = f32 ? 88 : 709;    // the SLEEF lanes' ends
  if (op == OpId::float_exp) {
    t.insert(t.end(), {ln_max, ln_min, ln_tiny, stands_lo, stands_hi, f32 ? 103.28 : 744.44, 50, 100, 1000});
  } else if (op == OpId::float_log) {
    t.insert(t.end(), {0x1p-130, 0x1p-140, f32 ? 0x1p-149 : 0x1p-1074, f32 ? 0x1.8p-127 : 0x1.8p-1023,
                       std::numbers::sqrt2, 1 / std::numbers::sqrt2, 0.75, 1.5, 1e30, 1e300});
  } else if (op == OpId::float_log1p) {
    t.insert(t.end(), {1e38, 1e307, 3e38, f32 ? 0x1p-126 : 0x1p-1022, 0.25, std::numbers::sqrt2 - 1, 1e10,
                       1 - 0x1p-24, 1 - 0x1p-53});  // near -1 from the negative copies
  } else if (op == OpId::float_tanh) {
    t.insert(t.end(), {0.5 * std::log(8 / eps), 8.664339742, 18.714973875, 9, 19, 22, 0.55, 0x1p-12, 0x1p-28,
                       100, 1e30});
  } else if (op == OpId::sigmoid) {
    t.insert(t.end(), {stands_lo, stands_hi, -ln_min, -ln_tiny, std::log(4 / eps), 20, 40, 100, 1000, 1e30,
                       ln_max});
  } else if (op == OpId::float_sin || op == OpId::float_cos || op == OpId::float_tan) {
    // Near the zeros and poles, the large arguments the reduction must handle, and SLEEF's
    // documented range (1e28 F32, 1e299 F64), where the lanes switch to libm.
    const double pi = std::numbers::pi;
    t.insert(t.end(), {pi / 4, pi / 2, pi, 3 * pi / 2, 2 * pi, 10 * pi, 100 * pi + pi / 2, 0x1p-12, 0x1p-28, 1e5,
                       1e10, 1e22, 1e27, 1e28, 1e29, 0x1p100, 1e298, 1e299, 1e300, 22, 355, 103993});
  } else if (op == OpId::float_asin || op == OpId::float_acos || op == OpId::float_atanh) {
    t.insert(t.end(), {1 - eps, 1 - 0.5 * eps, 1 + eps, 0.25, 0.75, 0.9, 0.99, 0.999999, 0x1p-12, 0x1p-28});
  } else if (op == OpId::float_atan || op == OpId::float_erf) {
    // erf reaches 1 near 3.92 (F32) and 5.93 (F64).
    t.insert(t.end(), {0x1p-12, 0x1p-28, 0.75, 1.5, 3.9, 3.92, 4, 5.9, 5.93, 6, 27, 1e10, 1e30, 1e300});
  } else if (op == OpId::float_sinh || op == OpId::float_cosh) {
    // SLEEF's range ends at 88.5 (F32) and 709 (F64); sinh and cosh overflow at 89.4 and 710.5.
    t.insert(t.end(), {0x1p-12, 0x1p-28, 0.75, 9, 20, 88.5, 88.7, 89.41, 89.42, 90, 709, 710.47, 710.48, 1000});
  } else if (op == OpId::float_asinh || op == OpId::float_acosh) {
    // SLEEF's ranges end at 1.84e19 (F32) and 1.34e154 (F64); acosh's domain starts at 1.
    t.insert(t.end(), {1 + eps, 1 + 4 * eps, 1.5, 0x1p-12, 0x1p-28, 1e10, 1.84e19, 1.85e19, 1e20, 1e38,
                       1.34e154, 1.35e154, 1e200, 1e300});
  } else {
    t.insert(t.end(), {1.5, 0x1p20, 0x1p64, 0x1p-20, 0x1p-64, 1e10, 1e-10, 0.999, 1.001, 16, 100});
  }
  std::vector<T> out;
  for (double v : t) {
    if (std::fabs(v) > lim::max()) continue;
    for (int k = -3; k <= 3; ++k) {
      const T s = step(static_cast<T>(v), k);
      out.push_back(s);
      out.push_back(-s);
    }
  }
  out.insert(out.end(), {lim::infinity(), -lim::infinity(), lim::quiet_NaN(), -lim::quiet_NaN()});
  return out;
}

std::vector<double> exponents(OpId op) {
  if (op != OpId::float_powf_scalar) return {0};
  return {2, 3, 0.5, -1, -2.5, 1.0 / 3, 7, -3, 0, 1, 127, -0.5, 0.1, INFINITY, -INFINITY};
}

template <class T>
bool same_bits(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::bit_cast<std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>(a) ==
         std::bit_cast<std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>(b);
}

const flex::TypedKernels<float>& typed(const flex::KernelTable& t, float) { return t.f32; }
const flex::TypedKernels<double>& typed(const flex::KernelTable& t, double) { return t.f64; }

template <class T>
void check_table(const flex::KernelTable& table, OpId op) {
  const DType dtype = sizeof(T) == 4 ? DType::F32 : DType::F64;
  const flex::TypedKernels<T>& k = typed(table, T{});
  const flex::TypedKernels<T>& portable = typed(flex::portable_kernels(), T{});
  const double bound = og::ulp_bound(op)->of(dtype);
  const std::vector<T> xs = edges<T>(op);
  for (double p : exponents(op)) {
    const T pt = static_cast<T>(p);
    std::vector<T> got(xs.size()), libm(xs.size());
    run_kernel(k, op, pt, xs.data(), got.data(), xs.size());
    run_kernel(portable, op, pt, xs.data(), libm.data(), xs.size());
    std::vector<T> in_place = xs;
    run_kernel(k, op, pt, in_place.data(), in_place.data(), in_place.size());
    const std::string where = std::string(op_info(op).name) + " " + std::string(dtype_name(dtype)) + " on the " +
                              table.isa + " table (" + table.math + ")" +
                              (op == OpId::float_powf_scalar ? " exponent " + show(p) : "");
    double worst = 0, worst_x = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const T x = xs[i];
      const double want = *og::correctly_rounded(op, x, og::ElementArgs{p, 0, 0}, dtype);
      const double d = og::ulp_distance(got[i], want, dtype);
      if (d > worst) worst = d, worst_x = x;
      EXPECT_LE(d, bound) << where << ": " << d << " ulp at x = " << show(x) << ": got " << show(got[i])
                          << ", correctly rounded " << show(want);
      if (std::isnan(x) || std::isinf(x) || x == 0) {
        EXPECT_TRUE(same_bits(got[i], libm[i])) << where << " at x = " << show(x) << ": got " << show(got[i])
                                                << ", libm " << show(libm[i]);
      }
      T alone;
      run_kernel(k, op, pt, &x, &alone, 1);
      EXPECT_TRUE(same_bits(alone, got[i])) << where << " at x = " << show(x) << ": alone " << show(alone)
                                            << ", in the array " << show(got[i]);
      EXPECT_TRUE(same_bits(in_place[i], got[i])) << where << " at x = " << show(x) << ": in place "
                                                  << show(in_place[i]) << ", into another buffer " << show(got[i]);
    }
    std::printf("[ulps] %s: worst %g ulp (bound %g)%s\n", where.c_str(), worst, bound,
                worst > 0 ? (" at x = " + show(worst_x)).c_str() : "");
  }
}

std::vector<const flex::KernelTable*> tables() {
  std::vector<const flex::KernelTable*> out{&flex::portable_kernels()};
  if (flex::cpu_has_avx2_fma()) out.push_back(&flex::avx2_kernels());
  return out;
}

class FlexMathUlp : public ::testing::TestWithParam<OpId> {};

TEST_P(FlexMathUlp, EdgesWithinTheOpsUlpBoundOnBothTables) {
  for (const flex::KernelTable* table : tables()) {
    check_table<float>(*table, GetParam());
    check_table<double>(*table, GetParam());
  }
}

INSTANTIATE_TEST_SUITE_P(FlexKernels, FlexMathUlp, ::testing::ValuesIn(kMathOps),
                         [](const ::testing::TestParamInfo<OpId>& info) { return std::string(op_info(info.param).name); });

// kMathUlps is what the kernels promise (kernels_avx2_math.cpp's static_asserts): the oracle's.
TEST(FlexMathUlpBounds, AreTheOraclesBounds) {
  const std::pair<OpId, flex::KernelUlps> rows[] = {
      {OpId::float_exp, flex::kMathUlps.exp},     {OpId::float_log, flex::kMathUlps.log},
      {OpId::float_log1p, flex::kMathUlps.log1p}, {OpId::float_tanh, flex::kMathUlps.tanh},
      {OpId::sigmoid, flex::kMathUlps.sigmoid},   {OpId::float_powf_scalar, flex::kMathUlps.powf}};
  for (const auto& [op, ulps] : rows) {
    const auto bound = og::ulp_bound(op);
    ASSERT_TRUE(bound.has_value()) << op_info(op).name;
    EXPECT_EQ(ulps.f32, bound->f32) << op_info(op).name;
    EXPECT_EQ(ulps.f64, bound->f64) << op_info(op).name;
  }
}

}  // namespace
