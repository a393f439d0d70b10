// Flex: the element-wise math ops of issue 36 (trigonometric, hyperbolic, erf, reciprocal,
// rounding, sign). The same per-element formulas as NdArray (docs/OPS.md), over flat ranges split
// by the pool above the element-wise grain (flex::parallel_range, as elementwise_extra.cpp's maps):
// one thread below the grain, every core above it. The trigonometric, hyperbolic, error and
// rounding functions run the kernel table's entries (SLEEF and roundps under AVX2, libm loops in
// the portable table); recip, sign and the activations are plain loops.
#include "common.hpp"
#include "kernels.hpp"
#include "thread_pool.hpp"

#include <crossgrad/backends/host_formulas.hpp>
#include <cmath>
#include <string_view>
#include <vector>

namespace crossgrad::backends {
namespace {

// out = row(in) over the flat storage, in the tensor's own float type: `row_of` picks the dtype's
// row function (a kernel-table entry, or a loop), which each range of the pool's split runs.
template <class RowOf>
FlexTensor map_float_rows(const FlexTensor& in, std::string_view name, RowOf row_of) {
  rules::check_float_dtype(in.dtype, name);
  FlexTensor out = flex::make_tensor(in.shape, in.dtype);
  flex::with_float_type(in.dtype, [&](auto zero) {
    using T = decltype(zero);
    const auto row = row_of(flex::typed_kernels<T>());
    const T* src = in.data<T>();
    T* dst = out.mutable_data<T>();
    flex::parallel_range(in.num_elements(), flex::kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
      row(src + begin, dst + begin, end - begin);
    });
  });
  return out;
}

// out[i] = f(in[i]): a loop over the row's own pointers (Note [Byte stores in a row function] in
// compare.cpp says why not through the closure's).
template <class F>
FlexTensor map_float(const FlexTensor& in, std::string_view name, F f) {
  return map_float_rows(in, name, [f]<class T>(const flex::TypedKernels<T>&) {
    return [f](const T* src, T* dst, std::size_t n) {
      for (std::size_t i = 0; i < n; ++i) dst[i] = f(src[i]);
    };
  });
}

// out[i] = f(lhs, rhs) with NumPy broadcasting, over flat output ranges split by the pool above
// the element-wise grain; each range starts its odometer at its first element.
template <class F>
FlexTensor zip_float(const FlexTensor& lhs, const FlexTensor& rhs, std::string_view name, F f) {
  rules::check_float_dtype(lhs.dtype, name);
  rules::check_float_dtype(rhs.dtype, name);
  rules::check_same_dtype(lhs.dtype, rhs.dtype, name);
  const Shape out_shape = rules::broadcast_shapes(lhs.shape, rhs.shape, name);
  FlexTensor out = flex::make_tensor(out_shape, lhs.dtype);
  flex::with_float_type(lhs.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* a = lhs.data<T>();
    const T* b = rhs.data<T>();
    T* o = out.mutable_data<T>();
    const std::size_t n = out_shape.num_elements();
    if (lhs.shape == rhs.shape) {
      flex::parallel_range(n, flex::kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) o[i] = f(a[i], b[i]);
      });
      return;
    }
    const auto ls = rules::broadcast_strides(lhs.shape, out_shape);
    const auto rs = rules::broadcast_strides(rhs.shape, out_shape);
    const std::size_t rank = out_shape.rank();
    flex::parallel_range(n, flex::kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
      std::vector<std::size_t> index(rank, 0);
      std::size_t ia = 0, ib = 0, rest = begin;
      for (std::size_t d = rank; d-- > 0;) {
        index[d] = rest % out_shape[d];
        rest /= out_shape[d];
        ia += index[d] * ls[d];
        ib += index[d] * rs[d];
      }
      for (std::size_t i = begin; i < end; ++i) {
        o[i] = f(a[ia], b[ib]);
        for (std::size_t d = rank; d-- > 0;) {
          ia += ls[d];
          ib += rs[d];
          if (++index[d] < out_shape[d]) break;
          ia -= out_shape[d] * ls[d];
          ib -= out_shape[d] * rs[d];
          index[d] = 0;
        }
      }
    });
  });
  return out;
}


}  // namespace

#define CROSSGRAD_FLEX_MAP(name, expr)                                     \
  FlexTensor Flex::name(const FlexTensor& tensor) {                        \
    return map_float(tensor, #name, []<class T>(T x) -> T { return expr; }); \
  }

// The trigonometric, hyperbolic and error functions: the kernel table's UnaryMath entries (SLEEF's
// vector functions under AVX2, libm's loops otherwise).
#define CROSSGRAD_FLEX_UNARY_MATH_OP(name)                                                        \
  FlexTensor Flex::float_##name(const FlexTensor& tensor) {                                      \
    return map_float_rows(tensor, "float_" #name, []<class T>(const flex::TypedKernels<T>& k) { \
      return k.unary_math[static_cast<std::size_t>(flex::UnaryMath::name)];                       \
    });                                                                                          \
  }
