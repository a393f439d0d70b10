// Flex's row-streaming paths of issue 13 against NdArray, at the exact shapes that enter each
// branch and one past each threshold, with both kernel tables (AVX2/FMA and portable):
//  - gemv.cpp (Note [Flex GEMV]): m == 1 (column parts per thread, gemv_strip-column strips,
//    gemv_threaded_work multiply-adds per part, gemv_line-column part boundaries) and n == 1
//    (one dot product per row, rows over threads);
//  - gemm.cpp gemm_few_rows: threaded products with m <= MC and k <= gemm_few_rows_max_k, B
//    panels in groups of NC / NR;
//  - reduce.cpp (Note [Flex dim reductions over long dims]): reduced dims longer than
//    reduce_row_block rows summed in blocks of that many rows over column chunks of
//    reduce_block_chunk, four rows per kernel pass; shorter ones in column chunks of
//    reduce_column_chunk.
// Every threshold is read from flex::kTuning (Note [Flex tuning]), so a retuned constant moves
// the shapes with it instead of leaving a path untested.
// Tails: column counts that are not multiples of the vector widths (8 floats, 4 doubles, 16-wide
// unrolls), row counts that are not multiples of the four-row passes.
#include <crossgrad/backends/flex.hpp>
#include <crossgrad/backends/ndarray.hpp>
#include <crossgrad/backends/flex_testing.hpp>
#include <crossgrad/backends/flex_tuning.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using crossgrad::Device;
using crossgrad::DType;
using crossgrad::Shape;
using crossgrad::TensorData;
using crossgrad::backends::Flex;
using crossgrad::backends::NdArray;
namespace flex = crossgrad::backends::flex;

TensorData random_data(const Shape& shape, DType dtype, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-2, 2);
  std::vector<double> v(shape.num_elements());
  for (double& x : v) x = dist(rng);
  if (dtype == DType::F64) return TensorData::from_f64(std::move(v), shape);
  return TensorData::from_f32(std::vector<float>(v.begin(), v.end()), shape);
}

std::vector<double> values(const TensorData& d) { return d.dtype() == DType::F64 ? d.to_f64() : [&] {
  const auto f = d.to_f32();
  return std::vector<double>(f.begin(), f.end());
}(); }

// Flex's matmul against NdArray's. The tolerance is relative to sum |a_ip * b_pj| per output
// (reassociation of the k-sum and FMA), so a wrong or missing term fails whatever the values.
void expect_matmul_matches(std::size_t m, std::size_t k, std::size_t n, DType dtype, Shape lhs_batch = {},
                           Shape rhs_batch = {}) {
  std::vector<std::size_t> ls(lhs_batch.dims().begin(), lhs_batch.dims().end()), rs(rhs_batch.dims().begin(), rhs_batch.dims().end());
  ls.push_back(m), ls.push_back(k), rs.push_back(k), rs.push_back(n);
  const TensorData a = random_data(Shape(ls), dtype, unsigned(m * 31 + k * 7 + n)), b = random_data(Shape(rs), dtype, unsigned(n * 13 + k + 5));
  const auto got = values(Flex::into_data(Flex::float_matmul(Flex::from_data(a, Device::cpu()), Flex::from_data(b, Device::cpu()))));
  const auto want = values(NdArray::into_data(NdArray::float_matmul(NdArray::from_data(a, Device::cpu()), NdArray::from_data(b, Device::cpu()))));
  ASSERT_EQ(got.size(), want.size());
  const double eps = dtype == DType::F64 ? 1e-15 : 1e-6;
  // Every |a|, |b| < 2: sum |a_ip b_pj| <= 4k.
  const double tol = eps * 4.0 * double(k) * 4 + 1e-30;
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol) << m << "x" << k << "x" << n << " output " << i;
  }
}

void expect_reduce_matches(const Shape& shape, std::size_t dim, DType dtype) {
  const TensorData x = random_data(shape, dtype, unsigned(shape.num_elements() + dim));
  const auto fx = Flex::from_data(x, Device::cpu());
  const auto nx = NdArray::from_data(x, Device::cpu());
  const double eps = dtype == DType::F64 ? 1e-15 : 1e-7;
  const double len = double(shape[dim]);
  for (bool mean : {false, true}) {
    const auto got = values(Flex::into_data(mean ? Flex::float_mean_dim(fx, dim) : Flex::float_sum_dim(fx, dim)));
    const auto want = values(NdArray::into_data(mean ? NdArray::float_mean_dim(nx, dim) : NdArray::float_sum_dim(nx, dim)));
    ASSERT_EQ(got.size(), want.size());
    // Sums in double, rounded once to the dtype: within a rounding of the result plus the
    // reassociation of at most len terms of magnitude < 2.
    const double scale = mean ? 1.0 / len : 1.0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double tol = (std::abs(want[i]) * eps * 2 + 2.0 * len * 1e-15 * scale) + 1e-300;
      ASSERT_NEAR(got[i], want[i], tol) << (mean ? "mean" : "sum") << " dim " << dim << " shape " << shape.to_string()
                                        << " output " << i;
    }
  }
}

