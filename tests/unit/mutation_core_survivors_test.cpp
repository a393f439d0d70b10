// Tests written for the surviving mutants of engine/src outside backends/flex (issue 12 item 6,
// /work/coord/survivors-core.txt). Each test names the bug class it guards and why the older
// tests missed it. Expected values and messages are worked out by hand from docs/OPS.md,
// engine/panics.json and the inputs, never by calling the engine's own kernels or formatter.
#include "test_support.hpp"

#include <crossgrad/core/host_buffer.hpp>
#include <crossgrad/core/shape_rules.hpp>

#include <sys/resource.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <unistd.h>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;
using backends::NdArray;

NdArray::Tensor nd(const TensorData& d) { return NdArray::from_data(d, Device::cpu()); }
NdArray::Tensor nd_i64(std::vector<std::int64_t> v, Shape s) { return nd(TensorData::from_i64(std::move(v), std::move(s))); }
NdArray::Tensor nd_f32(std::vector<float> v, Shape s) { return nd(TensorData::from_f32(std::move(v), std::move(s))); }
NdArray::Tensor nd_f64(std::vector<double> v, Shape s) { return nd(TensorData::from_f64(std::move(v), std::move(s))); }

// ---- abs' : the older tests fed abs only values with |x| > 1 (or symmetric ones), so a rule
// that compares against 1 instead of 0 went unseen. d|x|/dx = sign(x), 0 at 0 (docs/OPS.md).
template <class B>
class MutationCoreAbsBackward : public ::testing::Test {
 protected:
  void SetUp() override { SKIP_IF_UNAVAILABLE(B); }
};
TYPED_TEST_SUITE(MutationCoreAbsBackward, AllBackendTypes, BackendTestName);

TYPED_TEST(MutationCoreAbsBackward, GradientIsTheSignForSmallMagnitudesAndZeroAtZero) {
  using B = TypeParam;
  const DispatchTensor x = Dispatch::float_from_data(
      TensorData::from_f64({-2, -0.75, -0.25, 0, 0.25, 0.75, 2}, {7}), autodiff_device<B>());
  const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_abs(x)));
  const auto got = Dispatch::grad(x, g);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(Dispatch::float_into_data(*got).to_f64(), (std::vector<double>{-1, -1, -1, 0, 1, 1, 1}));
}

// ---- A non-float operand on either side is reported as unsupported-dtype, before any dtype
// mismatch (the older tests put the int operand on the left only).
TEST(MutationCoreDtypeChecks, BinaryOpsReportANonFloatRightOperand) {
  EXPECT_PANIC(NdArray::float_add(nd_f32({1}, {1}), nd_i64({1}, {1})), "unsupported-dtype",
               "DType I64 is not supported by float_add.");
  EXPECT_PANIC(NdArray::float_sub(nd_f64({1}, {1}), nd_i64({1}, {1})), "unsupported-dtype",
               "DType I64 is not supported by float_sub.");
  EXPECT_PANIC(NdArray::float_mul(nd_f32({1}, {1}), nd_i64({1}, {1})), "unsupported-dtype",
               "DType I64 is not supported by float_mul.");
  EXPECT_PANIC(NdArray::float_div(nd_f64({1}, {1}), nd_i64({1}, {1})), "unsupported-dtype",
               "DType I64 is not supported by float_div.");
}

TEST(MutationCoreDtypeChecks, MatmulReportsANonFloatOperandOnEitherSide) {
  EXPECT_PANIC(NdArray::float_matmul(nd_i64({1, 2, 3, 4}, {2, 2}), nd_f32({1, 2, 3, 4}, {2, 2})),
               "unsupported-dtype", "DType I64 is not supported by float_matmul.");
  EXPECT_PANIC(NdArray::float_matmul(nd_f32({1, 2, 3, 4}, {2, 2}), nd_i64({1, 2, 3, 4}, {2, 2})),
               "unsupported-dtype", "DType I64 is not supported by float_matmul.");
}

