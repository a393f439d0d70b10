// NdArray: embedding and embedding_backward (docs/OPS.md "Module ops"), the host kernels of
// host_embedding.hpp run in one range on the calling thread: the reference Flex is compared with
// bit for bit.
#include <crossgrad/backends/ndarray.hpp>

#include "backends/host_embedding.hpp"

namespace crossgrad::backends {
namespace {

constexpr auto kAtOnce = [](std::size_t n, std::size_t /*work_per_item*/, const auto& f) { f(std::size_t{0}, n); };

}  // namespace

NdArrayTensor NdArray::embedding(const NdArrayTensor& weights, const NdArrayTensor& indices) {
  return host_embedding::embedding(weights, indices, kAtOnce);
}
NdArrayTensor NdArray::embedding_backward(const NdArrayTensor& weights, const NdArrayTensor& grad,
                                          const NdArrayTensor& indices) {
  return host_embedding::embedding_backward(weights, grad, indices, kAtOnce);
}

}  // namespace crossgrad::backends
