// Flex float_greater / float_lower / float_equal / float_greater_equal / float_lower_equal /
// float_not_equal: NumPy-broadcast comparisons to a Bool tensor
// (one byte, 0 or 1, like float_greater_scalar). Same shapes: one flat loop split over the pool.
// Otherwise the output is walked by rows (broadcast_rows.hpp).
// The scalar (_elem) forms and float_is_nan / float_is_inf: one flat loop split over the pool.
#include "broadcast_rows.hpp"
#include "common.hpp"
#include "thread_pool.hpp"

#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

namespace crossgrad::backends {
namespace {

enum class Compare { Greater, Lower, Equal, GreaterEqual, LowerEqual, NotEqual };

template <Compare C, class T>
inline std::uint8_t compare_one(T a, T b) {
  // IEEE comparisons: false whenever an operand is NaN (true for NotEqual); -0 == +0.
  if constexpr (C == Compare::Greater) return a > b ? 1 : 0;
  else if constexpr (C == Compare::Lower) return a < b ? 1 : 0;
  else if constexpr (C == Compare::GreaterEqual) return a >= b ? 1 : 0;
  else if constexpr (C == Compare::LowerEqual) return a <= b ? 1 : 0;
  else if constexpr (C == Compare::NotEqual) return a != b ? 1 : 0;
  else return a == b ? 1 : 0;
}

template <Compare C, class T>
void compare_row(const T* a, std::size_t as, const T* b, std::size_t bs, std::uint8_t* o, std::size_t n) {
  if (as == 1 && bs == 1) {
    for (std::size_t i = 0; i < n; ++i) o[i] = compare_one<C>(a[i], b[i]);
  } else if (as == 1 && bs == 0) {
    const T y = b[0];
    for (std::size_t i = 0; i < n; ++i) o[i] = compare_one<C>(a[i], y);
  } else if (as == 0 && bs == 1) {
    const T x = a[0];
    for (std::size_t i = 0; i < n; ++i) o[i] = compare_one<C>(x, b[i]);
  } else {
    for (std::size_t i = 0; i < n; ++i) o[i] = compare_one<C>(a[i * as], b[i * bs]);
  }
}

template <Compare C>
FlexTensor compare(const FlexTensor& lhs, const FlexTensor& rhs, std::string_view op) {
  rules::check_float_dtype(lhs.dtype, op);
  rules::check_float_dtype(rhs.dtype, op);
  rules::check_same_dtype(lhs.dtype, rhs.dtype, op);
  Shape shape = lhs.shape == rhs.shape ? lhs.shape : rules::broadcast_shapes(lhs.shape, rhs.shape, op);
  FlexTensor out = flex::make_tensor(shape, DType::Bool);
  const std::size_t n = out.num_elements();
  if (n == 0) return out;
  std::uint8_t* o = out.mutable_data<std::uint8_t>();
  flex::with_float_type(lhs.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* a = lhs.data<T>();
    const T* b = rhs.data<T>();
    if (lhs.shape == rhs.shape) {
      flex::parallel_range(n, flex::kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
        compare_row<C>(a + begin, 1, b + begin, 1, o + begin, end - begin);
      });
      return;
    }
    flex::for_each_broadcast_row(shape, lhs.shape, rhs.shape,
                                 [&](std::size_t lo, std::size_t ls, std::size_t ro, std::size_t rs, std::size_t at, std::size_t len) {
                                   compare_row<C>(a + lo, ls, b + ro, rs, o + at, len);
                                 });
  });
  return out;
}

}  // namespace

FlexTensor Flex::float_greater(const FlexTensor& lhs, const FlexTensor& rhs) {
  return compare<Compare::Greater>(lhs, rhs, "float_greater");
}
FlexTensor Flex::float_lower(const FlexTensor& lhs, const FlexTensor& rhs) {
  return compare<Compare::Lower>(lhs, rhs, "float_lower");
}
FlexTensor Flex::float_equal(const FlexTensor& lhs, const FlexTensor& rhs) {
  return compare<Compare::Equal>(lhs, rhs, "float_equal");
}
FlexTensor Flex::float_greater_equal(const FlexTensor& lhs, const FlexTensor& rhs) {
  return compare<Compare::GreaterEqual>(lhs, rhs, "float_greater_equal");
}
FlexTensor Flex::float_lower_equal(const FlexTensor& lhs, const FlexTensor& rhs) {
  return compare<Compare::LowerEqual>(lhs, rhs, "float_lower_equal");
}
FlexTensor Flex::float_not_equal(const FlexTensor& lhs, const FlexTensor& rhs) {
  return compare<Compare::NotEqual>(lhs, rhs, "float_not_equal");
}

