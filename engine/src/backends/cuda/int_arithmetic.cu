// Cuda backend: the int ops (add, sub, mul, div, remainder with NumPy broadcasting, neg, abs,
// sign, the _scalar forms) and the bool ops (not, and, or, xor), through the element-wise
// launchers (map_kernels.cuh) with the element rules every backend shares
// (core/int_arithmetic.hpp, docs/OPS.md "Integer arithmetic"): bit-identical to NdArray.
// int_div and int_remainder read the divisor back to the host and scan it before launching, as
// the index ops validate their indices (Note [Cuda index validation]): the panic must come before
// any division, and a device-side flag would need the same synchronisation.
#include "map_kernels.cuh"

#include <crossgrad/core/int_arithmetic.hpp>

#include <cstdint>

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

}  // namespace crossgrad::backends
