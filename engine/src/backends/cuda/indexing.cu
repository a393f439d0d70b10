// Cuda backend: ops that pick elements by index: slice, permute and expand of every kind (one
// strided gather each, gather_kernel in kernels.cuh), cat (one copy per piece), select, gather,
// select_assign / select_add / select_or and scatter_add / scatter_or / scatter of every kind the
// registry names (dim_kernels.cuh).
// Pure copies and, for the assigns, additions in the spec's j order: bit-identical to NdArray.
//
// Note [Cuda index validation]
// select, select_assign, gather and scatter_add copy the index tensor to the host (Cuda::into_data: it waits for the
// indices' stream; index tensors are small) and check every value there, in order, before any
// output is allocated or written, so the panic names the FIRST bad index exactly as the CPU
// backends do. The checked values then go back to the tensor's device as I64 (whatever the index
// dtype or device was), which also lets select_assign group them by target position on the host.
#include "map_kernels.cuh"
#include "../kind_members.hpp"

#include <crossgrad/backends/cuda_kernels/dim_kernels.cuh>

#include <cstdint>
#include <vector>

namespace crossgrad::backends {

using namespace cuda_detail;  // this backend's internals (cuda_common.cuh, kernels.cuh)
namespace {

// out[i] = in[base + offset(i)], with the input read through `strides` (one per output dim, 0 on
// broadcast dims) as seen from the output's shape. `in` holds `in_elements` elements.
void gather(const CudaTensor& in, CudaTensor& out, std::size_t base, const std::vector<std::size_t>& strides,
            const char* name) {
  const std::size_t n = out.shape.num_elements();
  if (n == 0) return;
  const Collapsed c = collapse(out.shape.dims(), {strides});
  const std::size_t in_elements = in.shape.num_elements();
  const int device = in.dev.index;
  with_element_bits(in.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* src = data_of<T>(in) + base;
    T* dst = data_of<T>(out);
    const cudaStream_t stream = activate(device);
    const unsigned blocks = grid_for(n, device);
    // 32-bit index math when neither the output walk nor an input offset can pass 2^31.
    if (n <= (std::size_t{1} << 31) && in_elements <= (std::size_t{1} << 31)) {
      gather_kernel<T><<<blocks, kThreads, 0, stream>>>(src, dst, static_cast<std::uint32_t>(n),
                                                        to_strided<std::uint32_t, 1>(c));
    } else {
      gather_kernel<T><<<blocks, kThreads, 0, stream>>>(src, dst, static_cast<std::uint64_t>(n),
                                                        to_strided<std::uint64_t, 1>(c));
    }
    check_launch(name);
  });
}

// Host copy of the index tensor (row-major), every value checked against `size` (Note [Cuda index
// validation]); panics index-out-of-range for the first bad one.
std::vector<std::int64_t> checked_indices(const CudaTensor& indices, std::size_t dim, std::size_t size,
                                          const char* name) {
  std::vector<std::int64_t> idx = Cuda::into_data(indices).to_i64();
  for (const std::int64_t v : idx) {
    if (v < 0 || static_cast<std::uint64_t>(v) >= size) {
      rules::index_out_of_range(name, static_cast<long long>(v), dim, size);
    }
  }
  return idx;
}

// A host int64 array copied to `device` (the stream orders it before the kernels that read it).
// As in from_data, a copy from pageable memory is staged before the call returns, so `host` may
// go away afterwards.
std::shared_ptr<CudaBuffer> upload(const std::vector<std::int64_t>& host, int device) {
  const std::size_t bytes = host.size() * sizeof(std::int64_t);
  std::shared_ptr<CudaBuffer> buffer = allocate(device, bytes);
  if (bytes > 0) {
    check(cudaMemcpyAsync(buffer->data(), host.data(), bytes, cudaMemcpyHostToDevice, activate(device)),
          "cudaMemcpyAsync");
  }
  return buffer;
}

CudaTensor slice_elements(const CudaTensor& tensor, const std::vector<Range>& ranges, OpId op) {
  const char* name = op_info(op).name.data();  // op names are string literals: NUL-terminated
  rules::check_kind_dtype(tensor.dtype, operand_category(op), name);
  const std::vector<Range> full = rules::full_ranges(tensor.shape, ranges, name);
  CudaTensor out = make_tensor(rules::sliced_shape(full), tensor.dtype, tensor.dev);
  if (out.shape.num_elements() == 0) return out;
  // The input's own strides, read from the first selected element on.
  const std::vector<std::size_t> strides = rules::contiguous_strides(tensor.shape);
  std::size_t base = 0;
  for (std::size_t d = 0; d < full.size(); ++d) base += full[d].start * strides[d];
  gather(tensor, out, base, strides, name);
  return out;
}

CudaTensor permute_elements(const CudaTensor& tensor, const std::vector<std::size_t>& axes, OpId op) {
  const char* name = op_info(op).name.data();
  rules::check_kind_dtype(tensor.dtype, operand_category(op), name);
  CudaTensor out = make_tensor(rules::permuted_shape(tensor.shape, axes, op_info(op).name), tensor.dtype, tensor.dev);
  // Output dim i walks input dim axes[i].
  const std::vector<std::size_t> in_strides = rules::contiguous_strides(tensor.shape);
  std::vector<std::size_t> strides(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i) strides[i] = in_strides[axes[i]];
  gather(tensor, out, 0, strides, name);
  return out;
}

CudaTensor expand_elements(const CudaTensor& tensor, const Shape& shape, OpId op) {
  const char* name = op_info(op).name.data();
  rules::check_kind_dtype(tensor.dtype, operand_category(op), name);
  rules::check_expand(tensor.shape, shape, op_info(op).name);
  CudaTensor out = make_tensor(shape, tensor.dtype, tensor.dev);
  gather(tensor, out, 0, rules::broadcast_strides(tensor.shape, shape), name);
  return out;
}

CudaTensor cat_elements(const std::vector<CudaTensor>& tensors, std::size_t dim, OpId op) {
  const char* name = op_info(op).name.data();
  std::vector<Shape> shapes;
  shapes.reserve(tensors.size());
  for (const CudaTensor& t : tensors) shapes.push_back(t.shape);
  const Shape out_shape = rules::cat_shape(shapes, dim, name);
  // As the binary ops: every operand of the op's kind first, then all of one dtype.
  std::vector<DType> dtypes;
  for (const CudaTensor& t : tensors) dtypes.push_back(t.dtype);
  rules::check_cat_dtypes(dtypes, operand_category(op), name);
  const Device& device = tensors[0].dev;
  CudaTensor out = make_tensor(out_shape, tensors[0].dtype, device);
  if (out_shape.num_elements() == 0) return out;
  const DimLayout l = dim_layout(out_shape.dims(), dim);
  const std::size_t row = l.len * l.inner;
  with_element_bits(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    std::size_t first_column = 0;  // the piece's start along dim
    for (const CudaTensor& t : tensors) {
      const std::size_t len = t.shape[dim];
      const std::size_t block = len * l.inner;
      const std::size_t n = l.outer * block;
      if (n > 0) {
        // A piece on another device of this backend is copied to the first's device, as the
        // binary ops copy their right operand to the left one's (on_device).
        const CudaTensor piece = on_device(t, device);
        cat_piece_kernel<T><<<grid_for(n, device.index), kThreads, 0, activate(device.index)>>>(
            data_of<T>(piece), data_of<T>(out) + first_column * l.inner, n, block, row);
        check_launch(name);
      }
      first_column += len;
    }
  });
  return out;
}

