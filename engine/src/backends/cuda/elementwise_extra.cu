// Cuda backend: the element-wise maps added with the op registry's second batch: float_abs,
// float_clamp and int_into_float. Pure selections and conversions: bit-identical to NdArray.
#include "map_kernels.cuh"

#include <crossgrad/core/int_conversion.hpp>

#include <string>

namespace crossgrad::backends {

using namespace cuda_detail;  // this backend's internals (cuda_common.cuh, kernels.cuh)
namespace {

__device__ inline float dabs(float x) { return fabsf(x); }
__device__ inline double dabs(double x) { return fabs(x); }

struct AbsOp {
  // Clears the sign bit: -0 -> +0, -inf -> +inf, NaN stays NaN (std::fabs).
  template <class T> __device__ T operator()(T x) const { return dabs(x); }
};

template <class T>
struct ClampOp {
  T min;
  T max;
  // The spec's formula: NaN fails both comparisons and passes through.
  __device__ T operator()(T x) const { return x < min ? min : (x > max ? max : x); }
};

template <class From, class To>
struct IntToFloatOp {
  // Round to nearest (I64 values above 2^24 / 2^53 round, as static_cast on the CPU).
  __device__ To operator()(From x) const { return static_cast<To>(x); }
};

// Rust's `as` (core/int_conversion.hpp): toward zero, NaN to 0, saturating.
template <class From, class To>
struct FloatToIntOp {
  __device__ To operator()(From x) const { return saturating_int<To>(x); }
};

template <class MakeOp>
CudaTensor float_map(const CudaTensor& tensor, const char* name, MakeOp make_op) {
  CudaTensor out = make_tensor(tensor.shape, tensor.dtype, tensor.dev);
  with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    launch_map(data_of<T>(tensor), data_of<T>(out), out.shape.num_elements(), tensor.dev.index, make_op(zero),
               name);
  });
  return out;
}

}  // namespace

CudaTensor Cuda::float_abs(const CudaTensor& tensor) {
  rules::check_float_dtype(tensor.dtype, "float_abs");
  return float_map(tensor, "float_abs", [](auto) { return AbsOp{}; });
}

CudaTensor Cuda::float_clamp(const CudaTensor& tensor, double min, double max) {
  rules::check_clamp(tensor.dtype, min, max);
  return float_map(tensor, "float_clamp", [min, max](auto zero) {
    using T = decltype(zero);
    return ClampOp<T>{static_cast<T>(min), static_cast<T>(max)};
  });
}

CudaTensor Cuda::int_into_float(const CudaTensor& tensor, DType dtype) {
  // Every int dtype from_data stores (I64, I32, I8, U8); anything else is refused as
  // bool_into_float refuses a non-bool tensor.
  if (!is_int(tensor.dtype)) {
    panic(PanicId::UnsupportedDtype,
          {{"dtype", std::string(dtype_name(tensor.dtype))}, {"what", "int_into_float"}});
  }
  rules::check_float_dtype(dtype, "int_into_float");
  CudaTensor out = make_tensor(tensor.shape, dtype, tensor.dev);
  const std::size_t n = out.shape.num_elements();
  const int device = tensor.dev.index;
  with_float_type(dtype, [&](auto zero) {
    using T = decltype(zero);
    auto convert = [&](auto from) {
      using I = decltype(from);
      launch_map(data_of<I>(tensor), data_of<T>(out), n, device, IntToFloatOp<I, T>{}, "int_into_float");
    };
    switch (tensor.dtype) {
      case DType::I64: convert(std::int64_t{}); break;
      case DType::I32: convert(std::int32_t{}); break;
      case DType::I8: convert(std::int8_t{}); break;
      default: convert(std::uint8_t{}); break;  // U8, the last int dtype (is_int above)
    }
  });
  return out;
}

CudaTensor Cuda::float_into_int(const CudaTensor& tensor, DType dtype) {
  rules::check_into_int(tensor.dtype, dtype);
  CudaTensor out = make_tensor(tensor.shape, dtype, tensor.dev);
  const std::size_t n = out.shape.num_elements();
  const int device = tensor.dev.index;
  with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    auto convert = [&](auto to) {
      using I = decltype(to);
      launch_map(data_of<T>(tensor), data_of<I>(out), n, device, FloatToIntOp<T, I>{}, "float_into_int");
    };
    // check_into_int has refused every other target.
    if (dtype == DType::I64) convert(std::int64_t{});
    else if (dtype == DType::I32) convert(std::int32_t{});
    else if (dtype == DType::I8) convert(std::int8_t{});
    else convert(std::uint8_t{});
  });
  return out;
}

}  // namespace crossgrad::backends
