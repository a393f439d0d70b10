// Accuracy in ulps of every element-wise float op (Note [One table of ulp bounds]), on every
// available backend, against MPFR's correctly rounded value (oracle/mpfr): each op of the table
// over its whole argument range in F32 and F64 — every binade from the smallest subnormal to the
// largest finite value, both signs, several mantissas per binade — plus the edges of its branches
// and argument reductions (2 ulps either side) and the specials. The relative bounds of bound_for
// cannot see a kernel that loses all accuracy for tiny arguments (log1p(x) as log(1 + x) is 0 below
// 2^-24 in F32; its absolute floor absorbs that): an ulp count against the correctly rounded value
// does, at every magnitude.
//
// A deterministic sweep, not random cases: the point is to cover every binade every run. One test
// per registry op that the table gives a bound (its exhaustive switch makes a new op say whether it
// has one), so a new element-wise op is measured with no edit here.
#include "gen/op_cases.hpp"
#include "support/op_call.hpp"

#include <crossgrad/crossgrad.hpp>
#include <crossgrad/oracle/correctly_rounded.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/ulp_bounds.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

using namespace crossgrad;
namespace og = crossgrad::oracle;

namespace {

double round_to(DType d, double v) { return d == DType::F32 ? static_cast<double>(static_cast<float>(v)) : v; }

double step(DType d, double v, int ulps) {
  for (int i = 0; i < std::abs(ulps); ++i) {
    v = d == DType::F32 ? static_cast<double>(std::nextafter(static_cast<float>(v), ulps < 0 ? -INFINITY : INFINITY))
                        : std::nextafter(v, ulps < 0 ? -INFINITY : INFINITY);
  }
  return v;
}

// Every binade of `d` from the smallest subnormal to the largest finite value, both signs: 1,
// 1.5, the largest mantissa and pseudo-random ones (a fixed LCG: the same sweep every run).
std::vector<double> binade_sweep(DType d) {
  const bool f32 = d == DType::F32;
  const int lo = f32 ? -149 : -1074, hi = f32 ? 127 : 1023;
  const int random_per_binade = f32 ? 4 : 1;
  std::uint64_t state = 0x9E3779B97F4A7C15ULL;
  std::vector<double> out;
  for (int e = lo; e <= hi; ++e) {
    std::vector<double> mantissas{1.0, 1.5, 2.0 - (f32 ? 0x1p-23 : 0x1p-52)};
    for (int r = 0; r < random_per_binade; ++r) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      mantissas.push_back(1.0 + static_cast<double>(state >> 11) * 0x1p-53);
    }
    for (double m : mantissas) {
      const double v = round_to(d, std::ldexp(m, e));
      out.push_back(v);
      out.push_back(-v);
    }
  }
  return out;
}

