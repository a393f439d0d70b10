// The Cuda backend's indexing, comparison and along-a-dim kernels
// (<crossgrad/backends/cuda_kernels/dim_kernels.cuh>), run on the CPU. Those kernels use no
// block-level synchronisation, so a sequential emulation suffices: every thread of every block
// runs one after another, with threadIdx/blockIdx/blockDim/gridDim as plain globals. Small grids
// (2 blocks of 32 threads) make every grid-stride loop take several turns. Expected values come
// from plain loops over multi-indices written here from the spec (docs/OPS.md),
// not from the engine. Checks index math, scan order and tie/NaN rules; says nothing about the
// launch configuration or the device's math library (cuda_backend_test on a GPU does).
//
// Needs no CUDA toolkit: built in every configuration.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include "cuda_sequential_emulation.hpp"
// expf/exp/logf/log for dim_exp and dim_log: the C library's, in the global namespace.
#include <math.h>

#include <crossgrad/backends/cuda_kernels/dim_kernels.cuh>

#undef threadIdx
#undef blockIdx
#undef blockDim
#undef gridDim

#include <gtest/gtest.h>

namespace {

using namespace crossgrad::backends::cuda_detail;
using crossgrad::IndexingUpdateOp;
constexpr unsigned kBlocks = 2;
constexpr unsigned kBlockThreads = 32;

std::vector<float> coarse(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-4, 4);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(dist(rng)) * 0.5f;
  return v;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The spec's scan over x[o, :, i] of an [outer, len, inner] tensor: (kept index, kept value);
// with `min` the min scan.
std::pair<std::size_t, float> spec_max(const std::vector<float>& x, std::size_t o, std::size_t i, std::size_t len,
                                       std::size_t inner, bool min = false) {
  auto at = [&](std::size_t r) { return x[(o * len + r) * inner + i]; };
  std::size_t best = 0;
  for (std::size_t r = 1; r < len; ++r) {
    if (!std::isnan(at(best)) && (std::isnan(at(r)) || (min ? at(r) < at(best) : at(r) > at(best)))) best = r;
  }
  return {best, at(best)};
}

// max_dim_kernel (kMin: the min scan) against the spec's scan over shapes, NaN payloads and signed
// zeros, then a -0/+0 tie (+0/-0 for the min scan): the first is kept, with its sign.
template <bool kMin>
void expect_scan_kernel_follows_the_spec() {
  for (const auto& [outer, len, inner] : {std::tuple<std::size_t, std::size_t, std::size_t>{3, 5, 4}, {1, 7, 1},
                                          {70, 3, 1}, {1, 1, 65}, {2, 9, 33}}) {
    std::vector<float> x = coarse(outer * len * inner, static_cast<unsigned>(outer * 100 + len * 10 + inner));
    // NaNs with distinct payloads (which one is kept shows), and signed zeros for ties.
    for (std::size_t p = 0; p < x.size(); p += 7) x[p] = -0.0f;
    for (std::size_t p = 3; p < x.size(); p += 11) {
      std::uint32_t bits = 0x7fc00000u | static_cast<std::uint32_t>(p);
      std::memcpy(&x[p], &bits, sizeof bits);
    }
    const std::size_t slices = outer * inner;
    std::vector<float> values(slices);
    std::vector<std::int64_t> indices(slices);
    emu_seq::launch(kBlocks, kBlockThreads, [&] {
      max_dim_kernel<float, kMin>(x.data(), values.data(), indices.data(), slices, len, inner);
    });
    for (std::size_t o = 0; o < outer; ++o) {
      for (std::size_t i = 0; i < inner; ++i) {
        const auto [want_index, want_value] = spec_max(x, o, i, len, inner, kMin);
        EXPECT_EQ(indices[o * inner + i], static_cast<std::int64_t>(want_index)) << o << "," << i;
        EXPECT_TRUE(same_bits(values[o * inner + i], want_value)) << o << "," << i;
      }
    }
  }
  // The first of two equal zeros is kept: -0 then +0 for the max scan, +0 then -0 for the min scan.
  const std::vector<float> z = kMin ? std::vector<float>{0.0f, -0.0f} : std::vector<float>{-0.0f, 0.0f};
  float v = 1;
  std::int64_t k = 9;
  emu_seq::launch(1, kBlockThreads, [&] { max_dim_kernel<float, kMin>(z.data(), &v, &k, 1, 2, 1); });
  EXPECT_EQ(std::signbit(v), !kMin);
  EXPECT_EQ(k, 0);
}

TEST(CudaDimKernelsEmulation, MaxDimKeepsTheFirstNanElseTheFirstMax) { expect_scan_kernel_follows_the_spec<false>(); }

TEST(CudaDimKernelsEmulation, MinDimKeepsTheFirstNanElseTheFirstMin) { expect_scan_kernel_follows_the_spec<true>(); }

// Shapes for the kernels below, [outer, len, inner]; len 0 is an empty lane (products 1, any
// false, all true).
const std::tuple<std::size_t, std::size_t, std::size_t> kLaneShapes[] = {{3, 5, 4}, {1, 7, 1}, {70, 3, 1}, {1, 1, 65},
                                                                          {2, 9, 33}, {4, 0, 3}};

// Values with NaN payloads, signed zeros and x / -x pairs, so |x| ties and NaN choice show.
std::vector<float> lane_values(std::size_t n, unsigned seed) {
  std::vector<float> x = coarse(n, seed);
  for (std::size_t p = 0; p < x.size(); p += 7) x[p] = -0.0f;
  for (std::size_t p = 3; p < x.size(); p += 11) {
    std::uint32_t bits = 0xffc00000u | static_cast<std::uint32_t>(p);  // negative NaNs: |x| clears the sign
    std::memcpy(&x[p], &bits, sizeof bits);
  }
  return x;
}

TEST(CudaDimKernelsEmulation, MaxAbsKeepsTheMagnitudeOfTheFirstNaNElseOfTheFirstMaximum) {
  for (const auto& [outer, len, inner] : kLaneShapes) {
    if (len == 0) continue;  // the launcher panics before (empty-reduction)
    const std::vector<float> x = lane_values(outer * len * inner, static_cast<unsigned>(outer + len + inner));
    std::vector<float> abs_x(x.size());
    for (std::size_t k = 0; k < x.size(); ++k) abs_x[k] = std::fabs(x[k]);
    const std::size_t slices = outer * inner;
    std::vector<float> values(slices);
    emu_seq::launch(kBlocks, kBlockThreads, [&] { max_abs_dim_kernel<float>(x.data(), values.data(), slices, len, inner); });
    for (std::size_t o = 0; o < outer; ++o) {
      for (std::size_t i = 0; i < inner; ++i) {
        const float want = spec_max(abs_x, o, i, len, inner).second;
        EXPECT_TRUE(same_bits(values[o * inner + i], want)) << o << "," << i;
      }
    }
  }
}

TEST(CudaDimKernelsEmulation, ProdMultipliesInDoubleInIndexOrder) {
  for (const auto& [outer, len, inner] : kLaneShapes) {
    const std::vector<float> x = coarse(outer * len * inner, static_cast<unsigned>(7 * outer + len + inner));
    const std::size_t slices = outer * inner;
    std::vector<float> values(slices);
    emu_seq::launch(kBlocks, kBlockThreads, [&] { prod_dim_kernel<float>(x.data(), values.data(), slices, len, inner); });
    for (std::size_t o = 0; o < outer; ++o) {
      for (std::size_t i = 0; i < inner; ++i) {
        double p = 1;
        for (std::size_t r = 0; r < len; ++r) p *= static_cast<double>(x[(o * len + r) * inner + i]);
        EXPECT_TRUE(same_bits(values[o * inner + i], static_cast<float>(p))) << o << "," << i;
      }
    }
  }
  // In double: 1e30f * 1e30f overflows float, not double.
  const std::vector<float> big = {1e30f, 1e30f, 1e-30f};
  float v = 0;
  emu_seq::launch(1, kBlockThreads, [&] { prod_dim_kernel<float>(big.data(), &v, 1, 3, 1); });
  EXPECT_TRUE(std::isfinite(v));
}

TEST(CudaDimKernelsEmulation, AnyAndAllOfNonZeroIncludingNaN) {
  for (const auto& [outer, len, inner] : kLaneShapes) {
    std::vector<float> x = lane_values(outer * len * inner, static_cast<unsigned>(3 * outer + len + inner));
    // Mostly zeros, so lanes of every kind occur: all zero, some non-zero, none zero (NaN included).
    for (std::size_t k = 0; k < x.size(); ++k) {
      if (!std::isnan(x[k]) && k % 3 != 0) x[k] = 0.0f;
    }
    const std::size_t slices = outer * inner;
    std::vector<std::uint8_t> any(slices, 7), all(slices, 7);
    emu_seq::launch(kBlocks, kBlockThreads, [&] {
      truth_dim_kernel<float, false>(x.data(), any.data(), slices, len, inner);
      truth_dim_kernel<float, true>(x.data(), all.data(), slices, len, inner);
    });
    for (std::size_t o = 0; o < outer; ++o) {
      for (std::size_t i = 0; i < inner; ++i) {
        std::size_t nonzero = 0;
        for (std::size_t r = 0; r < len; ++r) nonzero += x[(o * len + r) * inner + i] != 0.0f ? 1 : 0;
        EXPECT_EQ(any[o * inner + i], nonzero > 0 ? 1 : 0) << o << "," << i;
        EXPECT_EQ(all[o * inner + i], nonzero == len ? 1 : 0) << o << "," << i;
      }
    }
  }
}

TEST(CudaDimKernelsEmulation, SoftmaxIsTheSequentialFormula) {
  for (const auto& [outer, len, inner] : {std::tuple<std::size_t, std::size_t, std::size_t>{3, 5, 4}, {1, 300, 1},
                                          {70, 3, 1}, {2, 9, 33}}) {
    std::mt19937 rng(static_cast<unsigned>(len));
    std::uniform_real_distribution<double> dist(-20, 20);
    std::vector<double> x(outer * len * inner);
    for (double& e : x) e = dist(rng);
    std::vector<double> y(x.size()), ly(x.size());
    const std::size_t slices = outer * inner;
    emu_seq::launch(kBlocks, kBlockThreads, [&] { softmax_kernel<double, false>(x.data(), y.data(), slices, len, inner); });
    emu_seq::launch(kBlocks, kBlockThreads, [&] { softmax_kernel<double, true>(x.data(), ly.data(), slices, len, inner); });
    for (std::size_t o = 0; o < outer; ++o) {
      for (std::size_t i = 0; i < inner; ++i) {
        auto at = [&](std::size_t r) { return (o * len + r) * inner + i; };
        double m = x[at(0)];
        for (std::size_t r = 1; r < len; ++r) m = x[at(r)] > m ? x[at(r)] : m;
        double s = 0;
        for (std::size_t r = 0; r < len; ++r) s += std::exp(x[at(r)] - m);
        for (std::size_t r = 0; r < len; ++r) {
          EXPECT_EQ(y[at(r)], std::exp(x[at(r)] - m) / s);
          EXPECT_EQ(ly[at(r)], (x[at(r)] - m) - std::log(s));
        }
      }
    }
  }
}

TEST(CudaDimKernelsEmulation, ScansFoldEachLaneInIndexOrder) {
  for (const auto& [outer, len, inner] : {std::tuple<std::size_t, std::size_t, std::size_t>{3, 5, 4}, {1, 300, 1},
                                          {70, 3, 1}, {2, 9, 33}}) {
    std::mt19937 rng(static_cast<unsigned>(len + inner));
    std::uniform_real_distribution<float> dist(-2, 2);
    std::vector<float> x(outer * len * inner);
    for (float& e : x) e = dist(rng);
    // Ties and NaNs for the running extremes: values on a coarse grid, a NaN now and then.
    for (std::size_t p = 0; p < x.size(); p += 7) x[p] = std::round(x[p]);
    for (std::size_t p = 5; p < x.size(); p += 23) x[p] = std::numeric_limits<float>::quiet_NaN();
    for (std::size_t p = 3; p < x.size(); p += 11) x[p] = p % 2 ? -0.0f : 0.0f;
    std::vector<float> sum(x.size()), prod(x.size()), lo(x.size()), hi(x.size());
    const std::size_t slices = outer * inner;
    emu_seq::launch(kBlocks, kBlockThreads, [&] { scan_kernel<float, ScanStep::Sum>(x.data(), sum.data(), slices, len, inner); });
    emu_seq::launch(kBlocks, kBlockThreads, [&] { scan_kernel<float, ScanStep::Prod>(x.data(), prod.data(), slices, len, inner); });
    emu_seq::launch(kBlocks, kBlockThreads, [&] { scan_kernel<float, ScanStep::Min>(x.data(), lo.data(), slices, len, inner); });
    emu_seq::launch(kBlocks, kBlockThreads, [&] { scan_kernel<float, ScanStep::Max>(x.data(), hi.data(), slices, len, inner); });
    for (std::size_t o = 0; o < outer; ++o) {
      for (std::size_t i = 0; i < inner; ++i) {
        auto at = [&](std::size_t r) { return (o * len + r) * inner + i; };
        // Each prefix folded anew, in float, in index order.
        for (std::size_t r = 0; r < len; ++r) {
          float s = x[at(0)], p = x[at(0)];
          for (std::size_t k = 1; k <= r; ++k) {
            s += x[at(k)];
            p *= x[at(k)];
          }
          EXPECT_TRUE(same_bits(sum[at(r)], s)) << outer << "x" << len << "x" << inner << " at " << r;
          EXPECT_TRUE(same_bits(prod[at(r)], p)) << outer << "x" << len << "x" << inner << " at " << r;
          // The running extremes: the last NaN of the prefix, else its last element equal to the
          // prefix's extreme (so -0 after +0 gives -0).
          std::size_t last_nan = len, first = 0, second = 0;
          for (std::size_t k = 0; k <= r; ++k) {
            if (std::isnan(x[at(k)])) last_nan = k;
            if (x[at(k)] <= x[at(first)]) first = k;
            if (x[at(k)] >= x[at(second)]) second = k;
          }
          const float want_lo = last_nan < len ? x[at(last_nan)] : x[at(first)];
          const float want_hi = last_nan < len ? x[at(last_nan)] : x[at(second)];
          EXPECT_TRUE(same_bits(lo[at(r)], want_lo)) << "cummin " << outer << "x" << len << "x" << inner << " at " << r;
          EXPECT_TRUE(same_bits(hi[at(r)], want_hi)) << "cummax " << outer << "x" << len << "x" << inner << " at " << r;
        }
      }
    }
  }
}

TEST(CudaDimKernelsEmulation, FlipMirrorsTheFlippedCoordinates) {
  // [3, 4, 5] without size-1 dims, flipping dims 0 and 2.
  FlipShape shape;
  shape.rank = 3;
  const std::uint64_t dims[] = {3, 4, 5};
  for (int d = 0; d < 3; ++d) shape.dims[d] = dims[d];
  shape.flipped[0] = true;
  shape.flipped[2] = true;
  std::vector<std::uint32_t> x(60), y(60, 0);
  for (std::uint32_t i = 0; i < 60; ++i) x[i] = i;
  emu_seq::launch(kBlocks, kBlockThreads, [&] { flip_kernel<std::uint32_t>(x.data(), y.data(), 60, shape); });
  for (std::size_t a = 0; a < 3; ++a) {
    for (std::size_t b = 0; b < 4; ++b) {
      for (std::size_t c = 0; c < 5; ++c) {
        EXPECT_EQ(y[(a * 4 + b) * 5 + c], ((2 - a) * 4 + b) * 5 + (4 - c)) << a << "," << b << "," << c;
      }
    }
  }
}

TEST(CudaDimKernelsEmulation, CompareBroadcasts) {
  // [3, 1] against [4]: out [3, 4], strides (1, 0) and (0, 1).
  const std::vector<float> a = {1, std::numeric_limits<float>::quiet_NaN(), -0.0f};
  const std::vector<float> b = {0.0f, 1, 2, -1};
  const Collapsed c = collapse({3, 4}, {{1, 0}, {0, 1}});
  Strided<std::uint32_t, 2> walk;
  ASSERT_TRUE(fill_strided(c, walk));
  std::vector<std::uint8_t> out(12, 7);
  struct Greater {
    bool operator()(float p, float q) const { return p > q; }
  };
  struct Equal {
    bool operator()(float p, float q) const { return p == q; }
  };
  emu_seq::launch(kBlocks, 4, [&] { compare_kernel<float>(a.data(), b.data(), out.data(), 12u, walk, Greater{}); });
  EXPECT_EQ(out, (std::vector<std::uint8_t>{1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1}));
  emu_seq::launch(kBlocks, 4, [&] { compare_kernel<float>(a.data(), b.data(), out.data(), 12u, walk, Equal{}); });
  EXPECT_EQ(out, (std::vector<std::uint8_t>{0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}));
}

TEST(CudaDimKernelsEmulation, CatPiecesLandAtTheirColumns) {
  // [2, 1, 3] and [2, 2, 3] along dim 1 -> [2, 3, 3].
  const std::vector<float> p0 = {1, 2, 3, 4, 5, 6};
  const std::vector<float> p1 = {10, 11, 12, 13, 14, 15, 20, 21, 22, 23, 24, 25};
  std::vector<float> out(18, -1);
  const std::size_t row = 3 * 3;
  emu_seq::launch(kBlocks, 4, [&] { cat_piece_kernel<float>(p0.data(), out.data(), 6, 3, row); });
  emu_seq::launch(kBlocks, 4, [&] { cat_piece_kernel<float>(p1.data(), out.data() + 3, 12, 6, row); });
  EXPECT_EQ(out, (std::vector<float>{1, 2, 3, 10, 11, 12, 13, 14, 15, 4, 5, 6, 20, 21, 22, 23, 24, 25}));
}

TEST(CudaDimKernelsEmulation, SelectAndSelectAssignInJOrder) {
  const std::size_t outer = 2, len = 4, inner = 3;
  std::vector<float> x(outer * len * inner);
  for (std::size_t p = 0; p < x.size(); ++p) x[p] = static_cast<float>(p);
  const std::vector<std::int64_t> idx = {3, 0, 3, 3, 1};
  const std::size_t k = idx.size();
  std::vector<float> sel(outer * k * inner);
  emu_seq::launch(kBlocks, kBlockThreads, [&] {
    select_kernel<float>(x.data(), idx.data(), sel.data(), sel.size(), k, len, inner);
  });
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t j = 0; j < k; ++j)
      for (std::size_t i = 0; i < inner; ++i)
        EXPECT_EQ(sel[(o * k + j) * inner + i], x[(o * len + static_cast<std::size_t>(idx[j])) * inner + i]);
  // Position 3 gets j = 0, 2, 3: +2^25 first rounds x to a multiple of 4, so x + 2^25 - 2^25 + 1
  // and x + 1 - 2^25 + 2^25 differ (9 -> 9 vs 8): any other order shows in the bits.
  std::vector<float> vals(outer * k * inner);
  const float order_sensitive[] = {0x1p25f, 0.5f, -0x1p25f, 1.0f, 3.0f};
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t j = 0; j < k; ++j)
      for (std::size_t i = 0; i < inner; ++i) vals[(o * k + j) * inner + i] = order_sensitive[j] * static_cast<float>(i + 1);
  // CSR of the positions: r = 0 <- j 1; r = 1 <- j 4; r = 3 <- j 0, 2, 3.
  const std::vector<std::int64_t> first = {0, 1, 2, 2, 5};
  const std::vector<std::int64_t> js = {1, 4, 0, 2, 3};
  std::vector<float> out(x.size());
  emu_seq::launch(kBlocks, kBlockThreads, [&] {
    select_assign_kernel<float>(x.data(), vals.data(), first.data(), js.data(), out.data(), out.size(), k, len, inner);
  });
  std::vector<float> want = x;  // the spec's sequential loop
  for (std::size_t j = 0; j < k; ++j)
    for (std::size_t o = 0; o < outer; ++o)
      for (std::size_t i = 0; i < inner; ++i)
        want[(o * len + static_cast<std::size_t>(idx[j])) * inner + i] += vals[(o * k + j) * inner + i];
  for (std::size_t p = 0; p < out.size(); ++p) EXPECT_TRUE(same_bits(out[p], want[p])) << p;
}

