// Flex indexing ops: cat, slice, select, select_assign / select_add / select_or, gather,
// scatter_add / scatter_or / scatter, scatter_nd, of every kind the registry names. Each views its
// tensors as [outer, dim, inner] (inner: the elements after the dim, contiguous), so the copies
// are whole runs of `inner` elements (memcpy); float_slice is the strided gather of
// Note [Flex strided gather] from the first kept element.
#include "common.hpp"
#include "../composite_ops.hpp"
#include "../kind_members.hpp"
#include "strided_gather.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace crossgrad::backends {
namespace {

// Every index value in 0..size-1, checked before anything is written (gather / scatter_add then
// read the index tensor where it lies): blocks
// of it are tested without a branch (a negative value is a huge unsigned one), and only a block
// that holds a bad value is walked again for the first one, so the panic names the same index as
// NdArray's ordered check.
template <class I>
void check_index_block_values(const I* v, std::size_t count, std::size_t dim, std::size_t size, std::string_view op) {
  constexpr std::size_t kBlock = 4096;
  for (std::size_t begin = 0; begin < count; begin += kBlock) {
    const std::size_t end = std::min(count, begin + kBlock);
    bool bad = false;
    for (std::size_t i = begin; i < end; ++i) {
      bad |= static_cast<std::uint64_t>(static_cast<std::int64_t>(v[i])) >= size;
    }
    if (!bad) continue;
    for (std::size_t i = begin; i < end; ++i) {
      const auto value = static_cast<std::int64_t>(v[i]);
      if (value < 0 || static_cast<std::uint64_t>(value) >= size) rules::index_out_of_range(op, value, dim, size);
    }
  }
}

void check_index_values(const FlexTensor& indices, std::size_t dim, std::size_t size, std::string_view op) {
  const std::size_t n = indices.num_elements();
  if (indices.dtype == DType::I64) check_index_block_values(indices.data<std::int64_t>(), n, dim, size, op);
  else check_index_block_values(indices.data<std::int32_t>(), n, dim, size, op);
}

// select and select_add's 1-D index list, checked as above, as int64.
std::vector<std::int64_t> checked_indices(const FlexTensor& indices, std::size_t dim, std::size_t size,
                                          std::string_view op) {
  check_index_values(indices, dim, size, op);
  const std::size_t k = indices.num_elements();
  std::vector<std::int64_t> out(k);
  if (indices.dtype == DType::I64) std::copy(indices.data<std::int64_t>(), indices.data<std::int64_t>() + k, out.begin());
  else std::copy(indices.data<std::int32_t>(), indices.data<std::int32_t>() + k, out.begin());
  return out;
}

// f(pointer to the checked I64 or I32 index values).
template <class F>
void with_index_type(const FlexTensor& indices, F&& f) {
  if (indices.dtype == DType::I64) f(indices.data<std::int64_t>());
  else f(indices.data<std::int32_t>());
}

FlexTensor cat_elements(const std::vector<FlexTensor>& tensors, std::size_t dim, OpId op) {
  std::vector<Shape> shapes;
  shapes.reserve(tensors.size());
  for (const FlexTensor& t : tensors) shapes.push_back(t.shape);
  Shape shape = rules::cat_shape(shapes, dim, op_info(op).name);
  std::vector<DType> dtypes;
  for (const FlexTensor& t : tensors) dtypes.push_back(t.dtype);
  rules::check_cat_dtypes(dtypes, operand_category(op), op_info(op).name);
  const DType dtype = dtypes.front();
  FlexTensor out = flex::make_tensor(shape, dtype);
  if (out.num_elements() == 0) return out;
  const std::size_t esize = dtype_size(dtype);
  const rules::DimSplit split = rules::split_at_dim(shape, dim);
  // Per piece: its run (elements per outer row) and where that run starts in an output row.
  std::vector<std::size_t> run(tensors.size()), start(tensors.size());
  std::size_t row = 0;
  for (std::size_t p = 0; p < tensors.size(); ++p) {
    start[p] = row;
    run[p] = tensors[p].shape[dim] * split.inner;
    row += run[p];
  }
  auto* dst = out.buffer.data();
  if (split.outer == 1) {  // one run per piece: copy each, large ones split over the pool
    for (std::size_t p = 0; p < tensors.size(); ++p) {
      if (run[p] != 0) flex::parallel_copy(dst + start[p] * esize, tensors[p].buffer.data(), run[p] * esize);
    }
    return out;
  }
  const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / row);
  flex::parallel_range(split.outer, grain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t o = begin; o < end; ++o) {
      for (std::size_t p = 0; p < tensors.size(); ++p) {
        if (run[p] == 0) continue;
        const auto* src = static_cast<const std::byte*>(tensors[p].buffer.data());
        std::memcpy(dst + (o * row + start[p]) * esize, src + o * run[p] * esize, run[p] * esize);
      }
    }
  });
  return out;
}

