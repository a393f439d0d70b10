// Flex, the optimised CPU backend: every op against values worked out by hand, and against naive
// loops written here at sizes that cross SIMD widths, tiles and thread thresholds (1, 7, 8, 9,
// 1023, 100003, ...), with both kernel tables (AVX2/FMA when the CPU has it, and portable).
#include <crossgrad/backends/flex.hpp>
#include <crossgrad/core/panic.hpp>

// Flex internals (kernel table choice, thread pool): tested here, not engine API.
#include <crossgrad/backends/flex_testing.hpp>
#include <crossgrad/backends/flex_tuning.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using crossgrad::Device;
using crossgrad::DType;
using crossgrad::Panic;
using crossgrad::PanicId;
using crossgrad::Shape;
using crossgrad::TensorData;
using crossgrad::backends::Flex;
using T = Flex::Tensor;
namespace flex = crossgrad::backends::flex;

T f32(std::vector<float> v, Shape s) {
  return Flex::from_data(TensorData::from_f32(std::move(v), std::move(s)), Device::cpu());
}
T f64(std::vector<double> v, Shape s) {
  return Flex::from_data(TensorData::from_f64(std::move(v), std::move(s)), Device::cpu());
}
std::vector<float> vals32(const T& t) { return Flex::into_data(t).to_f32(); }
std::vector<double> vals64(const T& t) { return Flex::into_data(t).to_f64(); }

std::vector<float> random_floats(std::size_t n, unsigned seed, float lo = -4, float hi = 4) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}
std::vector<double> random_doubles(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-4, 4);
  std::vector<double> v(n);
  for (double& x : v) x = dist(rng);
  return v;
}

void expect_panic(const std::function<void()>& fn, PanicId id, const std::string& message = {}) {
  try {
    fn();
  } catch (const Panic& p) {
    EXPECT_EQ(p.id(), id) << p.message();
    if (!message.empty()) {
      EXPECT_EQ(p.message(), message);
    }
    return;
  }
  ADD_FAILURE() << "expected a panic";
}

