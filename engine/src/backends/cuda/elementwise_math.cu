// Cuda backend: the element-wise math ops of issue 36, one map_kernel launch each with the
// functors of <crossgrad/backends/cuda_kernels/math_ops.cuh> (also compiled on the CPU by
// cuda_kernel_emulation_test). Semantics: docs/OPS.md, the same formulas as NdArray.
#include "map_kernels.cuh"

#include <crossgrad/backends/cuda_kernels/math_ops.cuh>

namespace crossgrad::backends {

using namespace cuda_detail;  // this backend's internals (cuda_common.cuh, kernels.cuh)
namespace {

template <class Op>
CudaTensor math_map(const CudaTensor& tensor, const char* name, Op op) {
  rules::check_float_dtype(tensor.dtype, name);
  CudaTensor out = make_tensor(tensor.shape, tensor.dtype, tensor.dev);
  with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    launch_map(data_of<T>(tensor), data_of<T>(out), out.shape.num_elements(), tensor.dev.index, op, name);
  });
  return out;
}

}  // namespace

#define CROSSGRAD_X(name, Functor, f32, f64) \
  CudaTensor Cuda::name(const CudaTensor& tensor) { return math_map(tensor, #name, Functor{}); }
CROSSGRAD_CUDA_MATH_OPS(CROSSGRAD_X)
#undef CROSSGRAD_X

// The scalar ops: the scalar converted to the tensor's dtype first (docs/OPS.md "Scalar arguments").
#define CROSSGRAD_X(name, Functor, expr)                                                        \
  CudaTensor Cuda::name(const CudaTensor& tensor, double scalar) {                              \
    rules::check_float_dtype(tensor.dtype, #name);                                              \
    CudaTensor out = make_tensor(tensor.shape, tensor.dtype, tensor.dev);                       \
    with_float_type(tensor.dtype, [&](auto zero) {                                              \
      using T = decltype(zero);                                                                 \
      launch_map(data_of<T>(tensor), data_of<T>(out), out.shape.num_elements(), tensor.dev.index, \
                 Functor<T>{static_cast<T>(scalar)}, #name);                                    \
    });                                                                                         \
    return out;                                                                                 \
  }
CROSSGRAD_CUDA_SCALAR_OPS(CROSSGRAD_X)
#undef CROSSGRAD_X

// The binary ops, with NumPy broadcasting (elementwise.cu's checks, then launch_binary); two devices
// of this backend: the result lives on the left operand's device.
#define CROSSGRAD_X(name, Functor, expr)                                                    \
  CudaTensor Cuda::name(const CudaTensor& lhs, const CudaTensor& rhs_in) {                  \
    rules::check_float_dtype(lhs.dtype, #name);                                             \
    rules::check_float_dtype(rhs_in.dtype, #name);                                          \
    rules::check_same_dtype(lhs.dtype, rhs_in.dtype, #name);                                \
    const Shape out_shape = rules::broadcast_shapes(lhs.shape, rhs_in.shape, #name);        \
    const CudaTensor rhs = cuda_detail::on_device(rhs_in, lhs.dev);                         \
    CudaTensor out = make_tensor(out_shape, lhs.dtype, lhs.dev);                            \
    with_float_type(lhs.dtype, [&](auto zero) {                                             \
      using T = decltype(zero);                                                             \
      launch_binary<T>(lhs, rhs, out, Functor{}, #name);                                    \
    });                                                                                     \
    return out;                                                                             \
  }
CROSSGRAD_CUDA_BINARY_OPS(CROSSGRAD_X)
#undef CROSSGRAD_X

}  // namespace crossgrad::backends
