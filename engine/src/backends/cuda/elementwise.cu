// Cuda backend: element-wise float ops: binary with NumPy broadcasting, unary, with a scalar,
// the comparison to bool and back. Arithmetic is in the tensor's own dtype, with CUDA's precise
// math (no --use_fast_math): IEEE-rounded + - * / and sqrt, exp/log/tanh/pow within a few ulp.
// Formulas are NdArray's, so special values (NaN, +-inf, -0.0) come out the same.
#include "map_kernels.cuh"

namespace crossgrad::backends {

using namespace cuda_detail;  // this backend's internals (cuda_common.cuh, kernels.cuh)
namespace {

// Precise device math for float and double (overloads pick expf vs exp, ...).
__device__ inline float dexp(float x) { return expf(x); }
__device__ inline double dexp(double x) { return exp(x); }
__device__ inline float dlog(float x) { return logf(x); }
__device__ inline double dlog(double x) { return log(x); }
__device__ inline float dsqrt(float x) { return sqrtf(x); }
__device__ inline double dsqrt(double x) { return sqrt(x); }
__device__ inline float dlog1p(float x) { return log1pf(x); }
__device__ inline double dlog1p(double x) { return log1p(x); }
__device__ inline float dtanh(float x) { return tanhf(x); }
__device__ inline double dtanh(double x) { return tanh(x); }
__device__ inline float dpow(float x, float e) { return powf(x, e); }
__device__ inline double dpow(double x, double e) { return pow(x, e); }

struct AddOp {
  template <class T> __device__ T operator()(T a, T b) const { return a + b; }
};
struct SubOp {
  template <class T> __device__ T operator()(T a, T b) const { return a - b; }
};
struct MulOp {
  template <class T> __device__ T operator()(T a, T b) const { return a * b; }
};
struct DivOp {
  // IEEE division: x/0 is +-inf and 0/0 is NaN.
  template <class T> __device__ T operator()(T a, T b) const { return a / b; }
};

struct NegOp {
  template <class T> __device__ T operator()(T x) const { return -x; }
};
struct ExpOp {
  template <class T> __device__ T operator()(T x) const { return dexp(x); }
};
struct LogOp {
  template <class T> __device__ T operator()(T x) const { return dlog(x); }
};
struct SqrtOp {
  template <class T> __device__ T operator()(T x) const { return dsqrt(x); }
};
struct Log1pOp {
  template <class T> __device__ T operator()(T x) const { return dlog1p(x); }
};
struct TanhOp {
  template <class T> __device__ T operator()(T x) const { return dtanh(x); }
};
struct ReluOp {
  // NaN propagates (x != x), and -0.0 becomes +0.0 like every other non-positive input.
  template <class T> __device__ T operator()(T x) const { return x > T(0) ? x : (x != x ? x : T(0)); }
};
struct SigmoidOp {
  // e / (1 + e) below 0, as the CPU backends, so results down to the subnormal range survive.
  template <class T> __device__ T operator()(T x) const {
    if (x >= T(0)) return T(1) / (T(1) + dexp(-x));
    const T e = dexp(x);
    return e / (T(1) + e);
  }
};

template <class T>
struct PowScalarOp {
  T exponent;
  __device__ T operator()(T x) const { return dpow(x, exponent); }
};
template <class T>
struct AddScalarOp {
  T scalar;
  __device__ T operator()(T x) const { return x + scalar; }
};
template <class T>
struct MulScalarOp {
  T scalar;
  __device__ T operator()(T x) const { return x * scalar; }
};
template <class T>
struct LeakyReluOp {
  T slope;  // rounded to T first
  __device__ T operator()(T x) const { return x > T(0) ? x : x * slope; }
};
template <class T>
struct GreaterScalarOp {
  T scalar;
  // In T, like the other scalar ops; NaN compares false. Bool storage is one byte, 0 or 1.
  __device__ std::uint8_t operator()(T x) const { return x > scalar ? 1 : 0; }
};
template <class T>
struct BoolToFloatOp {
  __device__ T operator()(std::uint8_t b) const { return b != 0 ? T(1) : T(0); }
};

template <class Op>
CudaTensor binary(const CudaTensor& lhs_in, const CudaTensor& rhs_in, const char* name, Op op) {
  // A non-float operand is reported as such before any mismatch between the two (as NdArray).
  rules::check_float_dtype(lhs_in.dtype, name);
  rules::check_float_dtype(rhs_in.dtype, name);
  rules::check_same_dtype(lhs_in.dtype, rhs_in.dtype, name);
  const Shape out_shape = rules::broadcast_shapes(lhs_in.shape, rhs_in.shape, name);
  // Two devices of this backend: the result lives on the left operand's device.
  const CudaTensor rhs = cuda_detail::on_device(rhs_in, lhs_in.dev);
  const CudaTensor& lhs = lhs_in;
  CudaTensor out = make_tensor(out_shape, lhs.dtype, lhs.dev);
  with_float_type(lhs.dtype, [&](auto zero) {
    using T = decltype(zero);
    launch_binary<T>(lhs, rhs, out, op, name);
  });
  return out;
}

// `make_op(T{})` builds the op for element type T.
template <class MakeOp>
CudaTensor unary(const CudaTensor& tensor, const char* name, MakeOp make_op) {
  rules::check_float_dtype(tensor.dtype, name);
  CudaTensor out = make_tensor(tensor.shape, tensor.dtype, tensor.dev);
  with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    launch_map(data_of<T>(tensor), data_of<T>(out), out.shape.num_elements(), tensor.dev.index,
               make_op(zero), name);
  });
  return out;
}

}  // namespace

