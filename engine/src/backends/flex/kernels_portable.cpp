// Portable Flex kernels: plain loops the compiler may vectorise for the baseline ISA.
#include "kernels.hpp"
#include "scalar_ops.hpp"

#include <cmath>

namespace crossgrad::backends::flex {
namespace {

template <BinaryOp Op, class T>
void binary_vv(const T* a, const T* b, T* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = apply_binary<Op>(a[i], b[i]);
}
template <BinaryOp Op, class T>
void binary_vs(const T* a, const T* b, T* out, std::size_t n) {
  const T s = b[0];
  for (std::size_t i = 0; i < n; ++i) out[i] = apply_binary<Op>(a[i], s);
}
template <BinaryOp Op, class T>
void binary_sv(const T* a, const T* b, T* out, std::size_t n) {
  const T s = a[0];
  for (std::size_t i = 0; i < n; ++i) out[i] = apply_binary<Op>(s, b[i]);
}

template <class T>
void neg(const T* in, T* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = -in[i];
}
template <class T>
void relu(const T* in, T* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = relu_one(in[i]);
}
template <class T>
void sqrt_kernel(const T* in, T* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::sqrt(in[i]);
}
template <class T>
void add_scalar(const T* in, T s, T* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = in[i] + s;
}
template <class T>
void mul_scalar(const T* in, T s, T* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = in[i] * s;
}
// std::exp: glibc's exp/expf are within 1 ulp.
template <class T>
void exp_kernel(const T* in, T* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::exp(in[i]);
}
// The libm loops every table falls back on: glibc's log, log1p 1 ulp, tanh 2, pow 1; sigmoid as
// docs/OPS.md writes it (sigmoid_one). These were Flex's only kernels for these ops before SLEEF.
template <class T>
void log_kernel(const T* in, T* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::log(in[i]);
}
template <class T>
void log1p_kernel(const T* in, T* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::log1p(in[i]);
}
template <class T>
void tanh_kernel(const T* in, T* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::tanh(in[i]);
}
template <class T>
void sigmoid_kernel(const T* in, T* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = sigmoid_one(in[i]);
}
template <class T>
void pow_kernel(const T* in, T p, T* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::pow(in[i], p);
}
template <class T>
double sum(const T* in, std::size_t n) {
  double acc[4] = {0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (std::size_t l = 0; l < 4; ++l) acc[l] += static_cast<double>(in[i + l]);
  }
  for (; i < n; ++i) acc[0] += static_cast<double>(in[i]);
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}
template <class T>
void accumulate(const T* in, double* acc, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) acc[i] += static_cast<double>(in[i]);
}

template <class T, std::size_t MR, std::size_t NR>
void gemm_tile(std::size_t kc, const T* a, const T* b, T* c, std::size_t ldc, bool acc) {
  T tile[MR][NR] = {};
  for (std::size_t p = 0; p < kc; ++p) {
    const T* bp = b + p * NR;
    const T* ap = a + p * MR;
    for (std::size_t i = 0; i < MR; ++i) {
      const T ai = ap[i];
      for (std::size_t j = 0; j < NR; ++j) tile[i][j] += ai * bp[j];
    }
  }
  for (std::size_t i = 0; i < MR; ++i) {
    T* row = c + i * ldc;
    for (std::size_t j = 0; j < NR; ++j) row[j] = acc ? row[j] + tile[i][j] : tile[i][j];
  }
}

// The rounding entries and the UnaryMath functions: libm's, element by element (at the baseline
// ISA a rounding is one call per element; glibc's documented maximum errors are within the
// oracle's bounds for the UnaryMath ops, oracle/src/ulp_bounds.cpp).
#define CROSSGRAD_FLEX_LIBM_LOOP(name)                                    \
  template <class T>                                                      \
  void name##_loop(const T* in, T* out, std::size_t n) {                  \
    for (std::size_t i = 0; i < n; ++i) out[i] = std::name(in[i]);        \
  }
CROSSGRAD_FLEX_LIBM_LOOP(rint)
CROSSGRAD_FLEX_LIBM_LOOP(floor)
CROSSGRAD_FLEX_LIBM_LOOP(ceil)
CROSSGRAD_FLEX_LIBM_LOOP(trunc)
CROSSGRAD_FLEX_UNARY_MATH(CROSSGRAD_FLEX_LIBM_LOOP)
#undef CROSSGRAD_FLEX_LIBM_LOOP
#define CROSSGRAD_FLEX_LIBM_ENTRY(name) name##_loop<T>,

template <class T, std::size_t MR, std::size_t NR>
constexpr TypedKernels<T> make_table() {
  return TypedKernels<T>{
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
      exp_kernel<T>,
      sum<T>,
      accumulate<T>,
      gemm_tile<T, MR, NR>,
      log_kernel<T>,
      log1p_kernel<T>,
      tanh_kernel<T>,
      sigmoid_kernel<T>,
      pow_kernel<T>,
      rint_loop<T>,
      floor_loop<T>,
      ceil_loop<T>,
      trunc_loop<T>,
      {CROSSGRAD_FLEX_UNARY_MATH(CROSSGRAD_FLEX_LIBM_ENTRY)},
  };
}

constexpr KernelTable kPortable{
    "portable",
    "libm",
    make_table<float, kSgemmMR, kSgemmNR>(),
    make_table<double, kDgemmMR, kDgemmNR>(),
};

}  // namespace

const KernelTable& portable_kernels() { return kPortable; }

template <class T>
MathKernels<T> portable_math() {
  return {exp_kernel<T>, log_kernel<T>,     log1p_kernel<T>, tanh_kernel<T>,
          sigmoid_kernel<T>, pow_kernel<T>, {CROSSGRAD_FLEX_UNARY_MATH(CROSSGRAD_FLEX_LIBM_ENTRY)}};
}
#undef CROSSGRAD_FLEX_LIBM_ENTRY
template MathKernels<float> portable_math<float>();
template MathKernels<double> portable_math<double>();

}  // namespace crossgrad::backends::flex
