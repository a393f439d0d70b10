// NdArray: softmax and log_softmax along one dim, in the tensor's dtype (docs/OPS.md):
// m = the max scan of float_max_dim (NaN if any element is NaN), e_i = exp(x_i - m),
// s = sum of e_i in index order, softmax y_i = e_i / s, log_softmax y_i = (x_i - m) - log(s).
#include "common.hpp"

#include <cmath>

namespace crossgrad::backends {
namespace {

using ndarray_detail::make_tensor;
using ndarray_detail::with_float_type;

NdArrayTensor softmax_along(const NdArrayTensor& tensor, std::size_t dim, std::string_view name,
                            bool log) {
  rules::check_float_dtype(tensor.dtype, name);
  rules::check_dim(dim, tensor.shape.rank(), name);
  NdArrayTensor out = make_tensor(tensor.shape, tensor.dtype);
  // A 0 dim anywhere (the softmax dim included) leaves nothing to compute, and no panic.
  if (out.num_elements() == 0) return out;
  const rules::DimSplit split = rules::split_at_dim(tensor.shape, dim);
  const std::size_t outer = split.outer, len = split.len, inner = split.inner;
  with_float_type(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    T* o = out.mutable_data<T>();
    for (std::size_t i = 0; i < outer; ++i) {
      for (std::size_t j = 0; j < inner; ++j) {
        const std::size_t base = i * len * inner + j;
        // The max scan: the first NaN if any, else the maximum (-inf when all are -inf).
        T m = x[base];
        for (std::size_t r = 1; r < len; ++r) {
          const T v = x[base + r * inner];
          if (!std::isnan(m) && (std::isnan(v) || v > m)) m = v;
        }
        T s = T(0);
        for (std::size_t r = 0; r < len; ++r) s += std::exp(x[base + r * inner] - m);
        for (std::size_t r = 0; r < len; ++r) {
          const T shifted = x[base + r * inner] - m;
          o[base + r * inner] = log ? shifted - std::log(s) : std::exp(shifted) / s;
        }
      }
    }
  });
  return out;
}

}  // namespace

NdArrayTensor NdArray::softmax(const NdArrayTensor& tensor, std::size_t dim) {
  return softmax_along(tensor, dim, "softmax", false);
}
NdArrayTensor NdArray::log_softmax(const NdArrayTensor& tensor, std::size_t dim) {
  return softmax_along(tensor, dim, "log_softmax", true);
}

}  // namespace crossgrad::backends
