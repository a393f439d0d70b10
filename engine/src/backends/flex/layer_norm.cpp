// Flex: layer_norm row by row, where Burn's composition (composite_norm.hpp) makes nine passes over
// the whole tensor and allocates eight intermediates: the composition's own steps on one row at a
// time, in the dtype T (the mean and the mean of the squared deviations summed in double by the
// kernel table's sum and rounded to T once, as Flex's mean_dim does), so the result is the
// composition's up to the order of those sums. Rows run in parallel above the elementwise grain.
#include "common.hpp"
#include "kernels.hpp"
#include "thread_pool.hpp"

#include <crossgrad/core/module_rules.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace crossgrad::backends {
namespace {

template <class T>
void layer_norm_rows(const T* x, const T* w, const T* b, T* y, std::size_t rows, std::size_t d, double epsilon) {
  const auto& k = flex::typed_kernels<T>();
  const double eps = static_cast<double>(static_cast<T>(epsilon));
  const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / d);
  flex::parallel_range(rows, grain, [&](std::size_t begin, std::size_t end) {
    std::vector<T> squares(d);
    for (std::size_t r = begin; r < end; ++r) {
      const T* row = x + r * d;
      T* out = y + r * d;
      const T mean = static_cast<T>(k.sum(row, d) / static_cast<double>(d));
      for (std::size_t i = 0; i < d; ++i) out[i] = row[i] - mean;
      for (std::size_t i = 0; i < d; ++i) squares[i] = out[i] * out[i];
      const T var = static_cast<T>(k.sum(squares.data(), d) / static_cast<double>(d));
      const T denom = std::sqrt(var + static_cast<T>(eps));
      if (b != nullptr) {
        for (std::size_t i = 0; i < d; ++i) out[i] = out[i] / denom * w[i] + b[i];
      } else {
        for (std::size_t i = 0; i < d; ++i) out[i] = out[i] / denom * w[i];
      }
    }
  });
}

}  // namespace

FlexTensor Flex::layer_norm(const FlexTensor& tensor, const FlexTensor& weight, const std::optional<FlexTensor>& bias,
                            double epsilon) {
  const Shape bias_shape = bias ? bias->shape : Shape{};
  const rules::LayerNormPlan p = rules::plan_layer_norm(tensor.shape, tensor.dtype, weight.shape, weight.dtype,
                                                        bias ? &bias_shape : nullptr, bias ? bias->dtype : tensor.dtype);
  FlexTensor out = flex::make_tensor(p.out, tensor.dtype);
  if (p.rows == 0) return out;
  flex::with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    layer_norm_rows(tensor.data<T>(), weight.data<T>(), bias ? bias->data<T>() : nullptr, out.mutable_data<T>(), p.rows, p.d_model,
                    epsilon);
  });
  return out;
}

}  // namespace crossgrad::backends