class FlexRowPaths : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { flex::force_portable_kernels(GetParam()); }
  void TearDown() override {
    flex::force_portable_kernels(false);
    flex::set_num_threads_override(0);
  }
};
INSTANTIATE_TEST_SUITE_P(Isa, FlexRowPaths, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Portable" : "Native"; });

// ---- m == 1: row vector times matrix ---------------------------------------------------------

TEST_P(FlexRowPaths, RowTimesMatrixColumnAndRowTails) {
  // Serial (k * n < 2 * 65536): every column count around the 8-float / 4-double vectors and
  // the two-vector unroll, every k around the four-row passes.
  for (std::size_t k : {1, 2, 3, 4, 5, 7, 8, 9}) {
    for (std::size_t n : {2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 23, 24, 31, 32, 33}) {
      expect_matmul_matches(1, k, n, DType::F32);
      expect_matmul_matches(1, k, n, DType::F64);
    }
  }
}

const std::size_t kStrip = flex::kTuning.gemv_strip, kLine = flex::kTuning.gemv_line;
const std::size_t kGemvWork = flex::kTuning.gemv_threaded_work;
// The smallest k giving a 1 x k x n product enough work for two parts.
std::size_t k_for_two_parts(std::size_t n) { return (2 * kGemvWork + n - 1) / n; }

TEST_P(FlexRowPaths, RowTimesMatrixStripsAndThreadedParts) {
  static_assert(flex::kTuning.gemv_strip % flex::kTuning.gemv_line == 0);
  for (DType dt : {DType::F32, DType::F64}) {
    expect_matmul_matches(1, 3, kStrip, dt);           // one full strip
    expect_matmul_matches(1, 3, kStrip + 1, dt);       // a second strip of one column
    expect_matmul_matches(1, 5, 2 * kStrip + 4, dt);   // three strips
    expect_matmul_matches(1, 127, (2 * kGemvWork - 1) / 127, dt);  // just under 2 * work: one part
    expect_matmul_matches(1, 128, 2 * kGemvWork / 128, dt);         // exactly 2 * work: two parts
    expect_matmul_matches(1, 1024, 1024, dt);          // the benchmark shape
    expect_matmul_matches(1, 300, 1000, dt);           // uneven parts
    expect_matmul_matches(1, k_for_two_parts(2 * kLine - 1), 2 * kLine - 1, dt);  // under two lines: one part
    expect_matmul_matches(1, k_for_two_parts(2 * kLine), 2 * kLine, dt);          // two parts of one line each
    expect_matmul_matches(1, 70, 2 * kStrip + 3, dt);  // parts that each hold several strips
  }
}

TEST_P(FlexRowPaths, RowTimesMatrixWithOtherThreadCounts) {
  for (std::size_t threads : {1, 3, 5}) {
    flex::set_num_threads_override(threads);
    expect_matmul_matches(1, 512, 1000, DType::F32);  // 3 threads: parts of 336, 336, 328
    expect_matmul_matches(1, 129, 1057, DType::F64);
  }
}

// ---- n == 1: matrix times column, and 1 x k x 1 -------------------------------------------------

TEST_P(FlexRowPaths, MatrixTimesColumn) {
  for (DType dt : {DType::F32, DType::F64}) {
    for (std::size_t k : {1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 100}) {
      expect_matmul_matches(1, k, 1, dt);
      expect_matmul_matches(2, k, 1, dt);
      expect_matmul_matches(7, k, 1, dt);
    }
    expect_matmul_matches(1, 100003, 1, dt);
    // Rows go over threads in grains of work / k rows, serial below split_min_grains grains.
    const std::size_t split = flex::kTuning.split_min_grains * (kGemvWork / 64);
    expect_matmul_matches(split - 1, 64, 1, dt);  // serial
    expect_matmul_matches(split, 64, 1, dt);      // threaded from there
    expect_matmul_matches(3001, 65, 1, dt);
  }
}

TEST_P(FlexRowPaths, BatchedGemvRunsSerialPerEntry) {
  // Many small entries go over threads by batch, each a serial gemv.
  expect_matmul_matches(1, 32, 40, DType::F32, Shape{300}, Shape{300});
  expect_matmul_matches(40, 32, 1, DType::F64, Shape{300}, Shape{1});
  // Rows that end in a tail, next to each other in one output: a tail that runs one column too
  // far lands on the next entry's first column, which another thread may have finished already
  // (a single gemv would only touch its buffer's slack). k = 1025: four-row passes and a single
  // row, and entries long enough (tens of microseconds) for the threads to overlap; 300 entries
  // of 1025 x n: enough work in total to go over threads by batch.
  const std::size_t k = 1025;
  for (std::size_t threads : {2, 3}) {
    flex::set_num_threads_override(threads);
    // n = 39 / 11: 7 / 3 columns after the two-vector loop (one short of a vector); 41 / 13: 1.
    for (std::size_t n : {39, 41}) {
      ASSERT_GE(300 * k * n, flex::kTuning.batch_enough_work);
      ASSERT_LT(k * n, flex::kTuning.batch_small_matrix_work);
      expect_matmul_matches(1, k, n, DType::F32, Shape{300}, Shape{300});
    }
    for (std::size_t n : {11, 13}) {
      ASSERT_GE(300 * k * n, flex::kTuning.batch_enough_work);
      ASSERT_LT(k * n, flex::kTuning.batch_small_matrix_work);
      expect_matmul_matches(1, k, n, DType::F64, Shape{300}, Shape{1});
    }
  }
}

// ---- few rows: threaded, m <= MC, k <= gemm_few_rows_max_k ---------------------------------------

TEST_P(FlexRowPaths, FewRowsGemmAroundItsThresholds) {
  const auto& f32 = flex::kTuning.gemm_f32;
  const auto& f64 = flex::kTuning.gemm_f64;
  expect_matmul_matches(f32.mc, 64, 100, DType::F32);      // m = MC: few rows
  expect_matmul_matches(f32.mc + 1, 64, 100, DType::F32);  // one past: the general loop
  expect_matmul_matches(f64.mc, 64, 200, DType::F64);
  expect_matmul_matches(f64.mc + 1, 64, 200, DType::F64);
  const std::size_t max_k = flex::kTuning.gemm_few_rows_max_k;
  ASSERT_GE(8 * max_k * 40, flex::kTuning.gemm_threaded_work);  // threaded, as few rows needs
  expect_matmul_matches(8, max_k, 40, DType::F32);      // k at the limit
  expect_matmul_matches(8, max_k + 1, 40, DType::F32);  // one past
  expect_matmul_matches(7, f32.kc + 16, 1000, DType::F32);  // a short last KC slice, 7 = MR + 1 rows
  expect_matmul_matches(5, f64.kc + 3, 999, DType::F64);    // m < MR, n not a multiple of NR
  expect_matmul_matches(2, 2, 300000, DType::F32);          // k < 4 and 18750 panels
}

TEST_P(FlexRowPaths, FewRowsGemmPanelGroups) {
  // 2 threads: 4 shares of 12400 / 16 = 775 panels, 194 each, over the 192-panel groups (NC / NR).
  flex::set_num_threads_override(2);
  expect_matmul_matches(2, 64, 12400, DType::F32);
  // doubles: NC / NR = 256-panel groups; 4 shares of 2100 / 8 = 263 panels each.
  expect_matmul_matches(3, 200, 8400, DType::F64);
  flex::set_num_threads_override(3);
  expect_matmul_matches(13, 300, 777, DType::F32);
}

TEST_P(FlexRowPaths, SkinnyBenchmarkShapes) {
  expect_matmul_matches(64, 4096, 256, DType::F32);
  expect_matmul_matches(4096, 256, 64, DType::F32);
}

// ---- dim reductions over long reduced dims --------------------------------------------------------

TEST_P(FlexRowPaths, DimReductionRowBlocks) {
  const std::size_t rb = flex::kTuning.reduce_row_block, bc = flex::kTuning.reduce_block_chunk;
  for (DType dt : {DType::F32, DType::F64}) {
    // rb: column chunks, no blocks; rb + 1: a second block of one row; then whole and partial
    // blocks, with row counts that are not multiples of the four-row passes. 2 * rb - 1: a last
    // block one row short of whole, where a block count rounded one too high adds a block past d.
    for (std::size_t d : {std::size_t{4}, std::size_t{5}, rb - 1, rb, rb + 1, 2 * rb - 1, 4 * rb - 22, 4 * rb}) {
      for (std::size_t inner : {2, 3, 7, 8, 9, 17}) expect_reduce_matches(Shape{d, inner}, 0, dt);
    }
    expect_reduce_matches(Shape{rb + 44, bc + 1}, 0, dt);      // two block chunks, the second one column
    expect_reduce_matches(Shape{rb + 1, 2 * bc + 3}, 0, dt);   // three block chunks, two row blocks
    expect_reduce_matches(Shape{3, rb + 44, 5}, 1, dt);        // outer > 1 with blocks
    expect_reduce_matches(Shape{2, 2 * rb + 88, bc + 2}, 1, dt);  // outer > 1, blocks and chunks
    expect_reduce_matches(Shape{2, rb + 1, 3, 4}, 1, dt);
    expect_reduce_matches(Shape{16 * rb, 96}, 0, dt);
  }
}

TEST_P(FlexRowPaths, DimReductionDoesNotDependOnThreadCount) {
  const TensorData x = random_data(Shape{1500, 301}, DType::F32, 77);
  const auto fx = Flex::from_data(x, Device::cpu());
  flex::set_num_threads_override(1);
  const auto one = Flex::into_data(Flex::float_sum_dim(fx, 0)).to_f32();
  for (std::size_t threads : {2, 3, 7}) {
    flex::set_num_threads_override(threads);
    const auto many = Flex::into_data(Flex::float_sum_dim(fx, 0)).to_f32();
    ASSERT_EQ(one.size(), many.size());
    for (std::size_t i = 0; i < one.size(); ++i) {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(one[i]), std::bit_cast<std::uint32_t>(many[i])) << threads << " threads, " << i;
    }
  }
}

}  // namespace