// The thresholds of each op's branches and argument reductions (docs/OPS.md, the kernels' notes),
// each with its neighbours 2 ulps either side.
std::vector<double> edges(OpId op, DType d) {
  const bool f32 = d == DType::F32;
  const double ln_max = f32 ? 88.72283905206835 : 709.782712893384;
  const double ln_min = f32 ? -87.33654475055310 : -708.3964185322641;
  const double ln_tiny = f32 ? -103.27892990343185 : -744.4400719213812;
  const double ln_half_tiny = f32 ? -103.97207708399179 : -745.1332191019411;
  std::vector<double> t{0.5, 1, 2, 10, std::numbers::ln2, 1e-8, -1e-8, 1e-30, -1e-30};
  // An if-chain: only these ops have thresholds of their own; every op gets the common ones above.
  if (op == OpId::float_exp) {
    t.insert(t.end(), {ln_max, ln_min, ln_tiny, ln_half_tiny, -87, 88, -ln_max, 0.5 * std::numbers::ln2, 1.5 * std::numbers::ln2});
    for (int k = -120; k <= 120; k += 7) t.push_back(k * std::numbers::ln2 + 0.5 * std::numbers::ln2);
  } else if (op == OpId::sigmoid) {
    const double eps = f32 ? 0x1p-23 : 0x1p-52;
    t.insert(t.end(), {-ln_max, ln_min, ln_half_tiny, std::log(4 / eps), 0, -0.0, 20, -20, 40, -40});
  } else if (op == OpId::float_tanh) {
    const double eps = f32 ? 0x1p-23 : 0x1p-52;
    t.insert(t.end(), {0.5 * std::log(8 / eps), -0.5 * std::log(8 / eps), 0.55, -0.55, 1, -1, 22, -22, 0x1p-12, 0x1p-28});
  } else if (op == OpId::float_log || op == OpId::float_sqrt) {
    t.insert(t.end(), {1, 0.75, 1.5, std::numbers::sqrt2, 1 / std::numbers::sqrt2, f32 ? 0x1p-126 : 0x1p-1022});
  } else if (op == OpId::float_log1p) {
    t.insert(t.end(), {-1, -0.5, -0.25, 0.5, std::numbers::sqrt2 - 1, 0x1p-24, 0x1p-53, -0x1p-24, 0x1p-60});
  } else if (op == OpId::float_cos || op == OpId::float_sin || op == OpId::float_tan) {
    // Multiples of pi / 4 (argument reduction's boundaries and the zeros and poles), and large
    // arguments whose reduction needs many bits of pi.
    for (int k = -16; k <= 16; ++k) t.push_back(k * std::numbers::pi / 4);
    t.insert(t.end(), {1e5, -1e5, 1e22, 105414350, 0x1p-12, 0x1p-27, 0x1p+24, 0x1p+53});
  } else if (op == OpId::float_cosh || op == OpId::float_sinh) {
    t.insert(t.end(), {ln_max, -ln_max, ln_max + std::numbers::ln2, -(ln_max + std::numbers::ln2), 22, -22, 0x1p-12, 0x1p-28, 0.5, -0.5});
  } else if (op == OpId::float_acos || op == OpId::float_asin || op == OpId::float_atanh || op == OpId::float_atan) {
    t.insert(t.end(), {1, -1, 0.5, -0.5, 0.125, -0.125, 0.9375, -0.9375, 0.999, -0.999, 0x1p-12, 0x1p-28, 7.0 / 16, 11.0 / 16, 19.0 / 16, 39.0 / 16});
  } else if (op == OpId::float_acosh || op == OpId::float_asinh) {
    t.insert(t.end(), {1, 1.0001, 1.5, 2, -2, 0x1p+28, -0x1p+28, 0x1p-28, 0.5, -0.5});
  } else if (op == OpId::log_sigmoid) {
    // exp(-|x|) from 1 down to its underflow, where the result turns into x (below 0) or -0 (above).
    t.insert(t.end(), {-1, -20, -40, 17, 20, 40, 88, -88, 700, -700, ln_max, -ln_max, ln_tiny, -ln_tiny, 0x1p-24, -0x1p-24, 0x1p-60});
  } else if (op == OpId::gelu) {
    // erfc's tail for x < 0 down to the underflow of the result, and x = sqrt 2 (the slope's peak).
    t.insert(t.end(), {-3, -5, -8, -10, -13, -14, -20, -26, -27, -37, -38, -39, -40, 3, 5, 8, std::numbers::sqrt2, 0x1p-24, 0x1p-60});
  } else if (op == OpId::float_erf) {
    t.insert(t.end(), {0.84375, -0.84375, 1.25, -1.25, 2.857, 3.9, -3.9, 4, 6, -6, 5.9, 0x1p-28, 0x1p-14});
  } else if (op == OpId::float_round || op == OpId::float_floor || op == OpId::float_ceil || op == OpId::float_trunc) {
    // Ties and the ends of the fractional range: the rounding's decisions.
    t.insert(t.end(), {0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.25, -0.25, f32 ? 0x1p+23 : 0x1p+52, f32 ? -0x1p+23 : -0x1p+52,
                       f32 ? 0x1p+23 + 0.5 : 0x1p+52 + 0.5, 3, -3});
  }
  std::vector<double> out;
  for (double v : t) {
    for (int k = -2; k <= 2; ++k) out.push_back(step(d, round_to(d, v), k));
  }
  return out;
}

std::vector<double> specials(DType d) {
  const bool f32 = d == DType::F32;
  const double max = f32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
  const double tiny = f32 ? std::numeric_limits<float>::denorm_min() : std::numeric_limits<double>::denorm_min();
  return {0.0, -0.0, INFINITY, -INFINITY, NAN, max, -max, tiny, -tiny, 1, -1};
}

