// Flex: the int ops (add, sub, mul, div, remainder with NumPy broadcasting, neg, abs, sign, the
// comparisons, the bitwise ops and shifts, the _scalar and _elem forms, int_cast) and the bool ops
// (not, and, or, xor, equal, not_equal, bool_into_int). Same element rules as every backend
// (core/int_arithmetic.hpp, docs/OPS.md "Integer arithmetic"); flat loops split over the pool for
// same-shape operands and the scalar forms, broadcast rows (broadcast_rows.hpp) otherwise. The
// loops are plain so the compiler vectorises them, under AVX2 in a copy of its own (Note [Flex
// loops compiled twice], isa_loops.hpp); division has no vector instruction on x86 and stays one
// element at a time.
#include "broadcast_rows.hpp"
#include "common.hpp"
#include "isa_loops.hpp"
#include "thread_pool.hpp"

#include <crossgrad/core/int_arithmetic.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

namespace crossgrad::backends {
namespace {

using flex::kElementwiseGrain;
using flex::make_tensor;
using flex::parallel_range;
using host::with_int_type;

// out = op(lhs, rhs) with broadcasting, in the operands' element type E (out: O).
template <class E, class O, class Op>
void zip_elements(const FlexTensor& lhs, const FlexTensor& rhs, FlexTensor& out, Op op) {
  const E* a = lhs.data<E>();
  const E* b = rhs.data<E>();
  O* o = out.mutable_data<O>();
  if (lhs.shape == rhs.shape) {
    parallel_range(out.num_elements(), kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
      flex::run_loop([&] {
        // restrict: a byte-sized output (Bool, U8, I8) may alias anything as far as C++ knows, which
        // stops the loop's vectorisation (int_greater 1K took 2x NdArray's time without it). The
        // bounds are copied too: read through the closure, they could change with every store.
        const E* __restrict x = a;
        const E* __restrict y = b;
        O* __restrict z = o;
        const std::size_t lo = begin, hi = end;
        for (std::size_t i = lo; i < hi; ++i) z[i] = op(x[i], y[i]);
      });
    });
    return;
  }
  if (out.num_elements() == 0) return;
  flex::for_each_broadcast_row(out.shape, lhs.shape, rhs.shape,
                               [&](std::size_t lo, std::size_t ls, std::size_t ro, std::size_t rs, std::size_t at, std::size_t n) {
                                 const E* x = a + lo;
                                 const E* y = b + ro;
                                 O* __restrict z = o + at;
                                 flex::run_loop([&] {
                                   if (ls == 1 && rs == 1) {
                                     for (std::size_t i = 0; i < n; ++i) z[i] = op(x[i], y[i]);
                                   } else if (ls == 1 && rs == 0) {
                                     const E c = y[0];
                                     for (std::size_t i = 0; i < n; ++i) z[i] = op(x[i], c);
                                   } else if (ls == 0 && rs == 1) {
                                     const E c = x[0];
                                     for (std::size_t i = 0; i < n; ++i) z[i] = op(c, y[i]);
                                   } else {
                                     for (std::size_t i = 0; i < n; ++i) z[i] = op(x[i * ls], y[i * rs]);
                                   }
                                 });
                               });
}

// Divides says whether a zero divisor must be refused first (int-division-by-zero): every
// divisor element reaches a non-empty result, so one scan of the divisor decides it.
template <bool Divides, class Op>
FlexTensor int_binary(const FlexTensor& lhs, const FlexTensor& rhs, std::string_view name, Op op) {
  const Shape out_shape = rules::check_int_binary(lhs.shape, lhs.dtype, rhs.shape, rhs.dtype, name);
  FlexTensor out = make_tensor(out_shape, lhs.dtype);
  with_int_type(lhs.dtype, [&]<class I>(I) {
    if constexpr (Divides) {
      if (out.num_elements() != 0) {
        const I* b = rhs.data<I>();
        std::atomic<bool> zero{false};
        parallel_range(rhs.num_elements(), kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
          bool found = false;
          for (std::size_t i = begin; i < end; ++i) found |= b[i] == I{0};
          if (found) zero.store(true, std::memory_order_relaxed);
        });
        if (zero.load()) rules::int_division_by_zero(name);
      }
    }
    zip_elements<I, I>(lhs, rhs, out, op);
  });
  return out;
}