template <class F>
bool same_bits(F a, F b) {
  if constexpr (sizeof(F) == 4) return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
  else return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

// Runs each test body once per kernel table.
class FlexBothIsas : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { flex::force_portable_kernels(GetParam()); }
  void TearDown() override { flex::force_portable_kernels(false); }
};
INSTANTIATE_TEST_SUITE_P(Isa, FlexBothIsas, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Portable" : "Native"; });

const std::size_t kSizes[] = {1, 7, 8, 9, 15, 16, 17, 1023, 100003};

// ---- data -------------------------------------------------------------------------------------

TEST(FlexData, OtherDevicesPanic) {
  const std::string msg = "Device Cuda(0) of backend Flex is not available: Flex runs on the CPU only.";
  expect_panic([] { Flex::from_data(TensorData::from_f32({1}, {1}), Device::cuda(0)); },
               PanicId::DeviceUnavailable, msg);
  expect_panic([] { Flex::float_to_device(f32({1}, {1}), Device::cuda(0)); }, PanicId::DeviceUnavailable, msg);
  expect_panic([] { Flex::float_full({2}, 1.0, DType::F32, Device::cuda(0)); }, PanicId::DeviceUnavailable, msg);
  EXPECT_EQ(vals32(Flex::float_to_device(f32({1, 2}, {2}), Device::cpu())), (std::vector<float>{1, 2}));
}

TEST(FlexData, FullAndCast) {
  EXPECT_EQ(vals32(Flex::float_full({2, 2}, 0.5, DType::F32, Device::cpu())), (std::vector<float>(4, 0.5f)));
  EXPECT_EQ(vals64(Flex::float_full({}, -3, DType::F64, Device::cpu())), (std::vector<double>{-3}));
  const T big = Flex::float_full({100003}, 2.0, DType::F64, Device::cpu());
  EXPECT_EQ(vals64(big), std::vector<double>(100003, 2.0));
  const T c = Flex::float_cast(f64({0.1, 1e300, -2}, {3}), DType::F32);
  EXPECT_EQ(Flex::dtype(c), DType::F32);
  EXPECT_EQ(vals32(c), (std::vector<float>{0.1f, std::numeric_limits<float>::infinity(), -2.0f}));
  EXPECT_EQ(vals64(Flex::float_cast(f32({0.5f}, {1}), DType::F64)), (std::vector<double>{0.5}));
  expect_panic([] { Flex::float_cast(f32({1}, {1}), DType::I32); }, PanicId::UnsupportedDtype,
               "DType I32 is not supported by float_cast.");
  expect_panic([] { Flex::float_full({1}, 1, DType::I64, Device::cpu()); }, PanicId::UnsupportedDtype);
}

TEST(FlexData, GreaterScalarAndBoolIntoFloat) {
  const T g = Flex::float_greater_scalar(f32({-1, 0, 2, NAN}, {4}), 0.0);
  EXPECT_EQ(Flex::dtype(g), DType::Bool);
  EXPECT_EQ(Flex::into_data(g).to_bool(), (std::vector<bool>{false, false, true, false}));
  EXPECT_EQ(vals64(Flex::bool_into_float(g, DType::F64)), (std::vector<double>{0, 0, 1, 0}));
  expect_panic([] { Flex::bool_into_float(f32({1}, {1}), DType::F32); }, PanicId::UnsupportedDtype,
               "DType F32 is not supported by bool_into_float.");
}

// ---- element-wise -----------------------------------------------------------------------------

TEST(FlexElementwise, HandValuesWithBroadcasting) {
  const T a = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(vals32(Flex::float_add(a, f32({10, 20, 30}, {3}))), (std::vector<float>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(vals32(Flex::float_sub(a, f32({1, 2}, {2, 1}))), (std::vector<float>{0, 1, 2, 2, 3, 4}));
  EXPECT_EQ(vals32(Flex::float_mul(f32({2}, {}), a)), (std::vector<float>{2, 4, 6, 8, 10, 12}));
  EXPECT_EQ(vals32(Flex::float_div(a, f32({2}, {1}))), (std::vector<float>{0.5f, 1, 1.5f, 2, 2.5f, 3}));
  const T outer = Flex::float_mul(f32({1, 2}, {2, 1}), f32({3, 4, 5}, {1, 3}));
  EXPECT_EQ(Flex::shape(outer), (Shape{2, 3}));
  EXPECT_EQ(vals32(outer), (std::vector<float>{3, 4, 5, 6, 8, 10}));
  const T scalar = Flex::float_add(f64({1.5}, {}), f64({2}, {}));
  EXPECT_EQ(Flex::shape(scalar), Shape{});
  EXPECT_EQ(vals64(scalar), (std::vector<double>{3.5}));
  const T empty = Flex::float_add(f32({}, {0, 3}), f32({1, 2, 3}, {3}));
  EXPECT_EQ(Flex::shape(empty), (Shape{0, 3}));
}

TEST(FlexElementwise, Panics) {
  expect_panic([] { Flex::float_add(f32({1, 2}, {2}), f32({1, 2, 3}, {3})); }, PanicId::BroadcastMismatch);
  expect_panic([] { Flex::float_add(f32({1}, {1}), f64({1}, {1})); }, PanicId::DtypeMismatch);
  const T ints = Flex::from_data(TensorData::from_i64({1}, {1}), Device::cpu());
  expect_panic([&] { Flex::float_exp(ints); }, PanicId::UnsupportedDtype,
               "DType I64 is not supported by float_exp.");
  expect_panic([&] { Flex::float_add(ints, ints); }, PanicId::UnsupportedDtype,
               "DType I64 is not supported by float_add.");
}

// Naive broadcast reference: out[i] for shapes given as 4-D [a, b, c, d] with 1s for broadcast.
template <class F>
std::vector<F> naive_broadcast(const std::vector<F>& x, const std::vector<std::size_t>& xs,
                               const std::vector<F>& y, const std::vector<std::size_t>& ys,
                               const std::vector<std::size_t>& os, F (*op)(F, F)) {
  std::vector<F> out;
  for (std::size_t i0 = 0; i0 < os[0]; ++i0)
    for (std::size_t i1 = 0; i1 < os[1]; ++i1)
      for (std::size_t i2 = 0; i2 < os[2]; ++i2) {
        auto at = [&](const std::vector<F>& v, const std::vector<std::size_t>& s) {
          const std::size_t j0 = s[0] == 1 ? 0 : i0, j1 = s[1] == 1 ? 0 : i1, j2 = s[2] == 1 ? 0 : i2;
          return v[(j0 * s[1] + j1) * s[2] + j2];
        };
        out.push_back(op(at(x, xs), at(y, ys)));
      }
  return out;
}

TEST_P(FlexBothIsas, BinaryOpsAreBitExactAgainstNaiveLoops) {
  using Op = float (*)(float, float);
  const Op ops[] = {[](float a, float b) { return a + b; }, [](float a, float b) { return a - b; },
                    [](float a, float b) { return a * b; }, [](float a, float b) { return a / b; }};
  using FlexOp = T (*)(const T&, const T&);
  const FlexOp flex_ops[] = {Flex::float_add, Flex::float_sub, Flex::float_mul, Flex::float_div};
  for (std::size_t n : kSizes) {
    const auto x = random_floats(n, 1), y = random_floats(n, 2, 0.5f, 3);
    for (std::size_t o = 0; o < 4; ++o) {
      const auto got = vals32(flex_ops[o](f32(x, {n}), f32(y, {n})));
      const auto vs = vals32(flex_ops[o](f32(x, {n}), f32({y[0]}, {1})));
      const auto sv = vals32(flex_ops[o](f32({x[0]}, {}), f32(y, {n})));
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_TRUE(same_bits(got[i], ops[o](x[i], y[i]))) << "n=" << n << " op=" << o << " i=" << i;
        ASSERT_TRUE(same_bits(vs[i], ops[o](x[i], y[0])));
        ASSERT_TRUE(same_bits(sv[i], ops[o](x[0], y[i])));
      }
    }
  }
  // Mixed broadcasts across several dims, large enough to be threaded.
  const std::vector<std::vector<std::size_t>> cases[] = {
      {{300, 1, 7}, {1, 257, 1}, {300, 257, 7}},
      {{1, 1, 9}, {1023, 3, 9}, {1023, 3, 9}},
      {{5, 1023, 1}, {5, 1023, 17}, {5, 1023, 17}},
      {{1, 400, 300}, {2, 1, 300}, {2, 400, 300}},
  };
  for (const auto& c : cases) {
    const std::size_t nx = c[0][0] * c[0][1] * c[0][2], ny = c[1][0] * c[1][1] * c[1][2];
    const auto x = random_floats(nx, 3), y = random_floats(ny, 4, 0.5f, 3);
    for (std::size_t o = 0; o < 4; ++o) {
      const auto want = naive_broadcast(x, c[0], y, c[1], c[2], ops[o]);
      const auto got = vals32(flex_ops[o](f32(x, Shape(c[0])), f32(y, Shape(c[1]))));
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t i = 0; i < want.size(); ++i) ASSERT_TRUE(same_bits(got[i], want[i])) << i;
    }
  }
}

TEST_P(FlexBothIsas, DoubleBinaryOpsAreBitExact) {
  for (std::size_t n : kSizes) {
    const auto x = random_doubles(n, 5), y = random_doubles(n, 6);
    const auto sum = vals64(Flex::float_add(f64(x, {n}), f64(y, {n})));
    const auto quo = vals64(Flex::float_div(f64(x, {n}), f64({y[0]}, {1})));
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(same_bits(sum[i], x[i] + y[i]));
      ASSERT_TRUE(same_bits(quo[i], x[i] / y[0]));
    }
  }
}

