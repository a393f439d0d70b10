#pragma once
// The integer rules of the int ops (docs/OPS.md "Integer arithmetic"), one definition for every
// backend's host loops and device kernels, so that no input is undefined behaviour in C++:
// - add, sub, mul, neg and abs wrap (two's complement, modulo 2^width): computed in the unsigned
//   type of the same width, where C++ defines overflow, and converted back (C++20 defines that
//   conversion as modulo 2^width). abs(MIN) is MIN and neg(MIN) is MIN, as in PyTorch and CUDA.
// - div truncates toward zero (C++, Rust and Burn's int_div); remainder takes the divisor's sign
//   (floor modulo: Burn's int_remainder and PyTorch's remainder). MIN / -1 wraps to MIN and
//   MIN rem -1 is 0, where the CPU's divide instruction would raise SIGFPE. A zero divisor never
//   reaches these: the ops raise int-division-by-zero first.
// - a double scalar becomes an element of the tensor's dtype by Rust's `as` into i64 (toward
//   zero, NaN to 0, saturating) and then modulo 2^width, as PyTorch converts a Python int.
#include <crossgrad/core/dtype.hpp>
#include <crossgrad/core/host_device.hpp>
#include <crossgrad/core/int_conversion.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace crossgrad {

// The unsigned type of I's width.
template <class I>
using IntBits = std::make_unsigned_t<I>;

// Arithmetic on U8 (and I8) promotes to int first; the result converts back modulo 2^width.
template <class I>
CROSSGRAD_HOST_DEVICE constexpr I wrapping_add(I a, I b) {
  return static_cast<I>(static_cast<IntBits<I>>(static_cast<IntBits<I>>(a) + static_cast<IntBits<I>>(b)));
}
template <class I>
CROSSGRAD_HOST_DEVICE constexpr I wrapping_sub(I a, I b) {
  return static_cast<I>(static_cast<IntBits<I>>(static_cast<IntBits<I>>(a) - static_cast<IntBits<I>>(b)));
}
template <class I>
CROSSGRAD_HOST_DEVICE constexpr I wrapping_mul(I a, I b) {
  // Narrow unsigned types promote to (signed) int, whose product can overflow (255 * 255 fits,
  // but 0xFFFF * 0xFFFF would not): multiply in at least unsigned int.
  using Wide = std::conditional_t<(sizeof(I) < sizeof(unsigned)), unsigned, IntBits<I>>;
  return static_cast<I>(static_cast<IntBits<I>>(static_cast<Wide>(static_cast<IntBits<I>>(a)) *
                                                static_cast<Wide>(static_cast<IntBits<I>>(b))));
}
template <class I>
CROSSGRAD_HOST_DEVICE constexpr I wrapping_neg(I a) {
  return wrapping_sub<I>(I{0}, a);
}
template <class I>
CROSSGRAD_HOST_DEVICE constexpr I wrapping_abs(I a) {
  if constexpr (std::is_unsigned_v<I>) {
    return a;
  } else {
    return a < I{0} ? wrapping_neg<I>(a) : a;
  }
}
template <class I>
CROSSGRAD_HOST_DEVICE constexpr I signum(I a) {
  if constexpr (std::is_unsigned_v<I>) {
    return a != I{0} ? I{1} : I{0};
  } else {
    return a > I{0} ? I{1} : (a < I{0} ? static_cast<I>(-1) : I{0});
  }
}

// b != 0 (int-division-by-zero is raised before any element is divided).
template <class I>
CROSSGRAD_HOST_DEVICE constexpr I trunc_div(I a, I b) {
  if constexpr (std::is_signed_v<I>) {
    if (b == static_cast<I>(-1)) return wrapping_neg<I>(a);  // MIN / -1 wraps to MIN
  }
  return static_cast<I>(a / b);
}
template <class I>
CROSSGRAD_HOST_DEVICE constexpr I floor_mod(I a, I b) {
  if constexpr (std::is_signed_v<I>) {
    if (b == static_cast<I>(-1)) return I{0};  // MIN % -1 would trap
    const I r = static_cast<I>(a % b);
    // C++'s remainder has the dividend's sign; floor modulo has the divisor's. |r| < |b|, so
    // r + b cannot overflow when their signs differ.
    return (r != I{0} && ((r < I{0}) != (b < I{0}))) ? static_cast<I>(r + b) : r;
  } else {
    return static_cast<I>(a % b);
  }
}

// Shifts (PyTorch's definition; C++ and Rust leave these undefined or panicking): by a count in
// [0, width) as usual, the left shift wrapping and the right shift arithmetic for signed types
// (logical for U8); by a negative count or one of the width or more, the left shift gives 0 and
// the right shift the sign fill (0, or -1 for a negative signed value).
// Written without branches (a count outside the width is a select, and the shift itself uses a
// count inside it) so that loops of them vectorise.
template <class I>
CROSSGRAD_HOST_DEVICE constexpr I shift_left(I a, I count) {
  constexpr unsigned bits = sizeof(I) * 8;
  const bool inside = static_cast<IntBits<I>>(count) < bits;  // a negative count is a huge unsigned one
  using Wide = std::conditional_t<(sizeof(I) < sizeof(unsigned)), unsigned, IntBits<I>>;
  const I shifted = static_cast<I>(static_cast<IntBits<I>>(static_cast<Wide>(static_cast<IntBits<I>>(a))
                                                           << (inside ? static_cast<unsigned>(count) : 0u)));
  return inside ? shifted : I{0};
}
template <class I>
CROSSGRAD_HOST_DEVICE constexpr I shift_right(I a, I count) {
  constexpr unsigned bits = sizeof(I) * 8;
  const bool inside = static_cast<IntBits<I>>(count) < bits;
  if constexpr (std::is_unsigned_v<I>) {
    return inside ? static_cast<I>(a >> static_cast<unsigned>(count)) : I{0};
  } else {
    // Outside the width the sign fill is the shift by width - 1 (C++20: >> of a negative signed
    // value is arithmetic).
    return static_cast<I>(a >> (inside ? static_cast<unsigned>(count) : bits - 1));
  }
}

