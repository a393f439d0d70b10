// Cuda backend: the int reductions and bool_any / bool_all: one thread per output slice folds it
// by the rule every backend shares (core/int_arithmetic.hpp reduce_lane), so values and indices are
// NdArray's bit for bit. A whole-tensor reduction is one slice, one thread: exact and slow for
// large tensors, as the float max / prod reductions (reduce_max.cu).
#include "map_kernels.cuh"

#include <crossgrad/backends/cuda_kernels/dim_kernels.cuh>
#include <crossgrad/core/int_arithmetic.hpp>

#include <cstdint>

namespace crossgrad::backends {

using namespace cuda_detail;  // this backend's internals (cuda_common.cuh, kernels.cuh)
namespace {

template <class F>
void with_storage_int(DType dtype, F&& f) {
  if (dtype == DType::I64) return f(std::int64_t{});
  if (dtype == DType::I32) return f(std::int32_t{});
  if (dtype == DType::I8) return f(std::int8_t{});
  if (dtype == DType::U8 || dtype == DType::Bool) return f(std::uint8_t{});  // Bool: one byte, 0 or 1
  panic(PanicId::Unreachable);
}

CudaTensor int_reduce(const CudaTensor& tensor, const std::size_t* dim, IntReduce r, const char* name) {
  const Shape out_shape = rules::check_int_reduction(tensor.shape, tensor.dtype, dim, needs_an_element(r), name);
  const DType out_dtype = reduced_dtype(r, tensor.dtype);
  CudaTensor out = make_tensor(out_shape, out_dtype, tensor.dev);
  const rules::DimSplit s =
      dim ? rules::split_at_dim(tensor.shape, *dim) : rules::DimSplit{1, tensor.shape.num_elements(), 1};
  const std::size_t slices = s.outer * s.inner;
  if (slices == 0) return out;
  const int device = tensor.dev.index;
  with_storage_int(tensor.dtype, [&](auto in) {
    with_storage_int(out_dtype, [&](auto to) {
      using I = decltype(in);
      using O = decltype(to);
      int_reduce_kernel<I, O><<<grid_for(slices, device), kThreads, 0, activate(device)>>>(data_of<I>(tensor), data_of<O>(out), slices,
                                                                                         s.len, s.inner, r);
      check_launch(name);
    });
  });
  return out;
}

}  // namespace

#define CROSSGRAD_CUDA_REDUCE(name, how) \
  CudaTensor Cuda::name(const CudaTensor& tensor) { return int_reduce(tensor, nullptr, IntReduce::how, #name); }
#define CROSSGRAD_CUDA_REDUCE_DIM(name, how) \
  CudaTensor Cuda::name(const CudaTensor& tensor, std::size_t dim) { return int_reduce(tensor, &dim, IntReduce::how, #name); }
CROSSGRAD_CUDA_REDUCE(int_sum, Sum)
CROSSGRAD_CUDA_REDUCE_DIM(int_sum_dim, Sum)
CROSSGRAD_CUDA_REDUCE(int_prod, Prod)
CROSSGRAD_CUDA_REDUCE_DIM(int_prod_dim, Prod)
CROSSGRAD_CUDA_REDUCE(int_mean, Mean)
CROSSGRAD_CUDA_REDUCE_DIM(int_mean_dim, Mean)
CROSSGRAD_CUDA_REDUCE(int_max, Max)
CROSSGRAD_CUDA_REDUCE(int_min, Min)
CROSSGRAD_CUDA_REDUCE_DIM(int_max_dim, Max)
CROSSGRAD_CUDA_REDUCE_DIM(int_min_dim, Min)
CROSSGRAD_CUDA_REDUCE_DIM(int_argmax, ArgMax)
CROSSGRAD_CUDA_REDUCE_DIM(int_argmin, ArgMin)
CROSSGRAD_CUDA_REDUCE(int_any, Any)
CROSSGRAD_CUDA_REDUCE(int_all, All)
CROSSGRAD_CUDA_REDUCE(bool_any, Any)
CROSSGRAD_CUDA_REDUCE(bool_all, All)
CROSSGRAD_CUDA_REDUCE_DIM(int_any_dim, Any)
CROSSGRAD_CUDA_REDUCE_DIM(int_all_dim, All)
CROSSGRAD_CUDA_REDUCE_DIM(bool_any_dim, Any)
CROSSGRAD_CUDA_REDUCE_DIM(bool_all_dim, All)
CROSSGRAD_CUDA_REDUCE(int_max_abs, MaxAbs)
CROSSGRAD_CUDA_REDUCE_DIM(int_max_abs_dim, MaxAbs)
#undef CROSSGRAD_CUDA_REDUCE
#undef CROSSGRAD_CUDA_REDUCE_DIM

}  // namespace crossgrad::backends
