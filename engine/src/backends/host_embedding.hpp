#pragma once
// embedding and embedding_backward on the host backends (NdArray and Flex; docs/OPS.md "Module
// ops"), written once over a tensor type derived from HostTensor and a `split(n, work_per_item, f)`
// that calls f(begin, end) over ranges covering 0..n: NdArray's one range on the calling thread,
// Flex's ranges on its threads. Every index is checked before anything is written. The forward
// pass copies one weight row per position; the backward pass splits the d_model columns, and each
// column adds the positions' gradients in position order (Burn's select_add over the flattened
// indices), so both backends give the same bits whatever the threads. Internal to the engine.
#include <crossgrad/backends/host_common.hpp>
#include <crossgrad/backends/host_tensor.hpp>
#include <crossgrad/core/module_rules.hpp>

#include <algorithm>
#include <cstring>
#include <string_view>

namespace crossgrad::backends::host_embedding {

// Every index checked against the table's rows, in row-major order (the first outside panics), then
// f(indices, count) with the indices as their own type.
template <class Tensor, class F>
void with_rows(const Tensor& indices, std::size_t n_embeddings, std::string_view op, F&& f) {
  host::with_int_type(indices.dtype, [&]<class I>(I) {
    const I* idx = indices.template data<I>();
    const std::size_t count = indices.num_elements();  // a product over the dims: not per element
    for (std::size_t p = 0; p < count; ++p) {
      const long long at = static_cast<long long>(idx[p]);
      if (at < 0 || static_cast<unsigned long long>(at) >= n_embeddings) {
        rules::embedding_index_out_of_range(op, at, n_embeddings);
      }
    }
    f(idx, count);
  });
}

template <class Tensor, class Split>
Tensor embedding(const Tensor& weights, const Tensor& indices, const Split& split) {
  const rules::EmbeddingPlan p = rules::plan_embedding(weights.shape, weights.dtype, indices.shape, indices.dtype);
  Tensor out{HostTensor::empty(p.out, weights.dtype)};
  const std::size_t row_bytes = p.d_model * dtype_size(weights.dtype);
  const auto* w = weights.template data<unsigned char>();
  auto* y = out.template mutable_data<unsigned char>();
  with_rows(indices, p.n_embeddings, "embedding", [&](const auto* idx, std::size_t count) {
    if (row_bytes == 0) return;
    split(count, p.d_model, [&](std::size_t begin, std::size_t end) {
      for (std::size_t q = begin; q < end; ++q) {
        std::memcpy(y + q * row_bytes, w + static_cast<std::size_t>(idx[q]) * row_bytes, row_bytes);
      }
    });
  });
  return out;
}

template <class Tensor, class Split>
Tensor embedding_backward(const Tensor& weights, const Tensor& grad, const Tensor& indices, const Split& split) {
  const rules::EmbeddingPlan p = rules::plan_embedding_backward(weights.shape, weights.dtype, grad.shape, grad.dtype,
                                                                indices.shape, indices.dtype);
  Tensor out{HostTensor::empty(weights.shape, weights.dtype)};
  const std::size_t d = p.d_model;
  host::with_float_type(weights.dtype, [&]<class T>(T) {
    const T* g = grad.template data<T>();
    T* dw = out.template mutable_data<T>();
    with_rows(indices, p.n_embeddings, "embedding_backward", [&](const auto* idx, std::size_t count) {
      // The table's bytes dominate a large backward pass: zeroed in row ranges (on Flex's threads).
      split(p.n_embeddings, d, [&](std::size_t r0, std::size_t r1) { std::fill(dw + r0 * d, dw + r1 * d, T(0)); });
      split(d, count, [&](std::size_t c0, std::size_t c1) {
        for (std::size_t q = 0; q < count; ++q) {
          T* row = dw + static_cast<std::size_t>(idx[q]) * d;
          const T* from = g + q * d;
          for (std::size_t c = c0; c < c1; ++c) row[c] += from[c];
        }
      });
    });
  });
  return out;
}

}  // namespace crossgrad::backends::host_embedding