// The older tests checked a non-float target dtype only; a non-float source is refused too.
TEST(MutationCoreDtypeChecks, CastReportsANonFloatSourceTensor) {
  EXPECT_PANIC(NdArray::float_cast(nd_i64({1, 2}, {2}), DType::F32), "unsupported-dtype",
               "DType I64 is not supported by float_cast.");
  EXPECT_PANIC(NdArray::float_cast(nd_i64({1, 2}, {2}), DType::F64), "unsupported-dtype",
               "DType I64 is not supported by float_cast.");
}

// ---- sigmoid: docs/OPS.md pins the formula, 1 / (1 + exp(-x)) for x >= 0 and e / (1 + e)
// below 0. The older tests compared with a tolerance, so the branch point could move unseen.
template <class T>
void expect_sigmoid_follows_the_contract(std::vector<T> xs, DType dtype) {
  std::vector<double> wide(xs.begin(), xs.end());
  const NdArray::Tensor t = NdArray::float_cast(nd_f64(wide, Shape{xs.size()}), dtype);
  const TensorData out = NdArray::into_data(NdArray::sigmoid(t));
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const T x = xs[i];
    T want;
    if (x >= T(0)) {
      want = T(1) / (T(1) + std::exp(-x));
    } else {
      const T e = std::exp(x);
      want = e / (T(1) + e);
    }
    const T got = dtype == DType::F32 ? T(out.to_f32()[i]) : T(out.to_f64()[i]);
    EXPECT_EQ(got, want) << "x = " << x;
  }
}

TEST(MutationCoreSigmoid, EachSideOfZeroUsesItsDocumentedFormulaExactly) {
  std::vector<double> xs64;
  std::vector<float> xs32;
  for (int i = -40; i <= 200; ++i) {
    xs64.push_back(i / 100.0 + 0.003);
    xs32.push_back(static_cast<float>(i / 100.0 + 0.003));
  }
  expect_sigmoid_follows_the_contract<double>(xs64, DType::F64);
  expect_sigmoid_follows_the_contract<float>(xs32, DType::F32);
}

// ---- clamp: `x < min ? min : (x > max ? max : x)` (docs/OPS.md) keeps a value equal to a bound
// as it is, sign of zero included; the older tests never clamped a signed zero at a zero bound.
TEST(MutationCoreClamp, AValueEqualToABoundKeepsItsOwnSignOfZero) {
  const std::vector<double> a = NdArray::into_data(NdArray::float_clamp(nd_f64({-0.0}, {1}), 0.0, 1.0)).to_f64();
  ASSERT_EQ(a.size(), 1u);
  EXPECT_TRUE(std::signbit(a[0])) << "clamp(-0, 0, 1) must stay -0";
  const std::vector<double> b = NdArray::into_data(NdArray::float_clamp(nd_f64({0.0}, {1}), -0.0, 1.0)).to_f64();
  ASSERT_EQ(b.size(), 1u);
  EXPECT_FALSE(std::signbit(b[0])) << "clamp(+0, -0, 1) must stay +0";
}

// ---- clamp-bounds prints its bounds so that they read back as the same double; the older tests
// used small integers, which print the same at any precision. 1234567.5 needs 8 digits.
TEST(MutationCoreClamp, BoundsInTheMessageKeepAllTheirDigits) {
  EXPECT_PANIC(NdArray::float_clamp(nd_f64({1}, {1}), 1234567.5, 0.0), "clamp-bounds",
               "float_clamp needs min <= max, got min 1234567.5 and max 0.");
}

