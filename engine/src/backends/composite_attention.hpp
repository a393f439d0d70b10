#pragma once
// attention, written once for every backend B (and for Autodiff<B>, whose gradient then flows
// through these ops, as Burn's Autodiff<B> runs attention_fallback over itself): Burn's
// attention_fallback step for step, so each step rounds in the dtype as Burn's does. The checks
// run first under the op's name (rules::plan_attention); an empty result, or rows with no key
// (seq_k = 0), are zeros shaped without a kernel.
//
// Note [A fully masked row attends to nothing]
// A row whose every score is -inf (masked, causal, or a bias of -inf) has no softmax: exp(-inf -
// -inf) is NaN. Burn clamps the row's maximum to the dtype's lowest finite value and the sum of
// its exponentials to the smallest normal, so such a row's weights are 0 and its result a row of
// zeros. Here the sum is held at 1 instead: the same values (a row with a finite maximum has the
// term exp(0) = 1, so its sum is at least 1 already), but the gradient of the division, g / sum,
// stays finite (g / 1.2e-38 overflows F32, and inf * exp(-inf) is NaN), so a fully masked row
// passes zero gradients to the query, key, value and bias. A row of no keys (seq_k = 0) is the
// same case, and gives zeros. A NaN or +inf score is no masking: it makes its row NaN, as the
// formula does.
#include <crossgrad/core/device.hpp>
#include <crossgrad/core/module_rules.hpp>
#include <crossgrad/core/tensor_data.hpp>

#include "composite_norm.hpp"  // zeros_on

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace crossgrad::backends::composite {

// The backend of a mask or index operand: B itself, or for Autodiff<B> (which has an Inner) the
// inner backend, whose untracked primitives its masks are.
template <class Be>
struct MaskBackendOf {
  using type = Be;
};
template <class Be>
  requires requires { typename Be::Inner; }
struct MaskBackendOf<Be> {
  using type = typename Be::Inner;
};

// The causal mask of `plan`'s scores: true where key j lies past query i's diagonal, which ends
// at the bottom-right corner (j > i + seq_k - seq_q: Burn's rule, so a query attends to the keys
// up to its own position when the key sequence is the longer one).
template <class MB>
typename MB::Tensor causal_mask(const rules::AttentionPlan& p, const Device& device) {
  std::vector<bool> cells(p.seq_q * p.seq_k);
  const std::int64_t offset = static_cast<std::int64_t>(p.seq_k) - static_cast<std::int64_t>(p.seq_q);
  for (std::size_t i = 0; i < p.seq_q; ++i) {
    for (std::size_t j = 0; j < p.seq_k; ++j) {
      cells[i * p.seq_k + j] = static_cast<std::int64_t>(j) > static_cast<std::int64_t>(i) + offset;
    }
  }
  const typename MB::Tensor plane = MB::from_data(TensorData::from_bool(std::move(cells), Shape{1, 1, p.seq_q, p.seq_k}), device);
  return MB::bool_expand(plane, p.scores);
}

template <class Be, class Mask>
typename Be::Tensor attention(const typename Be::Tensor& query, const typename Be::Tensor& key,
                              const typename Be::Tensor& value, const std::optional<Mask>& mask,
                              const std::optional<typename Be::Tensor>& bias, const AttentionOptions& options) {
  using MB = typename MaskBackendOf<Be>::type;
  const Shape mask_shape = mask ? MB::shape(*mask) : Shape{};
  const Shape bias_shape = bias ? Be::shape(*bias) : Shape{};
  const DType dtype = Be::dtype(query);
  const rules::AttentionPlan p = rules::plan_attention(
      Be::shape(query), dtype, Be::shape(key), Be::dtype(key), Be::shape(value), Be::dtype(value),
      mask ? &mask_shape : nullptr, mask ? MB::dtype(*mask) : DType::Bool, bias ? &bias_shape : nullptr,
      bias ? Be::dtype(*bias) : dtype, options);
  if (p.out.num_elements() == 0 || p.seq_k == 0) return zeros_on<Be>(p.out, query);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  typename Be::Tensor scores = Be::float_mul_scalar(Be::float_matmul(query, Be::float_transpose(key)), p.scale);
  if (options.softcap) {
    scores = Be::float_mul_scalar(Be::float_tanh(Be::float_div_scalar(scores, *options.softcap)), *options.softcap);
  }
  if (mask) scores = Be::float_mask_fill(scores, *mask, -kInf);
  if (options.is_causal) scores = Be::float_mask_fill(scores, causal_mask<MB>(p, Be::device(query)), -kInf);
  if (bias) scores = Be::float_add(scores, *bias);
  // Note [A fully masked row attends to nothing]
  const bool f32 = dtype == DType::F32;
  const double lowest = f32 ? std::numeric_limits<float>::lowest() : std::numeric_limits<double>::lowest();
  const typename Be::Tensor row_max = Be::float_clamp(Be::float_max_dim(scores, 3), lowest, kInf);
  const typename Be::Tensor numerator = Be::float_exp(Be::float_sub(scores, row_max));
  const typename Be::Tensor row_sum = Be::float_clamp(Be::float_sum_dim(numerator, 3), 1.0, kInf);
  return Be::float_matmul(Be::float_div(numerator, row_sum), value);
}

}  // namespace crossgrad::backends::composite
