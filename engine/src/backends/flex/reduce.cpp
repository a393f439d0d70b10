// Flex reductions. Sums accumulate in double. float_sum/float_mean split the input into fixed
// blocks (independent of the thread count, so results do not depend on it) whose partial sums
// are added in order. float_sum_dim views the tensor as [outer, d, inner]: with inner == 1 each
// output is a contiguous row sum; otherwise whole contiguous inner-rows are accumulated into a
// double row, so memory is read once, in order.
#include "common.hpp"
#include "kernels.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <limits>
#include <vector>

namespace crossgrad::backends {
namespace {

constexpr std::size_t kSumBlock = flex::kTuning.sum_block;

template <class T>
double total(const T* data, std::size_t n) {
  const auto sum = flex::typed_kernels<T>().sum;
  if (n < 2 * kSumBlock) return sum(data, n);  // one block: the kernel's own order
  const std::size_t blocks = (n + kSumBlock - 1) / kSumBlock;
  std::vector<double> partial(blocks);
  flex::parallel_range(blocks, flex::kTuning.sum_block_grain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t b = begin; b < end; ++b) {
      const std::size_t lo = b * kSumBlock;
      partial[b] = sum(data + lo, std::min(kSumBlock, n - lo));
    }
  });
  double acc = 0;
  for (double p : partial) acc += p;
  return acc;
}

FlexTensor full_reduce(const FlexTensor& t, bool mean, std::string_view op) {
  rules::check_float_dtype(t.dtype, op);
  FlexTensor out = flex::make_tensor(Shape{1}, t.dtype);
  const std::size_t n = t.num_elements();
  flex::with_float_type(t.dtype, [&](auto zero) {
    using T = decltype(zero);
    double value = total(t.data<T>(), n);
    if (mean) value = n == 0 ? std::numeric_limits<double>::quiet_NaN() : value / static_cast<double>(n);
    out.mutable_data<T>()[0] = static_cast<T>(value);
  });
  return out;
}

template <class T>
void reduce_dim(const T* in, T* out, std::size_t outer, std::size_t d, std::size_t inner, bool mean) {
  const auto& k = flex::typed_kernels<T>();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto finish = [&](double s) {
    return static_cast<T>(mean ? (d == 0 ? nan : s / static_cast<double>(d)) : s);
  };
  if (d == 0) {  // empty reduced dim: sums are 0, means NaN
    std::fill(out, out + outer * inner, finish(0.0));
    return;
  }
  if (inner == 1) {
    const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / std::max<std::size_t>(d, 1));
    flex::parallel_range(outer, grain, [&](std::size_t begin, std::size_t end) {
      for (std::size_t o = begin; o < end; ++o) out[o] = finish(k.sum(in + o * d, d));
    });
    return;
  }
  // Column chunks of at most kChunk doubles keep the accumulator row in L1/L2.
  constexpr std::size_t kChunk = flex::kTuning.reduce_column_chunk;
  const std::size_t chunks = (inner + kChunk - 1) / kChunk;
  const std::size_t per_task = std::max<std::size_t>(d * std::min(inner, kChunk), 1);
  const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / per_task);
  flex::parallel_range(outer * chunks, grain, [&](std::size_t begin, std::size_t end) {
    std::vector<double> acc(std::min(inner, kChunk));
    for (std::size_t task = begin; task < end; ++task) {
      const std::size_t o = task / chunks, chunk = task % chunks;
      const std::size_t lo = chunk * kChunk, width = std::min(kChunk, inner - lo);
      std::fill(acc.begin(), acc.begin() + static_cast<std::ptrdiff_t>(width), 0.0);
      const T* base = in + o * d * inner + lo;
      for (std::size_t j = 0; j < d; ++j) k.accumulate(base + j * inner, acc.data(), width);
      T* dst = out + o * inner + lo;
      for (std::size_t i = 0; i < width; ++i) dst[i] = finish(acc[i]);
    }
  });
}

FlexTensor dim_reduce(const FlexTensor& t, std::size_t dim, bool mean, std::string_view op) {
  rules::check_float_dtype(t.dtype, op);
  rules::check_dim(dim, t.shape.rank(), op);
  FlexTensor out = flex::make_tensor(rules::reduced_shape(t.shape, dim), t.dtype);
  if (out.num_elements() == 0) return out;
  const rules::DimSplit split = rules::split_at_dim(t.shape, dim);
  const std::size_t outer = split.outer, len = split.len, inner = split.inner;
  flex::with_float_type(t.dtype, [&](auto zero) {
    using T = decltype(zero);
    reduce_dim(t.data<T>(), out.mutable_data<T>(), outer, len, inner, mean);
  });
  return out;
}

}  // namespace

FlexTensor Flex::float_sum(const FlexTensor& t) { return full_reduce(t, false, "float_sum"); }
FlexTensor Flex::float_mean(const FlexTensor& t) { return full_reduce(t, true, "float_mean"); }
FlexTensor Flex::float_sum_dim(const FlexTensor& t, std::size_t dim) {
  return dim_reduce(t, dim, false, "float_sum_dim");
}
FlexTensor Flex::float_mean_dim(const FlexTensor& t, std::size_t dim) {
  return dim_reduce(t, dim, true, "float_mean_dim");
}

}  // namespace crossgrad::backends