TEST(FlexUnary, HandValuesAndSpecialCases) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto r = vals32(Flex::relu(f32({-1, 2, nan, -0.0f, 0.0f}, {5})));
  EXPECT_EQ(r[0], 0.0f);
  EXPECT_EQ(r[1], 2.0f);
  EXPECT_TRUE(std::isnan(r[2]));
  EXPECT_TRUE(same_bits(r[3], 0.0f));  // relu(-0.0) = +0.0
  EXPECT_EQ(vals32(Flex::float_neg(f32({1, -2}, {2}))), (std::vector<float>{-1, 2}));
  EXPECT_EQ(vals32(Flex::float_sqrt(f32({4, 9}, {2}))), (std::vector<float>{2, 3}));
  EXPECT_EQ(vals64(Flex::float_exp(f64({0}, {1}))), (std::vector<double>{1}));
  EXPECT_EQ(vals64(Flex::float_log(f64({1}, {1}))), (std::vector<double>{0}));
  EXPECT_EQ(vals32(Flex::sigmoid(f32({0}, {1}))), (std::vector<float>{0.5f}));
  EXPECT_EQ(vals32(Flex::float_tanh(f32({0}, {1}))), (std::vector<float>{0}));
  EXPECT_EQ(vals32(Flex::float_powf_scalar(f32({2, 3}, {2}), 2.0)), (std::vector<float>{4, 9}));
  EXPECT_EQ(vals32(Flex::float_add_scalar(f32({1, 2}, {2}), 0.5)), (std::vector<float>{1.5f, 2.5f}));
  EXPECT_EQ(vals64(Flex::float_mul_scalar(f64({1, 2}, {2}), -2)), (std::vector<double>{-2, -4}));
  const auto e = vals32(Flex::float_exp(f32({nan, INFINITY, -INFINITY, 100, -100, 88.5f, -87.5f, 1}, {8})));
  EXPECT_TRUE(std::isnan(e[0]));
  EXPECT_EQ(e[1], INFINITY);
  EXPECT_EQ(e[2], 0.0f);
  EXPECT_EQ(e[3], INFINITY);
  EXPECT_EQ(e[4], std::exp(-100.0f));
  EXPECT_EQ(e[5], std::exp(88.5f));
  EXPECT_EQ(e[6], std::exp(-87.5f));
}

