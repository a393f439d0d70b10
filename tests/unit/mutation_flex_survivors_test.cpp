// Tests written for mutants of engine/src/backends/flex that survived the unit|property|corpus
// run (issue 12 item 6, group "flex"). Each test names the bug class it guards; expectations come
// from NdArray (the reference backend) or from values worked out here, never from Flex's kernels.
//
// Why the existing suites missed these:
//  - the float-dtype checks of float_cast / float_add / float_sum / float_select_assign were only
//    probed with int inputs on Cuda (cuda_backend_test), never on Flex;
//  - force_portable_kernels / set_num_threads were only used, never read back (both tables give the
//    same bits for most ops, so a knob that does nothing went unseen);
//  - the AVX2 expf's "any lane out of range" test was only fed blocks where every lane or none is
//    out of range, never a block whose first lane alone is in range;
//  - swap_dims only transposed matrices with fewer rows than one transpose tile;
//  - a slice keeping one column of a two-column matrix (a single gather run of stride 2) was never taken;
//  - broadcasting comparisons were never split over threads with two outer dims that cannot merge.
#include <crossgrad/backends/flex.hpp>
#include <crossgrad/backends/flex_testing.hpp>
#include <crossgrad/backends/flex_tuning.hpp>
#include <crossgrad/backends/ndarray.hpp>
#include <crossgrad/core/panic.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using crossgrad::Device;
using crossgrad::DType;
using crossgrad::Panic;
using crossgrad::PanicId;
using crossgrad::Range;
using crossgrad::Shape;
using crossgrad::TensorData;
using crossgrad::backends::Flex;
using crossgrad::backends::NdArray;
namespace flex = crossgrad::backends::flex;

template <class B>
typename B::Tensor on(const TensorData& d) {
  return B::from_data(d, Device::cpu());
}

std::optional<std::pair<PanicId, std::string>> panic_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Panic& p) {
    return std::make_pair(p.id(), p.message());
  }
  return std::nullopt;
}

// Restores Flex's global knobs whatever a test set.
class FlexKnobsReset : public ::testing::Test {
 protected:
  void TearDown() override {
    flex::set_num_threads(0);
    flex::force_portable_kernels(false);
  }
};

// Values that differ in every element (so a wrong source index shows) and are exact in F32.
std::vector<float> counting(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 1000) + 0.25f * static_cast<float>(i % 3);
  return v;
}

// ---- float ops refuse int tensors with NdArray's panic ------------------------------------------

using MutationFlexDtypeChecks = FlexKnobsReset;

TEST_F(MutationFlexDtypeChecks, FloatOpsOnAnIntTensorPanicLikeNdArray) {
  const TensorData ints = TensorData::from_i64({1, 2, 3, 4}, {2, 2});
  const TensorData idx = TensorData::from_i64({1}, {1});
  const TensorData f = TensorData::from_f32({1, 2}, {1, 2});
  const TensorData f22 = TensorData::from_f32({1, 2, 3, 4}, {2, 2});
  struct Case {
    const char* name;
    std::function<void()> flex_call, ref_call;
  };
  const Case cases[] = {
      {"float_cast of I64 to F32", [&] { Flex::float_cast(on<Flex>(ints), DType::F32); },
       [&] { NdArray::float_cast(on<NdArray>(ints), DType::F32); }},
      {"float_cast of I64 to F64", [&] { Flex::float_cast(on<Flex>(ints), DType::F64); },
       [&] { NdArray::float_cast(on<NdArray>(ints), DType::F64); }},
      {"float_add of I64", [&] { Flex::float_add(on<Flex>(ints), on<Flex>(ints)); },
       [&] { NdArray::float_add(on<NdArray>(ints), on<NdArray>(ints)); }},
      {"float_add of I64 and F32", [&] { Flex::float_add(on<Flex>(ints), on<Flex>(f22)); },
       [&] { NdArray::float_add(on<NdArray>(ints), on<NdArray>(f22)); }},
      {"float_sum of I64", [&] { Flex::float_sum(on<Flex>(ints)); },
       [&] { NdArray::float_sum(on<NdArray>(ints)); }},
      {"float_select_assign into I64",
       [&] { Flex::float_select_assign(on<Flex>(ints), 0, on<Flex>(idx), on<Flex>(f)); },
       [&] { NdArray::float_select_assign(on<NdArray>(ints), 0, on<NdArray>(idx), on<NdArray>(f)); }},
  };
  for (const Case& c : cases) {
    const auto flex_panic = panic_of(c.flex_call);
    const auto ref_panic = panic_of(c.ref_call);
    ASSERT_TRUE(ref_panic.has_value()) << c.name << ": NdArray did not panic";
    ASSERT_TRUE(flex_panic.has_value()) << c.name << ": Flex did not panic";
    EXPECT_EQ(flex_panic->first, PanicId::UnsupportedDtype) << c.name << ": " << flex_panic->second;
    EXPECT_EQ(flex_panic->first, ref_panic->first) << c.name;
    EXPECT_EQ(flex_panic->second, ref_panic->second) << c.name;
  }
}

