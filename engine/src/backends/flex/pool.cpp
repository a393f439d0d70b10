// Flex: the 2-D poolings (docs/OPS.md "Module ops"), the host kernels of host_pool.hpp with runs of
// planes ([batch, channels] pairs, independent of each other) on Flex's threads; the arithmetic
// within a plane is NdArray's, so both give the same bits.
#include <algorithm>
#include <crossgrad/backends/flex.hpp>

#include "backends/host_pool.hpp"
#include "common.hpp"
#include "thread_pool.hpp"

namespace crossgrad::backends {
namespace {

// Runs of planes in parallel once a plane's work (its input and output elements) adds up past the
// element-wise grain.
constexpr auto kEachPlane = [](const rules::Pool2dPlan& p, const auto& f) {
  const std::size_t per_plane = p.in_h * p.in_w + p.out_h * p.out_w;
  const std::size_t grain = per_plane == 0 ? p.planes : std::max<std::size_t>(1, flex::kElementwiseGrain / per_plane);
  flex::parallel_range(p.planes, grain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t c = begin; c < end; ++c) f(c * p.in_h * p.in_w, c * p.out_h * p.out_w);
  });
};

}  // namespace

FlexTensor Flex::avg_pool2d(const FlexTensor& x, const AvgPool2dOptions& options) {
  return host_pool::avg_pool2d(x, options, kEachPlane);
}
FlexTensor Flex::avg_pool2d_backward(const FlexTensor& x, const FlexTensor& grad, const AvgPool2dOptions& options) {
  return host_pool::avg_pool2d_backward(x, grad, options, kEachPlane);
}
FlexTensor Flex::adaptive_avg_pool2d(const FlexTensor& x, const Size2& output_size) {
  return host_pool::adaptive_avg_pool2d(x, output_size, kEachPlane);
}
FlexTensor Flex::adaptive_avg_pool2d_backward(const FlexTensor& x, const FlexTensor& grad) {
  return host_pool::adaptive_avg_pool2d_backward(x, grad, kEachPlane);
}
FlexTensor Flex::max_pool2d(const FlexTensor& x, const MaxPool2dOptions& options) {
  return host_pool::max_pool2d(x, options, "max_pool2d", false, kEachPlane);
}
FlexTensor Flex::max_pool2d_indices(const FlexTensor& x, const MaxPool2dOptions& options) {
  return host_pool::max_pool2d(x, options, "max_pool2d_indices", true, kEachPlane);
}
FlexTensor Flex::max_pool2d_with_indices_backward(const FlexTensor& x, const FlexTensor& grad,
                                                  const FlexTensor& indices, const MaxPool2dOptions& options) {
  return host_pool::max_pool2d_with_indices_backward(x, grad, indices, options, kEachPlane);
}

}  // namespace crossgrad::backends
