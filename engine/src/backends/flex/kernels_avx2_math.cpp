// The AVX2 table's transcendental kernels: log, log1p, tanh, sigmoid, pow, the UnaryMath functions
// (sin ... erf), and exp for F64 (F32 exp is kernels_avx2.cpp's own, Note [Flex vectorised expf]).
//
// Note [Flex transcendental kernels on SLEEF]
// With SLEEF (CROSSGRAD_FLEX_SLEEF, cmake/CrossgradSleef.cmake) each kernel runs SLEEF's AVX2 u10
// function, documented within 1.0 ulp of the exact value, 8 floats or 4 doubles at a time; sigmoid,
// which SLEEF lacks, is docs/OPS.md's formula on SLEEF's exp. Every lane whose argument or result
// lies where SLEEF's behaviour is not the one documented in docs/OPS.md, or not measured against
// MPFR, is recomputed by the libm call the portable table makes (the lanes "stand" otherwise):
// SLEEF's log1p flushes subnormal arguments to 0 and returns +inf above 1e38 (F32) / 1e307 (F64),
// where log1p(FLT_MAX) = 88.72; its subnormal results come from a rounded-twice 2^k scaling; and
// NaN arguments, +inf and (but for log1p and tanh, where SLEEF keeps their sign) ±0 are left to
// libm, so docs/OPS.md's edges (log(-0) = -inf, tanh(±0) = ±0, pow's C99 special cases,
// sigmoid(±inf)) are glibc's exactly. The NaN results of a negative argument (log, log1p below
// -1, pow of a negative base with a non-integer exponent) stay in the vector: SLEEF's NaN is
// +NaN where glibc's is -NaN, and NaN compares as a class (docs/OPS.md "Op semantics"). These
// matter for speed: data in [-1, 1] would otherwise send half of log's lanes to libm.
// A partial vector at the end of a range runs through a zero-padded block, so an element's result
// depends on its value alone, not on how a range was split between threads.
//
// The kernels are written once for float and double over the overloads below; each carries its
// op's bound from kMathUlps (flex_testing.hpp), the oracle's, in a static_assert. SLEEF itself is
// called through sleef_shim.cpp, through memory (that file says why): the kernels with a
// `values` member hand it up to 32 vectors per call, the rest (pow, the padded tail) one at a time.
// Without SLEEF (or off x86) the AVX2 table takes the portable table's libm loops.
#include "kernels.hpp"
#include "scalar_ops.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#if defined(__x86_64__) && defined(CROSSGRAD_FLEX_SLEEF)
#include "sleef_shim.hpp"

#include <immintrin.h>
#define FLEX_AVX2 __attribute__((target("avx2,fma")))

