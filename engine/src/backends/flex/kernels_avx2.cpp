// AVX2/FMA Flex kernels. Every function carries __attribute__((target("avx2,fma"))) instead of a
// file-wide -mavx2, so this file builds with the baseline flags and the code only runs after
// kernels() has checked the CPU (no -march=native anywhere).
#include "kernels.hpp"
#include "scalar_ops.hpp"

#include <cmath>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define FLEX_AVX2 __attribute__((target("avx2,fma")))

namespace crossgrad::backends::flex {
namespace {

// ---- element-wise (no FMA: each element is the same IEEE op as the scalar loop) ----

template <BinaryOp Op>
FLEX_AVX2 inline __m256 vop(__m256 a, __m256 b) {
  if constexpr (Op == BinaryOp::Add) return _mm256_add_ps(a, b);
  else if constexpr (Op == BinaryOp::Sub) return _mm256_sub_ps(a, b);
  else if constexpr (Op == BinaryOp::Mul) return _mm256_mul_ps(a, b);
  else return _mm256_div_ps(a, b);
}
template <BinaryOp Op>
FLEX_AVX2 inline __m256d vop(__m256d a, __m256d b) {
  if constexpr (Op == BinaryOp::Add) return _mm256_add_pd(a, b);
  else if constexpr (Op == BinaryOp::Sub) return _mm256_sub_pd(a, b);
  else if constexpr (Op == BinaryOp::Mul) return _mm256_mul_pd(a, b);
  else return _mm256_div_pd(a, b);
}

// Uniform load/store/broadcast over float (8 lanes) and double (4 lanes).
template <class T> struct V;
template <> struct V<float> {
  using reg = __m256;
  static constexpr std::size_t lanes = 8;
  FLEX_AVX2 static reg load(const float* p) { return _mm256_loadu_ps(p); }
  FLEX_AVX2 static void store(float* p, reg v) { _mm256_storeu_ps(p, v); }
  FLEX_AVX2 static reg set1(float s) { return _mm256_set1_ps(s); }
};
template <> struct V<double> {
  using reg = __m256d;
  static constexpr std::size_t lanes = 4;
  FLEX_AVX2 static reg load(const double* p) { return _mm256_loadu_pd(p); }
  FLEX_AVX2 static void store(double* p, reg v) { _mm256_storeu_pd(p, v); }
  FLEX_AVX2 static reg set1(double s) { return _mm256_set1_pd(s); }
};

template <BinaryOp Op, class T>
FLEX_AVX2 void binary_vv(const T* a, const T* b, T* out, std::size_t n) {
  using W = V<T>;
  std::size_t i = 0;
  for (; i + 2 * W::lanes <= n; i += 2 * W::lanes) {
    auto r0 = vop<Op>(W::load(a + i), W::load(b + i));
    auto r1 = vop<Op>(W::load(a + i + W::lanes), W::load(b + i + W::lanes));
    W::store(out + i, r0);
    W::store(out + i + W::lanes, r1);
  }
  for (; i < n; ++i) out[i] = apply_binary<Op>(a[i], b[i]);
}
template <BinaryOp Op, class T>
FLEX_AVX2 void binary_vs(const T* a, const T* b, T* out, std::size_t n) {
  using W = V<T>;
  const T s = b[0];
  const auto vs = W::set1(s);
  std::size_t i = 0;
  for (; i + W::lanes <= n; i += W::lanes) W::store(out + i, vop<Op>(W::load(a + i), vs));
  for (; i < n; ++i) out[i] = apply_binary<Op>(a[i], s);
}
template <BinaryOp Op, class T>
FLEX_AVX2 void binary_sv(const T* a, const T* b, T* out, std::size_t n) {
  using W = V<T>;
  const T s = a[0];
  const auto vs = W::set1(s);
  std::size_t i = 0;
  for (; i + W::lanes <= n; i += W::lanes) W::store(out + i, vop<Op>(vs, W::load(b + i)));
  for (; i < n; ++i) out[i] = apply_binary<Op>(s, b[i]);
}

template <class T>
FLEX_AVX2 void neg(const T* in, T* out, std::size_t n) {
  using W = V<T>;
  const auto sign = W::set1(T(-0.0));
  std::size_t i = 0;
  if constexpr (std::is_same_v<T, float>) {
    for (; i + W::lanes <= n; i += W::lanes) W::store(out + i, _mm256_xor_ps(W::load(in + i), sign));
  } else {
    for (; i + W::lanes <= n; i += W::lanes) W::store(out + i, _mm256_xor_pd(W::load(in + i), sign));
  }
  for (; i < n; ++i) out[i] = -in[i];
}

// relu: x where x > 0 or x is NaN, else +0 (so relu(-0.0) = +0.0).
template <class T>
FLEX_AVX2 void relu(const T* in, T* out, std::size_t n) {
  using W = V<T>;
  const auto zero = W::set1(T(0));
  std::size_t i = 0;
  for (; i + W::lanes <= n; i += W::lanes) {
    const auto x = W::load(in + i);
    if constexpr (std::is_same_v<T, float>) {
      const auto keep = _mm256_cmp_ps(x, zero, _CMP_NLE_UQ);  // x > 0 or unordered
      W::store(out + i, _mm256_and_ps(x, keep));
    } else {
      const auto keep = _mm256_cmp_pd(x, zero, _CMP_NLE_UQ);
      W::store(out + i, _mm256_and_pd(x, keep));
    }
  }
  for (; i < n; ++i) out[i] = relu_one(in[i]);
}

template <class T>
FLEX_AVX2 void sqrt_kernel(const T* in, T* out, std::size_t n) {
  using W = V<T>;
  std::size_t i = 0;
  for (; i + W::lanes <= n; i += W::lanes) {
    if constexpr (std::is_same_v<T, float>) W::store(out + i, _mm256_sqrt_ps(W::load(in + i)));
    else W::store(out + i, _mm256_sqrt_pd(W::load(in + i)));
  }
  for (; i < n; ++i) out[i] = std::sqrt(in[i]);
}

// Rounding with roundps/roundpd in the immediate's mode, exceptions suppressed: exact, and the
// same value as the libm call for every input (±0 and ±inf kept, NaN stays NaN); the tail too.
template <int Mode, class T>
FLEX_AVX2 void round_kernel(const T* in, T* out, std::size_t n) {
  using W = V<T>;
  std::size_t i = 0;
  for (; i + W::lanes <= n; i += W::lanes) {
    if constexpr (std::is_same_v<T, float>) W::store(out + i, _mm256_round_ps(W::load(in + i), Mode | _MM_FROUND_NO_EXC));
    else W::store(out + i, _mm256_round_pd(W::load(in + i), Mode | _MM_FROUND_NO_EXC));
  }
  for (; i < n; ++i) {
    if constexpr (Mode == _MM_FROUND_TO_NEAREST_INT) out[i] = std::rint(in[i]);
    else if constexpr (Mode == _MM_FROUND_TO_NEG_INF) out[i] = std::floor(in[i]);
    else if constexpr (Mode == _MM_FROUND_TO_POS_INF) out[i] = std::ceil(in[i]);
    else out[i] = std::trunc(in[i]);
  }
}

template <class T>
FLEX_AVX2 void add_scalar(const T* in, T s, T* out, std::size_t n) {
  binary_vs<BinaryOp::Add, T>(in, &s, out, n);
}
template <class T>
FLEX_AVX2 void mul_scalar(const T* in, T s, T* out, std::size_t n) {
  binary_vs<BinaryOp::Mul, T>(in, &s, out, n);
}

// Note [Flex vectorised expf]
// Cephes' expf scheme: n = round(x / ln2), r = x - n ln2 (ln2 split in two so r is exact to
// float precision), exp(r) by a degree-6 polynomial evaluated with FMA, times 2^n built in the
// exponent bits. Measured against exp computed in double over every 64th float in [-87, 88]:
// at most 1 ulp (flex_kernels_test checks <= 2 ulp). Lanes outside [-87, 88] (overflow, subnormal
// results, infinities, NaN) take std::exp, so the edge cases are exactly glibc's. The lanes of a
// block are independent and a partial block at the end runs zero-padded, so an element's result
// depends on its value alone, not on its neighbours or where a thread's range starts (as
// Note [Flex transcendental kernels on SLEEF]).
FLEX_AVX2 void exp_f32(const float* in, float* out, std::size_t n) {
  const __m256 lo = _mm256_set1_ps(-87.0f), hi = _mm256_set1_ps(88.0f);
  const __m256 log2e = _mm256_set1_ps(1.44269504088896341f);
  const __m256 ln2_hi = _mm256_set1_ps(0.693359375f), ln2_lo = _mm256_set1_ps(-2.12194440e-4f);
  const __m256 p0 = _mm256_set1_ps(1.9875691500e-4f), p1 = _mm256_set1_ps(1.3981999507e-3f),
               p2 = _mm256_set1_ps(8.3334519073e-3f), p3 = _mm256_set1_ps(4.1665795894e-2f),
               p4 = _mm256_set1_ps(1.6666665459e-1f), p5 = _mm256_set1_ps(5.0000001201e-1f);
  const __m256 one = _mm256_set1_ps(1.0f);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(in + i);
    const __m256 ok = _mm256_and_ps(_mm256_cmp_ps(x, lo, _CMP_GE_OQ), _mm256_cmp_ps(x, hi, _CMP_LE_OQ));
    const int in_range = _mm256_movemask_ps(ok);
    alignas(32) float xs[8];
    if (in_range != 0xFF) _mm256_store_ps(xs, x);  // before the store below: in may be out
    const __m256 k = _mm256_round_ps(_mm256_mul_ps(x, log2e), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(k, ln2_hi, x);
    r = _mm256_fnmadd_ps(k, ln2_lo, r);
    __m256 p = _mm256_fmadd_ps(p0, r, p1);
    p = _mm256_fmadd_ps(p, r, p2);
    p = _mm256_fmadd_ps(p, r, p3);
    p = _mm256_fmadd_ps(p, r, p4);
    p = _mm256_fmadd_ps(p, r, p5);
    const __m256 r2 = _mm256_mul_ps(r, r);
    const __m256 y = _mm256_add_ps(_mm256_fmadd_ps(p, r2, r), one);
    const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127)), 23);
    _mm256_storeu_ps(out + i, _mm256_mul_ps(y, _mm256_castsi256_ps(e)));
    if (in_range != 0xFF) {
      for (std::size_t l = 0; l < 8; ++l) {
        if (((in_range >> l) & 1) == 0) out[i + l] = std::exp(xs[l]);
      }
    }
  }
  if (i < n) {
    float pad[8] = {};
    std::memcpy(pad, in + i, (n - i) * sizeof(float));
    exp_f32(pad, pad, 8);
    std::memcpy(out + i, pad, (n - i) * sizeof(float));
  }
}