// The arguments each op of the table is measured with, besides its element: scalars F32 cannot
// hold (0.1, 1e-50, 3e38, 2^24 + 1) among them, since the ops round them to the dtype first.
std::vector<og::ElementArgs> arguments_of(OpId op) {
  const OpSig sig = op_info(op).sig;
  if (sig == OpSig::Scalar) {
    std::vector<double> scalars{0.1, -3, 1e-50, 3e38, 16777217};
    if (op == OpId::float_powf_scalar) scalars = {2, 3, 0.5, -1, -2.5, 1.0 / 3, 0.1, 7};
    // Division by +-0 and +-inf; the clamps' zero, infinite and NaN bounds (NaN: NaN everywhere).
    if (op == OpId::float_div_scalar || op == OpId::float_sub_scalar || op == OpId::float_clamp_min ||
        op == OpId::float_clamp_max || op == OpId::float_remainder_scalar) {
      scalars.insert(scalars.end(), {0.0, -0.0, INFINITY, -INFINITY, NAN});
    }
    std::vector<og::ElementArgs> out;
    for (double s : scalars) out.push_back({s, 0, 0});
    return out;
  }
  if (sig == OpSig::Bounds) return {{0, -1, 2}, {0, 0.1, 0.7}, {0, -INFINITY, 0}, {0, 1e-50, 3e38}};
  return {{}};
}

struct Worst {
  double ulps = 0;
  double x = 0;
  double got = 0;
  double want = 0;
};

using crossgrad::properties::gen::show;  // 17 digits, gen/op_cases.hpp

std::string describe(const og::ElementArgs& a, OpId op) {
  const OpSig sig = op_info(op).sig;
  if (sig == OpSig::Scalar) return " scalar " + show(a.scalar);
  if (sig == OpSig::Bounds) return " min " + show(a.min) + " max " + show(a.max);
  return "";
}

class UlpAccuracy : public ::testing::TestWithParam<OpId> {};

TEST_P(UlpAccuracy, WithinTheOpsUlpBoundOverItsWholeRangeOnEveryBackend) {
  const OpId op = GetParam();
  const auto bound = og::ulp_bound(op);
  ASSERT_TRUE(bound.has_value());
  for (DType dtype : {DType::F32, DType::F64}) {
    std::vector<double> xs = binade_sweep(dtype);
    for (double v : edges(op, dtype)) xs.push_back(v);
    for (double v : specials(dtype)) xs.push_back(v);
    for (const og::ElementArgs& args : arguments_of(op)) {
      std::vector<double> want(xs.size());
      for (std::size_t i = 0; i < xs.size(); ++i) want[i] = *og::correctly_rounded(op, xs[i], args, dtype);
      og::OpArgs op_args;
      op_args.scalar = args.scalar;
      op_args.min = args.min;
      op_args.max = args.max;
      for (const og::BackendRef& b : og::available_backends()) {
        const DispatchTensor t = crossgrad::properties::upload(og::HostArray{{xs.size()}, dtype, xs}, b.index, false);
        const std::vector<double> got = crossgrad::properties::values_of(OpKind::Float, crossgrad::properties::call_op(op, {t}, op_args));
        ASSERT_EQ(got.size(), xs.size());
        Worst worst;
        for (std::size_t i = 0; i < xs.size(); ++i) {
          const double d = og::ulp_distance(got[i], want[i], dtype);
          if (d > worst.ulps) worst = {d, xs[i], got[i], want[i]};
        }
        const std::string where = std::string(op_info(op).name) + " " + std::string(dtype_name(dtype)) + " on " + b.name + describe(args, op);
        // The measured worst case, for the table's record (docs/OPS.md "Accuracy in ulps").
        std::printf("[ulps] %s: worst %g ulp (bound %g)%s\n", where.c_str(), worst.ulps, bound->of(dtype),
                    worst.ulps > 0 ? (" at x = " + show(worst.x)).c_str() : "");
        EXPECT_LE(worst.ulps, bound->of(dtype))
            << where << ": " << worst.ulps << " ulp from the correctly rounded value at x = " << show(worst.x) << ": got "
            << show(worst.got) << ", correctly rounded " << show(worst.want);
      }
    }
  }
}

// The registry ops the table gives a bound.
std::vector<OpId> element_wise_ops() {
  std::vector<OpId> ids;
  for (const OpInfo& op : kOps) {
    if (og::ulp_bound(op.id)) ids.push_back(op.id);
  }
  return ids;
}

INSTANTIATE_TEST_SUITE_P(EveryElementWiseOp, UlpAccuracy, ::testing::ValuesIn(element_wise_ops()),
                         [](const ::testing::TestParamInfo<OpId>& info) { return std::string(op_info(info.param).name); });

}  // namespace