// out[i] = f(in[i]) over the flat storage.
template <class E, class O, class F>
void map_elements(const FlexTensor& in, FlexTensor& out, F f) {
  const E* x = in.data<E>();
  O* o = out.mutable_data<O>();
  parallel_range(in.num_elements(), kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
    flex::run_loop([&] {
      const E* __restrict from = x;  // as in zip_elements
      O* __restrict to = o;
      const std::size_t lo = begin, hi = end;
      for (std::size_t i = lo; i < hi; ++i) to[i] = f(from[i]);
    });
  });
}

template <class Op>
FlexTensor int_unary(const FlexTensor& tensor, std::string_view name, Op op) {
  rules::check_int_dtype(tensor.dtype, name);
  FlexTensor out = make_tensor(tensor.shape, tensor.dtype);
  with_int_type(tensor.dtype, [&]<class I>(I) { map_elements<I, I>(tensor, out, [&](I x) { return op(x); }); });
  return out;
}

template <class Op>
FlexTensor int_with_scalar(const FlexTensor& tensor, double scalar, std::string_view name, Op op) {
  rules::check_int_dtype(tensor.dtype, name);
  FlexTensor out = make_tensor(tensor.shape, tensor.dtype);
  with_int_type(tensor.dtype, [&]<class I>(I) {
    const I s = int_scalar<I>(scalar);
    map_elements<I, I>(tensor, out, [&](I x) { return op(x, s); });
  });
  return out;
}

// pred of two broadcast int operands (or of each element and the scalar), to a Bool tensor.
template <class Pred>
FlexTensor int_compare(const FlexTensor& lhs, const FlexTensor& rhs, std::string_view name, Pred pred) {
  const Shape out_shape = rules::check_int_binary(lhs.shape, lhs.dtype, rhs.shape, rhs.dtype, name);
  FlexTensor out = make_tensor(out_shape, DType::Bool);
  with_int_type(lhs.dtype, [&]<class I>(I) {
    zip_elements<I, std::uint8_t>(lhs, rhs, out, [&](I a, I b) { return static_cast<std::uint8_t>(pred(a, b) ? 1 : 0); });
  });
  return out;
}
template <class Pred>
FlexTensor int_compare_scalar(const FlexTensor& tensor, double scalar, std::string_view name, Pred pred) {
  rules::check_int_dtype(tensor.dtype, name);
  FlexTensor out = make_tensor(tensor.shape, DType::Bool);
  with_int_type(tensor.dtype, [&]<class I>(I) {
    const I s = int_scalar<I>(scalar);
    map_elements<I, std::uint8_t>(tensor, out, [&](I x) { return static_cast<std::uint8_t>(pred(x, s) ? 1 : 0); });
  });
  return out;
}

// Bool storage is one byte, 0 or 1.
template <class Op>
FlexTensor bool_binary(const FlexTensor& lhs, const FlexTensor& rhs, std::string_view name, Op op) {
  const Shape out_shape = rules::check_bool_binary(lhs.shape, lhs.dtype, rhs.shape, rhs.dtype, name);
  FlexTensor out = make_tensor(out_shape, DType::Bool);
  zip_elements<std::uint8_t, std::uint8_t>(lhs, rhs, out, [&](std::uint8_t a, std::uint8_t b) {
    return static_cast<std::uint8_t>(op(a != 0, b != 0) ? 1 : 0);
  });
  return out;
}

}  // namespace

FlexTensor Flex::int_add(const FlexTensor& lhs, const FlexTensor& rhs) {
  return int_binary<false>(lhs, rhs, "int_add", []<class I>(I a, I b) { return wrapping_add<I>(a, b); });
}
FlexTensor Flex::int_sub(const FlexTensor& lhs, const FlexTensor& rhs) {
  return int_binary<false>(lhs, rhs, "int_sub", []<class I>(I a, I b) { return wrapping_sub<I>(a, b); });
}
FlexTensor Flex::int_mul(const FlexTensor& lhs, const FlexTensor& rhs) {
  return int_binary<false>(lhs, rhs, "int_mul", []<class I>(I a, I b) { return wrapping_mul<I>(a, b); });
}
FlexTensor Flex::int_div(const FlexTensor& lhs, const FlexTensor& rhs) {
  return int_binary<true>(lhs, rhs, "int_div", []<class I>(I a, I b) { return trunc_div<I>(a, b); });
}
FlexTensor Flex::int_remainder(const FlexTensor& lhs, const FlexTensor& rhs) {
  return int_binary<true>(lhs, rhs, "int_remainder", []<class I>(I a, I b) { return floor_mod<I>(a, b); });
}