// ---- reductions (accumulate in double) ----

FLEX_AVX2 double sum_f32(const float* in, std::size_t n) {
  __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm_loadu_ps(in + i)));
    a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm_loadu_ps(in + i + 4)));
    a2 = _mm256_add_pd(a2, _mm256_cvtps_pd(_mm_loadu_ps(in + i + 8)));
    a3 = _mm256_add_pd(a3, _mm256_cvtps_pd(_mm_loadu_ps(in + i + 12)));
  }
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, _mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3)));
  double total = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
  for (; i < n; ++i) total += static_cast<double>(in[i]);
  return total;
}
FLEX_AVX2 double sum_f64(const double* in, std::size_t n) {
  __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    a0 = _mm256_add_pd(a0, _mm256_loadu_pd(in + i));
    a1 = _mm256_add_pd(a1, _mm256_loadu_pd(in + i + 4));
    a2 = _mm256_add_pd(a2, _mm256_loadu_pd(in + i + 8));
    a3 = _mm256_add_pd(a3, _mm256_loadu_pd(in + i + 12));
  }
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, _mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3)));
  double total = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
  for (; i < n; ++i) total += in[i];
  return total;
}
FLEX_AVX2 void accumulate_f32(const float* in, double* acc, std::size_t n) {
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    _mm256_storeu_pd(acc + i, _mm256_add_pd(_mm256_loadu_pd(acc + i), _mm256_cvtps_pd(_mm_loadu_ps(in + i))));
  }
  for (; i < n; ++i) acc[i] += static_cast<double>(in[i]);
}
FLEX_AVX2 void accumulate_f64(const double* in, double* acc, std::size_t n) {
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    _mm256_storeu_pd(acc + i, _mm256_add_pd(_mm256_loadu_pd(acc + i), _mm256_loadu_pd(in + i)));
  }
  for (; i < n; ++i) acc[i] += in[i];
}