CudaTensor select_elements(const CudaTensor& tensor, std::size_t dim, const CudaTensor& indices, OpId op) {
  const char* name = op_info(op).name.data();
  rules::check_kind_dtype(tensor.dtype, operand_category(op), name);
  rules::check_select(tensor.shape, dim, indices.shape, indices.dtype, name);
  const std::size_t len = tensor.shape[dim];
  const std::vector<std::int64_t> idx = checked_indices(indices, dim, len, name);
  const std::size_t k = idx.size();
  CudaTensor out = make_tensor(rules::selected_shape(tensor.shape, dim, k), tensor.dtype, tensor.dev);
  const std::size_t n = out.shape.num_elements();
  if (n == 0) return out;
  const DimLayout l = dim_layout(out.shape.dims(), dim);
  const int device = tensor.dev.index;
  const std::shared_ptr<CudaBuffer> idx_dev = upload(idx, device);
  with_element_bits(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    select_kernel<T><<<grid_for(n, device), kThreads, 0, activate(device)>>>(
        data_of<T>(tensor), static_cast<const std::int64_t*>(idx_dev->data()), data_of<T>(out), n, k, len, l.inner);
    check_launch(name);
  });
  // idx_dev returns to the cache here; its next user is ordered after the kernel (one stream).
  return out;
}

}  // namespace

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(Cuda, slice, Ranges, slice_elements)
CROSSGRAD_KIND_MEMBERS(Cuda, permute, Axes, permute_elements)
CROSSGRAD_KIND_MEMBERS(Cuda, expand, ToShape, expand_elements)
CROSSGRAD_KIND_MEMBERS(Cuda, cat, Cat, cat_elements)
CROSSGRAD_KIND_MEMBERS(Cuda, select, Select, select_elements)