// ---- quantize rounds a subnormal scale up only when max|x| / scale would exceed 127; when
// max|x| / 127 is an exact F32 (here the smallest subnormal), the scale is that value and the
// largest magnitude gets code 127. The older tests only had inputs that needed the round-up.
TEST(MutationCoreQuantize, AnExactSubnormalScaleIsNotRoundedUp) {
  const double tiny = static_cast<double>(std::numeric_limits<float>::denorm_min());  // 2^-149
  const auto q = NdArray::quantize(nd_f64({127 * tiny, -127 * tiny, 0}, {3}));
  EXPECT_EQ(q.scale, std::numeric_limits<float>::denorm_min());
  const TensorData codes = NdArray::into_data(q.values);
  ASSERT_EQ(codes.bytes().size(), 3u);
  EXPECT_EQ(static_cast<std::int8_t>(std::to_integer<std::uint8_t>(codes.bytes()[0])), 127);
  EXPECT_EQ(static_cast<std::int8_t>(std::to_integer<std::uint8_t>(codes.bytes()[1])), -127);
}

// ---- A backend without a device index (the CPU ones) has exactly one device when available.
TEST(MutationCoreRegistry, CpuBackendsReportOneDevice) {
  int checked = 0;
  for (const BackendInfo& info : registered_backends()) {
    if (info.name != "NdArray" && info.name != "Flex") continue;
    ASSERT_TRUE(info.available) << info.name;
    EXPECT_EQ(info.device_count, 1u) << info.name;
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

// ---- The block cache's total limit is inclusive: blocks that fill it exactly are kept (the
// older test only had totals strictly under or over the limit).
TEST(MutationCoreHostBlockCache, BlocksThatFillTheTotalExactlyAreKept) {
  HostBlockCache cache({1024, 2 * 4096, 4});
  cache.give(std::aligned_alloc(64, 4096), 4096);
  cache.give(std::aligned_alloc(64, 4096), 4096);
  EXPECT_EQ(cache.stats().blocks, 2u);
  EXPECT_EQ(cache.stats().bytes, 2u * 4096);
  cache.give(std::aligned_alloc(64, 4096), 4096);  // one more would go over: freed
  EXPECT_EQ(cache.stats().blocks, 2u);
}

// ---- broadcast_shapes panics shape-overflow itself for a result whose element count overflows
// (its contract in core/shape_rules.hpp), even when no tensor of that shape is ever allocated.
TEST(MutationCoreShapeRules, BroadcastResultThatOverflowsPanics) {
  const std::size_t big = std::size_t{1} << 40;
  EXPECT_PANIC(rules::broadcast_shapes(Shape{big, 1}, Shape{1, big}, "float_add"), "shape-overflow",
               "Shape [1099511627776, 1099511627776] has more elements than fit in memory.");
}

// ---- An allocation under the 16 GiB limit that the system refuses is a tensor-too-large panic,
// not a null buffer. Refusal is forced in a child process by capping its address space.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MUTATION_CORE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define MUTATION_CORE_SANITIZED 1
#endif
#endif

#ifndef MUTATION_CORE_SANITIZED
[[noreturn]] void allocate_under_a_capped_address_space() {
  std::size_t pages = 0;
  std::ifstream("/proc/self/statm") >> pages;
  const rlim_t cap = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + (rlim_t{1} << 30);
  const rlimit lim{cap, cap};
  if (setrlimit(RLIMIT_AS, &lim) != 0) std::_Exit(5);
  try {
    (void)NdArray::float_full(Shape{std::size_t{2} << 30}, 1.0, DType::F32, Device::cpu());  // 8 GiB
  } catch (const Panic& p) {
    const bool ok = p.id() == PanicId::TensorTooLarge &&
                    p.message() == "A tensor of shape [2147483648] and dtype F32 needs 8589934592 bytes, over the "
                                   "limit of what this machine could allocate bytes.";
    std::_Exit(ok ? 7 : 6);
  }
  std::_Exit(4);
}

TEST(MutationCoreHostBufferDeathTest, RefusedAllocationIsATensorTooLargePanic) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(allocate_under_a_capped_address_space(), ::testing::ExitedWithCode(7), "");
}
#endif

}  // namespace
}  // namespace crossgrad