FlexTensor Flex::int_neg(const FlexTensor& tensor) {
  return int_unary(tensor, "int_neg", []<class I>(I x) { return wrapping_neg<I>(x); });
}
FlexTensor Flex::int_abs(const FlexTensor& tensor) {
  return int_unary(tensor, "int_abs", []<class I>(I x) { return wrapping_abs<I>(x); });
}
FlexTensor Flex::int_sign(const FlexTensor& tensor) {
  return int_unary(tensor, "int_sign", []<class I>(I x) { return signum<I>(x); });
}

FlexTensor Flex::int_add_scalar(const FlexTensor& tensor, double scalar) {
  return int_with_scalar(tensor, scalar, "int_add_scalar", []<class I>(I x, I s) { return wrapping_add<I>(x, s); });
}
FlexTensor Flex::int_sub_scalar(const FlexTensor& tensor, double scalar) {
  return int_with_scalar(tensor, scalar, "int_sub_scalar", []<class I>(I x, I s) { return wrapping_sub<I>(x, s); });
}
FlexTensor Flex::int_mul_scalar(const FlexTensor& tensor, double scalar) {
  return int_with_scalar(tensor, scalar, "int_mul_scalar", []<class I>(I x, I s) { return wrapping_mul<I>(x, s); });
}
FlexTensor Flex::int_div_scalar(const FlexTensor& tensor, double scalar) {
  rules::check_int_scalar_divisor(tensor.dtype, scalar, "int_div_scalar");
  return int_with_scalar(tensor, scalar, "int_div_scalar", []<class I>(I x, I s) { return trunc_div<I>(x, s); });
}
FlexTensor Flex::int_remainder_scalar(const FlexTensor& tensor, double scalar) {
  rules::check_int_scalar_divisor(tensor.dtype, scalar, "int_remainder_scalar");
  return int_with_scalar(tensor, scalar, "int_remainder_scalar", []<class I>(I x, I s) { return floor_mod<I>(x, s); });
}

FlexTensor Flex::bool_not(const FlexTensor& tensor) {
  rules::check_bool_dtype(tensor.dtype, "bool_not");
  FlexTensor out = make_tensor(tensor.shape, DType::Bool);
  map_elements<std::uint8_t, std::uint8_t>(tensor, out, [](std::uint8_t x) { return static_cast<std::uint8_t>(x == 0 ? 1 : 0); });
  return out;
}
FlexTensor Flex::bool_and(const FlexTensor& lhs, const FlexTensor& rhs) {
  return bool_binary(lhs, rhs, "bool_and", [](bool a, bool b) { return a && b; });
}
FlexTensor Flex::bool_or(const FlexTensor& lhs, const FlexTensor& rhs) {
  return bool_binary(lhs, rhs, "bool_or", [](bool a, bool b) { return a || b; });
}
FlexTensor Flex::bool_xor(const FlexTensor& lhs, const FlexTensor& rhs) {
  return bool_binary(lhs, rhs, "bool_xor", [](bool a, bool b) { return a != b; });
}