// ---- the tuning knobs read back what was set ---------------------------------------------------

using MutationFlexKnobs = FlexKnobsReset;

TEST_F(MutationFlexKnobs, ForcedPortableKernelsAreTheTableInUse) {
  flex::force_portable_kernels(true);
  EXPECT_STREQ(flex::kernels().isa, "portable");
  EXPECT_STREQ(flex::active_isa(), "portable");
  flex::force_portable_kernels(false);
  EXPECT_STREQ(flex::kernels().isa, flex::cpu_has_avx2_fma() ? "avx2" : "portable");
}

TEST_F(MutationFlexKnobs, SetNumThreadsIsWhatNumThreadsReports) {
  for (std::size_t t : {1u, 3u, 7u}) {
    flex::set_num_threads(t);
    EXPECT_EQ(flex::num_threads(), t);
  }
}

// ---- AVX2 expf: a block whose first lane alone is in range -------------------------------------

// The vector path only holds for |x| within [-87, 88]; a block with any lane outside must fall
// back lane by lane. Expected values: exp in double, rounded to float (within 2 ulp), and the
// IEEE special cases.
TEST(MutationFlexExp, AvxExpOfABlockWithOnlySomeLanesInRange) {
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

// ---- swap_dims over several transpose tiles ----------------------------------------------------

TEST_F(FlexKnobsReset, MutationFlexSwapDimsAcrossSeveralRowTiles) {
  constexpr std::size_t kTile = flex::kTuning.transpose_tile;
  const Shape shapes[] = {Shape{2 * kTile + 3, 5}, Shape{kTile + 1, kTile + 2}, Shape{3, kTile * 3 + 7, 4},
                          Shape{kTile * 2, 3}};
  for (bool portable : {false, true}) {
    flex::force_portable_kernels(portable);
    for (const Shape& s : shapes) {
      for (DType dt : {DType::F32, DType::F64}) {
        const auto v = counting(s.num_elements());
        const TensorData d = dt == DType::F32 ? TensorData::from_f32(v, s)
                                              : TensorData::from_f64(std::vector<double>(v.begin(), v.end()), s);
        const std::size_t r = s.rank();
        const TensorData got = Flex::into_data(Flex::float_swap_dims(on<Flex>(d), r - 2, r - 1));
        const TensorData want = NdArray::into_data(NdArray::float_swap_dims(on<NdArray>(d), r - 2, r - 1));
        EXPECT_TRUE(got == want) << "swap_dims of " << s.to_string();
      }
    }
  }
}

// ---- slices that leave a single strided run ----------------------------------------------------

TEST_F(FlexKnobsReset, MutationFlexSliceOfOneColumnIsAStridedRun) {
  struct Case {
    Shape shape;
    std::vector<Range> ranges;
  };
  const Case cases[] = {
      {Shape{7, 2}, {Range{0, 7}, Range{0, 1}}}, {Shape{7, 2}, {Range{0, 7}, Range{1, 2}}},
      {Shape{9, 3}, {Range{1, 8}, Range{2, 3}}}, {Shape{5, 2, 2}, {Range{0, 5}, Range{0, 1}, Range{1, 2}}},
      {Shape{6, 2}, {Range{0, 6}, Range{0, 2}}},
  };
  for (const Case& c : cases) {
    const TensorData d = TensorData::from_f32(counting(c.shape.num_elements()), c.shape);
    const TensorData got = Flex::into_data(Flex::float_slice(on<Flex>(d), c.ranges));
    const TensorData want = NdArray::into_data(NdArray::float_slice(on<NdArray>(d), c.ranges));
    EXPECT_TRUE(got == want) << "slice of " << c.shape.to_string();
  }
  // Hand values: column 1 of [[0, 1], [2, 3], [4, 5]].
  const auto col = Flex::into_data(Flex::float_slice(on<Flex>(TensorData::from_f32({0, 1, 2, 3, 4, 5}, {3, 2})),
                                                     {Range{0, 3}, Range{1, 2}}));
  EXPECT_EQ(col.to_f32(), (std::vector<float>{1, 3, 5}));
}

// ---- broadcasting comparison split over threads with two unmergeable outer dims ---------------

TEST_F(FlexKnobsReset, MutationFlexThreadedBroadcastCompareWithTwoOuterDims) {
  // lhs [A, B, C] against rhs [A, 1, C]: the B dim broadcasts rhs only, so no dims merge; A * B
  // rows cross the thread threshold (2 * elementwise_grain / C rows), so chunks start mid-tensor.
  constexpr std::size_t C = 3;
  const std::size_t rows_needed = 2 * (flex::kTuning.elementwise_grain / C) + 1;
  std::size_t side = 1;
  while (side * side < rows_needed) ++side;
  const Shape ls{side, side, C}, rs{side, 1, C};
  auto lv = counting(ls.num_elements());
  for (std::size_t i = 0; i < lv.size(); ++i) lv[i] = static_cast<float>(i % 7);
  std::vector<float> rv(rs.num_elements());
  for (std::size_t i = 0; i < rv.size(); ++i) rv[i] = static_cast<float>((i * 5) % 7);
  const TensorData l = TensorData::from_f32(lv, ls), r = TensorData::from_f32(rv, rs);
  for (std::size_t threads : {2u, 4u}) {
    flex::set_num_threads(threads);
    for (bool swap : {false, true}) {
      const TensorData& a = swap ? r : l;
      const TensorData& b = swap ? l : r;
      EXPECT_TRUE(Flex::into_data(Flex::float_equal(on<Flex>(a), on<Flex>(b))) ==
                  NdArray::into_data(NdArray::float_equal(on<NdArray>(a), on<NdArray>(b))))
          << "equal, " << threads << " threads, swapped " << swap;
      EXPECT_TRUE(Flex::into_data(Flex::float_greater(on<Flex>(a), on<Flex>(b))) ==
                  NdArray::into_data(NdArray::float_greater(on<NdArray>(a), on<NdArray>(b))))
          << "greater, " << threads << " threads, swapped " << swap;
    }
  }
}

// ---- blocked GEMM edges: one row, k below the 4-step unroll, one column / one k past a block -----

// Small-integer inputs make every product and partial sum exact in F32 and F64, so Flex's blocked
// GEMM (whatever its summation order) must equal NdArray bit for bit. Every shape is above
// gemm_small_work, so the packed, blocked path runs.
TEST_F(FlexKnobsReset, MutationFlexBlockedGemmEdgesMatchNdArray) {
  struct Mnk {
    std::size_t m, k, n;
  };
  const std::size_t kc32 = flex::kTuning.gemm(false).kc, nc32 = flex::kTuning.gemm(false).nc;
  const std::size_t kc64 = flex::kTuning.gemm(true).kc, nc64 = flex::kTuning.gemm(true).nc;
  const Mnk shapes[] = {{1, 512, 600},     {300, 1, 900},       {300, 2, 450},     {300, 3, 300},
                        {7, kc32 + 1, 120}, {7, kc64 + 1, 160},  {2, 64, nc32 + 1}, {2, 64, nc64 + 1},
                        // n = 335: the last panel one column short of NR for F32 (16) and F64 (8)
                        {300, 3, 335},     {40, 64, 335}};
  for (const Mnk& s : shapes) {
    ASSERT_GE(s.m * s.k * s.n, flex::kTuning.gemm_small_work) << "shape must take the blocked path";
  }
  for (bool portable : {false, true}) {
    flex::force_portable_kernels(portable);
    for (std::size_t threads : {1u, 4u}) {
      flex::set_num_threads(threads);
      for (const Mnk& s : shapes) {
        std::vector<double> a(s.m * s.k), b(s.k * s.n);
        for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(static_cast<int>(i % 5) - 2);
        for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<double>(static_cast<int>((i * 7) % 5) - 2);
        for (DType dt : {DType::F32, DType::F64}) {
          auto data = [&](const std::vector<double>& v, Shape sh) {
            return dt == DType::F64 ? TensorData::from_f64(v, std::move(sh))
                                    : TensorData::from_f32(std::vector<float>(v.begin(), v.end()), std::move(sh));
          };
          const TensorData da = data(a, Shape{s.m, s.k}), db = data(b, Shape{s.k, s.n});
          const TensorData got = Flex::into_data(Flex::float_matmul(on<Flex>(da), on<Flex>(db)));
          const TensorData want = NdArray::into_data(NdArray::float_matmul(on<NdArray>(da), on<NdArray>(db)));
          EXPECT_TRUE(got == want) << "matmul " << s.m << "x" << s.k << " @ " << s.k << "x" << s.n
                                   << (dt == DType::F64 ? " f64" : " f32") << ", " << threads << " threads"
                                   << (portable ? ", portable" : "");
        }
      }
    }
  }
}

}  // namespace