namespace {

// A float tensor against one scalar, converted to the tensor's dtype first (docs/OPS.md "Scalar
// arguments"), to a Bool tensor; flat ranges over the pool. float_greater_scalar is data.cpp's.
template <Compare C>
FlexTensor compare_scalar(const FlexTensor& tensor, double scalar, std::string_view op) {
  rules::check_float_dtype(tensor.dtype, op);
  FlexTensor out = flex::make_tensor(tensor.shape, DType::Bool);
  const std::size_t n = tensor.num_elements();
  if (n == 0) return out;
  std::uint8_t* o = out.mutable_data<std::uint8_t>();
  flex::with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = tensor.data<T>();
    const T s = static_cast<T>(scalar);
    flex::parallel_range(n, flex::kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
      compare_row<C>(x + begin, 1, &s, 0, o + begin, end - begin);
    });
  });
  return out;
}

enum class Class { Nan, Inf };

// Note [Byte stores in a row function]
// A one-byte store may alias anything, the captured pointers of a lambda included: a loop that
// stores bytes through a pointer it reads from a closure reloads both pointers after every store
// and is never vectorised (is_nan and greater_scalar ran at 0.1-0.2x NdArray's speed that way,
// docs/PERFORMANCE.md at c477e22). The row is a function of its own, whose pointer parameters
// are locals that no store can change, as compare_row's are.
template <Class K, class T>
void classify_row(const T* x, std::uint8_t* o, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (K == Class::Nan) o[i] = x[i] != x[i] ? 1 : 0;
    else o[i] = std::isinf(x[i]) ? 1 : 0;
  }
}

// is_nan / is_inf of each element to a Bool tensor.
template <Class K>
FlexTensor classify(const FlexTensor& tensor, std::string_view op) {
  rules::check_float_dtype(tensor.dtype, op);
  FlexTensor out = flex::make_tensor(tensor.shape, DType::Bool);
  const std::size_t n = tensor.num_elements();
  if (n == 0) return out;
  std::uint8_t* o = out.mutable_data<std::uint8_t>();
  flex::with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = tensor.data<T>();
    flex::parallel_range(n, flex::kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
      classify_row<K>(x + begin, o + begin, end - begin);
    });
  });
  return out;
}

}  // namespace

FlexTensor Flex::float_greater_equal_elem(const FlexTensor& tensor, double scalar) {
  return compare_scalar<Compare::GreaterEqual>(tensor, scalar, "float_greater_equal_elem");
}
FlexTensor Flex::float_lower_elem(const FlexTensor& tensor, double scalar) {
  return compare_scalar<Compare::Lower>(tensor, scalar, "float_lower_elem");
}
FlexTensor Flex::float_lower_equal_elem(const FlexTensor& tensor, double scalar) {
  return compare_scalar<Compare::LowerEqual>(tensor, scalar, "float_lower_equal_elem");
}
FlexTensor Flex::float_equal_elem(const FlexTensor& tensor, double scalar) {
  return compare_scalar<Compare::Equal>(tensor, scalar, "float_equal_elem");
}
FlexTensor Flex::float_not_equal_elem(const FlexTensor& tensor, double scalar) {
  return compare_scalar<Compare::NotEqual>(tensor, scalar, "float_not_equal_elem");
}

FlexTensor Flex::float_is_nan(const FlexTensor& tensor) { return classify<Class::Nan>(tensor, "float_is_nan"); }
FlexTensor Flex::float_is_inf(const FlexTensor& tensor) { return classify<Class::Inf>(tensor, "float_is_inf"); }

}  // namespace crossgrad::backends