TEST(CudaDimKernelsEmulation, GatherReadsEachElementsOwnIndex) {
  // x [2, 4, 3] gathered along dim 1 by an index of shape [2, 5, 3].
  const std::size_t outer = 2, len = 4, inner = 3, k = 5;
  std::vector<float> x(outer * len * inner);
  for (std::size_t p = 0; p < x.size(); ++p) x[p] = static_cast<float>(p) + 0.5f;
  std::vector<std::int64_t> idx(outer * k * inner);
  for (std::size_t p = 0; p < idx.size(); ++p) idx[p] = static_cast<std::int64_t>((p * 7 + p / 5) % len);
  std::vector<float> out(idx.size(), -1);
  emu_seq::launch(kBlocks, kBlockThreads, [&] {
    gather_dim_kernel<float>(x.data(), idx.data(), out.data(), out.size(), k, len, inner);
  });
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t j = 0; j < k; ++j)
      for (std::size_t i = 0; i < inner; ++i) {
        const std::size_t e = (o * k + j) * inner + i;
        EXPECT_EQ(out[e], x[(o * len + static_cast<std::size_t>(idx[e])) * inner + i]) << e;
      }
}

TEST(CudaDimKernelsEmulation, ScatterAddAddsEachLaneInJOrder) {
  const std::size_t outer = 2, len = 4, inner = 3, k = 4;
  std::vector<float> x(outer * len * inner);
  for (std::size_t p = 0; p < x.size(); ++p) x[p] = static_cast<float>(p);
  // Every lane sends j = 0, 1, 3 to position 2 and j = 2 to position 0; the values are order
  // sensitive (+2^25 first rounds to a multiple of 4), so any other order shows in the bits.
  const std::int64_t lane_idx[] = {2, 2, 0, 2};
  const float order_sensitive[] = {0x1p25f, 1.0f, 3.0f, -0x1p25f};
  std::vector<std::int64_t> idx(outer * k * inner);
  std::vector<float> vals(idx.size());
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t j = 0; j < k; ++j)
      for (std::size_t i = 0; i < inner; ++i) {
        idx[(o * k + j) * inner + i] = (lane_idx[j] + static_cast<std::int64_t>(i)) % static_cast<std::int64_t>(len);
        vals[(o * k + j) * inner + i] = order_sensitive[j] * static_cast<float>(o + 1);
      }
  std::vector<float> out = x;
  emu_seq::launch(kBlocks, kBlockThreads, [&] {
    scatter_kernel<float, IndexingUpdateOp::Add>(vals.data(), idx.data(), out.data(), outer * inner, k, len, inner);
  });
  std::vector<float> want = x;  // the spec's loop, in row-major order of the indices
  for (std::size_t e = 0; e < idx.size(); ++e) {
    const std::size_t i = e % inner, o = e / inner / k;
    want[(o * len + static_cast<std::size_t>(idx[e])) * inner + i] += vals[e];
  }
  for (std::size_t p = 0; p < out.size(); ++p) EXPECT_TRUE(same_bits(out[p], want[p])) << p;
}

