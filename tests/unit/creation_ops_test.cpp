// Creation (docs/OPS.md "Creation"): float_full, float_zeros, float_ones, float_empty and
// float_random on every backend, plain and tracked. float_random's words are recomputed here from
// SplitMix64's published constants (not the engine's code), its samples checked against each
// distribution's range and moments, and the same seed must give the same bits on every backend.
#include "test_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class CreationOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(CreationOps, AllBackendTypes, BackendTestName);

TYPED_TEST(CreationOps, FullZerosOnesAndEmptyFillEveryElement) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : {DType::F32, DType::F64}) {
      const DispatchTensor z = Dispatch::float_zeros(Shape{2, 3}, device, dt);
      EXPECT_EQ(Dispatch::float_dtype(z), dt);
      EXPECT_EQ(values(z), std::vector<double>(6, 0.0));
      EXPECT_FALSE(std::signbit(values(z)[0]));
      EXPECT_EQ(values(Dispatch::float_ones(Shape{4}, device, dt)), std::vector<double>(4, 1.0));
      const std::vector<double> e = values(Dispatch::float_empty(Shape{3, 1}, device, dt));
      EXPECT_EQ(e, std::vector<double>(3, 0.0));
      EXPECT_EQ(values(Dispatch::float_full(Shape{2}, -2.5, device, dt)), (std::vector<double>{-2.5, -2.5}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::float_zeros(Shape{0, 5}, device, dt)), (Shape{0, 5}));
    }
  }
  EXPECT_PANIC(Dispatch::float_zeros(Shape{2}, plain_device<TypeParam>(), DType::I64), "unsupported-dtype",
               "DType I64 is not supported by float_zeros.");
  // A tracked result is a leaf: its gradient is the one that reaches it.
  const DispatchTensor x = Dispatch::float_ones(Shape{3}, autodiff_device<TypeParam>(), DType::F64);
  const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul_scalar(x, 3)));
  EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{3, 3, 3}));
}

std::uint64_t splitmix_word(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

TYPED_TEST(CreationOps, RandomIsTheSeedsCounterWordsOnEveryBackend) {
  const std::uint64_t seed = 20261205;
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    const std::vector<double> got = values(Dispatch::float_random(Shape{4, 5}, Distribution::standard(), seed, device, DType::F64));
    ASSERT_EQ(got.size(), 20u);
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i], static_cast<double>(splitmix_word(seed, i) >> 11) * 0x1p-53) << "element " << i;
    }
    // The same seed, the same bits (here and on NdArray); another seed, other values.
    EXPECT_EQ(Dispatch::float_into_data(Dispatch::float_random(Shape{64}, Distribution::normal(1, 2), seed, device, DType::F32)),
              Dispatch::float_into_data(
                  Dispatch::float_random(Shape{64}, Distribution::normal(1, 2), seed, DispatchDevice::NdArray(), DType::F32)));
    EXPECT_NE(values(Dispatch::float_random(Shape{8}, Distribution::standard(), seed + 1, device, DType::F64)),
              values(Dispatch::float_random(Shape{8}, Distribution::standard(), seed, device, DType::F64)));
  }
}

TYPED_TEST(CreationOps, RandomSamplesHaveTheirDistributionsRangeAndMoments) {
  const DispatchDevice device = plain_device<TypeParam>();
  const std::size_t n = 20000;
  const auto mean_of = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s / static_cast<double>(v.size());
  };
  for (const DType dt : {DType::F32, DType::F64}) {
    const std::vector<double> u = values(Dispatch::float_random(Shape{n}, Distribution::uniform(-3, 5), 11, device, dt));
    EXPECT_GE(*std::min_element(u.begin(), u.end()), -3.0);
    EXPECT_LT(*std::max_element(u.begin(), u.end()), 5.0);
    EXPECT_NEAR(mean_of(u), 1.0, 0.1);  // 8 / sqrt(12 n) = 0.016 is one standard error
    // A narrow F32 interval where low + (high - low) u rounds up to high: never high itself.
    const std::vector<double> narrow = values(Dispatch::float_random(Shape{n}, Distribution::uniform(1, 1 + 1e-7), 12, device, DType::F32));
    EXPECT_LT(*std::max_element(narrow.begin(), narrow.end()), 1 + 1e-7);
    // high = 1 + 2^-23, the float after 1: about half the samples round to high in F32 and must
    // become the float below it, 1.
    const std::vector<double> tight = values(Dispatch::float_random(Shape{64}, Distribution::uniform(1, 1 + 0x1p-23), 15, device, DType::F32));
    EXPECT_TRUE(std::all_of(tight.begin(), tight.end(), [](double x) { return x == 1; }));
    const std::vector<double> b = values(Dispatch::float_random(Shape{n}, Distribution::bernoulli(0.25), 13, device, dt));
    EXPECT_TRUE(std::all_of(b.begin(), b.end(), [](double x) { return x == 0 || x == 1; }));
    EXPECT_NEAR(mean_of(b), 0.25, 0.02);
    const std::vector<double> z = values(Dispatch::float_random(Shape{n}, Distribution::normal(2, 3), 14, device, dt));
    const double m = mean_of(z);
    double var = 0;
    for (double x : z) var += (x - m) * (x - m);
    EXPECT_NEAR(m, 2.0, 0.15);
    EXPECT_NEAR(std::sqrt(var / static_cast<double>(n)), 3.0, 0.15);
    // Within 4.5 standard deviations of the mean except about 7 in a million.
    EXPECT_LE(std::count_if(z.begin(), z.end(), [](double x) { return std::fabs(x - 2) > 13.5; }), 2);
  }
  EXPECT_EQ(values(Dispatch::float_random(Shape{3}, Distribution::bernoulli(1), 5, device, DType::F64)), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(values(Dispatch::float_random(Shape{3}, Distribution::normal(4, 0), 5, device, DType::F64)), (std::vector<double>{4, 4, 4}));
}

TYPED_TEST(CreationOps, RandomRefusesADistributionWithoutValues) {
  const DispatchDevice device = plain_device<TypeParam>();
  EXPECT_PANIC(Dispatch::float_random(Shape{2}, Distribution::uniform(1, 0), 7, device), "random-distribution",
               "float_random cannot sample Uniform(1, 0).");
  EXPECT_PANIC(Dispatch::float_random(Shape{2}, Distribution::bernoulli(1.5), 7, device), "random-distribution",
               "float_random cannot sample Bernoulli(1.5).");
  EXPECT_PANIC(Dispatch::float_random(Shape{2}, Distribution::normal(0, -1), 7, device), "random-distribution",
               "float_random cannot sample Normal(0, -1).");
  EXPECT_PANIC(Dispatch::float_random(Shape{2}, Distribution::uniform(0, NAN), 7, device), "random-distribution",
               "float_random cannot sample Uniform(0, nan).");
  EXPECT_PANIC(Dispatch::float_random(Shape{2}, Distribution::standard(), 7, device, DType::Bool), "unsupported-dtype",
               "DType Bool is not supported by float_random.");
}

}  // namespace
}  // namespace crossgrad