#define CROSSGRAD_FLEX_INT_COMPARE(name, expr)                                                  \
  FlexTensor Flex::name(const FlexTensor& lhs, const FlexTensor& rhs) {                          \
    return int_compare(lhs, rhs, #name, []<class I>(I a, I b) { return expr; });                 \
  }                                                                                              \
  FlexTensor Flex::name##_elem(const FlexTensor& tensor, double scalar) {                        \
    return int_compare_scalar(tensor, scalar, #name "_elem", []<class I>(I a, I b) { return expr; }); \
  }
CROSSGRAD_FLEX_INT_COMPARE(int_equal, a == b)
CROSSGRAD_FLEX_INT_COMPARE(int_not_equal, a != b)
CROSSGRAD_FLEX_INT_COMPARE(int_greater, a > b)
CROSSGRAD_FLEX_INT_COMPARE(int_greater_equal, a >= b)
CROSSGRAD_FLEX_INT_COMPARE(int_lower, a < b)
CROSSGRAD_FLEX_INT_COMPARE(int_lower_equal, a <= b)
#undef CROSSGRAD_FLEX_INT_COMPARE

FlexTensor Flex::bool_equal(const FlexTensor& lhs, const FlexTensor& rhs) {
  return bool_binary(lhs, rhs, "bool_equal", [](bool a, bool b) { return a == b; });
}
FlexTensor Flex::bool_not_equal(const FlexTensor& lhs, const FlexTensor& rhs) {
  return bool_binary(lhs, rhs, "bool_not_equal", [](bool a, bool b) { return a != b; });
}

FlexTensor Flex::bitwise_and(const FlexTensor& lhs, const FlexTensor& rhs) {
  return int_binary<false>(lhs, rhs, "bitwise_and", []<class I>(I a, I b) { return static_cast<I>(a & b); });
}
FlexTensor Flex::bitwise_or(const FlexTensor& lhs, const FlexTensor& rhs) {
  return int_binary<false>(lhs, rhs, "bitwise_or", []<class I>(I a, I b) { return static_cast<I>(a | b); });
}
FlexTensor Flex::bitwise_xor(const FlexTensor& lhs, const FlexTensor& rhs) {
  return int_binary<false>(lhs, rhs, "bitwise_xor", []<class I>(I a, I b) { return static_cast<I>(a ^ b); });
}
FlexTensor Flex::bitwise_not(const FlexTensor& tensor) {
  return int_unary(tensor, "bitwise_not", []<class I>(I x) { return static_cast<I>(~x); });
}
FlexTensor Flex::bitwise_left_shift(const FlexTensor& lhs, const FlexTensor& rhs) {
  return int_binary<false>(lhs, rhs, "bitwise_left_shift", []<class I>(I a, I b) { return shift_left<I>(a, b); });
}
FlexTensor Flex::bitwise_right_shift(const FlexTensor& lhs, const FlexTensor& rhs) {
  return int_binary<false>(lhs, rhs, "bitwise_right_shift", []<class I>(I a, I b) { return shift_right<I>(a, b); });
}
FlexTensor Flex::bitwise_and_scalar(const FlexTensor& tensor, double scalar) {
  return int_with_scalar(tensor, scalar, "bitwise_and_scalar", []<class I>(I x, I s) { return static_cast<I>(x & s); });
}
FlexTensor Flex::bitwise_or_scalar(const FlexTensor& tensor, double scalar) {
  return int_with_scalar(tensor, scalar, "bitwise_or_scalar", []<class I>(I x, I s) { return static_cast<I>(x | s); });
}
FlexTensor Flex::bitwise_xor_scalar(const FlexTensor& tensor, double scalar) {
  return int_with_scalar(tensor, scalar, "bitwise_xor_scalar", []<class I>(I x, I s) { return static_cast<I>(x ^ s); });
}
FlexTensor Flex::bitwise_left_shift_scalar(const FlexTensor& tensor, double scalar) {
  return int_with_scalar(tensor, scalar, "bitwise_left_shift_scalar", []<class I>(I x, I s) { return shift_left<I>(x, s); });
}
FlexTensor Flex::bitwise_right_shift_scalar(const FlexTensor& tensor, double scalar) {
  return int_with_scalar(tensor, scalar, "bitwise_right_shift_scalar", []<class I>(I x, I s) { return shift_right<I>(x, s); });
}

FlexTensor Flex::int_cast(const FlexTensor& tensor, DType dtype) {
  rules::check_int_target(tensor.dtype, dtype, "int_cast");
  FlexTensor out = make_tensor(tensor.shape, dtype);
  with_int_type(tensor.dtype, [&]<class I>(I) {
    with_int_type(dtype, [&]<class J>(J) { map_elements<I, J>(tensor, out, [](I x) { return static_cast<J>(x); }); });
  });
  return out;
}
FlexTensor Flex::bool_into_int(const FlexTensor& tensor, DType dtype) {
  rules::check_int_target(tensor.dtype, dtype, "bool_into_int");
  FlexTensor out = make_tensor(tensor.shape, dtype);
  with_int_type(dtype, [&]<class J>(J) {
    map_elements<std::uint8_t, J>(tensor, out, [](std::uint8_t x) { return x != 0 ? J{1} : J{0}; });
  });
  return out;
}

// Clamps with the bounds saturated into the dtype (core/int_arithmetic.hpp int_bound); clamp_min
// and clamp_max are the clamp with the dtype's other end. bounds(I{}) gives {lo, hi} in I.
namespace {
template <class Bounds>
FlexTensor clamped(const FlexTensor& tensor, Bounds bounds) {
  FlexTensor out = make_tensor(tensor.shape, tensor.dtype);
  with_int_type(tensor.dtype, [&]<class I>(I) {
    const std::pair<I, I> range = bounds(I{});  // not a structured binding: clang 14 cannot capture one
    const I lo = range.first, hi = range.second;
    map_elements<I, I>(tensor, out, [lo, hi](I x) { return x < lo ? lo : (x > hi ? hi : x); });
  });
  return out;
}
}  // namespace
FlexTensor Flex::int_clamp(const FlexTensor& tensor, double min, double max) {
  rules::check_int_clamp(tensor.dtype, min, max);
  return clamped(tensor, [&]<class I>(I) { return std::pair<I, I>{int_bound<I>(min), int_bound<I>(max)}; });
}
FlexTensor Flex::int_clamp_min(const FlexTensor& tensor, double min) {
  rules::check_int_dtype(tensor.dtype, "int_clamp_min");
  return clamped(tensor, [&]<class I>(I) { return std::pair<I, I>{int_bound<I>(min), std::numeric_limits<I>::max()}; });
}
FlexTensor Flex::int_clamp_max(const FlexTensor& tensor, double max) {
  rules::check_int_dtype(tensor.dtype, "int_clamp_max");
  return clamped(tensor, [&]<class I>(I) { return std::pair<I, I>{std::numeric_limits<I>::lowest(), int_bound<I>(max)}; });
}
FlexTensor Flex::int_square(const FlexTensor& tensor) {
  return int_unary(tensor, "int_square", []<class I>(I x) { return wrapping_mul<I>(x, x); });
}
FlexTensor Flex::int_powi(const FlexTensor& lhs, const FlexTensor& rhs) {
  return int_binary<false>(lhs, rhs, "int_powi", []<class I>(I a, I b) { return wrapping_pow<I>(a, b); });
}
// x^s for one s >= 0 (wrapping_pow's squaring): per element, the loop over s's bits kept every
// element's multiplies in one dependent chain, unvectorised (1M I64 elements at 7: 2.0 ms, LibTorch
// 1.5). Here each block of kPowBlock elements takes the bits in turn, each step a vectorised pass
// over the block; the products are wrapping_pow's, in its order. A negative s (0, 1 or -1 by the
// base) stays per element.
FlexTensor Flex::int_powi_scalar(const FlexTensor& tensor, double scalar) {
  rules::check_int_dtype(tensor.dtype, "int_powi_scalar");
  FlexTensor out = make_tensor(tensor.shape, tensor.dtype);
  with_int_type(tensor.dtype, [&]<class I>(I) {
    const I s = int_scalar<I>(scalar);
    if constexpr (std::is_signed_v<I>) {
      if (s < I{0}) {
        map_elements<I, I>(tensor, out, [&](I x) { return wrapping_pow<I>(x, s); });
        return;
      }
    }
    constexpr std::size_t kPowBlock = 256;
    const I* x = tensor.data<I>();
    I* o = out.mutable_data<I>();
    parallel_range(tensor.num_elements(), kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
      flex::run_loop([&] {
        const I* const from = x;
        I* const to = o;
        const IntBits<I> bits = static_cast<IntBits<I>>(s);
        I base[kPowBlock];
        for (std::size_t lo = begin; lo < end; lo += kPowBlock) {
          const std::size_t w = std::min(kPowBlock, end - lo);
          I* const result = to + lo;
          for (std::size_t i = 0; i < w; ++i) {
            base[i] = from[lo + i];
            result[i] = I{1};
          }
          for (IntBits<I> e = bits; e != 0; e >>= 1) {
            if ((e & 1u) != 0) {
              for (std::size_t i = 0; i < w; ++i) result[i] = wrapping_mul<I>(result[i], base[i]);
            }
            if ((e >> 1) != 0) {
              for (std::size_t i = 0; i < w; ++i) base[i] = wrapping_mul<I>(base[i], base[i]);
            }
          }
        }
      });
    });
  });
  return out;
}

}  // namespace crossgrad::backends