TEST_P(FlexBothIsas, UnaryOpsMatchNaiveLoops) {
  for (std::size_t n : kSizes) {
    auto x = random_floats(n, 7);
    if (n > 8) x[3] = -0.0f, x[5] = std::numeric_limits<float>::quiet_NaN();
    const T t = f32(x, {n});
    const auto neg = vals32(Flex::float_neg(t)), relu = vals32(Flex::relu(t));
    const auto sq = vals32(Flex::float_sqrt(Flex::relu(t)));
    const auto add = vals32(Flex::float_add_scalar(t, 0.1)), mul = vals32(Flex::float_mul_scalar(t, 0.3));
    const auto ex = vals32(Flex::float_exp(t)), sg = vals32(Flex::sigmoid(t));
    for (std::size_t i = 0; i < n; ++i) {
      const float v = x[i];
      const float rv = v > 0 ? v : (std::isnan(v) ? v : 0.0f);
      ASSERT_TRUE(same_bits(neg[i], -v));
      ASSERT_TRUE(same_bits(relu[i], rv)) << v;
      ASSERT_TRUE(same_bits(sq[i], std::sqrt(rv)));
      ASSERT_TRUE(same_bits(add[i], v + 0.1f));
      ASSERT_TRUE(same_bits(mul[i], v * 0.3f));
      if (std::isnan(v)) {
        ASSERT_TRUE(std::isnan(ex[i]));
        continue;
      }
      const double want = std::exp(static_cast<double>(v));
      ASSERT_NEAR(ex[i], want, want * 2.5e-7) << v;  // <= 2 ulp
      ASSERT_NEAR(sg[i], 1 / (1 + std::exp(-static_cast<double>(v))), 1e-6);
    }
  }
}

// The rounding ops against libm, bit for bit, with F32 and F64: the halves (half to even for
// round), ±0, the smallest subnormals (floor(-tiny) = -1, ceil(-tiny) = -0), the last values with a
// fraction, the first without, ±inf, and NaN as a class, spread so that each lands in a vector lane
// and in the scalar tail at some size.
template <class F>
void expect_rounding_matches_libm() {
  using L = std::numeric_limits<F>;
  const F last_fraction = F(1) / L::epsilon() - F(0.5);  // 2^23 - 0.5 (F32), 2^52 - 0.5 (F64)
  const std::vector<F> specials = {F(0.5), F(1.5), F(2.5), F(-0.5), F(-1.5), F(-2.5), F(0), F(-0.0),
                                   L::denorm_min(), -L::denorm_min(), last_fraction, -last_fraction,
                                   F(2) * last_fraction + F(1), L::max(), -L::max(), L::infinity(),
                                   -L::infinity(), L::quiet_NaN(), F(-0.49999997), F(0.99999994)};
  struct Case {
    const char* name;
    T (*op)(const T&);
    F (*want)(F);
  };
  const Case cases[] = {{"round", Flex::float_round, [](F v) { return std::rint(v); }},
                        {"floor", Flex::float_floor, [](F v) { return std::floor(v); }},
                        {"ceil", Flex::float_ceil, [](F v) { return std::ceil(v); }},
                        {"trunc", Flex::float_trunc, [](F v) { return std::trunc(v); }}};
  std::mt19937 rng(11);
  std::uniform_real_distribution<F> dist(-1000, 1000);
  for (std::size_t n : kSizes) {
    std::vector<F> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = i % 3 == 0 ? specials[(i / 3) % specials.size()] : dist(rng);
    const T t = Flex::from_data(sizeof(F) == 4 ? TensorData::from_f32(std::vector<float>(x.begin(), x.end()), {n})
                                               : TensorData::from_f64(std::vector<double>(x.begin(), x.end()), {n}),
                                Device::cpu());
    for (const Case& c : cases) {
      const auto data = Flex::into_data(c.op(t));
      std::vector<F> got;
      if constexpr (sizeof(F) == 4) got = data.to_f32(); else got = data.to_f64();
      ASSERT_EQ(got.size(), n);
      for (std::size_t i = 0; i < n; ++i) {
        const F want = c.want(x[i]);
        if (std::isnan(want)) ASSERT_TRUE(std::isnan(got[i])) << c.name << " n=" << n << " i=" << i;
        else ASSERT_TRUE(same_bits(got[i], want)) << c.name << "(" << x[i] << ") = " << got[i] << ", libm " << want << " n=" << n;
      }
    }
  }
}

