// Flex's GEMM (engine/src/backends/flex/gemm.cpp, gemv.cpp, matmul.cpp) on shapes chosen to reach
// every path it branches on, for F32 and F64, both kernel tables and planned thread counts 1-4:
//  - the unpacked i-k-j loop (m*n*k below gemm_small_work) and the first shape at that threshold;
//  - the GEMV paths (m == 1: row times matrix, split in column parts and strips; n == 1: one dot
//    product per row, rows split by parallel_range);
//  - the blocked GEMM serial (work below gemm_threaded_work) and threaded: more than one row block
//    (m > MC), more than one K slice with K not a multiple of KC, more than one column block
//    (n > NC) with a last panel narrower than NR, m not a multiple of MR;
//  - the few-rows GEMM (threaded, m <= MC, k <= 4096): several K slices, K exactly 4096 (and 4097,
//    which goes back to the blocked GEMM), and column shares wider than one packing group (NC/NR
//    panels), so a share packs B in more than one group;
//  - batched products (spread over threads by batch, or one threaded GEMM per batch entry) with a
//    broadcast batch dim, and operands made by swap_dims (a transposed input).
//
// The oracle: inputs are small integers (-3..3), so every product and every partial sum is an
// integer below 2^24 and exact in F32 and F64 whatever the summation order (|sum| <= 9 * k with
// k <= 4097). Flex must therefore equal a plain double loop written here exactly; a tolerance is
// not needed, and a wrong index, a skipped or repeated K slice, a lost edge row or column, or an
// unwritten output (fresh buffers are NaN in this binary: tests/support/buffer_checks.cpp) all show.
// Sizes are kept to a few million multiply-adds per product so the whole file runs in well under a
// second on two cores.
#include <crossgrad/backends/flex.hpp>
#include <crossgrad/backends/flex_testing.hpp>
#include <crossgrad/backends/flex_tuning.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using crossgrad::Device;
using crossgrad::DType;
using crossgrad::Shape;
using crossgrad::TensorData;
using crossgrad::backends::Flex;
namespace flex = crossgrad::backends::flex;

// A deterministic, aperiodic small integer in -3..3 (so a shifted index reads a different value).
double small_int(std::size_t i, std::uint32_t seed) {
  std::uint64_t x = (static_cast<std::uint64_t>(i) + 1) * 0x9E3779B97F4A7C15ull ^ (std::uint64_t{seed} << 32);
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  return static_cast<double>(static_cast<int>(x % 7) - 3);
}

std::vector<double> small_ints(std::size_t n, std::uint32_t seed) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = small_int(i, seed);
  return v;
}

TensorData data_of(const std::vector<double>& v, Shape shape, DType dtype) {
  if (dtype == DType::F64) return TensorData::from_f64(v, std::move(shape));
  return TensorData::from_f32(std::vector<float>(v.begin(), v.end()), std::move(shape));
}

Flex::Tensor flex_of(const std::vector<double>& v, Shape shape, DType dtype) {
  return Flex::from_data(data_of(v, std::move(shape), dtype), Device::cpu());
}

std::vector<double> values_of(const Flex::Tensor& t) { return Flex::into_data(t).to_f64(); }

// C = A (m x k) * B (k x n), row-major, in double: exact for the small-integer inputs above.
std::vector<double> plain_matmul(const double* a, const double* b, std::size_t m, std::size_t k, std::size_t n) {
  std::vector<double> c(m * n, 0.0);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t p = 0; p < k; ++p) {
      const double aip = a[i * k + p];
      for (std::size_t j = 0; j < n; ++j) c[i * n + j] += aip * b[p * n + j];
    }
  return c;
}

// Reports the first element that differs (one line, not a million).
void expect_equal_values(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!(got[i] == want[i])) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", expected " << want[i];
      return;
    }
  }
}

struct Mkn {
  std::size_t m, k, n;
  const char* path;  // the GEMM path the shape is meant to reach (with more than one planned thread)
};