// float_scatter's other updates, one lane [4] along dim 0 with every value landing on position 1:
// Assign keeps the last, Mul multiplies in order, Min/Max let a NaN value in, keep a NaN target
// and keep the target on a +0 / -0 tie.
TEST(CudaDimKernelsEmulation, ScatterAppliesEachUpdateInJOrder) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto run = [&]<IndexingUpdateOp U>(std::vector<float> x, std::vector<float> vals) {
    const std::vector<std::int64_t> idx(vals.size(), 1);
    emu_seq::launch(kBlocks, kBlockThreads, [&] {
      scatter_kernel<float, U>(vals.data(), idx.data(), x.data(), 1, vals.size(), x.size(), 1);
    });
    return x;
  };
  EXPECT_EQ(run.operator()<IndexingUpdateOp::Assign>({0, 5, 0}, {1, 2, 3})[1], 3.0f);
  EXPECT_EQ(run.operator()<IndexingUpdateOp::Mul>({0, 0x1p100f, 0}, {0x1p100f, 0x1p-100f, 2})[1], std::numeric_limits<float>::infinity());
  EXPECT_EQ(run.operator()<IndexingUpdateOp::Min>({0, 5, 0}, {7, -1, 3})[1], -1.0f);
  EXPECT_TRUE(std::isnan(run.operator()<IndexingUpdateOp::Max>({0, 5, 0}, {7, nan, 9})[1]));
  EXPECT_TRUE(std::isnan(run.operator()<IndexingUpdateOp::Min>({0, nan, 0}, {-1})[1]));
  EXPECT_TRUE(same_bits(run.operator()<IndexingUpdateOp::Max>({0, -0.0f, 0}, {0.0f})[1], -0.0f));
  EXPECT_TRUE(same_bits(run.operator()<IndexingUpdateOp::Min>({0, 0.0f, 0}, {-0.0f})[1], 0.0f));
}

