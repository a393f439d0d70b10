#pragma once
// Flex's internals that tests and benchmarks drive directly: the worker pool and the kernel
// table (the micro-kernels each op runs on contiguous spans). Not for applications: the ops on
// crossgrad::backends::Flex are the API. Declared here, not in engine/src, so that nothing outside
// engine/ includes the engine's sources; engine/src/backends/flex/ (thread_pool.hpp, kernels.hpp)
// includes this header and defines what it declares.
//
// The kernel table's choice and the thread count are set through <crossgrad/backends/flex_tuning.hpp>
// (force_portable_kernels, active_isa, num_threads, set_num_threads).
#include <crossgrad/backends/flex_tuning.hpp>
#include <crossgrad/backends/flex_unary_math.hpp>

#include <cstddef>
#include <functional>
#include <type_traits>

namespace crossgrad::backends::flex {

// ---- the worker pool (thread_pool.cpp) ---------------------------------------------------------

// Runs body(task) for task in [0, tasks), spread over the pool; returns when all are done.
// Runs inline when tasks <= 1, when called from inside a pool task, or when the pool is busy
// with another caller. An exception from a body is rethrown on the calling thread.
void parallel_for(std::size_t tasks, const std::function<void(std::size_t)>& body);

// Splits [0, n) into chunks of at least `grain` items (at most a few per thread) and runs
// body(begin, end) on each; serial when n < 2 * grain (Note [Flex tuning] has the exact rule).
void parallel_range(std::size_t n, std::size_t grain,
                    const std::function<void(std::size_t, std::size_t)>& body);

// The same for any callable, which every caller passes (a lambda): wrapped by reference, so the
// std::function holds one pointer in its own storage. A lambda capturing more than 16 bytes (the
// element-wise ops capture the kernel and three pointers) would otherwise be copied to the heap:
// a malloc and a free on every op, a tenth of a 1K-element add (docs/PERFORMANCE.md, issue 39).
template <class Body>
  requires(!std::is_same_v<std::remove_cvref_t<Body>, std::function<void(std::size_t, std::size_t)>>)
void parallel_range(std::size_t n, std::size_t grain, Body&& body) {
  parallel_range(n, grain, std::function<void(std::size_t, std::size_t)>(std::ref(body)));
}

// ---- the kernel table (kernels.cpp, kernels_portable.cpp, kernels_avx2.cpp) ---------------------
// Every kernel computes each element with the same IEEE operation in the same dtype as the plain
// loop would (no FMA contraction, no reassociation) except the reductions, which accumulate in
// double, and the GEMM micro-kernels, which use FMA; so add/sub/mul/div/neg/sqrt/relu and the
// scalar ops are bit-identical whichever table runs.

enum class BinaryOp { Add, Sub, Mul, Div };
inline constexpr std::size_t kBinaryOps = 4;

template <class T>
struct TypedKernels {
  // out[i] = a[i] op b[i]; a_scalar: a[0] for every i; b_scalar: b[0] for every i.
  using Binary = void (*)(const T* a, const T* b, T* out, std::size_t n);
  Binary binary_vv[kBinaryOps];
  Binary binary_vs[kBinaryOps];
  Binary binary_sv[kBinaryOps];
  void (*neg)(const T* in, T* out, std::size_t n);
  void (*relu)(const T* in, T* out, std::size_t n);
  void (*sqrt)(const T* in, T* out, std::size_t n);
  void (*add_scalar)(const T* in, T scalar, T* out, std::size_t n);
  void (*mul_scalar)(const T* in, T scalar, T* out, std::size_t n);
  // exp within 2 ulp of the correctly rounded result (see the implementations).
  void (*exp)(const T* in, T* out, std::size_t n);
  // Sum of in[0..n) in double.
  double (*sum)(const T* in, std::size_t n);
  // acc[i] += in[i] in double, for i < n.
  void (*accumulate)(const T* in, double* acc, std::size_t n);
  // C[MR x NR] (row stride ldc) = or += packed A (kc x MR, MR-interleaved) * packed B (kc x NR),
  // MR x NR the dtype's register tile (kTuning.gemm(f64).mr, .nr).
  void (*gemm_tile)(std::size_t kc, const T* a, const T* b, T* c, std::size_t ldc,
                    bool accumulate);
  // The other transcendental ops, each within the oracle's ulp bound for its op
  // (oracle/src/ulp_bounds.cpp, docs/OPS.md "Accuracy in ulps"); `in` may equal `out`, and an
  // element's result depends on its value alone, not on where a range starts.
  void (*log)(const T* in, T* out, std::size_t n);
  void (*log1p)(const T* in, T* out, std::size_t n);
  void (*tanh)(const T* in, T* out, std::size_t n);
  void (*sigmoid)(const T* in, T* out, std::size_t n);  // docs/OPS.md "sigmoid at the ends of its range"
  void (*powf)(const T* in, T exponent, T* out, std::size_t n);  // std::pow(x, exponent)
  // Rounding to an integral value in the dtype, bit-identical to std::rint (half to even),
  // std::floor, std::ceil and std::trunc: exact, so there is no bound to promise; `in` may equal
  // `out`. Their own entries because the baseline ISA has no rounding instruction, so the plain
  // loop is one libm call per element (SSE4.1's roundps is what the AVX2 table uses).
  void (*rint)(const T* in, T* out, std::size_t n);
  void (*floor)(const T* in, T* out, std::size_t n);
  void (*ceil)(const T* in, T* out, std::size_t n);
  void (*trunc)(const T* in, T* out, std::size_t n);
  // unary_math[UnaryMath::f] computes f; each within the oracle's ulp bound for Flex::float_<f>,
  // with the same promises as log and the others above.
  void (*unary_math[kUnaryMathOps])(const T* in, T* out, std::size_t n);
};

// The ulp bound (F32, F64) every table's transcendental kernels promise, per op: the oracle's bound
// for the op (oracle/src/ulp_bounds.cpp, docs/OPS.md "Accuracy in ulps"), repeated beside the
// kernels (kernels_avx2_math.cpp, with static_asserts) and checked equal to the oracle's by
// FlexMathUlpBounds.AreTheOraclesBounds (properties/flex_math_ulp_props.cpp).
struct KernelUlps {
  double f32, f64;
};
struct MathUlps {
  KernelUlps exp, log, log1p, tanh, sigmoid, powf;
};
inline constexpr MathUlps kMathUlps{{2, 1}, {1, 1}, {1, 1}, {2, 2}, {4, 3}, {4, 2}};

struct KernelTable {
  const char* isa;  // "avx2" or "portable"
  const char* math;  // the transcendental kernels: "sleef" (AVX2 table, built with SLEEF) or "libm"
  TypedKernels<float> f32;
  TypedKernels<double> f64;
};

const KernelTable& portable_kernels();
const KernelTable& avx2_kernels();  // only call when the CPU supports AVX2 and FMA
bool cpu_has_avx2_fma();

// The table in use: AVX2 when the CPU has it, unless CROSSGRAD_FLEX_ISA=portable, or
// force_portable_kernels(true) was called (flex_tuning.hpp; tests use it to check both paths).
const KernelTable& kernels();

template <class T> const TypedKernels<T>& typed_kernels();
template <> inline const TypedKernels<float>& typed_kernels<float>() { return kernels().f32; }
template <> inline const TypedKernels<double>& typed_kernels<double>() { return kernels().f64; }

}  // namespace crossgrad::backends::flex
