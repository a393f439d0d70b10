// AVX2/FMA row-streaming loops (kernels.hpp's RowKernels). Like kernels_avx2.cpp, every function
// carries a target attribute instead of a file-wide -mavx2, and runs only after the CPU check.
#include "kernels.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define FLEX_AVX2 __attribute__((target("avx2,fma")))

namespace crossgrad::backends::flex {
namespace {

// float (8 lanes) and double (4 lanes) behind one interface.
template <class T> struct Lanes;
template <> struct Lanes<float> {
  using reg = __m256;
  static constexpr std::size_t n = 8;
  FLEX_AVX2 static reg load(const float* p) { return _mm256_loadu_ps(p); }
  FLEX_AVX2 static void store(float* p, reg v) { _mm256_storeu_ps(p, v); }
  FLEX_AVX2 static reg set1(float s) { return _mm256_set1_ps(s); }
  FLEX_AVX2 static reg zero() { return _mm256_setzero_ps(); }
  FLEX_AVX2 static reg fma(reg a, reg b, reg c) { return _mm256_fmadd_ps(a, b, c); }
  FLEX_AVX2 static reg add(reg a, reg b) { return _mm256_add_ps(a, b); }
  FLEX_AVX2 static float hsum(reg v) {
    alignas(32) float l[8];
    _mm256_store_ps(l, v);
    return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
  }
};
template <> struct Lanes<double> {
  using reg = __m256d;
  static constexpr std::size_t n = 4;
  FLEX_AVX2 static reg load(const double* p) { return _mm256_loadu_pd(p); }
  FLEX_AVX2 static void store(double* p, reg v) { _mm256_storeu_pd(p, v); }
  FLEX_AVX2 static reg set1(double s) { return _mm256_set1_pd(s); }
  FLEX_AVX2 static reg zero() { return _mm256_setzero_pd(); }
  FLEX_AVX2 static reg fma(reg a, reg b, reg c) { return _mm256_fmadd_pd(a, b, c); }
  FLEX_AVX2 static reg add(reg a, reg b) { return _mm256_add_pd(a, b); }
  FLEX_AVX2 static double hsum(reg v) {
    alignas(32) double l[4];
    _mm256_store_pd(l, v);
    return (l[0] + l[1]) + (l[2] + l[3]);
  }
};

// Four rows of B per pass over the columns: four contiguous streams, C loaded and stored once
// per four rows (C, a strip of at most a few thousand columns, stays in L1).
template <class T>
FLEX_AVX2 void row_times_matrix(std::size_t k, std::size_t n, const T* a, const T* b, std::size_t ldb, T* c) {
  using L = Lanes<T>;
  std::size_t p = 0;
  for (; p + 4 <= k; p += 4) {
    const T* b0 = b + p * ldb;
    const T* b1 = b0 + ldb;
    const T* b2 = b1 + ldb;
    const T* b3 = b2 + ldb;
    const auto a0 = L::set1(a[p]), a1 = L::set1(a[p + 1]), a2 = L::set1(a[p + 2]), a3 = L::set1(a[p + 3]);
    std::size_t j = 0;
    for (; j + 2 * L::n <= n; j += 2 * L::n) {
      auto c0 = L::load(c + j), c1 = L::load(c + j + L::n);
      c0 = L::fma(a0, L::load(b0 + j), c0);
      c1 = L::fma(a0, L::load(b0 + j + L::n), c1);
      c0 = L::fma(a1, L::load(b1 + j), c0);
      c1 = L::fma(a1, L::load(b1 + j + L::n), c1);
      c0 = L::fma(a2, L::load(b2 + j), c0);
      c1 = L::fma(a2, L::load(b2 + j + L::n), c1);
      c0 = L::fma(a3, L::load(b3 + j), c0);
      c1 = L::fma(a3, L::load(b3 + j + L::n), c1);
      L::store(c + j, c0);
      L::store(c + j + L::n, c1);
    }
    for (; j + L::n <= n; j += L::n) {
      auto c0 = L::load(c + j);
      c0 = L::fma(a0, L::load(b0 + j), c0);
      c0 = L::fma(a1, L::load(b1 + j), c0);
      c0 = L::fma(a2, L::load(b2 + j), c0);
      c0 = L::fma(a3, L::load(b3 + j), c0);
      L::store(c + j, c0);
    }
    for (; j < n; ++j) c[j] = c[j] + a[p] * b0[j] + a[p + 1] * b1[j] + a[p + 2] * b2[j] + a[p + 3] * b3[j];
  }
  for (; p < k; ++p) {
    const T* bp = b + p * ldb;
    const auto ap = L::set1(a[p]);
    std::size_t j = 0;
    for (; j + L::n <= n; j += L::n) L::store(c + j, L::fma(ap, L::load(bp + j), L::load(c + j)));
    for (; j < n; ++j) c[j] += a[p] * bp[j];
  }
}

// Four independent accumulators of L::n lanes, so the FMA latency is hidden.
template <class T>
FLEX_AVX2 T dot(std::size_t k, const T* a, const T* x) {
  using L = Lanes<T>;
  auto s0 = L::zero(), s1 = s0, s2 = s0, s3 = s0;
  std::size_t p = 0;
  for (; p + 4 * L::n <= k; p += 4 * L::n) {
    s0 = L::fma(L::load(a + p), L::load(x + p), s0);
    s1 = L::fma(L::load(a + p + L::n), L::load(x + p + L::n), s1);
    s2 = L::fma(L::load(a + p + 2 * L::n), L::load(x + p + 2 * L::n), s2);
    s3 = L::fma(L::load(a + p + 3 * L::n), L::load(x + p + 3 * L::n), s3);
  }
  for (; p + L::n <= k; p += L::n) s0 = L::fma(L::load(a + p), L::load(x + p), s0);
  T total = L::hsum(L::add(L::add(s0, s1), L::add(s2, s3)));
  for (; p < k; ++p) total += a[p] * x[p];
  return total;
}

// Widened to double, four lanes at a time.
FLEX_AVX2 inline __m256d widen4(const float* p) { return _mm256_cvtps_pd(_mm_loadu_ps(p)); }
FLEX_AVX2 inline __m256d widen4(const double* p) { return _mm256_loadu_pd(p); }

// Four rows per pass (four contiguous streams), the accumulators loaded and stored once per four
// rows; each column adds its rows in order, as the portable loop does.
template <class T>
FLEX_AVX2 void accumulate_rows(const T* in, std::size_t ld, std::size_t rows, double* acc, std::size_t n) {
  std::size_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    const T* r0 = in + r * ld;
    const T* r1 = r0 + ld;
    const T* r2 = r1 + ld;
    const T* r3 = r2 + ld;
    std::size_t j = 0;
    for (; j + 8 <= n; j += 8) {
      __m256d s0 = _mm256_loadu_pd(acc + j), s1 = _mm256_loadu_pd(acc + j + 4);
      s0 = _mm256_add_pd(s0, widen4(r0 + j));
      s1 = _mm256_add_pd(s1, widen4(r0 + j + 4));
      s0 = _mm256_add_pd(s0, widen4(r1 + j));
      s1 = _mm256_add_pd(s1, widen4(r1 + j + 4));
      s0 = _mm256_add_pd(s0, widen4(r2 + j));
      s1 = _mm256_add_pd(s1, widen4(r2 + j + 4));
      s0 = _mm256_add_pd(s0, widen4(r3 + j));
      s1 = _mm256_add_pd(s1, widen4(r3 + j + 4));
      _mm256_storeu_pd(acc + j, s0);
      _mm256_storeu_pd(acc + j + 4, s1);
    }
    for (; j < n; ++j) {
      acc[j] = acc[j] + static_cast<double>(r0[j]) + static_cast<double>(r1[j]) + static_cast<double>(r2[j]) +
               static_cast<double>(r3[j]);
    }
  }
  for (; r < rows; ++r) {
    const T* row = in + r * ld;
    std::size_t j = 0;
    for (; j + 4 <= n; j += 4) _mm256_storeu_pd(acc + j, _mm256_add_pd(_mm256_loadu_pd(acc + j), widen4(row + j)));
    for (; j < n; ++j) acc[j] += static_cast<double>(row[j]);
  }
}

// 8x8 blocks of 4-byte elements: A's rows a + k * lda (k < 8) hold block row k; b's rows
// b + j * ldb get its column j. The unpack / shuffle / lane-swap network moves bits, so NaN payloads
// and -0 stay as they are.
FLEX_AVX2 void transpose8x8(const std::uint32_t* a, std::size_t lda, std::uint32_t* b, std::size_t ldb) {
  const auto* fa = reinterpret_cast<const float*>(a);
  auto* fb = reinterpret_cast<float*>(b);
  const __m256 r0 = _mm256_loadu_ps(fa), r1 = _mm256_loadu_ps(fa + lda), r2 = _mm256_loadu_ps(fa + 2 * lda),
               r3 = _mm256_loadu_ps(fa + 3 * lda), r4 = _mm256_loadu_ps(fa + 4 * lda), r5 = _mm256_loadu_ps(fa + 5 * lda),
               r6 = _mm256_loadu_ps(fa + 6 * lda), r7 = _mm256_loadu_ps(fa + 7 * lda);
  const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1), t2 = _mm256_unpacklo_ps(r2, r3),
               t3 = _mm256_unpackhi_ps(r2, r3), t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5),
               t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE),
               s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE),
               s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE),
               s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  _mm256_storeu_ps(fb, _mm256_permute2f128_ps(s0, s4, 0x20));
  _mm256_storeu_ps(fb + ldb, _mm256_permute2f128_ps(s1, s5, 0x20));
  _mm256_storeu_ps(fb + 2 * ldb, _mm256_permute2f128_ps(s2, s6, 0x20));
  _mm256_storeu_ps(fb + 3 * ldb, _mm256_permute2f128_ps(s3, s7, 0x20));
  _mm256_storeu_ps(fb + 4 * ldb, _mm256_permute2f128_ps(s0, s4, 0x31));
  _mm256_storeu_ps(fb + 5 * ldb, _mm256_permute2f128_ps(s1, s5, 0x31));
  _mm256_storeu_ps(fb + 6 * ldb, _mm256_permute2f128_ps(s2, s6, 0x31));
  _mm256_storeu_ps(fb + 7 * ldb, _mm256_permute2f128_ps(s3, s7, 0x31));
}