TEST_P(FlexBothIsas, RoundingOpsAreBitIdenticalToLibm) {
  expect_rounding_matches_libm<float>();
  expect_rounding_matches_libm<double>();
}

// Note [Flex vectorised expf]: at most 2 ulp from exp computed in double, over the whole range
// where the polynomial path runs.
TEST_P(FlexBothIsas, ExpIsWithinTwoUlpEverywhere) {
  std::vector<float> x;
  for (float v = -87.0f; v <= 88.0f; v = std::nextafter(v + 1e-3f, 100.0f)) x.push_back(v);
  const auto got = vals32(Flex::float_exp(f32(x, {x.size()})));
  long worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float want = static_cast<float>(std::exp(static_cast<double>(x[i])));
    const long ulps = std::labs(static_cast<long>(std::bit_cast<std::int32_t>(got[i])) -
                                static_cast<long>(std::bit_cast<std::int32_t>(want)));
    worst = std::max(worst, ulps);
  }
  EXPECT_LE(worst, 2);
}

// ---- matmul -----------------------------------------------------------------------------------

template <class F>
std::vector<double> naive_matmul(const std::vector<F>& a, const std::vector<F>& b, std::size_t m,
                                 std::size_t k, std::size_t n) {
  std::vector<double> c(m * n, 0.0);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t p = 0; p < k; ++p)
      for (std::size_t j = 0; j < n; ++j) c[i * n + j] += double(a[i * k + p]) * double(b[p * n + j]);
  return c;
}

TEST(FlexMatmul, HandValues) {
  EXPECT_EQ(vals32(Flex::float_matmul(f32({1, 2, 3, 4}, {2, 2}), f32({5, 6, 7, 8}, {2, 2}))),
            (std::vector<float>{19, 22, 43, 50}));
  // Batched with a broadcast batch dim: [2, 1, 2] x [2, 1] -> [2, 1, 1].
  const T c = Flex::float_matmul(f64({1, 2, 3, 4}, {2, 1, 2}), f64({1, 1}, {2, 1}));
  EXPECT_EQ(Flex::shape(c), (Shape{2, 1, 1}));
  EXPECT_EQ(vals64(c), (std::vector<double>{3, 7}));
  // k = 0: all zeros.
  EXPECT_EQ(vals32(Flex::float_matmul(f32({}, {2, 0}), f32({}, {0, 3}))), std::vector<float>(6, 0.0f));
  expect_panic([] { Flex::float_matmul(f32({1, 2}, {1, 2}), f32({1, 2}, {1, 2})); }, PanicId::MatmulInnerDim);
  expect_panic([] { Flex::float_matmul(f32({1}, {1}), f32({1}, {1, 1})); }, PanicId::MatmulRank);
}