FlexTensor slice_elements(const FlexTensor& t, const std::vector<Range>& ranges, OpId op) {
  rules::check_kind_dtype(t.dtype, operand_category(op), op_info(op).name);
  const std::vector<Range> full = rules::full_ranges(t.shape, ranges, op_info(op).name);
  FlexTensor out = flex::make_tensor(rules::sliced_shape(full), t.dtype);
  if (out.num_elements() == 0) return out;
  const std::vector<std::size_t> strides = rules::contiguous_strides(t.shape);
  std::size_t offset = 0;
  for (std::size_t d = 0; d < full.size(); ++d) offset += full[d].start * strides[d];
  flex::gather_elements(t, offset, out, strides);
  return out;
}

FlexTensor select_elements(const FlexTensor& t, std::size_t dim, const FlexTensor& indices, OpId id) {
  const std::string_view op = op_info(id).name;
  rules::check_kind_dtype(t.dtype, operand_category(id), op);
  rules::check_select(t.shape, dim, indices.shape, indices.dtype, op);
  const std::vector<std::int64_t> idx = checked_indices(indices, dim, t.shape[dim], op);
  const std::size_t k = idx.size();
  FlexTensor out = flex::make_tensor(rules::selected_shape(t.shape, dim, k), t.dtype);
  if (out.num_elements() == 0) return out;
  const rules::DimSplit split = rules::split_at_dim(t.shape, dim);
  const std::size_t d = t.shape[dim];
  const std::size_t run = split.inner * dtype_size(t.dtype);
  const auto* src = static_cast<const std::byte*>(t.buffer.data());
  auto* dst = out.buffer.data();
  if (split.inner == 1) {
    // Along the last dim a run is one element: a typed load and store each, not a memcpy call.
    flex::with_element_bits(t.dtype, [&](auto zero) {
      using T = decltype(zero);
      const T* x = t.data<T>();
      T* y = out.mutable_data<T>();
      const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / k);
      flex::parallel_range(split.outer, grain, [&](std::size_t begin, std::size_t end) {
        for (std::size_t o = begin; o < end; ++o) {
          const T* row = x + o * d;
          T* to = y + o * k;
          for (std::size_t j = 0; j < k; ++j) to[j] = row[static_cast<std::size_t>(idx[j])];
        }
      });
    });
    return out;
  }
  // One output row (o, j) per task item: a run of `inner` elements from input row (o, idx[j]).
  const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / split.inner);
  flex::parallel_range(split.outer * k, grain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r) {
      const std::size_t o = r / k, j = r % k;
      std::memcpy(dst + r * run, src + (o * d + static_cast<std::size_t>(idx[j])) * run, run);
    }
  });
  return out;
}

}  // namespace

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(Flex, cat, Cat, cat_elements)
CROSSGRAD_KIND_MEMBERS(Flex, slice, Ranges, slice_elements)
CROSSGRAD_KIND_MEMBERS(Flex, select, Select, select_elements)

namespace {

// select_assign and select_add: the same op under Burn's two names, for floats and ints (which
// wrap); bool_select_or ors (add_of_kind).
FlexTensor select_add(const FlexTensor& t, std::size_t dim, const FlexTensor& indices, const FlexTensor& values, OpId id) {
  const std::string_view op = op_info(id).name;
  const DTypeCategory kind = operand_category(id);
  rules::check_kind_dtype(t.dtype, kind, op);
  rules::check_select(t.shape, dim, indices.shape, indices.dtype, op);
  const std::vector<std::int64_t> idx = checked_indices(indices, dim, t.shape[dim], op);
  const std::size_t k = idx.size();
  rules::check_assign_values(rules::selected_shape(t.shape, dim, k), values.shape, t.dtype, values.dtype, op, kind);
  FlexTensor out = flex::make_tensor(t.shape, t.dtype);
  const std::size_t n = t.num_elements();
  if (n == 0) return out;
  flex::parallel_copy(out.buffer.data(), t.buffer.data(), n * dtype_size(t.dtype));
  if (k == 0) return out;
  const rules::DimSplit split = rules::split_at_dim(t.shape, dim);
  const std::size_t d = t.shape[dim], inner = split.inner;
  // Tasks over (outer row, column chunk): each adds values[o, j, chunk] into out[o, idx[j], chunk]
  // for j = 0..k-1 in order, so duplicate indices accumulate in the contract's order and no two
  // tasks touch the same element.
  constexpr std::size_t kChunk = flex::kTuning.reduce_column_chunk;
  const std::size_t chunks = (inner + kChunk - 1) / kChunk;
  const std::size_t per_task = std::max<std::size_t>(k * std::min(inner, kChunk), 1);
  const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / per_task);
  host::with_element_type(t.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* v = values.data<T>();
    T* o_data = out.mutable_data<T>();
    with_update(add_of_kind(kind == DTypeCategory::Bool), [&](auto how) {
      flex::parallel_range(split.outer * chunks, grain, [&](std::size_t begin, std::size_t end) {
        for (std::size_t task = begin; task < end; ++task) {
          const std::size_t o = task / chunks, lo = (task % chunks) * kChunk;
          const std::size_t width = std::min(kChunk, inner - lo);
          for (std::size_t j = 0; j < k; ++j) {
            T* dst = o_data + (o * d + static_cast<std::size_t>(idx[j])) * inner + lo;
            const T* src = v + (o * k + j) * inner + lo;
            for (std::size_t i = 0; i < width; ++i) dst[i] = apply_update(how.value, dst[i], src[i]);
          }
        }
      });
    });
  });
  return out;
}

}  // namespace