// a^b (int_powi, int_powi_scalar; PyTorch's integer pow): for b >= 0 the product of b copies of a
// modulo 2^width (squaring, each step wrapping: the same residue in any order); for b < 0 the true
// power truncated toward zero, so 1 for a = 1, +-1 for a = -1 by b's parity, and 0 for every other
// a, 0 included (no division happens, so no int-division-by-zero).
template <class I>
CROSSGRAD_HOST_DEVICE constexpr I wrapping_pow(I a, I b) {
  if constexpr (std::is_signed_v<I>) {
    if (b < I{0}) {
      if (a == I{1}) return I{1};
      if (a == static_cast<I>(-1)) return (static_cast<IntBits<I>>(b) & 1u) != 0 ? static_cast<I>(-1) : I{1};
      return I{0};
    }
  }
  I result{1};
  for (IntBits<I> e = static_cast<IntBits<I>>(b); e != 0; e >>= 1) {
    if ((e & 1u) != 0) result = wrapping_mul<I>(result, a);
    a = wrapping_mul<I>(a, a);
  }
  return result;
}

// The int reductions (docs/OPS.md "Integer arithmetic"): one lane of len elements, stride apart,
// to the result's element as an int64: the wrapped sum or product in I (associative modulo
// 2^width, so any order gives it), the mean as that sum divided by len toward zero, the first
// maximum / minimum or its index, the maximum of the wrapping abs (abs(MIN) is MIN, as int_abs),
// and any / all of x != 0 (as 0 / 1). len is at least 1 for Mean, Max, Min, ArgMax, ArgMin and
// MaxAbs (empty-reduction is raised before).
enum class IntReduce { Sum, Prod, Mean, Max, Min, ArgMax, ArgMin, Any, All, MaxAbs };

// Mean, Max, Min, ArgMax and ArgMin have no value over no element (empty-reduction).
CROSSGRAD_HOST_DEVICE constexpr bool needs_an_element(IntReduce r) {
  return r == IntReduce::Mean || r == IntReduce::Max || r == IntReduce::Min || r == IntReduce::ArgMax || r == IntReduce::ArgMin ||
         r == IntReduce::MaxAbs;
}
// The result's dtype: I64 for the indices, Bool for any / all, the receiver's otherwise.
constexpr DType reduced_dtype(IntReduce r, DType receiver) {
  if (r == IntReduce::ArgMax || r == IntReduce::ArgMin) return DType::I64;
  if (r == IntReduce::Any || r == IntReduce::All) return DType::Bool;
  return receiver;
}

template <class I>
CROSSGRAD_HOST_DEVICE std::int64_t reduce_lane(const I* x, std::size_t len, std::size_t stride, IntReduce r) {
  switch (r) {
    case IntReduce::Sum:
    case IntReduce::Mean: {
      I acc = I{0};
      for (std::size_t k = 0; k < len; ++k) acc = wrapping_add<I>(acc, x[k * stride]);
      if (r == IntReduce::Sum) return static_cast<std::int64_t>(acc);
      return static_cast<std::int64_t>(acc) / static_cast<std::int64_t>(len);
    }
    case IntReduce::Prod: {
      I acc = I{1};
      for (std::size_t k = 0; k < len; ++k) acc = wrapping_mul<I>(acc, x[k * stride]);
      return static_cast<std::int64_t>(acc);
    }
    case IntReduce::Max:
    case IntReduce::ArgMax:
    case IntReduce::Min:
    case IntReduce::ArgMin: {
      const bool max = r == IntReduce::Max || r == IntReduce::ArgMax;
      std::size_t at = 0;
      for (std::size_t k = 1; k < len; ++k) {
        const I v = x[k * stride], best = x[at * stride];
        if (max ? v > best : v < best) at = k;
      }
      if (r == IntReduce::ArgMax || r == IntReduce::ArgMin) return static_cast<std::int64_t>(at);
      return static_cast<std::int64_t>(x[at * stride]);
    }
    case IntReduce::MaxAbs: {
      I best = wrapping_abs<I>(x[0]);
      for (std::size_t k = 1; k < len; ++k) {
        const I v = wrapping_abs<I>(x[k * stride]);
        if (v > best) best = v;
      }
      return static_cast<std::int64_t>(best);
    }
    case IntReduce::Any:
      for (std::size_t k = 0; k < len; ++k) {
        if (x[k * stride] != I{0}) return 1;
      }
      return 0;
    case IntReduce::All:
      for (std::size_t k = 0; k < len; ++k) {
        if (x[k * stride] == I{0}) return 0;
      }
      return 1;
  }
  return 0;
}

// A clamp bound of an int op as an element of I: toward zero and saturated at I's ends (NaN 0),
// Rust's `as` into I, so a bound beyond the dtype clamps nothing there (clamp(u8, 0, 300) is the
// identity), unlike the other scalars, which wrap.
template <class I>
CROSSGRAD_HOST_DEVICE constexpr I int_bound(double bound) {
  return saturating_int<I>(bound);
}

// A scalar argument of an int op as an element of I (Rust's `as` into i64, then modulo 2^width).
template <class I>
CROSSGRAD_HOST_DEVICE constexpr I int_scalar(double scalar) {
  return static_cast<I>(static_cast<IntBits<I>>(static_cast<std::uint64_t>(saturating_int<std::int64_t>(scalar))));
}

}  // namespace crossgrad
