// LibTorch: embedding and embedding_backward, ATen's own (aten/ops.cpp), after the shared
// rules::plan_* checks. The indices are read on the host first, so that a bad one panics as on the
// other backends (ATen would raise its own error, or read past the table on some builds).
#include "plugin.hpp"

#include <crossgrad/core/module_rules.hpp>

namespace crossgrad::backends {
namespace {

using libtorch::Call;
using libtorch::op_code;

}  // namespace

LibTorchTensor LibTorch::embedding(const LibTorchTensor& weights, const LibTorchTensor& indices) {
  const rules::EmbeddingPlan p = rules::plan_embedding(weights.shape, weights.dtype, indices.shape, indices.dtype);
  rules::check_embedding_indices(libtorch::to_host(indices).to_i64(), p.n_embeddings, "embedding");
  return libtorch::run(Call{op_code(OpId::embedding), {&weights, &indices}, {}, {}}, p.out, weights.dtype);
}

LibTorchTensor LibTorch::embedding_backward(const LibTorchTensor& weights, const LibTorchTensor& grad,
                                            const LibTorchTensor& indices) {
  const rules::EmbeddingPlan p = rules::plan_embedding_backward(weights.shape, weights.dtype, grad.shape, grad.dtype,
                                                                indices.shape, indices.dtype);
  rules::check_embedding_indices(libtorch::to_host(indices).to_i64(), p.n_embeddings, "embedding_backward");
  return libtorch::run(Call{op_code(OpId::embedding_backward), {&weights, &grad, &indices}, {}, {}}, weights.shape,
                       weights.dtype);
}

}  // namespace crossgrad::backends