CROSSGRAD_KIND_MEMBER(Flex, float_select_assign, SelectAssign, select_add)
CROSSGRAD_KIND_MEMBER(Flex, float_select_add, SelectAssign, select_add)
CROSSGRAD_KIND_MEMBER(Flex, int_select_assign, SelectAssign, select_add)
CROSSGRAD_KIND_MEMBER(Flex, int_select_add, SelectAssign, select_add)
CROSSGRAD_KIND_MEMBER(Flex, bool_select_or, SelectAssign, select_add)

namespace {

FlexTensor gather_elements(const FlexTensor& t, std::size_t dim, const FlexTensor& indices, OpId id) {
  const std::string_view op = op_info(id).name;
  rules::check_kind_dtype(t.dtype, operand_category(id), op);
  rules::check_gather(t.shape, dim, indices.shape, indices.dtype, op);
  check_index_values(indices, dim, t.shape[dim], op);
  FlexTensor out = flex::make_tensor(indices.shape, t.dtype);
  const std::size_t n = out.num_elements();
  if (n == 0) return out;
  const rules::DimSplit split = rules::split_at_dim(indices.shape, dim);
  const std::size_t len = t.shape[dim], k = split.len, inner = split.inner;
  // out[o, j, r] = x[o, idx[o, j, r], r], in flat chunks of the output: each chunk works out its
  // first (o, j, r) once and then steps them, so an element costs one index read and one load.
  flex::with_element_bits(t.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = t.data<T>();
    T* y = out.mutable_data<T>();
    with_index_type(indices, [&](const auto* idx) {
      flex::parallel_range(n, flex::kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
        std::size_t r = begin % inner, j = begin / inner % k, o = begin / inner / k;
        const T* lane = x + o * len * inner;
        for (std::size_t e = begin; e < end; ++e) {
          y[e] = lane[static_cast<std::size_t>(idx[e]) * inner + r];
          if (++r == inner) {
            r = 0;
            if (++j == k) {
              j = 0;
              lane += len * inner;
            }
          }
        }
      });
    });
  });
  return out;
}

}  // namespace

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(Flex, gather, Gather, gather_elements)

