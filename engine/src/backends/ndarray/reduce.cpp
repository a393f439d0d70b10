// NdArray: sums, means and products, over everything or along one dim; any and all (Bool).
//
// As the reference, every reduction accumulates sequentially in double whatever the dtype and
// rounds once to the tensor's dtype at the end: the most accurate plain loop, so that other
// backends (which may reduce in float, in trees, or in parallel) are judged against a result
// that is as close to the exact one as a simple loop gets. Products multiply in index order from
// 1 (so an empty product is 1); docs/OPS.md states that order, since where an intermediate
// overflows or underflows depends on it.
#include "common.hpp"

#include <cstdint>
#include <optional>

namespace crossgrad::backends {
namespace {

using ndarray_detail::make_tensor;
using ndarray_detail::with_float_type;

// Sum of all elements in shape [1]; `mean` divides by the count (0/0 = NaN for no elements).
NdArrayTensor reduce_all(const NdArrayTensor& tensor, std::string_view name, bool mean) {
  rules::check_float_dtype(tensor.dtype, name);
  NdArrayTensor out = make_tensor(Shape{1}, tensor.dtype);
  with_float_type(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    const std::size_t n = tensor.num_elements();
    double acc = 0.0;
    for (std::size_t i = 0; i < n; ++i) acc += static_cast<double>(x[i]);
    if (mean) acc /= static_cast<double>(n);
    out.mutable_data<T>()[0] = static_cast<T>(acc);
  });
  return out;
}

// Along `dim`, keeping it with size 1. The tensor is viewed as [outer, len, inner]: outer is the
// product of the dims before `dim`, inner of those after it.
NdArrayTensor reduce_dim(const NdArrayTensor& tensor, std::size_t dim, std::string_view name,
                         bool mean) {
  rules::check_float_dtype(tensor.dtype, name);
  rules::check_dim(dim, tensor.shape.rank(), name);
  NdArrayTensor out = make_tensor(rules::reduced_shape(tensor.shape, dim), tensor.dtype);
  // With no output element there is nothing to do, and skipping here also keeps outer * inner
  // below from multiplying a huge dim with a zero one (which Shape allows).
  if (out.num_elements() == 0) return out;
  const rules::DimSplit split = rules::split_at_dim(tensor.shape, dim);
  const std::size_t outer = split.outer, len = split.len, inner = split.inner;
  with_float_type(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    T* o = out.mutable_data<T>();
    for (std::size_t i = 0; i < outer; ++i) {
      for (std::size_t j = 0; j < inner; ++j) {
        double acc = 0.0;
        for (std::size_t r = 0; r < len; ++r) acc += static_cast<double>(x[(i * len + r) * inner + j]);
        if (mean) acc /= static_cast<double>(len);
        o[i * inner + j] = static_cast<T>(acc);
      }
    }
  });
  return out;
}

// The product of all elements in shape [1]; 1 for no elements.
NdArrayTensor prod_all(const NdArrayTensor& tensor) {
  rules::check_float_dtype(tensor.dtype, "float_prod");
  NdArrayTensor out = make_tensor(Shape{1}, tensor.dtype);
  with_float_type(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    const std::size_t n = tensor.num_elements();
    double acc = 1.0;
    for (std::size_t i = 0; i < n; ++i) acc *= static_cast<double>(x[i]);
    out.mutable_data<T>()[0] = static_cast<T>(acc);
  });
  return out;
}

NdArrayTensor prod_dim(const NdArrayTensor& tensor, std::size_t dim) {
  rules::check_float_dtype(tensor.dtype, "float_prod_dim");
  rules::check_dim(dim, tensor.shape.rank(), "float_prod_dim");
  NdArrayTensor out = make_tensor(rules::reduced_shape(tensor.shape, dim), tensor.dtype);
  if (out.num_elements() == 0) return out;
  const rules::DimSplit split = rules::split_at_dim(tensor.shape, dim);
  const std::size_t outer = split.outer, len = split.len, inner = split.inner;
  with_float_type(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    T* o = out.mutable_data<T>();
    for (std::size_t i = 0; i < outer; ++i) {
      for (std::size_t j = 0; j < inner; ++j) {
        double acc = 1.0;
        for (std::size_t r = 0; r < len; ++r) acc *= static_cast<double>(x[(i * len + r) * inner + j]);
        o[i * inner + j] = static_cast<T>(acc);
      }
    }
  });
  return out;
}

// any (`all` false) or all (`all` true) of x != 0 along `dim`, or over every element when `dim` is
// empty (shape [1]). NaN != 0, so NaN counts as true. An empty lane gives all's identity: any of
// nothing is false, all of nothing is true.
NdArrayTensor truth(const NdArrayTensor& tensor, std::optional<std::size_t> dim, bool all, std::string_view name) {
  rules::check_float_dtype(tensor.dtype, name);
  if (dim) rules::check_dim(*dim, tensor.shape.rank(), name);
  NdArrayTensor out = make_tensor(dim ? rules::reduced_shape(tensor.shape, *dim) : Shape{1}, DType::Bool);
  if (out.num_elements() == 0) return out;
  rules::DimSplit split;
  if (dim) split = rules::split_at_dim(tensor.shape, *dim);
  else split.len = tensor.num_elements();
  const std::size_t outer = split.outer, len = split.len, inner = split.inner;
  with_float_type(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    std::uint8_t* o = out.mutable_data<std::uint8_t>();
    for (std::size_t i = 0; i < outer; ++i) {
      for (std::size_t j = 0; j < inner; ++j) {
        bool acc = all;
        for (std::size_t r = 0; r < len && acc == all; ++r) acc = x[(i * len + r) * inner + j] != T(0);
        o[i * inner + j] = acc ? 1 : 0;
      }
    }
  });
  return out;
}

}  // namespace

NdArrayTensor NdArray::float_prod(const NdArrayTensor& tensor) { return prod_all(tensor); }
NdArrayTensor NdArray::float_prod_dim(const NdArrayTensor& tensor, std::size_t dim) { return prod_dim(tensor, dim); }
NdArrayTensor NdArray::float_any(const NdArrayTensor& tensor) { return truth(tensor, std::nullopt, false, "float_any"); }
NdArrayTensor NdArray::float_any_dim(const NdArrayTensor& tensor, std::size_t dim) {
  return truth(tensor, dim, false, "float_any_dim");
}
NdArrayTensor NdArray::float_all(const NdArrayTensor& tensor) { return truth(tensor, std::nullopt, true, "float_all"); }
NdArrayTensor NdArray::float_all_dim(const NdArrayTensor& tensor, std::size_t dim) {
  return truth(tensor, dim, true, "float_all_dim");
}

NdArrayTensor NdArray::float_sum(const NdArrayTensor& tensor) {
  return reduce_all(tensor, "float_sum", false);
}
NdArrayTensor NdArray::float_mean(const NdArrayTensor& tensor) {
  return reduce_all(tensor, "float_mean", true);
}
NdArrayTensor NdArray::float_sum_dim(const NdArrayTensor& tensor, std::size_t dim) {
  return reduce_dim(tensor, dim, "float_sum_dim", false);
}
NdArrayTensor NdArray::float_mean_dim(const NdArrayTensor& tensor, std::size_t dim) {
  return reduce_dim(tensor, dim, "float_mean_dim", true);
}

}  // namespace crossgrad::backends
