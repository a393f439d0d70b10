// Cuda backend: element-wise comparisons of two float tensors to a Bool tensor (float_greater,
// float_lower, float_equal), with NumPy broadcasting. In the operands' dtype, IEEE comparisons:
// NaN compares false everywhere (NaN == NaN too) and -0 == +0. Bool storage is one byte, 0 or 1.
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
  const std::size_t n = out_shape.num_elements();
  if (n == 0) return out;
  const Collapsed c = collapse(out_shape.dims(), {rules::broadcast_strides(lhs.shape, out_shape),
                                                  rules::broadcast_strides(rhs.shape, out_shape)});
  const int device = lhs.dev.index;
  with_float_type(lhs.dtype, [&](auto zero) {
    using T = decltype(zero);
    const cudaStream_t stream = activate(device);
    const unsigned blocks = grid_for(n, device);
    // 32-bit index math when the grid-stride loop cannot wrap (offsets never exceed n: inputs
    // are no larger than the output).
    if (n <= (std::size_t{1} << 31)) {
      compare_kernel<T><<<blocks, kThreads, 0, stream>>>(data_of<T>(lhs), data_of<T>(rhs), data_of<std::uint8_t>(out),
                                                         static_cast<std::uint32_t>(n),
                                                         to_strided<std::uint32_t, 2>(c), op);
    } else {
      compare_kernel<T><<<blocks, kThreads, 0, stream>>>(data_of<T>(lhs), data_of<T>(rhs), data_of<std::uint8_t>(out),
                                                         static_cast<std::uint64_t>(n),
                                                         to_strided<std::uint64_t, 2>(c), op);
    }
    check_launch(name);
  });
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

}  // namespace crossgrad::backends
