// NdArray: the int reductions (sum, prod, mean, max, min over every element or along a dim, argmax,
// argmin, any, all) and bool_any / bool_all: each lane folded in index order by the rule every
// backend shares (core/int_arithmetic.hpp reduce_lane).
#include "common.hpp"

#include <crossgrad/core/int_arithmetic.hpp>

#include <cstdint>

namespace crossgrad::backends {
namespace {

using host::with_int_type;
using ndarray_detail::make_tensor;

// Bool storage is one byte, 0 or 1: folded as U8 (any / all only).
DType storage_int_type(DType dtype) { return dtype == DType::Bool ? DType::U8 : dtype; }

NdArrayTensor int_reduce(const NdArrayTensor& tensor, const std::size_t* dim, IntReduce r, std::string_view name) {
  const Shape out_shape = rules::check_int_reduction(tensor.shape, tensor.dtype, dim, needs_an_element(r), name);
  const DType out_dtype = reduced_dtype(r, tensor.dtype);
  NdArrayTensor out = make_tensor(out_shape, out_dtype);
  const rules::DimSplit s = dim ? rules::split_at_dim(tensor.shape, *dim) : rules::DimSplit{1, tensor.num_elements(), 1};
  with_int_type(storage_int_type(tensor.dtype), [&]<class I>(I) {
    with_int_type(storage_int_type(out_dtype), [&]<class O>(O) {
      const I* x = tensor.data<I>();
      O* o = out.mutable_data<O>();
      for (std::size_t a = 0; a < s.outer; ++a) {
        for (std::size_t b = 0; b < s.inner; ++b) {
          o[a * s.inner + b] = static_cast<O>(reduce_lane<I>(x + a * s.len * s.inner + b, s.len, s.inner, r));
        }
      }
    });
  });
  return out;
}

}  // namespace

#define CROSSGRAD_NDARRAY_REDUCE(name, how)                                                   \
  NdArrayTensor NdArray::name(const NdArrayTensor& tensor) { return int_reduce(tensor, nullptr, IntReduce::how, #name); }
#define CROSSGRAD_NDARRAY_REDUCE_DIM(name, how)                                               \
  NdArrayTensor NdArray::name(const NdArrayTensor& tensor, std::size_t dim) {                  \
    return int_reduce(tensor, &dim, IntReduce::how, #name);                                    \
  }
CROSSGRAD_NDARRAY_REDUCE(int_sum, Sum)
CROSSGRAD_NDARRAY_REDUCE_DIM(int_sum_dim, Sum)
CROSSGRAD_NDARRAY_REDUCE(int_prod, Prod)
CROSSGRAD_NDARRAY_REDUCE_DIM(int_prod_dim, Prod)
CROSSGRAD_NDARRAY_REDUCE(int_mean, Mean)
CROSSGRAD_NDARRAY_REDUCE_DIM(int_mean_dim, Mean)
CROSSGRAD_NDARRAY_REDUCE(int_max, Max)
CROSSGRAD_NDARRAY_REDUCE(int_min, Min)
CROSSGRAD_NDARRAY_REDUCE_DIM(int_max_dim, Max)
CROSSGRAD_NDARRAY_REDUCE_DIM(int_min_dim, Min)
CROSSGRAD_NDARRAY_REDUCE_DIM(int_argmax, ArgMax)
CROSSGRAD_NDARRAY_REDUCE_DIM(int_argmin, ArgMin)
CROSSGRAD_NDARRAY_REDUCE(int_any, Any)
CROSSGRAD_NDARRAY_REDUCE(int_all, All)
CROSSGRAD_NDARRAY_REDUCE(bool_any, Any)
CROSSGRAD_NDARRAY_REDUCE(bool_all, All)
CROSSGRAD_NDARRAY_REDUCE_DIM(int_any_dim, Any)
CROSSGRAD_NDARRAY_REDUCE_DIM(int_all_dim, All)
CROSSGRAD_NDARRAY_REDUCE_DIM(bool_any_dim, Any)
CROSSGRAD_NDARRAY_REDUCE_DIM(bool_all_dim, All)
CROSSGRAD_NDARRAY_REDUCE(int_max_abs, MaxAbs)
CROSSGRAD_NDARRAY_REDUCE_DIM(int_max_abs_dim, MaxAbs)
#undef CROSSGRAD_NDARRAY_REDUCE
#undef CROSSGRAD_NDARRAY_REDUCE_DIM

}  // namespace crossgrad::backends
