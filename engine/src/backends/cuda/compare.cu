// Cuda backend: element-wise comparisons of two float tensors to a Bool tensor (float_greater,
// float_lower, float_equal, float_greater_equal, float_lower_equal, float_not_equal), with NumPy
// broadcasting; of one tensor against a scalar (the _elem forms), and float_is_nan / float_is_inf. In the operands' dtype, IEEE comparisons:
// NaN compares false everywhere (NaN == NaN too) except in not_equal (true), and -0 == +0. Bool storage is one byte, 0 or 1.
#include "map_kernels.cuh"

#include <crossgrad/backends/cuda_kernels/dim_kernels.cuh>

namespace crossgrad::backends {

using namespace cuda_detail;  // this backend's internals (cuda_common.cuh, kernels.cuh)
namespace {

struct GreaterOp {
  template <class T> __device__ bool operator()(T a, T b) const { return a > b; }
};
struct LowerOp {
  template <class T> __device__ bool operator()(T a, T b) const { return a < b; }
};
struct EqualOp {
  template <class T> __device__ bool operator()(T a, T b) const { return a == b; }
};
struct GreaterEqualOp {
  template <class T> __device__ bool operator()(T a, T b) const { return a >= b; }
};
struct LowerEqualOp {
  template <class T> __device__ bool operator()(T a, T b) const { return a <= b; }
};
struct NotEqualOp {
  // The negation of IEEE equality: true wherever an operand is NaN.
  template <class T> __device__ bool operator()(T a, T b) const { return a != b; }
};

// One tensor against a scalar in T (the scalar converted to T first, docs/OPS.md "Scalar
// arguments"), for launch_map: Bool storage is one byte, 0 or 1.
template <class T, class Op>
struct CompareScalarOp {
  T scalar;
  Op op;
  __device__ std::uint8_t operator()(T x) const { return op(x, scalar) ? 1 : 0; }
};
struct IsNanOp {
  template <class T> __device__ std::uint8_t operator()(T x) const { return x != x ? 1 : 0; }
};
struct IsInfOp {
  template <class T> __device__ std::uint8_t operator()(T x) const { return isinf(x) ? 1 : 0; }
};

template <class Op>
CudaTensor compare_scalar(const CudaTensor& tensor, double scalar, const char* name, Op op) {
  rules::check_float_dtype(tensor.dtype, name);
  CudaTensor out = make_tensor(tensor.shape, DType::Bool, tensor.dev);
  with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    launch_map(data_of<T>(tensor), data_of<std::uint8_t>(out), out.shape.num_elements(), tensor.dev.index,
               CompareScalarOp<T, Op>{static_cast<T>(scalar), op}, name);
  });
  return out;
}

template <class Op>
CudaTensor classify(const CudaTensor& tensor, const char* name, Op op) {
  rules::check_float_dtype(tensor.dtype, name);
  CudaTensor out = make_tensor(tensor.shape, DType::Bool, tensor.dev);
  with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    launch_map(data_of<T>(tensor), data_of<std::uint8_t>(out), out.shape.num_elements(), tensor.dev.index, op, name);
  });
  return out;
}

template <class Op>
CudaTensor compare(const CudaTensor& lhs, const CudaTensor& rhs_in, const char* name, Op op) {
  // The same checks, in the same order, as the arithmetic binary ops (elementwise.cu).
  rules::check_float_dtype(lhs.dtype, name);
  rules::check_float_dtype(rhs_in.dtype, name);
  rules::check_same_dtype(lhs.dtype, rhs_in.dtype, name);
  const Shape out_shape = rules::broadcast_shapes(lhs.shape, rhs_in.shape, name);
  // Two devices of this backend: as the arithmetic binary ops, the result lives on the left
  // operand's device and the right one is copied there.
  const CudaTensor rhs = on_device(rhs_in, lhs.dev);
  CudaTensor out = make_tensor(out_shape, DType::Bool, lhs.dev);
  with_float_type(lhs.dtype, [&](auto zero) { launch_compare<decltype(zero)>(lhs, rhs, out, op, name); });
  return out;
}

}  // namespace

CudaTensor Cuda::float_greater(const CudaTensor& lhs, const CudaTensor& rhs) {
  return compare(lhs, rhs, "float_greater", GreaterOp{});
}
CudaTensor Cuda::float_lower(const CudaTensor& lhs, const CudaTensor& rhs) {
  return compare(lhs, rhs, "float_lower", LowerOp{});
}
CudaTensor Cuda::float_equal(const CudaTensor& lhs, const CudaTensor& rhs) {
  return compare(lhs, rhs, "float_equal", EqualOp{});
}
CudaTensor Cuda::float_greater_equal(const CudaTensor& lhs, const CudaTensor& rhs) {
  return compare(lhs, rhs, "float_greater_equal", GreaterEqualOp{});
}
CudaTensor Cuda::float_lower_equal(const CudaTensor& lhs, const CudaTensor& rhs) {
  return compare(lhs, rhs, "float_lower_equal", LowerEqualOp{});
}
CudaTensor Cuda::float_not_equal(const CudaTensor& lhs, const CudaTensor& rhs) {
  return compare(lhs, rhs, "float_not_equal", NotEqualOp{});
}

CudaTensor Cuda::float_greater_equal_elem(const CudaTensor& tensor, double scalar) {
  return compare_scalar(tensor, scalar, "float_greater_equal_elem", GreaterEqualOp{});
}
CudaTensor Cuda::float_lower_elem(const CudaTensor& tensor, double scalar) {
  return compare_scalar(tensor, scalar, "float_lower_elem", LowerOp{});
}
CudaTensor Cuda::float_lower_equal_elem(const CudaTensor& tensor, double scalar) {
  return compare_scalar(tensor, scalar, "float_lower_equal_elem", LowerEqualOp{});
}
CudaTensor Cuda::float_equal_elem(const CudaTensor& tensor, double scalar) {
  return compare_scalar(tensor, scalar, "float_equal_elem", EqualOp{});
}
CudaTensor Cuda::float_not_equal_elem(const CudaTensor& tensor, double scalar) {
  return compare_scalar(tensor, scalar, "float_not_equal_elem", NotEqualOp{});
}

CudaTensor Cuda::float_is_nan(const CudaTensor& tensor) { return classify(tensor, "float_is_nan", IsNanOp{}); }
CudaTensor Cuda::float_is_inf(const CudaTensor& tensor) { return classify(tensor, "float_is_inf", IsInfOp{}); }

}  // namespace crossgrad::backends