TEST_P(FlexBothIsas, MatmulMatchesNaiveAcrossTileEdges) {
  const std::size_t dims[][3] = {{1, 1, 1},   {7, 9, 8},    {6, 16, 16},   {13, 5, 33},   {65, 64, 63},
                                 {1, 300, 1}, {200, 1, 90}, {97, 259, 131}, {150, 300, 17}, {300, 520, 257}};
  for (const auto& d : dims) {
    const std::size_t m = d[0], k = d[1], n = d[2];
    const auto a = random_floats(m * k, 8), b = random_floats(k * n, 9);
    const auto want = naive_matmul(a, b, m, k, n);
    const auto got = vals32(Flex::float_matmul(f32(a, {m, k}), f32(b, {k, n})));
    for (std::size_t i = 0; i < m * n; ++i) {
      ASSERT_NEAR(got[i], want[i], 1e-5 * double(k) * 16) << m << "x" << k << "x" << n << " i=" << i;
    }
    const auto ad = random_doubles(m * k, 10), bd = random_doubles(k * n, 11);
    const auto wantd = naive_matmul(ad, bd, m, k, n);
    const auto gotd = vals64(Flex::float_matmul(f64(ad, {m, k}), f64(bd, {k, n})));
    for (std::size_t i = 0; i < m * n; ++i) ASSERT_NEAR(gotd[i], wantd[i], 1e-12 * double(k) * 16);
  }
}

TEST(FlexMatmul, BatchedWithBroadcastMatchesPerBatchProducts) {
  const std::size_t m = 9, k = 17, n = 20;
  const auto a = random_floats(3 * m * k, 12), b = random_floats(2 * 1 * k * n, 13);
  // [3, m, k] x [2, 1, k, n] -> [2, 3, m, n]
  const T c = Flex::float_matmul(f32(a, {3, m, k}), f32(b, {2, 1, k, n}));
  ASSERT_EQ(Flex::shape(c), (Shape{2, 3, m, n}));
  const auto got = vals32(c);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j) {
      const std::vector<float> aj(a.begin() + j * m * k, a.begin() + (j + 1) * m * k);
      const std::vector<float> bi(b.begin() + i * k * n, b.begin() + (i + 1) * k * n);
      const auto want = naive_matmul(aj, bi, m, k, n);
      for (std::size_t e = 0; e < m * n; ++e) ASSERT_NEAR(got[(i * 3 + j) * m * n + e], want[e], 1e-4);
    }
  // Many small batches (spread over threads by batch).
  const auto x = random_floats(512 * 8 * 8, 14), y = random_floats(512 * 8 * 8, 15);
  const auto z = vals32(Flex::float_matmul(f32(x, {512, 8, 8}), f32(y, {512, 8, 8})));
  for (std::size_t bt = 0; bt < 512; bt += 97) {
    const auto want = naive_matmul(std::vector<float>(x.begin() + bt * 64, x.begin() + bt * 64 + 64),
                                   std::vector<float>(y.begin() + bt * 64, y.begin() + bt * 64 + 64), 8, 8, 8);
    for (std::size_t e = 0; e < 64; ++e) ASSERT_NEAR(z[bt * 64 + e], want[e], 1e-4);
  }
}

// ---- reductions -------------------------------------------------------------------------------

TEST(FlexReduce, HandValues) {
  const T a = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(Flex::shape(Flex::float_sum(a)), (Shape{1}));
  EXPECT_EQ(vals32(Flex::float_sum(a)), (std::vector<float>{21}));
  EXPECT_EQ(vals32(Flex::float_mean(a)), (std::vector<float>{3.5f}));
  EXPECT_EQ(vals32(Flex::float_sum_dim(a, 0)), (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(Flex::shape(Flex::float_sum_dim(a, 0)), (Shape{1, 3}));
  EXPECT_EQ(vals32(Flex::float_sum_dim(a, 1)), (std::vector<float>{6, 15}));
  EXPECT_EQ(vals32(Flex::float_mean_dim(a, 1)), (std::vector<float>{2, 5}));
  EXPECT_EQ(vals64(Flex::float_sum(f64({7}, {}))), (std::vector<double>{7}));
  EXPECT_TRUE(std::isnan(vals32(Flex::float_mean(f32({}, {0})))[0]));
  EXPECT_EQ(vals32(Flex::float_sum(f32({}, {0, 2}))), (std::vector<float>{0}));
  const T e = f32({}, {2, 0, 3});
  EXPECT_EQ(vals32(Flex::float_sum_dim(e, 1)), std::vector<float>(6, 0.0f));
  const auto means = vals32(Flex::float_mean_dim(e, 1));
  for (float v : means) EXPECT_TRUE(std::isnan(v));
  EXPECT_EQ(Flex::shape(Flex::float_sum_dim(e, 0)), (Shape{1, 0, 3}));
  expect_panic([&] { Flex::float_sum_dim(a, 2); }, PanicId::DimOutOfRange);
}

TEST_P(FlexBothIsas, ReductionsMatchSequentialDoubleSums) {
  for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{1023}, std::size_t{100003},
                        std::size_t{300001}}) {
    const auto x = random_floats(n, 16);
    double want = 0;
    for (float v : x) want += v;
    EXPECT_NEAR(vals32(Flex::float_sum(f32(x, {n})))[0], want, 1e-6 * n);
    EXPECT_NEAR(vals32(Flex::float_mean(f32(x, {n})))[0], want / double(n), 1e-6);
  }
  const std::size_t shapes[][3] = {{3, 7, 1}, {1, 100003, 1}, {5, 9, 3000}, {1, 2, 4099}, {700, 33, 5}, {2, 1, 9}};
  for (const auto& s : shapes) {
    const std::size_t o = s[0], d = s[1], in = s[2];
    const auto x = random_floats(o * d * in, 17);
    const auto sum = vals32(Flex::float_sum_dim(f32(x, {o, d, in}), 1));
    const auto mean = vals32(Flex::float_mean_dim(f32(x, {o, d, in}), 1));
    for (std::size_t i = 0; i < o; ++i)
      for (std::size_t j = 0; j < in; ++j) {
        double acc = 0;
        for (std::size_t r = 0; r < d; ++r) acc += x[(i * d + r) * in + j];
        ASSERT_NEAR(sum[i * in + j], acc, 1e-5 * d);
        ASSERT_NEAR(mean[i * in + j], acc / double(d), 1e-5);
      }
  }
}

