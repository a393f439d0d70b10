// LibTorch: float_ and int_ argsort, sort, argtopk and topk, each ATen's stable sort
// (aten/ops.cpp): its order is crossgrad's (NaN last ascending, first descending, -0 equal to +0,
// ties in index order), which at::topk does not promise for ties.
#include "plugin.hpp"

namespace crossgrad::backends {
namespace {

using libtorch::Call;
using libtorch::op_code;

LibTorchTensor sorted(OpId op, const LibTorchTensor& tensor, std::size_t dim, bool descending, DType result) {
  rules::check_sort(tensor.shape, tensor.dtype, operand_category(op), dim, op_info(op).name);
  return libtorch::run(Call{op_code(op), {&tensor}, {}, {static_cast<int64_t>(dim), descending ? 1 : 0}},
                       tensor.shape, result);
}

LibTorchTensor top(OpId op, const LibTorchTensor& tensor, std::size_t dim, std::size_t k, DType result) {
  const Shape out = rules::check_topk(tensor.shape, tensor.dtype, operand_category(op), dim, k, op_info(op).name);
  return libtorch::run(Call{op_code(op), {&tensor}, {}, {static_cast<int64_t>(dim), static_cast<int64_t>(k)}}, out,
                       result);
}

}  // namespace

LibTorchTensor LibTorch::float_argsort(const LibTorchTensor& tensor, std::size_t dim, bool descending) {
  return sorted(OpId::float_argsort, tensor, dim, descending, DType::I64);
}
LibTorchTensor LibTorch::float_sort(const LibTorchTensor& tensor, std::size_t dim, bool descending) {
  return sorted(OpId::float_sort, tensor, dim, descending, tensor.dtype);
}
LibTorchTensor LibTorch::float_argtopk(const LibTorchTensor& tensor, std::size_t dim, std::size_t k) {
  return top(OpId::float_argtopk, tensor, dim, k, DType::I64);
}
LibTorchTensor LibTorch::float_topk(const LibTorchTensor& tensor, std::size_t dim, std::size_t k) {
  return top(OpId::float_topk, tensor, dim, k, tensor.dtype);
}
LibTorchTensor LibTorch::int_argsort(const LibTorchTensor& tensor, std::size_t dim, bool descending) {
  return sorted(OpId::int_argsort, tensor, dim, descending, DType::I64);
}
LibTorchTensor LibTorch::int_sort(const LibTorchTensor& tensor, std::size_t dim, bool descending) {
  return sorted(OpId::int_sort, tensor, dim, descending, tensor.dtype);
}
LibTorchTensor LibTorch::int_argtopk(const LibTorchTensor& tensor, std::size_t dim, std::size_t k) {
  return top(OpId::int_argtopk, tensor, dim, k, DType::I64);
}
LibTorchTensor LibTorch::int_topk(const LibTorchTensor& tensor, std::size_t dim, std::size_t k) {
  return top(OpId::int_topk, tensor, dim, k, tensor.dtype);
}

}  // namespace crossgrad::backends