namespace {

// select_assign and select_add: the same op under Burn's two names, for floats and ints (which
// wrap); bool_select_or ors (add_of_kind).
CudaTensor select_add(const CudaTensor& tensor, std::size_t dim, const CudaTensor& indices, const CudaTensor& values_in,
                      OpId id) {
  const char* op = op_info(id).name.data();  // op names are string literals: NUL-terminated
  const DTypeCategory kind = operand_category(id);
  // The spec's order: select's checks (dtype, rank, every index value), then the values' shape,
  // then their dtype.
  rules::check_kind_dtype(tensor.dtype, kind, op);
  rules::check_select(tensor.shape, dim, indices.shape, indices.dtype, op);
  const std::size_t len = tensor.shape[dim];
  const std::vector<std::int64_t> idx = checked_indices(indices, dim, len, op);
  const std::size_t k = idx.size();
  rules::check_assign_values(rules::selected_shape(tensor.shape, dim, k), values_in.shape, tensor.dtype,
                             values_in.dtype, op, kind);
  CudaTensor out = make_tensor(tensor.shape, tensor.dtype, tensor.dev);
  const std::size_t n = out.shape.num_elements();
  if (n == 0) return out;
  // The j of each target position, ascending (CSR: first[r] .. first[r + 1] index into js), so
  // that each output element adds its values in the sequential loop's order without atomics.
  std::vector<std::int64_t> first(len + 1, 0);
  for (const std::int64_t v : idx) ++first[static_cast<std::size_t>(v) + 1];
  for (std::size_t r = 0; r < len; ++r) first[r + 1] += first[r];
  std::vector<std::int64_t> js(k);
  {
    std::vector<std::int64_t> next(first.begin(), first.end() - 1);
    for (std::size_t j = 0; j < k; ++j) js[static_cast<std::size_t>(next[static_cast<std::size_t>(idx[j])]++)] =
        static_cast<std::int64_t>(j);
  }
  const DimLayout l = dim_layout(tensor.shape.dims(), dim);
  const int device = tensor.dev.index;
  const CudaTensor values = on_device(values_in, tensor.dev);
  const std::shared_ptr<CudaBuffer> first_dev = upload(first, device);
  const std::shared_ptr<CudaBuffer> js_dev = upload(js, device);
  with_element_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    with_update(add_of_kind(kind == DTypeCategory::Bool), [&](auto how) {
      select_assign_kernel<T, decltype(how)::value><<<grid_for(n, device), kThreads, 0, activate(device)>>>(
          data_of<T>(tensor), data_of<T>(values), static_cast<const std::int64_t*>(first_dev->data()),
          static_cast<const std::int64_t*>(js_dev->data()), data_of<T>(out), n, k, len, l.inner);
    });
    check_launch(op);
  });
  return out;
}

}  // namespace

CROSSGRAD_KIND_MEMBER(Cuda, float_select_assign, SelectAssign, select_add)
CROSSGRAD_KIND_MEMBER(Cuda, float_select_add, SelectAssign, select_add)
CROSSGRAD_KIND_MEMBER(Cuda, int_select_assign, SelectAssign, select_add)
CROSSGRAD_KIND_MEMBER(Cuda, int_select_add, SelectAssign, select_add)
CROSSGRAD_KIND_MEMBER(Cuda, bool_select_or, SelectAssign, select_add)

