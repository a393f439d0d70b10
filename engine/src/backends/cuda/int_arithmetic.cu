// Cuda backend: the int ops (add, sub, mul, div, remainder with NumPy broadcasting, neg, abs,
// sign, the comparisons, the bitwise ops and shifts, the _scalar and _elem forms, int_cast) and the
// bool ops (not, and, or, xor, equal, not_equal, bool_into_int), through the element-wise
// launchers (map_kernels.cuh) with the element rules every backend shares
// (core/int_arithmetic.hpp, docs/OPS.md "Integer arithmetic"): bit-identical to NdArray.
// int_div and int_remainder read the divisor back to the host and scan it before launching, as
// the index ops validate their indices (Note [Cuda index validation]): the panic must come before
// any division, and a device-side flag would need the same synchronisation.
#include "map_kernels.cuh"

#include <crossgrad/core/int_arithmetic.hpp>

#include <cstdint>
#include <limits>
#include <utility>

namespace crossgrad::backends {

using namespace cuda_detail;  // this backend's internals (cuda_common.cuh, kernels.cuh)
namespace {

struct WrappingAddOp {
  template <class I> __device__ I operator()(I a, I b) const { return wrapping_add<I>(a, b); }
};
struct WrappingSubOp {
  template <class I> __device__ I operator()(I a, I b) const { return wrapping_sub<I>(a, b); }
};
struct WrappingMulOp {
  template <class I> __device__ I operator()(I a, I b) const { return wrapping_mul<I>(a, b); }
};
struct TruncDivOp {
  template <class I> __device__ I operator()(I a, I b) const { return trunc_div<I>(a, b); }
};
struct FloorModOp {
  template <class I> __device__ I operator()(I a, I b) const { return floor_mod<I>(a, b); }
};
struct WrappingNegOp {
  template <class I> __device__ I operator()(I x) const { return wrapping_neg<I>(x); }
};
struct WrappingAbsOp {
  template <class I> __device__ I operator()(I x) const { return wrapping_abs<I>(x); }
};
struct IntSignOp {
  template <class I> __device__ I operator()(I x) const { return signum<I>(x); }
};
struct BitAndOp {
  template <class I> __device__ I operator()(I a, I b) const { return static_cast<I>(a & b); }
};
struct BitOrOp {
  template <class I> __device__ I operator()(I a, I b) const { return static_cast<I>(a | b); }
};
struct BitXorOp {
  template <class I> __device__ I operator()(I a, I b) const { return static_cast<I>(a ^ b); }
};
struct BitNotOp {
  template <class I> __device__ I operator()(I x) const { return static_cast<I>(~x); }
};
struct ShiftLeftOp {
  template <class I> __device__ I operator()(I a, I b) const { return shift_left<I>(a, b); }
};
struct ShiftRightOp {
  template <class I> __device__ I operator()(I a, I b) const { return shift_right<I>(a, b); }
};
struct IntEqualOp {
  template <class I> __device__ bool operator()(I a, I b) const { return a == b; }
};
struct IntNotEqualOp {
  template <class I> __device__ bool operator()(I a, I b) const { return a != b; }
};
struct IntGreaterOp {
  template <class I> __device__ bool operator()(I a, I b) const { return a > b; }
};
struct IntGreaterEqualOp {
  template <class I> __device__ bool operator()(I a, I b) const { return a >= b; }
};
struct IntLowerOp {
  template <class I> __device__ bool operator()(I a, I b) const { return a < b; }
};
struct IntLowerEqualOp {
  template <class I> __device__ bool operator()(I a, I b) const { return a <= b; }
};
template <class I, class Pred>
struct CompareWithScalarOp {
  I scalar;
  __device__ std::uint8_t operator()(I x) const { return Pred{}(x, scalar) ? 1 : 0; }
};
template <class From, class To>
struct IntCastOp {
  __device__ To operator()(From x) const { return static_cast<To>(x); }
};
template <class To>
struct BoolToIntOp {
  __device__ To operator()(std::uint8_t b) const { return b != 0 ? To{1} : To{0}; }
};

template <class I>
struct IntClampOp {
  I lo, hi;
  __device__ I operator()(I x) const { return x < lo ? lo : (x > hi ? hi : x); }
};
struct SquareOp {
  template <class I> __device__ I operator()(I x) const { return wrapping_mul<I>(x, x); }
};
struct PowiOp {
  template <class I> __device__ I operator()(I a, I b) const { return wrapping_pow<I>(a, b); }
};

// op(x, scalar) with the scalar already an element of I.
template <class I, class Op>
struct WithScalarOp {
  I scalar;
  __device__ I operator()(I x) const { return Op{}(x, scalar); }
};
// Bool storage is one byte, 0 or 1.
struct BoolNotOp {
  __device__ std::uint8_t operator()(std::uint8_t x) const { return x == 0 ? 1 : 0; }
};
struct BoolAndOp {
  __device__ std::uint8_t operator()(std::uint8_t a, std::uint8_t b) const { return (a != 0 && b != 0) ? 1 : 0; }
};
struct BoolOrOp {
  __device__ std::uint8_t operator()(std::uint8_t a, std::uint8_t b) const { return (a != 0 || b != 0) ? 1 : 0; }
};
struct BoolXnorOp {
  __device__ std::uint8_t operator()(std::uint8_t a, std::uint8_t b) const { return ((a != 0) == (b != 0)) ? 1 : 0; }
};
struct BoolXorOp {
  __device__ std::uint8_t operator()(std::uint8_t a, std::uint8_t b) const { return ((a != 0) != (b != 0)) ? 1 : 0; }
};

template <class F>
void with_int(DType dtype, F&& f) {
  if (dtype == DType::I64) return f(std::int64_t{});
  if (dtype == DType::I32) return f(std::int32_t{});
  if (dtype == DType::I8) return f(std::int8_t{});
  if (dtype == DType::U8) return f(std::uint8_t{});
  panic(PanicId::Unreachable);
}

template <bool Divides, class Op>
CudaTensor int_binary(const CudaTensor& lhs, const CudaTensor& rhs_in, const char* name, Op op) {
  const Shape out_shape = rules::check_int_binary(lhs.shape, lhs.dtype, rhs_in.shape, rhs_in.dtype, name);
  if constexpr (Divides) {
    if (out_shape.num_elements() != 0) {
      for (const std::int64_t v : Cuda::into_data(rhs_in).to_i64()) {
        if (v == 0) rules::int_division_by_zero(name);
      }
    }
  }
  // Two devices of this backend: the result lives on the left operand's device.
  const CudaTensor rhs = on_device(rhs_in, lhs.dev);
  CudaTensor out = make_tensor(out_shape, lhs.dtype, lhs.dev);
  with_int(lhs.dtype, [&](auto zero) { launch_binary<decltype(zero)>(lhs, rhs, out, op, name); });
  return out;
}

template <class Op>
CudaTensor int_unary(const CudaTensor& tensor, const char* name, Op op) {
  rules::check_int_dtype(tensor.dtype, name);
  CudaTensor out = make_tensor(tensor.shape, tensor.dtype, tensor.dev);
  with_int(tensor.dtype, [&](auto zero) {
    using I = decltype(zero);
    launch_map(data_of<I>(tensor), data_of<I>(out), out.shape.num_elements(), tensor.dev.index, op, name);
  });
  return out;
}

template <class Op>
CudaTensor int_with_scalar(const CudaTensor& tensor, double scalar, const char* name) {
  rules::check_int_dtype(tensor.dtype, name);
  CudaTensor out = make_tensor(tensor.shape, tensor.dtype, tensor.dev);
  with_int(tensor.dtype, [&](auto zero) {
    using I = decltype(zero);
    launch_map(data_of<I>(tensor), data_of<I>(out), out.shape.num_elements(), tensor.dev.index,
               WithScalarOp<I, Op>{int_scalar<I>(scalar)}, name);
  });
  return out;
}

template <class Pred>
CudaTensor int_compare(const CudaTensor& lhs, const CudaTensor& rhs_in, const char* name, Pred pred) {
  const Shape out_shape = rules::check_int_binary(lhs.shape, lhs.dtype, rhs_in.shape, rhs_in.dtype, name);
  const CudaTensor rhs = on_device(rhs_in, lhs.dev);
  CudaTensor out = make_tensor(out_shape, DType::Bool, lhs.dev);
  with_int(lhs.dtype, [&](auto zero) { launch_compare<decltype(zero)>(lhs, rhs, out, pred, name); });
  return out;
}

template <class Pred>
CudaTensor int_compare_scalar(const CudaTensor& tensor, double scalar, const char* name) {
  rules::check_int_dtype(tensor.dtype, name);
  CudaTensor out = make_tensor(tensor.shape, DType::Bool, tensor.dev);
  with_int(tensor.dtype, [&](auto zero) {
    using I = decltype(zero);
    launch_map(data_of<I>(tensor), data_of<std::uint8_t>(out), out.shape.num_elements(), tensor.dev.index,
               CompareWithScalarOp<I, Pred>{int_scalar<I>(scalar)}, name);
  });
  return out;
}

template <class Op>
CudaTensor bool_binary(const CudaTensor& lhs, const CudaTensor& rhs_in, const char* name, Op op) {
  const Shape out_shape = rules::check_bool_binary(lhs.shape, lhs.dtype, rhs_in.shape, rhs_in.dtype, name);
  const CudaTensor rhs = on_device(rhs_in, lhs.dev);
  CudaTensor out = make_tensor(out_shape, DType::Bool, lhs.dev);
  launch_binary<std::uint8_t>(lhs, rhs, out, op, name);
  return out;
}

}  // namespace

CudaTensor Cuda::int_add(const CudaTensor& lhs, const CudaTensor& rhs) { return int_binary<false>(lhs, rhs, "int_add", WrappingAddOp{}); }
CudaTensor Cuda::int_sub(const CudaTensor& lhs, const CudaTensor& rhs) { return int_binary<false>(lhs, rhs, "int_sub", WrappingSubOp{}); }
CudaTensor Cuda::int_mul(const CudaTensor& lhs, const CudaTensor& rhs) { return int_binary<false>(lhs, rhs, "int_mul", WrappingMulOp{}); }
CudaTensor Cuda::int_div(const CudaTensor& lhs, const CudaTensor& rhs) { return int_binary<true>(lhs, rhs, "int_div", TruncDivOp{}); }
CudaTensor Cuda::int_remainder(const CudaTensor& lhs, const CudaTensor& rhs) {
  return int_binary<true>(lhs, rhs, "int_remainder", FloorModOp{});
}

CudaTensor Cuda::int_neg(const CudaTensor& tensor) { return int_unary(tensor, "int_neg", WrappingNegOp{}); }
CudaTensor Cuda::int_abs(const CudaTensor& tensor) { return int_unary(tensor, "int_abs", WrappingAbsOp{}); }
CudaTensor Cuda::int_sign(const CudaTensor& tensor) { return int_unary(tensor, "int_sign", IntSignOp{}); }

CudaTensor Cuda::int_add_scalar(const CudaTensor& tensor, double scalar) {
  return int_with_scalar<WrappingAddOp>(tensor, scalar, "int_add_scalar");
}
CudaTensor Cuda::int_sub_scalar(const CudaTensor& tensor, double scalar) {
  return int_with_scalar<WrappingSubOp>(tensor, scalar, "int_sub_scalar");
}
CudaTensor Cuda::int_mul_scalar(const CudaTensor& tensor, double scalar) {
  return int_with_scalar<WrappingMulOp>(tensor, scalar, "int_mul_scalar");
}
CudaTensor Cuda::int_div_scalar(const CudaTensor& tensor, double scalar) {
  rules::check_int_scalar_divisor(tensor.dtype, scalar, "int_div_scalar");
  return int_with_scalar<TruncDivOp>(tensor, scalar, "int_div_scalar");
}
CudaTensor Cuda::int_remainder_scalar(const CudaTensor& tensor, double scalar) {
  rules::check_int_scalar_divisor(tensor.dtype, scalar, "int_remainder_scalar");
  return int_with_scalar<FloorModOp>(tensor, scalar, "int_remainder_scalar");
}

CudaTensor Cuda::bool_not(const CudaTensor& tensor) {
  rules::check_bool_dtype(tensor.dtype, "bool_not");
  CudaTensor out = make_tensor(tensor.shape, DType::Bool, tensor.dev);
  launch_map(data_of<std::uint8_t>(tensor), data_of<std::uint8_t>(out), out.shape.num_elements(), tensor.dev.index,
             BoolNotOp{}, "bool_not");
  return out;
}
CudaTensor Cuda::bool_and(const CudaTensor& lhs, const CudaTensor& rhs) { return bool_binary(lhs, rhs, "bool_and", BoolAndOp{}); }
CudaTensor Cuda::bool_or(const CudaTensor& lhs, const CudaTensor& rhs) { return bool_binary(lhs, rhs, "bool_or", BoolOrOp{}); }
CudaTensor Cuda::bool_xor(const CudaTensor& lhs, const CudaTensor& rhs) { return bool_binary(lhs, rhs, "bool_xor", BoolXorOp{}); }

#define CROSSGRAD_CUDA_INT_COMPARE(name, Pred)                                                                   \
  CudaTensor Cuda::name(const CudaTensor& lhs, const CudaTensor& rhs) { return int_compare(lhs, rhs, #name, Pred{}); } \
  CudaTensor Cuda::name##_elem(const CudaTensor& tensor, double scalar) {                                         \
    return int_compare_scalar<Pred>(tensor, scalar, #name "_elem");                                              \
  }
CROSSGRAD_CUDA_INT_COMPARE(int_equal, IntEqualOp)
CROSSGRAD_CUDA_INT_COMPARE(int_not_equal, IntNotEqualOp)
CROSSGRAD_CUDA_INT_COMPARE(int_greater, IntGreaterOp)
CROSSGRAD_CUDA_INT_COMPARE(int_greater_equal, IntGreaterEqualOp)
CROSSGRAD_CUDA_INT_COMPARE(int_lower, IntLowerOp)
CROSSGRAD_CUDA_INT_COMPARE(int_lower_equal, IntLowerEqualOp)
#undef CROSSGRAD_CUDA_INT_COMPARE

CudaTensor Cuda::bool_equal(const CudaTensor& lhs, const CudaTensor& rhs) { return bool_binary(lhs, rhs, "bool_equal", BoolXnorOp{}); }
CudaTensor Cuda::bool_not_equal(const CudaTensor& lhs, const CudaTensor& rhs) {
  return bool_binary(lhs, rhs, "bool_not_equal", BoolXorOp{});
}

CudaTensor Cuda::bitwise_and(const CudaTensor& lhs, const CudaTensor& rhs) { return int_binary<false>(lhs, rhs, "bitwise_and", BitAndOp{}); }
CudaTensor Cuda::bitwise_or(const CudaTensor& lhs, const CudaTensor& rhs) { return int_binary<false>(lhs, rhs, "bitwise_or", BitOrOp{}); }
CudaTensor Cuda::bitwise_xor(const CudaTensor& lhs, const CudaTensor& rhs) { return int_binary<false>(lhs, rhs, "bitwise_xor", BitXorOp{}); }
CudaTensor Cuda::bitwise_not(const CudaTensor& tensor) { return int_unary(tensor, "bitwise_not", BitNotOp{}); }
CudaTensor Cuda::bitwise_left_shift(const CudaTensor& lhs, const CudaTensor& rhs) {
  return int_binary<false>(lhs, rhs, "bitwise_left_shift", ShiftLeftOp{});
}
CudaTensor Cuda::bitwise_right_shift(const CudaTensor& lhs, const CudaTensor& rhs) {
  return int_binary<false>(lhs, rhs, "bitwise_right_shift", ShiftRightOp{});
}
CudaTensor Cuda::bitwise_and_scalar(const CudaTensor& tensor, double scalar) {
  return int_with_scalar<BitAndOp>(tensor, scalar, "bitwise_and_scalar");
}
CudaTensor Cuda::bitwise_or_scalar(const CudaTensor& tensor, double scalar) {
  return int_with_scalar<BitOrOp>(tensor, scalar, "bitwise_or_scalar");
}
CudaTensor Cuda::bitwise_xor_scalar(const CudaTensor& tensor, double scalar) {
  return int_with_scalar<BitXorOp>(tensor, scalar, "bitwise_xor_scalar");
}
CudaTensor Cuda::bitwise_left_shift_scalar(const CudaTensor& tensor, double scalar) {
  return int_with_scalar<ShiftLeftOp>(tensor, scalar, "bitwise_left_shift_scalar");
}
CudaTensor Cuda::bitwise_right_shift_scalar(const CudaTensor& tensor, double scalar) {
  return int_with_scalar<ShiftRightOp>(tensor, scalar, "bitwise_right_shift_scalar");
}

CudaTensor Cuda::int_cast(const CudaTensor& tensor, DType dtype) {
  rules::check_int_target(tensor.dtype, dtype, "int_cast");
  CudaTensor out = make_tensor(tensor.shape, dtype, tensor.dev);
  with_int(tensor.dtype, [&](auto from) {
    with_int(dtype, [&](auto to) {
      using I = decltype(from);
      using J = decltype(to);
      launch_map(data_of<I>(tensor), data_of<J>(out), out.shape.num_elements(), tensor.dev.index, IntCastOp<I, J>{}, "int_cast");
    });
  });
  return out;
}
CudaTensor Cuda::bool_into_int(const CudaTensor& tensor, DType dtype) {
  rules::check_int_target(tensor.dtype, dtype, "bool_into_int");
  CudaTensor out = make_tensor(tensor.shape, dtype, tensor.dev);
  with_int(dtype, [&](auto to) {
    using J = decltype(to);
    launch_map(data_of<std::uint8_t>(tensor), data_of<J>(out), out.shape.num_elements(), tensor.dev.index, BoolToIntOp<J>{},
               "bool_into_int");
  });
  return out;
}

// Clamps with the bounds saturated into the dtype (core/int_arithmetic.hpp int_bound); clamp_min
// and clamp_max are the clamp with the dtype's other end.
namespace {
template <class Bounds>
CudaTensor int_clamp_with(const CudaTensor& tensor, const char* name, Bounds bounds) {
  CudaTensor out = make_tensor(tensor.shape, tensor.dtype, tensor.dev);
  with_int(tensor.dtype, [&](auto zero) {
    using I = decltype(zero);
    const auto [lo, hi] = bounds(zero);
    launch_map(data_of<I>(tensor), data_of<I>(out), out.shape.num_elements(), tensor.dev.index, IntClampOp<I>{lo, hi}, name);
  });
  return out;
}
}  // namespace
CudaTensor Cuda::int_clamp(const CudaTensor& tensor, double min, double max) {
  rules::check_int_clamp(tensor.dtype, min, max);
  return int_clamp_with(tensor, "int_clamp", [&](auto zero) {
    using I = decltype(zero);
    return std::pair<I, I>{int_bound<I>(min), int_bound<I>(max)};
  });
}
CudaTensor Cuda::int_clamp_min(const CudaTensor& tensor, double min) {
  rules::check_int_dtype(tensor.dtype, "int_clamp_min");
  return int_clamp_with(tensor, "int_clamp_min", [&](auto zero) {
    using I = decltype(zero);
    return std::pair<I, I>{int_bound<I>(min), std::numeric_limits<I>::max()};
  });
}
CudaTensor Cuda::int_clamp_max(const CudaTensor& tensor, double max) {
  rules::check_int_dtype(tensor.dtype, "int_clamp_max");
  return int_clamp_with(tensor, "int_clamp_max", [&](auto zero) {
    using I = decltype(zero);
    return std::pair<I, I>{std::numeric_limits<I>::lowest(), int_bound<I>(max)};
  });
}
CudaTensor Cuda::int_square(const CudaTensor& tensor) { return int_unary(tensor, "int_square", SquareOp{}); }
CudaTensor Cuda::int_powi(const CudaTensor& lhs, const CudaTensor& rhs) { return int_binary<false>(lhs, rhs, "int_powi", PowiOp{}); }
CudaTensor Cuda::int_powi_scalar(const CudaTensor& tensor, double scalar) {
  return int_with_scalar<PowiOp>(tensor, scalar, "int_powi_scalar");
}

}  // namespace crossgrad::backends
