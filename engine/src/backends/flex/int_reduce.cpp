// Flex: the int reductions and bool_any / bool_all, with the lane rule every backend shares
// (core/int_arithmetic.hpp reduce_lane). Along a dim the lanes are split over the pool. Over every
// element the wrapped sum and product, the extremes and any / all are associative, so blocks are
// folded in parallel and their partial results folded again (same value as one pass); the mean
// divides the whole sum once.
#include "common.hpp"
#include "thread_pool.hpp"

#include <crossgrad/core/int_arithmetic.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace crossgrad::backends {
namespace {

using flex::make_tensor;
using flex::parallel_range;
using host::with_int_type;

DType storage_int_type(DType dtype) { return dtype == DType::Bool ? DType::U8 : dtype; }

// The fold of the partial results of blocks (the same IntReduce: Mean sums, ArgMax / ArgMin never
// reach here).
IntReduce combining(IntReduce r) { return r == IntReduce::Mean ? IntReduce::Sum : r; }

template <class I>
std::int64_t reduce_all(const I* x, std::size_t n, IntReduce r) {
  constexpr std::size_t kBlock = 1 << 16;
  if (n <= kBlock) return reduce_lane<I>(x, n, 1, r);
  const std::size_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<I> partial(blocks);
  parallel_range(blocks, 1, [&](std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      const std::size_t from = k * kBlock, len = std::min(kBlock, n - from);
      partial[k] = static_cast<I>(reduce_lane<I>(x + from, len, 1, combining(r)));
    }
  });
  const std::int64_t folded = reduce_lane<I>(partial.data(), blocks, 1, combining(r));
  if (r != IntReduce::Mean) return folded;
  return static_cast<std::int64_t>(static_cast<I>(folded)) / static_cast<std::int64_t>(n);
}

FlexTensor int_reduce(const FlexTensor& tensor, const std::size_t* dim, IntReduce r, std::string_view name) {
  const Shape out_shape = rules::check_int_reduction(tensor.shape, tensor.dtype, dim, needs_an_element(r), name);
  const DType out_dtype = reduced_dtype(r, tensor.dtype);
  FlexTensor out = make_tensor(out_shape, out_dtype);
  with_int_type(storage_int_type(tensor.dtype), [&]<class I>(I) {
    with_int_type(storage_int_type(out_dtype), [&]<class O>(O) {
      const I* x = tensor.data<I>();
      O* o = out.mutable_data<O>();
      if (dim == nullptr) {
        o[0] = static_cast<O>(reduce_all<I>(x, tensor.num_elements(), r));
        return;
      }
      const rules::DimSplit s = rules::split_at_dim(tensor.shape, *dim);
      const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / std::max<std::size_t>(1, s.len));
      parallel_range(s.outer * s.inner, grain, [&](std::size_t begin, std::size_t end) {
        for (std::size_t lane = begin; lane < end; ++lane) {
          const std::size_t a = lane / s.inner, b = lane % s.inner;
          o[lane] = static_cast<O>(reduce_lane<I>(x + a * s.len * s.inner + b, s.len, s.inner, r));
        }
      });
    });
  });
  return out;
}

}  // namespace

#define CROSSGRAD_FLEX_REDUCE(name, how) \
  FlexTensor Flex::name(const FlexTensor& tensor) { return int_reduce(tensor, nullptr, IntReduce::how, #name); }
#define CROSSGRAD_FLEX_REDUCE_DIM(name, how) \
  FlexTensor Flex::name(const FlexTensor& tensor, std::size_t dim) { return int_reduce(tensor, &dim, IntReduce::how, #name); }
CROSSGRAD_FLEX_REDUCE(int_sum, Sum)
CROSSGRAD_FLEX_REDUCE_DIM(int_sum_dim, Sum)
CROSSGRAD_FLEX_REDUCE(int_prod, Prod)
CROSSGRAD_FLEX_REDUCE_DIM(int_prod_dim, Prod)
CROSSGRAD_FLEX_REDUCE(int_mean, Mean)
CROSSGRAD_FLEX_REDUCE_DIM(int_mean_dim, Mean)
CROSSGRAD_FLEX_REDUCE(int_max, Max)
CROSSGRAD_FLEX_REDUCE(int_min, Min)
CROSSGRAD_FLEX_REDUCE_DIM(int_max_dim, Max)
CROSSGRAD_FLEX_REDUCE_DIM(int_min_dim, Min)
CROSSGRAD_FLEX_REDUCE_DIM(int_argmax, ArgMax)
CROSSGRAD_FLEX_REDUCE_DIM(int_argmin, ArgMin)
CROSSGRAD_FLEX_REDUCE(int_any, Any)
CROSSGRAD_FLEX_REDUCE(int_all, All)
CROSSGRAD_FLEX_REDUCE(bool_any, Any)
CROSSGRAD_FLEX_REDUCE(bool_all, All)
CROSSGRAD_FLEX_REDUCE_DIM(int_any_dim, Any)
CROSSGRAD_FLEX_REDUCE_DIM(int_all_dim, All)
CROSSGRAD_FLEX_REDUCE_DIM(bool_any_dim, Any)
CROSSGRAD_FLEX_REDUCE_DIM(bool_all_dim, All)
CROSSGRAD_FLEX_REDUCE(int_max_abs, MaxAbs)
CROSSGRAD_FLEX_REDUCE_DIM(int_max_abs_dim, MaxAbs)
#undef CROSSGRAD_FLEX_REDUCE
#undef CROSSGRAD_FLEX_REDUCE_DIM

}  // namespace crossgrad::backends