TEST(CudaDimKernelsEmulation, MaskKernelPicksBroadcastOperands) {
  // x [2, 3], mask [3] (broadcast over rows), value [2, 1] (broadcast over columns) -> [2, 3].
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};
  const std::vector<std::uint8_t> m = {1, 0, 1};
  const std::vector<float> v = {-0.0f, std::numeric_limits<float>::quiet_NaN()};
  const Collapsed c = collapse({2, 3}, {{3, 1}, {0, 1}, {1, 0}});
  Strided<std::uint32_t, 3> walk;
  ASSERT_TRUE(fill_strided(c, walk));
  std::vector<float> out(6, 7);
  emu_seq::launch(kBlocks, 4, [&] { mask_kernel<float>(x.data(), m.data(), v.data(), 9.0f, out.data(), 6u, walk); });
  EXPECT_TRUE(same_bits(out[0], -0.0f));
  EXPECT_EQ(out[1], 2);
  EXPECT_TRUE(same_bits(out[2], -0.0f));
  EXPECT_TRUE(std::isnan(out[3]) && out[4] == 5 && std::isnan(out[5]));
  // mask_fill: no value operand, the fill instead.
  emu_seq::launch(kBlocks, 4, [&] { mask_kernel<float>(x.data(), m.data(), nullptr, 9.0f, out.data(), 6u, walk); });
  EXPECT_EQ(out, (std::vector<float>{9, 2, 9, 9, 5, 9}));
}

}  // namespace