// Shapes per dtype. The thresholds (Note [Flex tuning]): gemm_small_work = 64^3, gemm_threaded_work
// = 128*128*64; F32 blocks MR 6, NR 16, MC 192, KC 384, NC 3072; F64 MR 6, NR 8, MC 96, KC 256,
// NC 2048; the few-rows GEMM takes m <= MC and k <= 4096. The checks in ShapesReachTheirPaths keep
// the list honest if those constants move.
std::vector<Mkn> shapes_for(DType dtype) {
  if (dtype == DType::F32) {
    return {
        {5, 7, 3, "small"},
        {63, 64, 65, "small"},               // just under gemm_small_work
        {64, 64, 64, "blocked-serial"},      // exactly gemm_small_work
        {19, 385, 67, "blocked-serial"},     // two K slices, m and n not multiples of MR and NR
        {200, 390, 37, "blocked-threaded"},  // m > MC, two K slices, one partial panel only
        {385, 10, 300, "blocked-threaded"},  // three row blocks (192, 192, 1)
        {197, 3, 3089, "blocked-threaded"},  // n > NC: a second column block of 17 columns
        {7, 4097, 40, "blocked-threaded"},   // k one past the few-rows limit: 11 K slices, one row block
        {7, 4096, 40, "few-rows"},           // k at the few-rows limit
        {13, 777, 131, "few-rows"},          // three K slices (384, 384, 9), m = 2 * MR + 1
        {2, 22, 24600, "few-rows"},          // > NC/NR panels per column share: several packing groups
        {1, 7, 33, "gemv-row"},
        {1, 300, 5003, "gemv-row"},  // column parts over threads, strips of 2048, n not a multiple of 16
        {1, 513, 1, "gemv-column"},
        {5, 7, 1, "gemv-column"},
        {1000, 300, 1, "gemv-column"},  // rows split by parallel_range
    };
  }
  return {
      {5, 7, 3, "small"},
      {63, 64, 65, "small"},
      {64, 64, 64, "blocked-serial"},
      {19, 257, 67, "blocked-serial"},     // two K slices (256, 1), n = 8 * NR + 3
      {101, 260, 45, "blocked-threaded"},  // m > MC (96)
      {193, 10, 600, "blocked-threaded"},  // three row blocks (96, 96, 1)
      {97, 6, 2053, "blocked-threaded"},   // n > NC (2048): a second column block of 5 columns
      {7, 4097, 40, "blocked-threaded"},
      {7, 4096, 40, "few-rows"},
      {13, 777, 131, "few-rows"},
      {2, 32, 16400, "few-rows"},  // > NC/NR panels per column share
      {1, 7, 33, "gemv-row"},
      {1, 300, 5003, "gemv-row"},
      {1, 513, 1, "gemv-column"},
      {5, 7, 1, "gemv-column"},
      {1000, 300, 1, "gemv-column"},
  };
}

// The path gemm.cpp documents for a shape (flex_tuning.hpp "GEMM path by m * n * k" and the few-rows
// note in gemm.cpp), with `threads` planned threads; used only to check the shape list reaches each.
std::string documented_path(const Mkn& s, bool f64, std::size_t threads) {
  const auto& bk = flex::kTuning.gemm(f64);
  const std::size_t work = s.m * s.n * s.k;
  if (s.m == 1 && s.n != 1) return "gemv-row";
  if (s.n == 1) return "gemv-column";
  if (work < flex::kTuning.gemm_small_work) return "small";
  if (work < flex::kTuning.gemm_threaded_work || threads == 1) return "blocked-serial";
  if (s.m <= bk.mc && s.k <= 4096) return "few-rows";
  return "blocked-threaded";
}

class FlexGemmRegimes : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { flex::force_portable_kernels(GetParam()); }
  void TearDown() override {
    flex::force_portable_kernels(false);
    flex::set_num_threads(0);
  }

  static void check_shapes(DType dtype) {
    for (const Mkn& s : shapes_for(dtype)) {
      const auto a = small_ints(s.m * s.k, 1), b = small_ints(s.k * s.n, 2);
      const auto want = plain_matmul(a.data(), b.data(), s.m, s.k, s.n);
      const Flex::Tensor fa = flex_of(a, Shape{s.m, s.k}, dtype), fb = flex_of(b, Shape{s.k, s.n}, dtype);
      for (std::size_t threads : {1u, 2u, 3u, 4u}) {
        flex::set_num_threads(threads);
        const Flex::Tensor c = Flex::float_matmul(fa, fb);
        ASSERT_EQ(Flex::shape(c), (Shape{s.m, s.n}));
        ASSERT_EQ(Flex::dtype(c), dtype);
        expect_equal_values(values_of(c), want,
                            std::to_string(s.m) + "x" + std::to_string(s.k) + " @ " + std::to_string(s.k) + "x" +
                                std::to_string(s.n) + " (" + s.path + ") " + (dtype == DType::F64 ? "f64" : "f32") +
                                ", " + std::to_string(threads) + " threads" + (GetParam() ? ", portable" : ""));
      }
    }
  }
};
INSTANTIATE_TEST_SUITE_P(Isa, FlexGemmRegimes, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Portable" : "Native"; });

TEST(FlexGemmRegimeList, ShapesReachTheirPaths) {
  for (DType dtype : {DType::F32, DType::F64}) {
    const bool f64 = dtype == DType::F64;
    const auto& bk = flex::kTuning.gemm(f64);
    for (const Mkn& s : shapes_for(dtype)) {
      const std::string name = std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n);
      EXPECT_EQ(documented_path(s, f64, 2), s.path) << name << (f64 ? " f64" : " f32");
      // Every product's sum stays exact in F32 (|sum| <= 9k < 2^24).
      EXPECT_LT(9 * s.k, std::size_t{1} << 24) << name;
    }
    // The edges the list claims: K past one slice and not a multiple of it, more than one column
    // block, more than one packing group per few-rows column share at 4 planned threads.
    bool k_slices = false, col_blocks = false, row_blocks = false, groups = false;
    for (const Mkn& s : shapes_for(dtype)) {
      const std::string path = s.path;
      if (path.rfind("blocked", 0) == 0 && s.k > bk.kc && s.k % bk.kc != 0) k_slices = true;
      if (path.rfind("blocked", 0) == 0 && s.n > bk.nc && s.n % bk.nr != 0) col_blocks = true;
      if (path == "blocked-threaded" && s.m > 2 * bk.mc) row_blocks = true;
      const std::size_t panels = (s.n + bk.nr - 1) / bk.nr;
      if (path == "few-rows" && panels > (bk.nc / bk.nr) * 8) groups = true;
    }
    EXPECT_TRUE(k_slices && col_blocks && row_blocks && groups) << (f64 ? "f64" : "f32");
  }
}