CudaTensor Cuda::float_add(const CudaTensor& lhs, const CudaTensor& rhs) {
  return binary(lhs, rhs, "float_add", AddOp{});
}
CudaTensor Cuda::float_sub(const CudaTensor& lhs, const CudaTensor& rhs) {
  return binary(lhs, rhs, "float_sub", SubOp{});
}
CudaTensor Cuda::float_mul(const CudaTensor& lhs, const CudaTensor& rhs) {
  return binary(lhs, rhs, "float_mul", MulOp{});
}
CudaTensor Cuda::float_div(const CudaTensor& lhs, const CudaTensor& rhs) {
  return binary(lhs, rhs, "float_div", DivOp{});
}

// Accuracy: CUDA's device functions, whose documented maximum errors are the F32 / F64 entries of
// docs/OPS.md "Accuracy in ulps" (oracle/src/ulp_bounds.cpp): expf 2 / exp 1, logf 1 / log 1,
// log1pf 1 / log1p 1, tanhf 2 / tanh 1, powf 4 / pow 2 ulp; sqrt correctly rounded (nvcc's
// default -prec-sqrt=true).
CudaTensor Cuda::float_neg(const CudaTensor& tensor) {
  return unary(tensor, "float_neg", [](auto) { return NegOp{}; });
}
CudaTensor Cuda::float_exp(const CudaTensor& tensor) {
  return unary(tensor, "float_exp", [](auto) { return ExpOp{}; });
}
CudaTensor Cuda::float_log(const CudaTensor& tensor) {
  return unary(tensor, "float_log", [](auto) { return LogOp{}; });
}
CudaTensor Cuda::float_sqrt(const CudaTensor& tensor) {
  return unary(tensor, "float_sqrt", [](auto) { return SqrtOp{}; });
}
CudaTensor Cuda::float_log1p(const CudaTensor& tensor) {
  return unary(tensor, "float_log1p", [](auto) { return Log1pOp{}; });
}

CudaTensor Cuda::float_tanh(const CudaTensor& tensor) {
  return unary(tensor, "float_tanh", [](auto) { return TanhOp{}; });
}
CudaTensor Cuda::relu(const CudaTensor& tensor) {
  return unary(tensor, "relu", [](auto) { return ReluOp{}; });
}
CudaTensor Cuda::sigmoid(const CudaTensor& tensor) {
  return unary(tensor, "sigmoid", [](auto) { return SigmoidOp{}; });
}

CudaTensor Cuda::float_powf_scalar(const CudaTensor& tensor, double exponent) {
  return unary(tensor, "float_powf_scalar", [exponent](auto zero) {
    using T = decltype(zero);
    return PowScalarOp<T>{static_cast<T>(exponent)};
  });
}
CudaTensor Cuda::float_add_scalar(const CudaTensor& tensor, double scalar) {
  return unary(tensor, "float_add_scalar", [scalar](auto zero) {
    using T = decltype(zero);
    return AddScalarOp<T>{static_cast<T>(scalar)};
  });
}
CudaTensor Cuda::float_mul_scalar(const CudaTensor& tensor, double scalar) {
  return unary(tensor, "float_mul_scalar", [scalar](auto zero) {
    using T = decltype(zero);
    return MulScalarOp<T>{static_cast<T>(scalar)};
  });
}

CudaTensor Cuda::leaky_relu(const CudaTensor& tensor, double negative_slope) {
  return unary(tensor, "leaky_relu", [negative_slope](auto zero) {
    using T = decltype(zero);
    return LeakyReluOp<T>{static_cast<T>(negative_slope)};
  });
}

CudaTensor Cuda::float_greater_scalar(const CudaTensor& tensor, double scalar) {
  rules::check_float_dtype(tensor.dtype, "float_greater_scalar");
  CudaTensor out = make_tensor(tensor.shape, DType::Bool, tensor.dev);
  with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    launch_map(data_of<T>(tensor), data_of<std::uint8_t>(out), out.shape.num_elements(), tensor.dev.index,
               GreaterScalarOp<T>{static_cast<T>(scalar)}, "float_greater_scalar");
  });
  return out;
}

CudaTensor Cuda::bool_into_float(const CudaTensor& tensor, DType dtype) {
  if (tensor.dtype != DType::Bool) {
    panic(PanicId::UnsupportedDtype,
          {{"dtype", std::string(dtype_name(tensor.dtype))}, {"what", "bool_into_float"}});
  }
  rules::check_float_dtype(dtype, "bool_into_float");
  CudaTensor out = make_tensor(tensor.shape, dtype, tensor.dev);
  with_float_type(dtype, [&](auto zero) {
    using T = decltype(zero);
    launch_map(data_of<std::uint8_t>(tensor), data_of<T>(out), out.shape.num_elements(), tensor.dev.index,
               BoolToFloatOp<T>{}, "bool_into_float");
  });
  return out;
}

}  // namespace crossgrad::backends
