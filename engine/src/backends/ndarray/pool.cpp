// NdArray: the 2-D poolings (docs/OPS.md "Module ops"), the host kernels of host_pool.hpp with the
// planes taken in order on the calling thread: the reference Flex is compared with bit for bit.
#include <crossgrad/backends/ndarray.hpp>

#include "backends/host_pool.hpp"

namespace crossgrad::backends {
namespace {

// Every [batch, channels] plane in order.
constexpr auto kEachPlane = [](const rules::Pool2dPlan& p, const auto& f) {
  for (std::size_t c = 0; c < p.planes; ++c) f(c * p.in_h * p.in_w, c * p.out_h * p.out_w);
};

}  // namespace

NdArrayTensor NdArray::avg_pool2d(const NdArrayTensor& x, const AvgPool2dOptions& options) {
  return host_pool::avg_pool2d(x, options, kEachPlane);
}
NdArrayTensor NdArray::avg_pool2d_backward(const NdArrayTensor& x, const NdArrayTensor& grad,
                                           const AvgPool2dOptions& options) {
  return host_pool::avg_pool2d_backward(x, grad, options, kEachPlane);
}
NdArrayTensor NdArray::adaptive_avg_pool2d(const NdArrayTensor& x, const Size2& output_size) {
  return host_pool::adaptive_avg_pool2d(x, output_size, kEachPlane);
}
NdArrayTensor NdArray::adaptive_avg_pool2d_backward(const NdArrayTensor& x, const NdArrayTensor& grad) {
  return host_pool::adaptive_avg_pool2d_backward(x, grad, kEachPlane);
}
NdArrayTensor NdArray::max_pool2d(const NdArrayTensor& x, const MaxPool2dOptions& options) {
  return host_pool::max_pool2d(x, options, "max_pool2d", false, kEachPlane);
}
NdArrayTensor NdArray::max_pool2d_indices(const NdArrayTensor& x, const MaxPool2dOptions& options) {
  return host_pool::max_pool2d(x, options, "max_pool2d_indices", true, kEachPlane);
}
NdArrayTensor NdArray::max_pool2d_with_indices_backward(const NdArrayTensor& x, const NdArrayTensor& grad,
                                                        const NdArrayTensor& indices, const MaxPool2dOptions& options) {
  return host_pool::max_pool2d_with_indices_backward(x, grad, indices, options, kEachPlane);
}

}  // namespace crossgrad::backends