namespace crossgrad::backends::flex {
namespace {

// SLEEF's u10 bound (1.0 ulp from the exact value) puts each standing lane within 1 ulp of the
// correctly rounded value; the oracle's bounds, which the kernels promise, are at least that.
static_assert(kMathUlps.exp.f64 == 1, "exp F64: SLEEF expd4_u10 (1.0 ulp)");
static_assert(kMathUlps.log.f32 == 1 && kMathUlps.log.f64 == 1, "log: SLEEF log_u10 (1.0 ulp)");
static_assert(kMathUlps.log1p.f32 == 1 && kMathUlps.log1p.f64 == 1, "log1p: SLEEF log1p_u10 (1.0 ulp)");
static_assert(kMathUlps.tanh.f32 == 2 && kMathUlps.tanh.f64 == 2, "tanh: SLEEF tanh_u10 (1.0001 ulp)");
static_assert(kMathUlps.sigmoid.f32 == 4 && kMathUlps.sigmoid.f64 == 3,
              "sigmoid: SLEEF exp_u10 (1 ulp) + 1 + e (0.5) + a division (0.5)");
static_assert(kMathUlps.powf.f32 == 4 && kMathUlps.powf.f64 == 2, "pow: SLEEF pow_u10 (1.0 ulp)");

// ---- float (8 lanes) and double (4 lanes) behind one set of names ----

FLEX_AVX2 inline __m256 set1(float v) { return _mm256_set1_ps(v); }
FLEX_AVX2 inline __m256d set1(double v) { return _mm256_set1_pd(v); }
FLEX_AVX2 inline __m256 load(const float* p) { return _mm256_loadu_ps(p); }
FLEX_AVX2 inline __m256d load(const double* p) { return _mm256_loadu_pd(p); }
FLEX_AVX2 inline void store(float* p, __m256 v) { _mm256_storeu_ps(p, v); }
FLEX_AVX2 inline void store(double* p, __m256d v) { _mm256_storeu_pd(p, v); }
FLEX_AVX2 inline int mask_bits(__m256 m) { return _mm256_movemask_ps(m); }
FLEX_AVX2 inline int mask_bits(__m256d m) { return _mm256_movemask_pd(m); }
FLEX_AVX2 inline __m256 and_(__m256 a, __m256 b) { return _mm256_and_ps(a, b); }
FLEX_AVX2 inline __m256d and_(__m256d a, __m256d b) { return _mm256_and_pd(a, b); }
FLEX_AVX2 inline __m256 or_(__m256 a, __m256 b) { return _mm256_or_ps(a, b); }
FLEX_AVX2 inline __m256d or_(__m256d a, __m256d b) { return _mm256_or_pd(a, b); }
FLEX_AVX2 inline __m256 xor_(__m256 a, __m256 b) { return _mm256_xor_ps(a, b); }
FLEX_AVX2 inline __m256d xor_(__m256d a, __m256d b) { return _mm256_xor_pd(a, b); }
// Ordered comparisons: false on a NaN lane, so NaN never stands.
FLEX_AVX2 inline __m256 ge(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
FLEX_AVX2 inline __m256d ge(__m256d a, __m256d b) { return _mm256_cmp_pd(a, b, _CMP_GE_OQ); }
FLEX_AVX2 inline __m256 le(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
FLEX_AVX2 inline __m256d le(__m256d a, __m256d b) { return _mm256_cmp_pd(a, b, _CMP_LE_OQ); }
FLEX_AVX2 inline __m256 lt(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
FLEX_AVX2 inline __m256d lt(__m256d a, __m256d b) { return _mm256_cmp_pd(a, b, _CMP_LT_OQ); }
FLEX_AVX2 inline __m256 gt(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
FLEX_AVX2 inline __m256d gt(__m256d a, __m256d b) { return _mm256_cmp_pd(a, b, _CMP_GT_OQ); }
FLEX_AVX2 inline __m256 eq(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
FLEX_AVX2 inline __m256d eq(__m256d a, __m256d b) { return _mm256_cmp_pd(a, b, _CMP_EQ_OQ); }
FLEX_AVX2 inline __m256 select(__m256 m, __m256 a, __m256 b) { return _mm256_blendv_ps(b, a, m); }
FLEX_AVX2 inline __m256d select(__m256d m, __m256d a, __m256d b) { return _mm256_blendv_pd(b, a, m); }
FLEX_AVX2 inline __m256 add(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }
FLEX_AVX2 inline __m256d add(__m256d a, __m256d b) { return _mm256_add_pd(a, b); }
FLEX_AVX2 inline __m256 mul(__m256 a, __m256 b) { return _mm256_mul_ps(a, b); }
FLEX_AVX2 inline __m256d mul(__m256d a, __m256d b) { return _mm256_mul_pd(a, b); }
FLEX_AVX2 inline __m256 sqrt_of(__m256 a) { return _mm256_sqrt_ps(a); }
FLEX_AVX2 inline __m256d sqrt_of(__m256d a) { return _mm256_sqrt_pd(a); }
FLEX_AVX2 inline __m256 div(__m256 a, __m256 b) { return _mm256_div_ps(a, b); }
FLEX_AVX2 inline __m256d div(__m256d a, __m256d b) { return _mm256_div_pd(a, b); }

// SLEEF through sleef_shim.cpp: the vector goes by memory (that file says why).
#define FLEX_SLEEF_1(name, f8, f4)                                                                   \
  FLEX_AVX2 inline __m256 name(__m256 x) {                                                           \
    alignas(32) float b[8];                                                                          \
    _mm256_store_ps(b, x);                                                                           \
    sleef::f8(b, b);                                                                                 \
    return _mm256_load_ps(b);                                                                        \
  }                                                                                                  \
  FLEX_AVX2 inline __m256d name(__m256d x) {                                                         \
    alignas(32) double b[4];                                                                         \
    _mm256_store_pd(b, x);                                                                           \
    sleef::f4(b, b);                                                                                 \
    return _mm256_load_pd(b);                                                                        \
  }
FLEX_SLEEF_1(sleef_exp, exp8, exp4)
FLEX_SLEEF_1(sleef_log, log8, log4)
FLEX_SLEEF_1(sleef_log1p, log1p8, log1p4)
FLEX_SLEEF_1(sleef_tanh, tanh8, tanh4)
#undef FLEX_SLEEF_1
FLEX_AVX2 inline __m256 sleef_pow(__m256 x, float p) {
  alignas(32) float b[8];
  _mm256_store_ps(b, x);
  sleef::pow8(b, p, b);
  return _mm256_load_ps(b);
}
FLEX_AVX2 inline __m256d sleef_pow(__m256d x, double p) {
  alignas(32) double b[4];
  _mm256_store_pd(b, x);
  sleef::pow4(b, p, b);
  return _mm256_load_pd(b);
}

template <class T> struct Lanes;
template <> struct Lanes<float> {
  using reg = __m256;
  static constexpr std::size_t n = 8;
  static constexpr int all = 0xFF;
  // exp's result is normal and finite in [exp_lo, exp_hi] (ln FLT_MIN = -87.34, ln FLT_MAX = 88.72).
  static constexpr float exp_lo = -87.0f, exp_hi = 88.0f;
  static constexpr float log1p_hi = 1e38f;  // SLEEF's log1pf is +inf above
};
template <> struct Lanes<double> {
  using reg = __m256d;
  static constexpr std::size_t n = 4;
  static constexpr int all = 0xF;
  static constexpr double exp_lo = -708.0, exp_hi = 709.0;  // ln DBL_MIN = -708.40, ln DBL_MAX = 709.78
  static constexpr double log1p_hi = 1e307;
};

template <class T> FLEX_AVX2 inline typename Lanes<T>::reg abs_of(typename Lanes<T>::reg x) {
  return xor_(x, and_(x, set1(T(-0.0))));
}
template <class T> FLEX_AVX2 inline typename Lanes<T>::reg normal_magnitude(typename Lanes<T>::reg a) {
  return and_(ge(a, set1(std::numeric_limits<T>::min())), le(a, set1(std::numeric_limits<T>::max())));
}

// One block of Lanes<T>::n elements whose vector value y is computed: y where it stands, libm's
// value elsewhere. Reads every input before writing, so in == out works.
template <class T, class Op>
FLEX_AVX2 inline void finish(const Op& op, const T* in, typename Lanes<T>::reg y, T* out) {
  using L = Lanes<T>;
  const typename L::reg x = load(in);
  const int stands = mask_bits(op.stands(x, y));
  if (stands == L::all) {
    store(out, y);
    return;
  }
  T xs[L::n];
  store(xs, x);
  store(out, y);
  for (std::size_t l = 0; l < L::n; ++l) {
    if (((stands >> l) & 1) == 0) out[l] = op.scalar(xs[l]);
  }
}

template <class T, class Op>
FLEX_AVX2 inline void block(const Op& op, const T* in, T* out) {
  finish(op, in, op.value(load(in)), out);
}

// An op whose vector values come from SLEEF in batches (op.values: one shim call for up to
// kBatch vectors, into a buffer), finished vector by vector.
template <class Op, class T>
concept BatchedValues = requires(const Op& op, const T* in, T* out) { op.values(in, out, std::size_t{1}); };

template <class T, class Op>
FLEX_AVX2 void map_lanes(const Op& op, const T* in, T* out, std::size_t n) {
  constexpr std::size_t w = Lanes<T>::n;
  std::size_t i = 0;
  if constexpr (BatchedValues<Op, T>) {
    constexpr std::size_t kBatch = 32;
    alignas(32) T ys[kBatch * w];
    while (i + w <= n) {
      const std::size_t vectors = std::min(kBatch, (n - i) / w);
      op.values(in + i, ys, vectors);
      for (std::size_t v = 0; v < vectors; ++v, i += w) finish(op, in + i, op.adjust(load(in + i), load(ys + v * w)), out + i);
    }
  } else {
    for (; i + w <= n; i += w) block(op, in + i, out + i);
  }
  if (i < n) {  // zero-padded: the padding's values are computed and dropped
    T pad_in[w] = {}, pad_out[w];
    std::memcpy(pad_in, in + i, (n - i) * sizeof(T));
    block(op, pad_in, pad_out);
    std::memcpy(out + i, pad_out, (n - i) * sizeof(T));
  }
}

// The batch shims of sleef_shim.hpp for float and double behind one name.
#define FLEX_SLEEF_MANY(name)                                                                           \
  inline void name##_many(const float* in, float* out, std::size_t v) { sleef::name##_many8(in, out, v); } \
  inline void name##_many(const double* in, double* out, std::size_t v) { sleef::name##_many4(in, out, v); }
FLEX_SLEEF_MANY(exp)
FLEX_SLEEF_MANY(log)
FLEX_SLEEF_MANY(log1p)
FLEX_SLEEF_MANY(tanh)
#undef FLEX_SLEEF_MANY

// exp (F64 only in the table): stands where the result is normal and finite.
template <class T>
struct Exp {
  using reg = typename Lanes<T>::reg;
  FLEX_AVX2 reg value(reg x) const { return sleef_exp(x); }
  void values(const T* in, T* out, std::size_t vectors) const { exp_many(in, out, vectors); }
  FLEX_AVX2 reg adjust(reg, reg y) const { return y; }
  FLEX_AVX2 reg stands(reg x, reg) const { return and_(ge(x, set1(Lanes<T>::exp_lo)), le(x, set1(Lanes<T>::exp_hi))); }
  T scalar(T x) const { return std::exp(x); }
};

// log: stands on positive normal finite arguments and below 0 (SLEEF's NaN, -inf included);
// ±0, positive subnormals, +inf and NaN go to libm.
template <class T>
struct Log {
  using reg = typename Lanes<T>::reg;
  FLEX_AVX2 reg value(reg x) const { return sleef_log(x); }
  void values(const T* in, T* out, std::size_t vectors) const { log_many(in, out, vectors); }
  FLEX_AVX2 reg adjust(reg, reg y) const { return y; }
  FLEX_AVX2 reg stands(reg x, reg) const { return or_(normal_magnitude<T>(x), lt(x, set1(T(0)))); }
  T scalar(T x) const { return std::log(x); }
};

// log1p: stands on (-1, log1p_hi] with a normal magnitude, on ±0 (SLEEF keeps the sign) and
// below -1 (SLEEF's NaN, -inf included); -1, subnormals, the huge and NaN go to libm.
template <class T>
struct Log1p {
  using reg = typename Lanes<T>::reg;
  FLEX_AVX2 reg value(reg x) const { return sleef_log1p(x); }
  void values(const T* in, T* out, std::size_t vectors) const { log1p_many(in, out, vectors); }
  FLEX_AVX2 reg adjust(reg, reg y) const { return y; }
  FLEX_AVX2 reg stands(reg x, reg) const {
    const reg in_domain = and_(gt(x, set1(T(-1))), le(x, set1(Lanes<T>::log1p_hi)));
    const reg normal_or_zero = or_(ge(abs_of<T>(x), set1(std::numeric_limits<T>::min())), eq(x, set1(T(0))));
    return or_(and_(in_domain, normal_or_zero), lt(x, set1(T(-1))));
  }
  T scalar(T x) const { return std::log1p(x); }
};

// tanh: stands on every finite argument (SLEEF saturates to ±1 and keeps ±0 and subnormals).
template <class T>
struct Tanh {
  using reg = typename Lanes<T>::reg;
  FLEX_AVX2 reg value(reg x) const { return sleef_tanh(x); }
  void values(const T* in, T* out, std::size_t vectors) const { tanh_many(in, out, vectors); }
  FLEX_AVX2 reg adjust(reg, reg y) const { return y; }
  FLEX_AVX2 reg stands(reg x, reg) const { return le(abs_of<T>(x), set1(std::numeric_limits<T>::max())); }
  T scalar(T x) const { return std::tanh(x); }
};

// sigmoid, docs/OPS.md's formula: e = exp(-|x|) never overflows; 1 / (1 + e) from 0 (so ±0 give
// 0.5), e / (1 + e) below. Stands while e is normal (|x| <= -exp_lo); beyond, sigmoid_one gives 1
// above 0 and the subnormal results below, as everywhere else.
template <class T>
struct Sigmoid {
  using reg = typename Lanes<T>::reg;
  FLEX_AVX2 reg value(reg x) const {
    const reg e = sleef_exp(or_(x, set1(T(-0.0))));
    const reg one = set1(T(1));
    const reg d = add(one, e);
    return select(ge(x, set1(T(0))), div(one, d), div(e, d));
  }
  FLEX_AVX2 reg stands(reg x, reg) const { return le(abs_of<T>(x), set1(-Lanes<T>::exp_lo)); }
  T scalar(T x) const { return sigmoid_one(x); }
};

// pow(x, p) for one finite p: SLEEF on |x|, negated for a negative x when p is an odd integer, NaN
// for a negative x when p is not an integer. Stands where |x| is normal and finite and the result
// is normal and finite or that NaN; zeros, infinities, NaN arguments and subnormal arguments or
// results go to std::pow and its C99 cases. On the standing lanes |x|^2, |x|^0.5 and |x|^-1 are one
// IEEE operation (a product, sqrt, a quotient): the correctly rounded value, which SLEEF's pow is
// within 1 ulp of at several times the cost.
template <class T>
struct Pow {
  using reg = typename Lanes<T>::reg;
  T p;
  bool p_integer, p_odd;
  explicit Pow(T exponent)
      : p(exponent), p_integer(std::trunc(exponent) == exponent),
        p_odd(p_integer && std::fmod(exponent, T(2)) != 0) {}
  FLEX_AVX2 reg value(reg x) const {
    const reg y = magnitude(abs_of<T>(x));
    if (p_odd) return xor_(y, and_(x, set1(T(-0.0))));
    if (!p_integer) return select(lt(x, set1(T(0))), set1(std::numeric_limits<T>::quiet_NaN()), y);
    return y;
  }
  FLEX_AVX2 reg magnitude(reg a) const {
    if (p == T(2)) return mul(a, a);
    if (p == T(0.5)) return sqrt_of(a);
    if (p == T(-1)) return div(set1(T(1)), a);
    return sleef_pow(a, p);
  }
  FLEX_AVX2 reg stands(reg x, reg y) const {
    const reg result_ok = normal_magnitude<T>(abs_of<T>(y));
    return and_(normal_magnitude<T>(abs_of<T>(x)), p_integer ? result_ok : or_(result_ok, lt(x, set1(T(0)))));
  }
  T scalar(T x) const { return std::pow(x, p); }
};

// The UnaryMath functions (sin ... atanh; erf stays on libm, see avx2_math): SLEEF's u10 function, documented within 1.0 ulp, under
// every bound the oracle gives these ops (2 to 4 ulps F32, 2 or 3 F64; oracle/src/ulp_bounds.cpp).
// A lane stands where its magnitude is normal and inside the range where SLEEF documents that
// bound (beyond it sin, cos and tan return "an arbitrary value within [-1, 1]", sinh and cosh an
// infinity or a value within 1 ulp, asinh and acosh the same), and inside the function's domain
// (asin, acos: |x| <= 1; atanh: |x| < 1; acosh: x > 1); outside the domain the lane is NaN. Zeros,
// subnormals, infinities, NaN and everything else go to libm, so docs/OPS.md's edges are glibc's.
struct UnaryRange {
  double f32, f64;  // the largest |x| of the documented bound
};
constexpr UnaryRange unary_range(UnaryMath f) {
  switch (f) {
    case UnaryMath::sin:
    case UnaryMath::cos:
    case UnaryMath::tan: return {1e28, 1e299};
    case UnaryMath::sinh:
    case UnaryMath::cosh: return {88.5, 709};
    case UnaryMath::asinh:
    case UnaryMath::acosh: return {1.84e19, 1.34e154};
    case UnaryMath::asin:
    case UnaryMath::acos:
    case UnaryMath::atanh: return {1, 1};
    case UnaryMath::atan:
    case UnaryMath::erf: return {3.4e38, 1.7e308};  // every finite argument (erf: unused, see avx2_math)
  }
  return {0, 0};
}

// F is a template argument, not a member: map_lanes is then compiled once per function, and the
// domain and range tests below fold to the few compares each function needs (sin's adjust to
// nothing). As a member, one shared map_lanes tested F on every vector.
template <class T, UnaryMath F>
struct SleefUnary {
  using reg = typename Lanes<T>::reg;
  static constexpr auto kF = static_cast<std::size_t>(F);
  static constexpr T hi = static_cast<T>(sizeof(T) == 4 ? unary_range(F).f32 : unary_range(F).f64);
  void (*scalar_fn)(const T*, T*, std::size_t) = portable_math<T>().unary[kF];
  FLEX_AVX2 reg value(reg x) const {
    reg y;
    if constexpr (sizeof(T) == 4) {
      alignas(32) float b[8];
      _mm256_store_ps(b, x);
      sleef::kUnary8[kF](b, b);
      y = _mm256_load_ps(b);
    } else {
      alignas(32) double b[4];
      _mm256_store_pd(b, x);
      sleef::kUnary4[kF](b, b);
      y = _mm256_load_pd(b);
    }
    return adjust(x, y);
  }
  void values(const T* in, T* out, std::size_t vectors) const {
    if constexpr (sizeof(T) == 4) sleef::kUnaryMany8[kF](in, out, vectors);
    else sleef::kUnaryMany4[kF](in, out, vectors);
  }
  // Arguments outside the domain (NaN excluded): their NaN stays in the vector, as log's does, so
  // that data mostly outside it (acosh of values below 1) does not send every lane to libm.
  static constexpr bool kHasDomain =
      F == UnaryMath::acosh || F == UnaryMath::asin || F == UnaryMath::acos || F == UnaryMath::atanh;
  FLEX_AVX2 reg adjust(reg x, reg y) const {
    if constexpr (kHasDomain) return select(outside_domain(x), set1(std::numeric_limits<T>::quiet_NaN()), y);
    else return y;
  }
  FLEX_AVX2 reg outside_domain(reg x) const {
    if constexpr (F == UnaryMath::acosh) return lt(x, set1(T(1)));
    else if constexpr (kHasDomain) return gt(abs_of<T>(x), set1(T(1)));
    else return xor_(x, x);  // no lane
  }
  FLEX_AVX2 reg stands(reg x, reg) const {
    const reg a = abs_of<T>(x);
    if constexpr (F == UnaryMath::acosh) {
      return or_(and_(gt(x, set1(T(1))), le(x, set1(hi))), outside_domain(x));  // acosh(1) = +0 from libm
    } else if constexpr (F == UnaryMath::atanh) {
      return or_(and_(ge(a, set1(std::numeric_limits<T>::min())), lt(a, set1(T(1)))), outside_domain(x));  // atanh(±1) = ±inf from libm
    } else {
      const reg inside = and_(ge(a, set1(std::numeric_limits<T>::min())), le(a, set1(hi)));
      if constexpr (kHasDomain) return or_(inside, outside_domain(x));
      else return inside;
    }
  }
  T scalar(T x) const {
    T y;
    scalar_fn(&x, &y, 1);
    return y;
  }
};

template <class T, UnaryMath F>
FLEX_AVX2 void unary_kernel(const T* in, T* out, std::size_t n) {
  map_lanes(SleefUnary<T, F>{}, in, out, n);
}

template <class T> FLEX_AVX2 void exp_kernel(const T* in, T* out, std::size_t n) { map_lanes(Exp<T>{}, in, out, n); }
template <class T> FLEX_AVX2 void log_kernel(const T* in, T* out, std::size_t n) { map_lanes(Log<T>{}, in, out, n); }
template <class T> FLEX_AVX2 void log1p_kernel(const T* in, T* out, std::size_t n) { map_lanes(Log1p<T>{}, in, out, n); }
template <class T> FLEX_AVX2 void tanh_kernel(const T* in, T* out, std::size_t n) { map_lanes(Tanh<T>{}, in, out, n); }
template <class T> FLEX_AVX2 void sigmoid_kernel(const T* in, T* out, std::size_t n) { map_lanes(Sigmoid<T>{}, in, out, n); }
template <class T>
FLEX_AVX2 void pow_kernel(const T* in, T p, T* out, std::size_t n) {
  if (!std::isfinite(p)) {  // pow(x, ±inf) and pow(x, NaN): C99's cases, libm's loop
    portable_math<T>().powf(in, p, out, n);
    return;
  }
  map_lanes(Pow<T>(p), in, out, n);
}

}  // namespace

#define CROSSGRAD_FLEX_SLEEF_ENTRY(name) unary_kernel<T, UnaryMath::name>,
template <class T>
MathKernels<T> avx2_math() {
  MathKernels<T> m{exp_kernel<T>,     log_kernel<T>, log1p_kernel<T>, tanh_kernel<T>,
                   sigmoid_kernel<T>, pow_kernel<T>, {CROSSGRAD_FLEX_UNARY_MATH(CROSSGRAD_FLEX_SLEEF_ENTRY)}};
  // erf stays on libm: SLEEF's erff8_u10 took 3.29 us per 1K floats where glibc's erff took 2.43
  // (crossgrad_bench erf/Flex/1K, AVX2 table against CROSSGRAD_FLEX_ISA=portable, one run).
  const auto erf = static_cast<std::size_t>(UnaryMath::erf);
  m.unary[erf] = portable_math<T>().unary[erf];
  return m;
}
#undef CROSSGRAD_FLEX_SLEEF_ENTRY
template MathKernels<float> avx2_math<float>();
template MathKernels<double> avx2_math<double>();

const char* avx2_math_library() { return "sleef"; }

}  // namespace crossgrad::backends::flex

#else  // no SLEEF (or not x86-64): the portable table's libm loops.

namespace crossgrad::backends::flex {
template <class T>
MathKernels<T> avx2_math() {
  return portable_math<T>();
}
template MathKernels<float> avx2_math<float>();
template MathKernels<double> avx2_math<double>();

const char* avx2_math_library() { return "libm"; }
}  // namespace crossgrad::backends::flex

#endif
