// Flex: embedding and embedding_backward (docs/OPS.md "Module ops"), the host kernels of
// host_embedding.hpp with their ranges (positions forward, columns backward) on Flex's threads; each
// column's additions are NdArray's, in NdArray's order, so both give the same bits.
#include <algorithm>
#include <crossgrad/backends/flex.hpp>

#include "backends/host_embedding.hpp"
#include "common.hpp"
#include "thread_pool.hpp"

namespace crossgrad::backends {
namespace {

// Ranges in parallel once an item's work adds up past the element-wise grain.
constexpr auto kOnThreads = [](std::size_t n, std::size_t work_per_item, const auto& f) {
  const std::size_t grain = work_per_item == 0 ? std::max<std::size_t>(1, n)
                                                 : std::max<std::size_t>(1, flex::kElementwiseGrain / work_per_item);
  flex::parallel_range(n, grain, [&](std::size_t begin, std::size_t end) { f(begin, end); });
};

}  // namespace

FlexTensor Flex::embedding(const FlexTensor& weights, const FlexTensor& indices) {
  return host_embedding::embedding(weights, indices, kOnThreads);
}
FlexTensor Flex::embedding_backward(const FlexTensor& weights, const FlexTensor& grad, const FlexTensor& indices) {
  return host_embedding::embedding_backward(weights, grad, indices, kOnThreads);
}

}  // namespace crossgrad::backends
