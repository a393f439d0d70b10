// NdArray: cumsum, cumprod, cummin and cummax along one dim, in the tensor's dtype (docs/OPS.md):
// y_0 = x_0 and y_r = step(y_{r-1}, x_r) in index order, so every rounding step is fixed and the
// other backends can match these bits by keeping the same order along each lane.
#include "common.hpp"

#include <string_view>

namespace crossgrad::backends {
namespace {

using ndarray_detail::make_tensor;
using ndarray_detail::with_float_type;

template <class Step>
NdArrayTensor scan_along(const NdArrayTensor& tensor, std::size_t dim, std::string_view op, Step step) {
  rules::check_float_dtype(tensor.dtype, op);
  rules::check_dim(dim, tensor.shape.rank(), op);
  NdArrayTensor out = make_tensor(tensor.shape, tensor.dtype);
  if (out.num_elements() == 0) return out;
  const rules::DimSplit split = rules::split_at_dim(tensor.shape, dim);
  const std::size_t outer = split.outer, len = split.len, inner = split.inner;
  with_float_type(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    T* o = out.mutable_data<T>();
    for (std::size_t i = 0; i < outer; ++i) {
      for (std::size_t j = 0; j < inner; ++j) {
        const std::size_t base = i * len * inner + j;
        T acc = x[base];
        o[base] = acc;
        for (std::size_t r = 1; r < len; ++r) {
          acc = step(acc, x[base + r * inner]);
          o[base + r * inner] = acc;
        }
      }
    }
  });
  return out;
}

}  // namespace

NdArrayTensor NdArray::float_cumsum(const NdArrayTensor& tensor, std::size_t dim) {
  return scan_along(tensor, dim, "float_cumsum", [](auto acc, auto v) { return acc + v; });
}
NdArrayTensor NdArray::float_cumprod(const NdArrayTensor& tensor, std::size_t dim) {
  return scan_along(tensor, dim, "float_cumprod", [](auto acc, auto v) { return acc * v; });
}

// The running extreme takes x_r on a tie (so the sign of a zero and the gradient's position are
// the later element's) and on a NaN; once the extreme is NaN no number replaces it.
NdArrayTensor NdArray::float_cummin(const NdArrayTensor& tensor, std::size_t dim) {
  return scan_along(tensor, dim, "float_cummin", [](auto acc, auto v) { return v <= acc || v != v ? v : acc; });
}
NdArrayTensor NdArray::float_cummax(const NdArrayTensor& tensor, std::size_t dim) {
  return scan_along(tensor, dim, "float_cummax", [](auto acc, auto v) { return v >= acc || v != v ? v : acc; });
}

}  // namespace crossgrad::backends