namespace {
// scatter_add and scatter: out = t, then each value combined into its target by `update`; floats,
// ints (wrapping) and, for bool_scatter_or, Bool bytes by or.
FlexTensor scatter(const FlexTensor& t, std::size_t dim, const FlexTensor& indices, const FlexTensor& values,
                   IndexingUpdateOp update, OpId id) {
  const std::string_view op = op_info(id).name;
  const DTypeCategory kind = operand_category(id);
  rules::check_kind_dtype(t.dtype, kind, op);
  rules::check_gather(t.shape, dim, indices.shape, indices.dtype, op);
  check_index_values(indices, dim, t.shape[dim], op);
  rules::check_assign_values(indices.shape, values.shape, t.dtype, values.dtype, op, kind);
  FlexTensor out = flex::make_tensor(t.shape, t.dtype);
  const std::size_t n = t.num_elements();
  if (n == 0) return out;
  flex::parallel_copy(out.buffer.data(), t.buffer.data(), n * dtype_size(t.dtype));
  const rules::DimSplit split = rules::split_at_dim(indices.shape, dim);
  const std::size_t d = t.shape[dim], k = split.len, inner = split.inner;
  if (k == 0) return out;
  // Tasks over (outer row, column chunk), as in select_add: j = 0..k-1 in order within a task, so
  // duplicates accumulate in the contract's order, and a lane (o, r) belongs to one task only.
  constexpr std::size_t kChunk = flex::kTuning.reduce_column_chunk;
  const std::size_t chunks = (inner + kChunk - 1) / kChunk;
  const std::size_t per_task = std::max<std::size_t>(k * std::min(inner, kChunk), 1);
  const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / per_task);
  host::with_element_type(t.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* v = values.data<T>();
    T* y = out.mutable_data<T>();
    with_index_type(indices, [&](const auto* idx) {
      with_update(update, [&](auto how) {
        flex::parallel_range(split.outer * chunks, grain, [&](std::size_t begin, std::size_t end) {
          for (std::size_t task = begin; task < end; ++task) {
            const std::size_t o = task / chunks, lo = (task % chunks) * kChunk;
            const std::size_t width = std::min(kChunk, inner - lo);
            T* lane = y + o * d * inner + lo;
            for (std::size_t j = 0; j < k; ++j) {
              const std::size_t row = (o * k + j) * inner + lo;
              const auto* at = idx + row;
              const T* src = v + row;
              for (std::size_t r = 0; r < width; ++r) {
                T& dst = lane[static_cast<std::size_t>(at[r]) * inner + r];
                dst = apply_update(how.value, dst, src[r]);
              }
            }
          }
        });
      });
    });
  });
  return out;
}

FlexTensor scatter_add(const FlexTensor& t, std::size_t dim, const FlexTensor& indices, const FlexTensor& values, OpId id) {
  return scatter(t, dim, indices, values, add_of_kind(operand_category(id) == DTypeCategory::Bool), id);
}
}  // namespace

CROSSGRAD_KIND_MEMBER(Flex, float_scatter_add, Scatter, scatter_add)
CROSSGRAD_KIND_MEMBER(Flex, int_scatter_add, Scatter, scatter_add)
CROSSGRAD_KIND_MEMBER(Flex, bool_scatter_or, Scatter, scatter_add)
CROSSGRAD_KIND_MEMBER(Flex, float_scatter, ScatterUpdate, scatter)
CROSSGRAD_KIND_MEMBER(Flex, int_scatter, ScatterUpdate, scatter)

namespace {
// scatter_nd's rows (Note [Index rows of gather_nd and scatter_nd], the checks shared with every
// backend) updated in place of the composite's per-element index tensor: tasks over column chunks
// of a row, index rows in order within a task, so a row named twice is updated in index order.
FlexTensor scatter_nd(const FlexTensor& t, const FlexTensor& indices, const FlexTensor& values, IndexingUpdateOp update,
                      OpId id) {
  const std::string_view op = op_info(id).name;
  rules::check_kind_dtype(t.dtype, operand_category(id), op);
  const composite::IndexRows plan = composite::index_rows<Flex>(t.shape, indices, op);
  rules::check_assign_values(plan.gathered, values.shape, t.dtype, values.dtype, op, operand_category(id));
  FlexTensor out = flex::make_tensor(t.shape, t.dtype);
  const std::size_t n = t.num_elements();
  if (n == 0) return out;
  flex::parallel_copy(out.buffer.data(), t.buffer.data(), n * dtype_size(t.dtype));
  const std::size_t row = plan.row, rows = plan.at.size();
  if (rows == 0 || row == 0) return out;
  constexpr std::size_t kChunk = flex::kTuning.reduce_column_chunk;
  const std::size_t chunks = (row + kChunk - 1) / kChunk;
  const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / std::max<std::size_t>(rows * std::min(row, kChunk), 1));
  host::with_element_type(t.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* v = values.data<T>();
    T* y = out.mutable_data<T>();
    with_update(update, [&](auto how) {
      flex::parallel_range(chunks, grain, [&](std::size_t begin, std::size_t end) {
        for (std::size_t task = begin; task < end; ++task) {
          const std::size_t lo = task * kChunk, width = std::min(kChunk, row - lo);
          for (std::size_t m = 0; m < rows; ++m) {
            T* dst = y + static_cast<std::size_t>(plan.at[m]) * row + lo;
            const T* src = v + m * row + lo;
            for (std::size_t c = 0; c < width; ++c) dst[c] = apply_update(how.value, dst[c], src[c]);
          }
        }
      });
    });
  });
  return out;
}

}  // namespace

CROSSGRAD_KIND_MEMBER(Flex, float_scatter_nd, ScatterNd, scatter_nd)
CROSSGRAD_KIND_MEMBER(Flex, int_scatter_nd, ScatterNd, scatter_nd)

}  // namespace crossgrad::backends