// ---- GEMM micro-kernels: 6x16 floats / 6x8 doubles held in 12 accumulators ----

FLEX_AVX2 void sgemm_tile(std::size_t kc, const float* a, const float* b, float* c,
                          std::size_t ldc, bool acc) {
  __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
         c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
  // The C tile is touched only at the end: fetch it while the products run.
  for (std::size_t i = 0; i < 6; ++i) {
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + 15), _MM_HINT_T0);
  }
#define FLEX_SGEMM_STEP(P)                                   \
  {                                                          \
    const __m256 b0 = _mm256_loadu_ps(b + (P) * 16);         \
    const __m256 b1 = _mm256_loadu_ps(b + (P) * 16 + 8);     \
    const float* ap = a + (P) * 6;                           \
    __m256 av = _mm256_broadcast_ss(ap + 0);                 \
    c00 = _mm256_fmadd_ps(av, b0, c00);                      \
    c01 = _mm256_fmadd_ps(av, b1, c01);                      \
    av = _mm256_broadcast_ss(ap + 1);                        \
    c10 = _mm256_fmadd_ps(av, b0, c10);                      \
    c11 = _mm256_fmadd_ps(av, b1, c11);                      \
    av = _mm256_broadcast_ss(ap + 2);                        \
    c20 = _mm256_fmadd_ps(av, b0, c20);                      \
    c21 = _mm256_fmadd_ps(av, b1, c21);                      \
    av = _mm256_broadcast_ss(ap + 3);                        \
    c30 = _mm256_fmadd_ps(av, b0, c30);                      \
    c31 = _mm256_fmadd_ps(av, b1, c31);                      \
    av = _mm256_broadcast_ss(ap + 4);                        \
    c40 = _mm256_fmadd_ps(av, b0, c40);                      \
    c41 = _mm256_fmadd_ps(av, b1, c41);                      \
    av = _mm256_broadcast_ss(ap + 5);                        \
    c50 = _mm256_fmadd_ps(av, b0, c50);                      \
    c51 = _mm256_fmadd_ps(av, b1, c51);                      \
  }
  std::size_t p = 0;
  for (; p + 4 <= kc; p += 4) {
    _mm_prefetch(reinterpret_cast<const char*>(b + 16 * 16), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(b + 16 * 16 + 16), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(a + 6 * 16), _MM_HINT_T0);
    FLEX_SGEMM_STEP(0)
    FLEX_SGEMM_STEP(1)
    FLEX_SGEMM_STEP(2)
    FLEX_SGEMM_STEP(3)
    a += 4 * kSgemmMR;
    b += 4 * kSgemmNR;
  }
  for (; p < kc; ++p) {
    FLEX_SGEMM_STEP(0)
    a += kSgemmMR;
    b += kSgemmNR;
  }