// rank_sort_kernel: lanes of a coarse grid of values (ties), zeros of both signs and NaNs, against
// each lane sorted here by insertion, which is stable by construction: an element moves left only
// past elements that sort strictly after it (ascending: NaN after everything; descending the
// reverse; -0 equal to +0).
TEST(CudaDimKernelsEmulation, RankSortGivesTheStableOrderOfEachLane) {
  const auto after = [](float a, float b, bool descending) {  // a sorts strictly after b
    if (descending) return !std::isnan(a) && (std::isnan(b) || a < b);
    return !std::isnan(b) && (std::isnan(a) || a > b);
  };
  for (const auto& [outer, len, inner] : {std::tuple<std::size_t, std::size_t, std::size_t>{3, 5, 4}, {1, 40, 1},
                                          {7, 3, 1}, {2, 9, 5}}) {
    std::mt19937 rng(static_cast<unsigned>(len * 7 + inner));
    std::uniform_int_distribution<int> grid(-3, 3);
    std::vector<float> x(outer * len * inner);
    for (std::size_t p = 0; p < x.size(); ++p) {
      const int v = grid(rng);
      x[p] = v == 3 ? std::numeric_limits<float>::quiet_NaN() : v == 0 ? (p % 2 ? -0.0f : 0.0f) : static_cast<float>(v);
    }
    for (const bool descending : {false, true}) {
      for (const std::size_t k : {len, std::size_t{2}}) {
        if (k > len) continue;
        std::vector<std::int64_t> out(outer * k * inner, -1);
        emu_seq::launch(kBlocks, kBlockThreads, [&] {
          rank_sort_kernel<float>(x.data(), out.data(), x.size(), len, inner, k, descending);
        });
        for (std::size_t o = 0; o < outer; ++o) {
          for (std::size_t i = 0; i < inner; ++i) {
            auto value = [&](std::size_t r) { return x[(o * len + r) * inner + i]; };
            std::vector<std::size_t> order;
            for (std::size_t r = 0; r < len; ++r) {
              std::size_t at = order.size();
              while (at > 0 && after(value(order[at - 1]), value(r), descending)) --at;
              order.insert(order.begin() + static_cast<std::ptrdiff_t>(at), r);
            }
            for (std::size_t p = 0; p < k; ++p) {
              EXPECT_EQ(out[(o * k + p) * inner + i], static_cast<std::int64_t>(order[p]))
                  << outer << "x" << len << "x" << inner << (descending ? " descending" : " ascending") << " k " << k
                  << " lane " << o << "," << i << " place " << p;
            }
          }
        }
      }
    }
  }
}
