// NdArray: max, argmax, min and argmin along one dim, max_abs along one dim, and max, min and
// max_abs over every element. Each keeps the element chosen by one scan (docs/OPS.md): the first
// NaN if there is one, else the first of the equal maxima (minima) in index order, so -0 vs +0 and
// NaN payloads give defined bits on every backend. max_abs scans |x| with the max scan and keeps
// |x| of the chosen element (so -2 then 2 keeps the first, and either way the value is 2).
#include "common.hpp"

#include <cmath>
#include <cstdint>
#include <string_view>

namespace crossgrad::backends {
namespace {

using ndarray_detail::make_tensor;
using ndarray_detail::with_float_type;

enum class Scan { Max, Min, MaxAbs };

// Index (along the dim) of the element the max (min) scan keeps, over len >= 1 elements at
// x[0], x[step], x[2*step], ...
template <Scan S, class T>
std::size_t scan(const T* x, std::size_t len, std::size_t step) {
  std::size_t best = 0;
  for (std::size_t r = 1; r < len; ++r) {
    const T b = S == Scan::MaxAbs ? std::fabs(x[best * step]) : x[best * step];
    const T v = S == Scan::MaxAbs ? std::fabs(x[r * step]) : x[r * step];
    if (!std::isnan(b) && (std::isnan(v) || (S == Scan::Min ? v < b : v > b))) best = r;
  }
  return best;
}

// Calls keep(out_index, kept_value, kept_index) for every lane along `dim` (the tensor viewed as
// [outer, len, inner]). Callers have checked len >= 1 and that the output is not empty.
template <Scan S, class T, class Keep>
void for_each_lane(const NdArrayTensor& tensor, std::size_t dim, Keep keep) {
  const rules::DimSplit split = rules::split_at_dim(tensor.shape, dim);
  const std::size_t outer = split.outer, len = split.len, inner = split.inner;
  const T* x = tensor.data<T>();
  for (std::size_t i = 0; i < outer; ++i) {
    for (std::size_t j = 0; j < inner; ++j) {
      const T* lane = x + i * len * inner + j;
      const std::size_t best = scan<S>(lane, len, inner);
      keep(i * inner + j, lane[best * inner], best);
    }
  }
}

template <Scan S>
NdArrayTensor scan_dim(const NdArrayTensor& tensor, std::size_t dim, std::string_view op) {
  rules::check_float_dtype(tensor.dtype, op);
  rules::check_nonempty_reduction(tensor.shape, dim, op);
  NdArrayTensor out = make_tensor(rules::reduced_shape(tensor.shape, dim), tensor.dtype);
  // No output element: nothing to scan (and outer * inner could multiply a huge dim by 0).
  if (out.num_elements() == 0) return out;
  with_float_type(tensor.dtype, [&]<class T>(T) {
    T* o = out.mutable_data<T>();
    for_each_lane<S, T>(tensor, dim, [&](std::size_t at, T value, std::size_t) {
      o[at] = S == Scan::MaxAbs ? std::fabs(value) : value;
    });
  });
  return out;
}

// Over every element: the scan of the flat tensor (its one lane), in shape [1] as float_sum's.
template <Scan S>
NdArrayTensor scan_all(const NdArrayTensor& tensor, std::string_view op) {
  rules::check_float_dtype(tensor.dtype, op);
  rules::check_nonempty_full_reduction(tensor.shape, op);
  NdArrayTensor out = make_tensor(Shape{1}, tensor.dtype);
  with_float_type(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    const T kept = x[scan<S>(x, tensor.num_elements(), 1)];
    out.mutable_data<T>()[0] = S == Scan::MaxAbs ? std::fabs(kept) : kept;
  });
  return out;
}

template <Scan S>
NdArrayTensor arg_scan_dim(const NdArrayTensor& tensor, std::size_t dim, std::string_view op) {
  rules::check_float_dtype(tensor.dtype, op);
  rules::check_nonempty_reduction(tensor.shape, dim, op);
  NdArrayTensor out = make_tensor(rules::reduced_shape(tensor.shape, dim), DType::I64);
  if (out.num_elements() == 0) return out;
  with_float_type(tensor.dtype, [&]<class T>(T) {
    std::int64_t* o = out.mutable_data<std::int64_t>();
    for_each_lane<S, T>(tensor, dim, [&](std::size_t at, T, std::size_t best) {
      o[at] = static_cast<std::int64_t>(best);
    });
  });
  return out;
}

}  // namespace

NdArrayTensor NdArray::float_max_dim(const NdArrayTensor& tensor, std::size_t dim) {
  return scan_dim<Scan::Max>(tensor, dim, "float_max_dim");
}
NdArrayTensor NdArray::float_argmax(const NdArrayTensor& tensor, std::size_t dim) {
  return arg_scan_dim<Scan::Max>(tensor, dim, "float_argmax");
}
NdArrayTensor NdArray::float_min_dim(const NdArrayTensor& tensor, std::size_t dim) {
  return scan_dim<Scan::Min>(tensor, dim, "float_min_dim");
}
NdArrayTensor NdArray::float_argmin(const NdArrayTensor& tensor, std::size_t dim) {
  return arg_scan_dim<Scan::Min>(tensor, dim, "float_argmin");
}
NdArrayTensor NdArray::float_max_abs_dim(const NdArrayTensor& tensor, std::size_t dim) {
  return scan_dim<Scan::MaxAbs>(tensor, dim, "float_max_abs_dim");
}
NdArrayTensor NdArray::float_max(const NdArrayTensor& tensor) { return scan_all<Scan::Max>(tensor, "float_max"); }
NdArrayTensor NdArray::float_min(const NdArrayTensor& tensor) { return scan_all<Scan::Min>(tensor, "float_min"); }
NdArrayTensor NdArray::float_max_abs(const NdArrayTensor& tensor) {
  return scan_all<Scan::MaxAbs>(tensor, "float_max_abs");
}

}  // namespace crossgrad::backends