// 4x4 blocks of 8-byte elements, the same way.
FLEX_AVX2 void transpose4x4(const std::uint64_t* a, std::size_t lda, std::uint64_t* b, std::size_t ldb) {
  const auto* da = reinterpret_cast<const double*>(a);
  auto* db = reinterpret_cast<double*>(b);
  const __m256d r0 = _mm256_loadu_pd(da), r1 = _mm256_loadu_pd(da + lda), r2 = _mm256_loadu_pd(da + 2 * lda),
                r3 = _mm256_loadu_pd(da + 3 * lda);
  const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1), t2 = _mm256_unpacklo_pd(r2, r3),
                t3 = _mm256_unpackhi_pd(r2, r3);
  _mm256_storeu_pd(db, _mm256_permute2f128_pd(t0, t2, 0x20));
  _mm256_storeu_pd(db + ldb, _mm256_permute2f128_pd(t1, t3, 0x20));
  _mm256_storeu_pd(db + 2 * ldb, _mm256_permute2f128_pd(t0, t2, 0x31));
  _mm256_storeu_pd(db + 3 * ldb, _mm256_permute2f128_pd(t1, t3, 0x31));
}

// kernels.hpp's TransposeTile: whole W x W blocks through `block`, the ragged edges by the plain loop.
template <class U, std::size_t W, void (*Block)(const U*, std::size_t, U*, std::size_t)>
FLEX_AVX2 void transpose_blocks(const U* a, std::size_t lda, U* b, std::size_t ldb, std::size_t rows, std::size_t cols) {
  const std::size_t full_rows = rows - rows % W, full_cols = cols - cols % W;
  for (std::size_t r = 0; r < full_rows; r += W) {
    for (std::size_t c = 0; c < full_cols; c += W) Block(a + c * lda + r, lda, b + r * ldb + c, ldb);
  }
  if (full_cols < cols) transpose_tile(a + full_cols * lda, lda, b + full_cols, ldb, full_rows, cols - full_cols);
  if (full_rows < rows) transpose_tile(a + full_rows, lda, b + full_rows * ldb, ldb, rows - full_rows, cols);
}

}  // namespace

const RowKernelTable& avx2_row_kernels() {
  static const RowKernelTable table{
      {row_times_matrix<float>, dot<float>, accumulate_rows<float>},
      {row_times_matrix<double>, dot<double>, accumulate_rows<double>},
      transpose_blocks<std::uint32_t, 8, transpose8x8>,
      transpose_blocks<std::uint64_t, 4, transpose4x4>,
  };
  return table;
}

}  // namespace crossgrad::backends::flex

#else  // not x86: the portable loops stand in.

namespace crossgrad::backends::flex {
const RowKernelTable& avx2_row_kernels() { return portable_row_kernels(); }
}  // namespace crossgrad::backends::flex

#endif
