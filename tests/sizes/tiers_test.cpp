// The tiers themselves: each threshold of Note [Flex tuning] has cases on both sides, and the
// test-facing overrides take effect (otherwise every other size test could pass vacuously).
#include "exec.hpp"
#include "tier.hpp"

#include <crossgrad/backends/flex_tuning.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

namespace crossgrad::sizes {
namespace {

using backends::flex::kTuning;

template <class Cases, class Pred>
bool any(const Cases& cases, Pred pred) {
  return std::any_of(cases.begin(), cases.end(), pred);
}

TEST(SizesTiers, SplitSizesStraddleTheSplitPoint) {
  const std::size_t g = kTuning.elementwise_grain, split = kTuning.split_min_grains * g;
  const auto cases = split_sizes(g);
  EXPECT_TRUE(any(cases, [&](const FlatCase& c) { return c.n == split - 1; }));
  EXPECT_TRUE(any(cases, [&](const FlatCase& c) { return c.n == split + 1; }));
  EXPECT_TRUE(any(cases, [&](const FlatCase& c) { return (c.n / g) % 2 == 1 && c.n >= split; }))
      << "an odd chunk count";
  const std::size_t cap = kTuning.chunks_per_thread * max_planned_threads();
  EXPECT_TRUE(any(cases, [&](const FlatCase& c) { return c.n / g > cap; })) << "past the chunk cap";
}

TEST(SizesTiers, GemmCasesStraddleEveryBlockSize) {
  for (DType dtype : {DType::F32, DType::F64}) {
    const auto& b = kTuning.gemm(dtype == DType::F64);
    const auto cases = gemm_cases(dtype);
    auto m = [](const GemmCase& c) { return c.lhs[c.lhs.size() - 2]; };
    auto k = [](const GemmCase& c) { return c.lhs.back(); };
    auto n = [](const GemmCase& c) { return c.rhs.back(); };
    auto work = [&](const GemmCase& c) { return m(c) * k(c) * n(c); };
    EXPECT_TRUE(any(cases, [&](const GemmCase& c) { return work(c) < kTuning.gemm_small_work; }));
    EXPECT_TRUE(any(cases, [&](const GemmCase& c) { return work(c) == kTuning.gemm_small_work; }));
    EXPECT_TRUE(any(cases, [&](const GemmCase& c) {
      return work(c) >= kTuning.gemm_small_work && work(c) < kTuning.gemm_threaded_work;
    }));
    EXPECT_TRUE(any(cases, [&](const GemmCase& c) { return work(c) == kTuning.gemm_threaded_work; }));
    EXPECT_TRUE(any(cases, [&](const GemmCase& c) { return m(c) == b.mc + 1; })) << "MC+1";
    EXPECT_TRUE(any(cases, [&](const GemmCase& c) { return k(c) == b.kc + 1; })) << "KC+1";
    EXPECT_TRUE(any(cases, [&](const GemmCase& c) { return n(c) == b.nc + 1; })) << "NC+1";
    EXPECT_TRUE(any(cases, [&](const GemmCase& c) {
      return n(c) > b.nc && work(c) >= kTuning.gemm_threaded_work;
    })) << "threaded with n > NC";
    EXPECT_TRUE(any(cases, [&](const GemmCase& c) { return m(c) % b.mr != 0 && n(c) % b.nr != 0; }))
        << "MR/NR edge tiles";
  }
}

TEST(SizesTiers, BatchedCasesTakeBothBatchPaths) {
  const auto cases = batched_gemm_cases(DType::F32);
  auto per_entry = [](const GemmCase& c) { return c.lhs[c.lhs.size() - 2] * c.lhs.back() * c.rhs.back(); };
  auto entries = [](const GemmCase& c) {
    std::size_t count = 1;
    const std::size_t rank = std::max(c.lhs.size(), c.rhs.size()) - 2;
    for (std::size_t d = 0; d < rank; ++d) {
      const std::size_t l = d + c.lhs.size() - 2 >= rank ? c.lhs[d + c.lhs.size() - 2 - rank] : 1;
      const std::size_t r = d + c.rhs.size() - 2 >= rank ? c.rhs[d + c.rhs.size() - 2 - rank] : 1;
      count *= std::max(l, r);
    }
    return count;
  };
  auto by_batch = [&](const GemmCase& c) {
    return entries(c) > 1 && per_entry(c) < kTuning.batch_small_matrix_work &&
           per_entry(c) * entries(c) >= kTuning.batch_enough_work;
  };
  EXPECT_TRUE(any(cases, by_batch));
  EXPECT_TRUE(any(cases, [&](const GemmCase& c) { return entries(c) > 1 && !by_batch(c); }));
}

TEST(SizesTiers, ReductionsPassTheSumBlockAndColumnChunk) {
  const std::size_t sb = kTuning.sum_block;
  const auto full = full_reduce_sizes();
  EXPECT_TRUE(any(full, [&](const FlatCase& c) { return c.n < 2 * sb; }));
  EXPECT_TRUE(any(full, [&](const FlatCase& c) { return c.n > 2 * sb && c.n % sb != 0; }));
  const auto dims = dim_reduce_cases();
  for (std::size_t dim = 0; dim < 3; ++dim) {
    EXPECT_TRUE(any(dims, [&](const ShapeCase& c) { return c.dim0 == dim && product(c.shape) > sb; })) << dim;
  }
  EXPECT_TRUE(any(dims, [&](const ShapeCase& c) {
    return c.shape.size() == 3 && c.dim0 == 1 && c.shape[2] == kTuning.reduce_column_chunk + 1;
  }));
  // Row blocks over more than one block chunk, the last one partial.
  EXPECT_TRUE(any(dims, [&](const ShapeCase& c) {
    std::size_t inner = 1;
    for (std::size_t i = c.dim0 + 1; i < c.shape.size(); ++i) inner *= c.shape[i];
    return c.shape[c.dim0] > kTuning.reduce_row_block && inner > kTuning.reduce_block_chunk &&
           inner % kTuning.reduce_block_chunk != 0;
  }));
}

TEST(SizesTiers, OverridesSwitchIsaAndThreads) {
  namespace flex = backends::flex;
  for (const ExecConfig& config : flex_configs()) {
    ScopedExec scope(config);
    EXPECT_EQ(flex::num_threads(), config.threads);
    if (config.portable) {
      EXPECT_STREQ(flex::active_isa(), "portable");
    }
  }
  EXPECT_GE(flex_configs().size(), 2u) << "at least thread counts 1 and N";
}

}  // namespace
}  // namespace crossgrad::sizes
