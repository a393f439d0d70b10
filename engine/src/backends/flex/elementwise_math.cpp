// Flex: the element-wise math ops of issue 36 (trigonometric, hyperbolic, erf, reciprocal,
// rounding, sign). The same per-element formulas as NdArray (docs/OPS.md), over flat ranges split
// by the pool above the element-wise grain (flex::parallel_range, as elementwise_extra.cpp's maps):
// one thread below the grain, every core above it. No SIMD kernels yet: glibc's functions element
// by element (the ulp table's values, docs/OPS.md "Accuracy in ulps").
#include "common.hpp"
#include "thread_pool.hpp"

#include <cmath>

namespace crossgrad::backends {
namespace {

// out[i] = f(in[i]) over the flat storage, in the tensor's own float type.
template <class F>
FlexTensor map_float(const FlexTensor& in, std::string_view name, F f) {
  rules::check_float_dtype(in.dtype, name);
  FlexTensor out = flex::make_tensor(in.shape, in.dtype);
  flex::with_float_type(in.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* src = in.data<T>();
    T* dst = out.mutable_data<T>();
    flex::parallel_range(in.num_elements(), flex::kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) dst[i] = f(src[i]);
    });
  });
  return out;
}

}  // namespace

#define CROSSGRAD_FLEX_MAP(name, expr)                                     \
  FlexTensor Flex::name(const FlexTensor& tensor) {                        \
    return map_float(tensor, #name, []<class T>(T x) -> T { return expr; }); \
  }

CROSSGRAD_FLEX_MAP(float_cos, std::cos(x))
CROSSGRAD_FLEX_MAP(float_sin, std::sin(x))
CROSSGRAD_FLEX_MAP(float_tan, std::tan(x))
CROSSGRAD_FLEX_MAP(float_cosh, std::cosh(x))
CROSSGRAD_FLEX_MAP(float_sinh, std::sinh(x))
CROSSGRAD_FLEX_MAP(float_acos, std::acos(x))
CROSSGRAD_FLEX_MAP(float_acosh, std::acosh(x))
CROSSGRAD_FLEX_MAP(float_asin, std::asin(x))
CROSSGRAD_FLEX_MAP(float_asinh, std::asinh(x))
CROSSGRAD_FLEX_MAP(float_atan, std::atan(x))
CROSSGRAD_FLEX_MAP(float_atanh, std::atanh(x))
CROSSGRAD_FLEX_MAP(float_erf, std::erf(x))
CROSSGRAD_FLEX_MAP(float_recip, T(1) / x)
CROSSGRAD_FLEX_MAP(float_round, std::rint(x))  // half to even
CROSSGRAD_FLEX_MAP(float_floor, std::floor(x))
CROSSGRAD_FLEX_MAP(float_ceil, std::ceil(x))
CROSSGRAD_FLEX_MAP(float_trunc, std::trunc(x))
CROSSGRAD_FLEX_MAP(float_sign, x > T(0) ? T(1) : (x < T(0) ? T(-1) : T(0)))  // +0 for +-0 and NaN

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

#undef CROSSGRAD_FLEX_SCALAR_MAP

}  // namespace crossgrad::backends