// ---- layout -----------------------------------------------------------------------------------

TEST(FlexLayout, ReshapeAndSwapDims) {
  const T a = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  const T r = Flex::float_reshape(a, {3, 2});
  EXPECT_EQ(Flex::shape(r), (Shape{3, 2}));
  EXPECT_EQ(vals32(r), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  expect_panic([&] { Flex::float_reshape(a, {4}); }, PanicId::ReshapeMismatch);
  const T t = Flex::float_swap_dims(a, 0, 1);
  EXPECT_EQ(Flex::shape(t), (Shape{3, 2}));
  EXPECT_EQ(vals32(t), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(vals32(Flex::float_swap_dims(a, 1, 1)), vals32(a));
  expect_panic([&] { Flex::float_swap_dims(a, 0, 2); }, PanicId::DimOutOfRange);
}

TEST(FlexLayout, SwapDimsMatchesNaiveIndexing) {
  const std::size_t s[4] = {3, 37, 5, 41};
  const std::size_t n = s[0] * s[1] * s[2] * s[3];
  const auto x = random_doubles(n, 18);
  const T t = f64(x, {s[0], s[1], s[2], s[3]});
  for (std::size_t d0 = 0; d0 < 4; ++d0)
    for (std::size_t d1 = 0; d1 < 4; ++d1) {
      const auto got = vals64(Flex::float_swap_dims(t, d0, d1));
      std::size_t os[4] = {s[0], s[1], s[2], s[3]};
      std::swap(os[d0], os[d1]);
      std::size_t idx[4];
      for (idx[0] = 0; idx[0] < os[0]; ++idx[0])
        for (idx[1] = 0; idx[1] < os[1]; ++idx[1])
          for (idx[2] = 0; idx[2] < os[2]; ++idx[2])
            for (idx[3] = 0; idx[3] < os[3]; ++idx[3]) {
              std::size_t src[4] = {idx[0], idx[1], idx[2], idx[3]};
              std::swap(src[d0], src[d1]);
              const std::size_t out_i = ((idx[0] * os[1] + idx[1]) * os[2] + idx[2]) * os[3] + idx[3];
              const std::size_t in_i = ((src[0] * s[1] + src[1]) * s[2] + src[2]) * s[3] + src[3];
              ASSERT_EQ(got[out_i], x[in_i]) << d0 << "," << d1;
            }
    }
}

// ---- quantization -----------------------------------------------------------------------------

TEST(FlexQuantize, RoundTrip) {
  const auto q = Flex::quantize(f32({-127, 0, 63.5f, 127}, {2, 2}));
  EXPECT_FLOAT_EQ(q.scale, 1.0f);
  EXPECT_EQ(q.values.dtype, DType::QInt8);
  const auto back = vals32(Flex::dequantize(q));
  EXPECT_EQ(back[0], -127);
  EXPECT_EQ(back[3], 127);
  EXPECT_EQ(Flex::shape(Flex::dequantize(q)), (Shape{2, 2}));
  expect_panic([] { Flex::quantize(f32({1, INFINITY}, {2})); }, PanicId::QuantizeNonFinite);
}

// ---- thread pool ------------------------------------------------------------------------------

TEST(FlexThreadPool, RunsEveryTaskOnceAndRethrows) {
  EXPECT_GE(flex::num_threads(), 1u);
  std::vector<std::atomic<int>> hits(1000);
  flex::parallel_for(hits.size(), [&](std::size_t i) { hits[i].fetch_add(1); });
  for (const auto& h : hits) EXPECT_EQ(h.load(), 1);
  // Nested calls run inline.
  std::atomic<int> nested{0};
  flex::parallel_for(4, [&](std::size_t) { flex::parallel_for(4, [&](std::size_t) { ++nested; }); });
  EXPECT_EQ(nested.load(), 16);
  EXPECT_THROW(flex::parallel_for(8, [](std::size_t i) { if (i == 5) throw std::runtime_error("x"); }),
               std::runtime_error);
  std::atomic<std::size_t> covered{0};
  flex::parallel_range(100003, 1000, [&](std::size_t b, std::size_t e) { covered += e - b; });
  EXPECT_EQ(covered.load(), 100003u);
}

// ---- the tuning knobs read back what was set ---------------------------------------------------

// Restores Flex's global knobs whatever a test set.
class FlexKnobs : public ::testing::Test {
 protected:
  void TearDown() override {
    flex::set_num_threads(0);
    flex::force_portable_kernels(false);
  }
};

TEST_F(FlexKnobs, ForcedPortableKernelsAreTheTableInUse) {
  flex::force_portable_kernels(true);
  EXPECT_STREQ(flex::kernels().isa, "portable");
  EXPECT_STREQ(flex::active_isa(), "portable");
  flex::force_portable_kernels(false);
  EXPECT_STREQ(flex::kernels().isa, flex::cpu_has_avx2_fma() ? "avx2" : "portable");
}

TEST_F(FlexKnobs, SetNumThreadsIsWhatNumThreadsReports) {
  for (std::size_t t : {1u, 3u, 7u}) {
    flex::set_num_threads(t);
    EXPECT_EQ(flex::num_threads(), t);
  }
}

// ---- AVX2 expf: a block whose first lane alone is in range -------------------------------------

// The vector path only holds for |x| within [-87, 88]; a block with any lane outside must fall
// back lane by lane. Expected values: exp in double, rounded to float (within 2 ulp), and the
// IEEE special cases.
TEST(FlexAvxExp, ABlockWithOnlySomeLanesInRange) {
  if (!flex::cpu_has_avx2_fma()) GTEST_SKIP() << "no AVX2/FMA on this CPU";
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<std::vector<float>> blocks = {
      {0.5f, 100, nan, -inf, inf, 89, -100, 1000},  // only lane 0 in range
      {100, 0.5f, 1, 2, 3, 4, 5, 6},                // only lane 0 out of range
      {1, 2, 3, 4, 5, 6, 7, 200},                   // only the last lane out of range
  };
  for (const auto& in : blocks) {
    std::vector<float> out(in.size(), -1.0f);
    flex::avx2_kernels().f32.exp(in.data(), out.data(), in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
      const float x = in[i];
      if (std::isnan(x)) {
        EXPECT_TRUE(std::isnan(out[i])) << "exp(NaN) lane " << i;
        continue;
      }
      if (x > 88.8f) {
        EXPECT_EQ(out[i], inf) << "exp(" << x << ") lane " << i;
        continue;
      }
      if (x < -104.0f) {
        EXPECT_EQ(out[i], 0.0f) << "exp(" << x << ") lane " << i;
        continue;
      }
      // exp in double rounded to float, then 2 float ulps either side (subnormal results too).
      const float want = static_cast<float>(std::exp(static_cast<double>(x)));
      const float lo = std::nextafter(std::nextafter(want, -inf), -inf);
      const float hi = std::nextafter(std::nextafter(want, inf), inf);
      EXPECT_TRUE(out[i] >= lo && out[i] <= hi) << "exp(" << x << ") lane " << i << ": " << out[i] << " vs " << want;
    }
  }
}

}  // namespace