CROSSGRAD_FLEX_UNARY_MATH(CROSSGRAD_FLEX_UNARY_MATH_OP)
#undef CROSSGRAD_FLEX_UNARY_MATH_OP
// 1 / x through the table's scalar-by-vector division: the same IEEE division, 8 floats at a time
// under AVX2 where the plain loop, compiled for the baseline ISA, divides 4 (recip 1M ran at 0.55x
// LibTorch, docs/PERFORMANCE.md at 5181ebf).
FlexTensor Flex::float_recip(const FlexTensor& tensor) {
  return map_float_rows(tensor, "float_recip", []<class T>(const flex::TypedKernels<T>& k) {
    const auto divide = k.binary_sv[static_cast<std::size_t>(flex::BinaryOp::Div)];
    return [divide](const T* src, T* dst, std::size_t n) {
      const T one = 1;
      divide(&one, src, dst, n);
    };
  });
}
// The rounding ops run the kernel table's entries (roundps on AVX2; the baseline ISA has no rounding
// instruction, so a plain loop is a libm call per element).
#define CROSSGRAD_FLEX_ROUNDING(name, entry)                                                    \
  FlexTensor Flex::name(const FlexTensor& tensor) {                                            \
    return map_float_rows(tensor, #name, []<class T>(const flex::TypedKernels<T>& k) { return k.entry; }); \
  }
CROSSGRAD_FLEX_ROUNDING(float_round, rint)  // half to even
CROSSGRAD_FLEX_ROUNDING(float_floor, floor)
CROSSGRAD_FLEX_ROUNDING(float_ceil, ceil)
CROSSGRAD_FLEX_ROUNDING(float_trunc, trunc)
#undef CROSSGRAD_FLEX_ROUNDING
CROSSGRAD_FLEX_MAP(float_sign, x > T(0) ? T(1) : (x < T(0) ? T(-1) : T(0)))  // +0 for +-0 and NaN

// The activations, NdArray's formulas (docs/OPS.md).
CROSSGRAD_FLEX_MAP(log_sigmoid, x < T(0) ? x - std::log1p(std::exp(x)) : -std::log1p(std::exp(-x)))
CROSSGRAD_FLEX_MAP(gelu, static_cast<T>(host::gelu_of(static_cast<double>(x))))

#undef CROSSGRAD_FLEX_MAP

// The scalar ops of issue 36: NdArray's formulas with the scalar converted to the dtype first.
#define CROSSGRAD_FLEX_SCALAR_MAP(name, expr)                                 \
  FlexTensor Flex::name(const FlexTensor& tensor, double scalar) {            \
    return map_float(tensor, #name, [scalar]<class T>(T x) -> T {             \
      const T s = static_cast<T>(scalar);                                     \
      return expr;                                                            \
    });                                                                       \
  }

CROSSGRAD_FLEX_SCALAR_MAP(float_sub_scalar, x - s)
CROSSGRAD_FLEX_SCALAR_MAP(float_div_scalar, x / s)  // IEEE division, never x * (1 / s)
CROSSGRAD_FLEX_SCALAR_MAP(float_clamp_min, s != s ? s : (x < s ? s : x))  // NaN x passes, NaN bound: all NaN
CROSSGRAD_FLEX_SCALAR_MAP(float_clamp_max, s != s ? s : (x > s ? s : x))
CROSSGRAD_FLEX_SCALAR_MAP(float_remainder_scalar, host::remainder_of(x, s))

#undef CROSSGRAD_FLEX_SCALAR_MAP
FlexTensor Flex::leaky_relu(const FlexTensor& tensor, double negative_slope) {
  return map_float(tensor, "leaky_relu", [negative_slope]<class T>(T x) -> T {
    const T s = static_cast<T>(negative_slope);  // rounded to the dtype first
    return x > T(0) ? x : x * s;
  });
}

// The binary ops of issue 36, with NumPy broadcasting.
FlexTensor Flex::float_remainder(const FlexTensor& lhs, const FlexTensor& rhs) {
  return zip_float(lhs, rhs, "float_remainder", []<class T>(T a, T b) -> T { return host::remainder_of(a, b); });
}
FlexTensor Flex::float_powf(const FlexTensor& lhs, const FlexTensor& rhs) {
  return zip_float(lhs, rhs, "float_powf", []<class T>(T a, T b) -> T { return std::pow(a, b); });
}
FlexTensor Flex::float_atan2(const FlexTensor& lhs, const FlexTensor& rhs) {
  return zip_float(lhs, rhs, "float_atan2", []<class T>(T a, T b) -> T { return std::atan2(a, b); });
}

FlexTensor Flex::float_hypot(const FlexTensor& lhs, const FlexTensor& rhs) {
  return zip_float(lhs, rhs, "float_hypot", []<class T>(T a, T b) -> T { return std::hypot(a, b); });
}
FlexTensor Flex::prelu(const FlexTensor& lhs, const FlexTensor& rhs) {
  return zip_float(lhs, rhs, "prelu", []<class T>(T x, T a) -> T { return x > T(0) ? x : x * a; });
}

}  // namespace crossgrad::backends
