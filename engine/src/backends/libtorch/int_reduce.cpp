// LibTorch: the int reductions and bool_any / bool_all. The contract's checks run here (the shared
// rules, NdArray's order); the plugin (aten/ops.cpp) reduces with ATen into the result dtype.
#include "plugin.hpp"

#include <crossgrad/core/int_arithmetic.hpp>

namespace crossgrad::backends {
namespace {

using libtorch::Call;
using libtorch::op_code;

LibTorchTensor int_reduce(OpId op, const LibTorchTensor& tensor, const std::size_t* dim, IntReduce r) {
  Shape out = rules::check_int_reduction(tensor.shape, tensor.dtype, dim, needs_an_element(r), op_info(op).name);
  std::vector<int64_t> ints;
  if (dim) ints.push_back(static_cast<int64_t>(*dim));
  return libtorch::run(Call{op_code(op), {&tensor}, {}, std::move(ints)}, std::move(out), reduced_dtype(r, tensor.dtype));
}

}  // namespace

#define CROSSGRAD_LIBTORCH_REDUCE(name, how) \
  LibTorchTensor LibTorch::name(const LibTorchTensor& tensor) { return int_reduce(OpId::name, tensor, nullptr, IntReduce::how); }
#define CROSSGRAD_LIBTORCH_REDUCE_DIM(name, how)                              \
  LibTorchTensor LibTorch::name(const LibTorchTensor& tensor, std::size_t dim) { \
    return int_reduce(OpId::name, tensor, &dim, IntReduce::how);                \
  }
CROSSGRAD_LIBTORCH_REDUCE(int_sum, Sum)
CROSSGRAD_LIBTORCH_REDUCE_DIM(int_sum_dim, Sum)
CROSSGRAD_LIBTORCH_REDUCE(int_prod, Prod)
CROSSGRAD_LIBTORCH_REDUCE_DIM(int_prod_dim, Prod)
CROSSGRAD_LIBTORCH_REDUCE(int_mean, Mean)
CROSSGRAD_LIBTORCH_REDUCE_DIM(int_mean_dim, Mean)
CROSSGRAD_LIBTORCH_REDUCE(int_max, Max)
CROSSGRAD_LIBTORCH_REDUCE(int_min, Min)
CROSSGRAD_LIBTORCH_REDUCE_DIM(int_max_dim, Max)
CROSSGRAD_LIBTORCH_REDUCE_DIM(int_min_dim, Min)
CROSSGRAD_LIBTORCH_REDUCE_DIM(int_argmax, ArgMax)
CROSSGRAD_LIBTORCH_REDUCE_DIM(int_argmin, ArgMin)
CROSSGRAD_LIBTORCH_REDUCE(int_any, Any)
CROSSGRAD_LIBTORCH_REDUCE(int_all, All)
CROSSGRAD_LIBTORCH_REDUCE(bool_any, Any)
CROSSGRAD_LIBTORCH_REDUCE(bool_all, All)
CROSSGRAD_LIBTORCH_REDUCE_DIM(int_any_dim, Any)
CROSSGRAD_LIBTORCH_REDUCE_DIM(int_all_dim, All)
CROSSGRAD_LIBTORCH_REDUCE_DIM(bool_any_dim, Any)
CROSSGRAD_LIBTORCH_REDUCE_DIM(bool_all_dim, All)
CROSSGRAD_LIBTORCH_REDUCE(int_max_abs, MaxAbs)
CROSSGRAD_LIBTORCH_REDUCE_DIM(int_max_abs_dim, MaxAbs)
#undef CROSSGRAD_LIBTORCH_REDUCE
#undef CROSSGRAD_LIBTORCH_REDUCE_DIM

}  // namespace crossgrad::backends
