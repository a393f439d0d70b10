// Flex: batch_norm plane by plane, where Burn's composition (composite_norm.hpp) makes seven passes
// over the whole tensor and allocates six intermediates: the composition's own steps on each
// [batch, channel] plane in the dtype T, ((x - mean) / sqrt(variance + epsilon)) * weight + bias,
// with the channel's sqrt rounded to T once: the composition's operations in its order, each
// rounded to T (no sum is involved, and this file is built without -mfma, so nothing is fused).
// Planes run in parallel above the elementwise grain.
#include "common.hpp"
#include "thread_pool.hpp"

#include <crossgrad/core/module_rules.hpp>

#include <algorithm>
#include <cmath>

namespace crossgrad::backends {
namespace {

template <class T>
void batch_norm_planes(const T* x, const T* w, const T* b, const T* mean, const T* variance, T* y, std::size_t planes,
                       std::size_t channels, std::size_t inner, double epsilon) {
  const T eps = static_cast<T>(epsilon);
  const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / std::max<std::size_t>(inner, 1));
  flex::parallel_range(planes, grain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t p = begin; p < end; ++p) {
      const std::size_t c = p % channels;
      const T m = mean[c], s = std::sqrt(variance[c] + eps), wc = w[c], bc = b[c];
      const T* in = x + p * inner;
      T* out = y + p * inner;
      for (std::size_t i = 0; i < inner; ++i) out[i] = (in[i] - m) / s * wc + bc;
    }
  });
}

}  // namespace

FlexTensor Flex::batch_norm(const FlexTensor& tensor, const FlexTensor& weight, const FlexTensor& bias, const FlexTensor& mean,
                            const FlexTensor& variance, double epsilon) {
  const rules::BatchNormPlan p = rules::plan_batch_norm(tensor.shape, tensor.dtype, weight.shape, weight.dtype, bias.shape,
                                                        bias.dtype, mean.shape, mean.dtype, variance.shape, variance.dtype);
  FlexTensor out = flex::make_tensor(p.out, tensor.dtype);
  const std::size_t elements = p.out.num_elements();
  if (elements == 0) return out;
  const std::size_t planes = p.out[0] * p.channels;
  flex::with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    batch_norm_planes(tensor.data<T>(), weight.data<T>(), bias.data<T>(), mean.data<T>(), variance.data<T>(), out.mutable_data<T>(),
                      planes, p.channels, elements / planes, epsilon);
  });
  return out;
}

}  // namespace crossgrad::backends