namespace {

CudaTensor gather_elements(const CudaTensor& tensor, std::size_t dim, const CudaTensor& indices, OpId op) {
  const char* name = op_info(op).name.data();
  rules::check_kind_dtype(tensor.dtype, operand_category(op), name);
  rules::check_gather(tensor.shape, dim, indices.shape, indices.dtype, name);
  const std::size_t len = tensor.shape[dim];
  const std::vector<std::int64_t> idx = checked_indices(indices, dim, len, name);
  CudaTensor out = make_tensor(indices.shape, tensor.dtype, tensor.dev);
  const std::size_t n = out.shape.num_elements();
  if (n == 0) return out;
  const DimLayout l = dim_layout(indices.shape.dims(), dim);
  const int device = tensor.dev.index;
  const std::shared_ptr<CudaBuffer> idx_dev = upload(idx, device);
  with_element_bits(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    gather_dim_kernel<T><<<grid_for(n, device), kThreads, 0, activate(device)>>>(
        data_of<T>(tensor), static_cast<const std::int64_t*>(idx_dev->data()), data_of<T>(out), n, l.len, len, l.inner);
    check_launch(name);
  });
  return out;
}

}  // namespace

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(Cuda, gather, Gather, gather_elements)

namespace {
// scatter_add and scatter: a copy of the tensor, then each value combined into its target by
// `update`; floats, ints (wrapping) and, for bool_scatter_or, Bool bytes by or.
CudaTensor scatter(const CudaTensor& tensor, std::size_t dim, const CudaTensor& indices, const CudaTensor& values_in,
                   IndexingUpdateOp update, OpId id) {
  const char* op = op_info(id).name.data();
  const DTypeCategory kind = operand_category(id);
  rules::check_kind_dtype(tensor.dtype, kind, op);
  rules::check_gather(tensor.shape, dim, indices.shape, indices.dtype, op);
  const std::size_t len = tensor.shape[dim];
  const std::vector<std::int64_t> idx = checked_indices(indices, dim, len, op);
  rules::check_assign_values(indices.shape, values_in.shape, tensor.dtype, values_in.dtype, op, kind);
  CudaTensor out = make_tensor(tensor.shape, tensor.dtype, tensor.dev);
  const std::size_t n = out.shape.num_elements();
  if (n == 0) return out;
  const int device = tensor.dev.index;
  const cudaStream_t stream = activate(device);
  check(cudaMemcpyAsync(out.buffer->data(), tensor.buffer->data(), n * dtype_size(tensor.dtype),
                        cudaMemcpyDeviceToDevice, stream),
        "cudaMemcpyAsync");
  const DimLayout l = dim_layout(indices.shape.dims(), dim);
  if (l.len == 0) return out;
  const std::size_t lanes = l.outer * l.inner;
  const CudaTensor values = on_device(values_in, tensor.dev);
  const std::shared_ptr<CudaBuffer> idx_dev = upload(idx, device);
  with_element_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    with_update(update, [&](auto how) {
      scatter_kernel<T, decltype(how)::value><<<grid_for(lanes, device), kThreads, 0, stream>>>(
          data_of<T>(values), static_cast<const std::int64_t*>(idx_dev->data()), data_of<T>(out), lanes, l.len, len,
          l.inner);
    });
    check_launch(op);
  });
  return out;
}

CudaTensor scatter_add(const CudaTensor& tensor, std::size_t dim, const CudaTensor& indices, const CudaTensor& values, OpId id) {
  return scatter(tensor, dim, indices, values, add_of_kind(operand_category(id) == DTypeCategory::Bool), id);
}
}  // namespace

CROSSGRAD_KIND_MEMBER(Cuda, float_scatter_add, Scatter, scatter_add)
CROSSGRAD_KIND_MEMBER(Cuda, int_scatter_add, Scatter, scatter_add)
CROSSGRAD_KIND_MEMBER(Cuda, bool_scatter_or, Scatter, scatter_add)
CROSSGRAD_KIND_MEMBER(Cuda, float_scatter, ScatterUpdate, scatter)
CROSSGRAD_KIND_MEMBER(Cuda, int_scatter, ScatterUpdate, scatter)

}  // namespace crossgrad::backends
