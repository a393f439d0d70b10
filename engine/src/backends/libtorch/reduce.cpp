// LibTorch: sums, means and products, max/argmax, min/argmin and max_abs along a dim or over
// everything, any and all, softmax and log_softmax, cumsum, cumprod, cummin and cummax.
#include "plugin.hpp"

#include <optional>

namespace crossgrad::backends {
namespace {

using libtorch::Call;
using libtorch::op_code;

LibTorchTensor reduce_all(OpId op, const LibTorchTensor& tensor) {
  rules::check_float_dtype(tensor.dtype, op_info(op).name);
  return libtorch::run(Call{op_code(op), {&tensor}, {}, {}}, Shape{1}, tensor.dtype);
}

LibTorchTensor reduce_dim(OpId op, const LibTorchTensor& tensor, std::size_t dim) {
  const std::string_view name = op_info(op).name;
  rules::check_float_dtype(tensor.dtype, name);
  rules::check_dim(dim, tensor.shape.rank(), name);
  return libtorch::run(Call{op_code(op), {&tensor}, {}, {static_cast<int64_t>(dim)}},
                       rules::reduced_shape(tensor.shape, dim), tensor.dtype);
}

LibTorchTensor max_scan(OpId op, const LibTorchTensor& tensor, std::size_t dim, DType result) {
  const std::string_view name = op_info(op).name;
  rules::check_float_dtype(tensor.dtype, name);
  rules::check_nonempty_reduction(tensor.shape, dim, name);
  return libtorch::run(Call{op_code(op), {&tensor}, {}, {static_cast<int64_t>(dim)}},
                       rules::reduced_shape(tensor.shape, dim), result);
}

// float_max, float_min, float_max_abs: the whole tensor, shape [1]; an empty one has no result.
LibTorchTensor scan_all(OpId op, const LibTorchTensor& tensor) {
  const std::string_view name = op_info(op).name;
  rules::check_float_dtype(tensor.dtype, name);
  rules::check_nonempty_full_reduction(tensor.shape, name);
  return libtorch::run(Call{op_code(op), {&tensor}, {}, {}}, Shape{1}, tensor.dtype);
}

// float_any / float_all (no dim) and their _dim forms: Bool results.
LibTorchTensor truth(OpId op, const LibTorchTensor& tensor, std::optional<std::size_t> dim) {
  const std::string_view name = op_info(op).name;
  rules::check_float_dtype(tensor.dtype, name);
  if (!dim) return libtorch::run(Call{op_code(op), {&tensor}, {}, {}}, Shape{1}, DType::Bool);
  rules::check_dim(*dim, tensor.shape.rank(), name);
  return libtorch::run(Call{op_code(op), {&tensor}, {}, {static_cast<int64_t>(*dim)}},
                       rules::reduced_shape(tensor.shape, *dim), DType::Bool);
}

// An op along one dim whose result has the tensor's shape (softmax, log_softmax, the float and
// int scans).
LibTorchTensor along_dim(OpId op, const LibTorchTensor& tensor, std::size_t dim) {
  const std::string_view name = op_info(op).name;
  rules::check_kind_dtype(tensor.dtype, operand_category(op), name);
  rules::check_dim(dim, tensor.shape.rank(), name);
  return libtorch::run(Call{op_code(op), {&tensor}, {}, {static_cast<int64_t>(dim)}}, tensor.shape, tensor.dtype);
}

}  // namespace

LibTorchTensor LibTorch::float_sum(const LibTorchTensor& tensor) { return reduce_all(OpId::float_sum, tensor); }
LibTorchTensor LibTorch::float_mean(const LibTorchTensor& tensor) { return reduce_all(OpId::float_mean, tensor); }
LibTorchTensor LibTorch::float_sum_dim(const LibTorchTensor& tensor, std::size_t dim) {
  return reduce_dim(OpId::float_sum_dim, tensor, dim);
}
LibTorchTensor LibTorch::float_mean_dim(const LibTorchTensor& tensor, std::size_t dim) {
  return reduce_dim(OpId::float_mean_dim, tensor, dim);
}
LibTorchTensor LibTorch::float_max_dim(const LibTorchTensor& tensor, std::size_t dim) {
  return max_scan(OpId::float_max_dim, tensor, dim, tensor.dtype);
}
LibTorchTensor LibTorch::float_argmax(const LibTorchTensor& tensor, std::size_t dim) {
  return max_scan(OpId::float_argmax, tensor, dim, DType::I64);
}
LibTorchTensor LibTorch::float_min_dim(const LibTorchTensor& tensor, std::size_t dim) {
  return max_scan(OpId::float_min_dim, tensor, dim, tensor.dtype);
}
LibTorchTensor LibTorch::float_argmin(const LibTorchTensor& tensor, std::size_t dim) {
  return max_scan(OpId::float_argmin, tensor, dim, DType::I64);
}
LibTorchTensor LibTorch::float_cumsum(const LibTorchTensor& tensor, std::size_t dim) {
  return along_dim(OpId::float_cumsum, tensor, dim);
}
LibTorchTensor LibTorch::float_cumprod(const LibTorchTensor& tensor, std::size_t dim) {
  return along_dim(OpId::float_cumprod, tensor, dim);
}
LibTorchTensor LibTorch::float_cummin(const LibTorchTensor& tensor, std::size_t dim) {
  return along_dim(OpId::float_cummin, tensor, dim);
}
LibTorchTensor LibTorch::float_cummax(const LibTorchTensor& tensor, std::size_t dim) {
  return along_dim(OpId::float_cummax, tensor, dim);
}
LibTorchTensor LibTorch::int_cumsum(const LibTorchTensor& tensor, std::size_t dim) {
  return along_dim(OpId::int_cumsum, tensor, dim);
}
LibTorchTensor LibTorch::int_cumprod(const LibTorchTensor& tensor, std::size_t dim) {
  return along_dim(OpId::int_cumprod, tensor, dim);
}
LibTorchTensor LibTorch::int_cummin(const LibTorchTensor& tensor, std::size_t dim) {
  return along_dim(OpId::int_cummin, tensor, dim);
}
LibTorchTensor LibTorch::int_cummax(const LibTorchTensor& tensor, std::size_t dim) {
  return along_dim(OpId::int_cummax, tensor, dim);
}
LibTorchTensor LibTorch::float_prod(const LibTorchTensor& tensor) { return reduce_all(OpId::float_prod, tensor); }
LibTorchTensor LibTorch::float_prod_dim(const LibTorchTensor& tensor, std::size_t dim) {
  return reduce_dim(OpId::float_prod_dim, tensor, dim);
}
LibTorchTensor LibTorch::float_max(const LibTorchTensor& tensor) { return scan_all(OpId::float_max, tensor); }
LibTorchTensor LibTorch::float_min(const LibTorchTensor& tensor) { return scan_all(OpId::float_min, tensor); }
LibTorchTensor LibTorch::float_max_abs(const LibTorchTensor& tensor) { return scan_all(OpId::float_max_abs, tensor); }
LibTorchTensor LibTorch::float_max_abs_dim(const LibTorchTensor& tensor, std::size_t dim) {
  return max_scan(OpId::float_max_abs_dim, tensor, dim, tensor.dtype);
}
LibTorchTensor LibTorch::float_any(const LibTorchTensor& tensor) { return truth(OpId::float_any, tensor, std::nullopt); }
LibTorchTensor LibTorch::float_any_dim(const LibTorchTensor& tensor, std::size_t dim) {
  return truth(OpId::float_any_dim, tensor, dim);
}
LibTorchTensor LibTorch::float_all(const LibTorchTensor& tensor) { return truth(OpId::float_all, tensor, std::nullopt); }
LibTorchTensor LibTorch::float_all_dim(const LibTorchTensor& tensor, std::size_t dim) {
  return truth(OpId::float_all_dim, tensor, dim);
}
LibTorchTensor LibTorch::softmax(const LibTorchTensor& tensor, std::size_t dim) {
  return along_dim(OpId::softmax, tensor, dim);
}
LibTorchTensor LibTorch::log_softmax(const LibTorchTensor& tensor, std::size_t dim) {
  return along_dim(OpId::log_softmax, tensor, dim);
}

}  // namespace crossgrad::backends
