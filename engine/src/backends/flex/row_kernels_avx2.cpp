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

}  // namespace

const RowKernelTable& avx2_row_kernels() {
  static const RowKernelTable table{
      {row_times_matrix<float>, dot<float>, accumulate_rows<float>},
      {row_times_matrix<double>, dot<double>, accumulate_rows<double>},
  };
  return table;
}

}  // namespace crossgrad::backends::flex

#else  // not x86: the portable loops stand in.

namespace crossgrad::backends::flex {
const RowKernelTable& avx2_row_kernels() { return portable_row_kernels(); }
}  // namespace crossgrad::backends::flex

#endif