#undef FLEX_SGEMM_STEP
  const __m256 rows[6][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
  for (std::size_t i = 0; i < 6; ++i) {
    float* row = c + i * ldc;
    if (acc) {
      _mm256_storeu_ps(row, _mm256_add_ps(_mm256_loadu_ps(row), rows[i][0]));
      _mm256_storeu_ps(row + 8, _mm256_add_ps(_mm256_loadu_ps(row + 8), rows[i][1]));
    } else {
      _mm256_storeu_ps(row, rows[i][0]);
      _mm256_storeu_ps(row + 8, rows[i][1]);
    }
  }
}

FLEX_AVX2 void dgemm_tile(std::size_t kc, const double* a, const double* b, double* c,
                          std::size_t ldc, bool acc) {
  __m256d c00 = _mm256_setzero_pd(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
          c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
  for (std::size_t p = 0; p < kc; ++p) {
    const __m256d b0 = _mm256_loadu_pd(b);
    const __m256d b1 = _mm256_loadu_pd(b + 4);
    __m256d av = _mm256_broadcast_sd(a + 0);
    c00 = _mm256_fmadd_pd(av, b0, c00);
    c01 = _mm256_fmadd_pd(av, b1, c01);
    av = _mm256_broadcast_sd(a + 1);
    c10 = _mm256_fmadd_pd(av, b0, c10);
    c11 = _mm256_fmadd_pd(av, b1, c11);
    av = _mm256_broadcast_sd(a + 2);
    c20 = _mm256_fmadd_pd(av, b0, c20);
    c21 = _mm256_fmadd_pd(av, b1, c21);
    av = _mm256_broadcast_sd(a + 3);
    c30 = _mm256_fmadd_pd(av, b0, c30);
    c31 = _mm256_fmadd_pd(av, b1, c31);
    av = _mm256_broadcast_sd(a + 4);
    c40 = _mm256_fmadd_pd(av, b0, c40);
    c41 = _mm256_fmadd_pd(av, b1, c41);
    av = _mm256_broadcast_sd(a + 5);
    c50 = _mm256_fmadd_pd(av, b0, c50);
    c51 = _mm256_fmadd_pd(av, b1, c51);
    a += kDgemmMR;
    b += kDgemmNR;
  }
  const __m256d rows[6][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
  for (std::size_t i = 0; i < 6; ++i) {
    double* row = c + i * ldc;
    if (acc) {
      _mm256_storeu_pd(row, _mm256_add_pd(_mm256_loadu_pd(row), rows[i][0]));
      _mm256_storeu_pd(row + 4, _mm256_add_pd(_mm256_loadu_pd(row + 4), rows[i][1]));
    } else {
      _mm256_storeu_pd(row, rows[i][0]);
      _mm256_storeu_pd(row + 4, rows[i][1]);
    }
  }
}

template <class T>
TypedKernels<T> make_table(void (*exp)(const T*, T*, std::size_t), double (*sum)(const T*, std::size_t),
                           void (*accumulate)(const T*, double*, std::size_t),
                           void (*gemm)(std::size_t, const T*, const T*, T*, std::size_t, bool)) {
  const MathKernels<T> math = avx2_math<T>();
  TypedKernels<T> table{
      {binary_vv<BinaryOp::Add, T>, binary_vv<BinaryOp::Sub, T>, binary_vv<BinaryOp::Mul, T>,
       binary_vv<BinaryOp::Div, T>},
      {binary_vs<BinaryOp::Add, T>, binary_vs<BinaryOp::Sub, T>, binary_vs<BinaryOp::Mul, T>,
       binary_vs<BinaryOp::Div, T>},
      {binary_sv<BinaryOp::Add, T>, binary_sv<BinaryOp::Sub, T>, binary_sv<BinaryOp::Mul, T>,
       binary_sv<BinaryOp::Div, T>},
      neg<T>,
      relu<T>,
      sqrt_kernel<T>,
      add_scalar<T>,
      mul_scalar<T>,
      exp,
      sum,
      accumulate,
      gemm,
      math.log,
      math.log1p,
      math.tanh,
      math.sigmoid,
      math.powf,
      round_kernel<_MM_FROUND_TO_NEAREST_INT, T>,
      round_kernel<_MM_FROUND_TO_NEG_INF, T>,
      round_kernel<_MM_FROUND_TO_POS_INF, T>,
      round_kernel<_MM_FROUND_TO_ZERO, T>,
      {},
  };
  for (std::size_t f = 0; f < kUnaryMathOps; ++f) table.unary_math[f] = math.unary[f];
  return table;
}

}  // namespace

const KernelTable& avx2_kernels() {
  static const KernelTable table{
      "avx2",
      avx2_math_library(),
      make_table<float>(exp_f32, sum_f32, accumulate_f32, sgemm_tile),
      // F64 exp: SLEEF's when built with it (kernels_avx2_math.cpp), else libm's.
      make_table<double>(avx2_math<double>().exp, sum_f64, accumulate_f64, dgemm_tile),
  };
  return table;
}

}  // namespace crossgrad::backends::flex

#else  // not x86: the portable table stands in.

namespace crossgrad::backends::flex {
const KernelTable& avx2_kernels() { return portable_kernels(); }
}  // namespace crossgrad::backends::flex

#endif