TEST_P(FlexGemmRegimes, F32EveryPathEqualsAnExactLoop) { check_shapes(DType::F32); }

TEST_P(FlexGemmRegimes, F64EveryPathEqualsAnExactLoop) { check_shapes(DType::F64); }

// Batched products: [3, m, k] x [2, 1, k, n] -> [2, 3, m, n]. Small entries (work per entry below
// batch_small_matrix_work, total from batch_enough_work) are spread over threads, each a serial
// blocked GEMM; an entry from batch_small_matrix_work runs as one threaded GEMM after the other.
TEST_P(FlexGemmRegimes, BatchedProductsWithABroadcastBatchDim) {
  struct Case {
    std::size_t m, k, n;
  };
  const Case cases[] = {{70, 65, 67}, {130, 130, 130}, {3, 5, 4}};
  ASSERT_LT(std::size_t{70} * 65 * 67, flex::kTuning.batch_small_matrix_work);
  ASSERT_GE(std::size_t{70} * 65 * 67, flex::kTuning.gemm_small_work);  // each entry blocked, not small
  ASSERT_GE(std::size_t{130} * 130 * 130, flex::kTuning.batch_small_matrix_work);
  for (DType dtype : {DType::F32, DType::F64}) {
    for (const Case& cs : cases) {
      const std::size_t m = cs.m, k = cs.k, n = cs.n;
      const auto a = small_ints(3 * m * k, 3), b = small_ints(2 * k * n, 4);
      std::vector<double> want(2 * 3 * m * n);
      for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 3; ++j) {
          const auto entry = plain_matmul(a.data() + j * m * k, b.data() + i * k * n, m, k, n);
          std::copy(entry.begin(), entry.end(), want.begin() + (i * 3 + j) * m * n);
        }
      for (std::size_t threads : {1u, 2u, 4u}) {
        flex::set_num_threads(threads);
        const Flex::Tensor c = Flex::float_matmul(flex_of(a, Shape{3, m, k}, dtype), flex_of(b, Shape{2, 1, k, n}, dtype));
        ASSERT_EQ(Flex::shape(c), (Shape{2, 3, m, n}));
        expect_equal_values(values_of(c), want,
                            "batched " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) + ", " +
                                std::to_string(threads) + " threads" + (dtype == DType::F64 ? ", f64" : ", f32"));
      }
    }
  }
}

// A^T * B^T with both operands made by swap_dims: the transposes and the GEMM together.
TEST_P(FlexGemmRegimes, TransposedOperandsFromSwapDims) {
  const std::size_t m = 45, k = 70, n = 333;  // blocked (work above gemm_small_work), every edge partial
  const auto at = small_ints(k * m, 5), bt = small_ints(n * k, 6);  // A^T is k x m, B^T is n x k
  std::vector<double> a(m * k), b(k * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t p = 0; p < k; ++p) a[i * k + p] = at[p * m + i];
  for (std::size_t p = 0; p < k; ++p)
    for (std::size_t j = 0; j < n; ++j) b[p * n + j] = bt[j * k + p];
  const auto want = plain_matmul(a.data(), b.data(), m, k, n);
  for (DType dtype : {DType::F32, DType::F64}) {
    for (std::size_t threads : {1u, 4u}) {
      flex::set_num_threads(threads);
      const Flex::Tensor fa = Flex::float_swap_dims(flex_of(at, Shape{k, m}, dtype), 0, 1);
      const Flex::Tensor fb = Flex::float_swap_dims(flex_of(bt, Shape{n, k}, dtype), 0, 1);
      expect_equal_values(values_of(Flex::float_matmul(fa, fb)), want,
                          std::string("transposed operands, ") + std::to_string(threads) + " threads" +
                              (dtype == DType::F64 ? ", f64" : ", f32"));
    }
  }
}

}  // namespace
