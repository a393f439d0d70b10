// Flex element-wise ops: binary ops with NumPy broadcasting, unary ops and scalar ops.
//
// Note [Flex broadcast loops]
// A binary op is planned as one fused loop nest over the output: dims of size 1 are dropped and
// neighbouring dims are merged whenever both operands step through them contiguously (a
// broadcast operand has stride 0 on them), so [N, M] + [M] becomes rows of a contiguous
// vector-vector kernel and same-shape operands become one flat loop. The innermost dim then
// runs a SIMD kernel (vector-vector, vector-scalar or scalar-vector); only an operand broadcast
// along the inner dim but not the outer ones falls back to a strided scalar loop. Work is split
// over the thread pool by output rows (or by flat ranges for the flat case).
#include "common.hpp"
#include "kernels.hpp"
#include "scalar_ops.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <type_traits>
#include <vector>

namespace crossgrad::backends {
namespace {

using flex::BinaryOp;
using flex::kElementwiseGrain;
using flex::make_tensor;
using flex::parallel_range;
using flex::with_float_type;

struct LoopDim {
  std::size_t size, lhs_stride, rhs_stride;
};

// The merged loop nest described in Note [Flex broadcast loops], outermost first; never empty.
std::vector<LoopDim> plan_loops(const Shape& out, const Shape& lhs, const Shape& rhs) {
  const auto ls = rules::broadcast_strides(lhs, out);
  const auto rs = rules::broadcast_strides(rhs, out);
  std::vector<LoopDim> dims;
  for (std::size_t d = 0; d < out.rank(); ++d) {
    if (out[d] == 1) continue;
    const LoopDim next{out[d], ls[d], rs[d]};
    if (!dims.empty()) {
      LoopDim& prev = dims.back();
      if (prev.lhs_stride == next.lhs_stride * next.size &&
          prev.rhs_stride == next.rhs_stride * next.size) {
        prev = {prev.size * next.size, next.lhs_stride, next.rhs_stride};
        continue;
      }
    }
    dims.push_back(next);
  }
  if (dims.empty()) dims.push_back({1, 1, 1});
  return dims;
}

template <BinaryOp Op, class T>
void binary_kernel(const T* lhs, const T* rhs, T* out, const std::vector<LoopDim>& dims) {
  const auto& k = flex::typed_kernels<T>();
  const auto op = static_cast<std::size_t>(Op);
  const LoopDim inner = dims.back();
  auto inner_kernel = [&](const T* a, const T* b, T* o) {
    if (inner.lhs_stride == 1 && inner.rhs_stride == 1) k.binary_vv[op](a, b, o, inner.size);
    else if (inner.lhs_stride == 1 && inner.rhs_stride == 0) k.binary_vs[op](a, b, o, inner.size);
    else if (inner.lhs_stride == 0 && inner.rhs_stride == 1) k.binary_sv[op](a, b, o, inner.size);
    else {
      for (std::size_t i = 0; i < inner.size; ++i) {
        o[i] = flex::apply_binary<Op>(a[i * inner.lhs_stride], b[i * inner.rhs_stride]);
      }
    }
  };
  if (dims.size() == 1) {
    // One flat loop: split it into ranges.
    parallel_range(inner.size, kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
      const std::size_t n = end - begin;
      const T* a = lhs + begin * inner.lhs_stride;
      const T* b = rhs + begin * inner.rhs_stride;
      T* o = out + begin;
      if (inner.lhs_stride == 1 && inner.rhs_stride == 1) k.binary_vv[op](a, b, o, n);
      else if (inner.lhs_stride == 1) k.binary_vs[op](a, b, o, n);
      else if (inner.rhs_stride == 1) k.binary_sv[op](a, b, o, n);
      else std::fill(o, o + n, flex::apply_binary<Op>(a[0], b[0]));
    });
    return;
  }
  std::size_t rows = 1;
  for (std::size_t d = 0; d + 1 < dims.size(); ++d) rows *= dims[d].size;
  const std::size_t outer_dims = dims.size() - 1;
  const std::size_t grain = std::max<std::size_t>(1, kElementwiseGrain / std::max<std::size_t>(inner.size, 1));
  parallel_range(rows, grain, [&](std::size_t begin, std::size_t end) {
    // Odometer over the outer dims, started at row `begin`.
    std::vector<std::size_t> index(outer_dims, 0);
    std::size_t lhs_offset = 0, rhs_offset = 0;
    std::size_t rest = begin;
    for (std::size_t d = outer_dims; d-- > 0;) {
      index[d] = rest % dims[d].size;
      rest /= dims[d].size;
      lhs_offset += index[d] * dims[d].lhs_stride;
      rhs_offset += index[d] * dims[d].rhs_stride;
    }
    for (std::size_t row = begin; row < end; ++row) {
      inner_kernel(lhs + lhs_offset, rhs + rhs_offset, out + row * inner.size);
      for (std::size_t d = outer_dims; d-- > 0;) {
        lhs_offset += dims[d].lhs_stride;
        rhs_offset += dims[d].rhs_stride;
        if (++index[d] < dims[d].size) break;
        lhs_offset -= dims[d].size * dims[d].lhs_stride;
        rhs_offset -= dims[d].size * dims[d].rhs_stride;
        index[d] = 0;
      }
    }
  });
}

template <BinaryOp Op>
FlexTensor binary(const FlexTensor& lhs, const FlexTensor& rhs, std::string_view op) {
  rules::check_float_dtype(lhs.dtype, op);
  rules::check_float_dtype(rhs.dtype, op);
  rules::check_same_dtype(lhs.dtype, rhs.dtype, op);
  if (lhs.shape == rhs.shape) {  // the common case: one flat loop, no plan to build
    FlexTensor out = make_tensor(lhs.shape, lhs.dtype);
    const std::size_t n = out.num_elements();
    with_float_type(lhs.dtype, [&](auto zero) {
      using T = decltype(zero);
      const auto kernel = flex::typed_kernels<T>().binary_vv[static_cast<std::size_t>(Op)];
      const T* a = lhs.data<T>();
      const T* b = rhs.data<T>();
      T* o = out.mutable_data<T>();
      parallel_range(n, kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
        kernel(a + begin, b + begin, o + begin, end - begin);
      });
    });
    return out;
  }
  Shape out_shape = rules::broadcast_shapes(lhs.shape, rhs.shape, op);
  FlexTensor out = make_tensor(out_shape, lhs.dtype);
  if (out.num_elements() == 0) return out;
  const auto dims = plan_loops(out_shape, lhs.shape, rhs.shape);
  with_float_type(lhs.dtype, [&](auto zero) {
    using T = decltype(zero);
    binary_kernel<Op, T>(lhs.data<T>(), rhs.data<T>(), out.mutable_data<T>(), dims);
  });
  return out;
}

// Applies kernel(in, out, n) over flat ranges of a contiguous tensor.
template <class Kernel>
FlexTensor unary(const FlexTensor& in, std::string_view op, Kernel kernel) {
  rules::check_float_dtype(in.dtype, op);
  FlexTensor out = make_tensor(in.shape, in.dtype);
  const std::size_t n = in.num_elements();
  with_float_type(in.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* src = in.data<T>();
    T* dst = out.mutable_data<T>();
    parallel_range(n, kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
      kernel(src + begin, dst + begin, end - begin);
    });
  });
  return out;
}

}  // namespace

FlexTensor Flex::float_add(const FlexTensor& lhs, const FlexTensor& rhs) {
  return binary<BinaryOp::Add>(lhs, rhs, "float_add");
}
FlexTensor Flex::float_sub(const FlexTensor& lhs, const FlexTensor& rhs) {
  return binary<BinaryOp::Sub>(lhs, rhs, "float_sub");
}
FlexTensor Flex::float_mul(const FlexTensor& lhs, const FlexTensor& rhs) {
  return binary<BinaryOp::Mul>(lhs, rhs, "float_mul");
}
FlexTensor Flex::float_div(const FlexTensor& lhs, const FlexTensor& rhs) {
  return binary<BinaryOp::Div>(lhs, rhs, "float_div");
}

FlexTensor Flex::float_neg(const FlexTensor& t) {
  return unary(t, "float_neg", [](auto* src, auto* dst, std::size_t n) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
    flex::typed_kernels<T>().neg(src, dst, n);
  });
}
FlexTensor Flex::float_exp(const FlexTensor& t) {
  return unary(t, "float_exp", [](auto* src, auto* dst, std::size_t n) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
    flex::typed_kernels<T>().exp(src, dst, n);
  });
}
FlexTensor Flex::float_log(const FlexTensor& t) {
  return unary(t, "float_log", [](auto* src, auto* dst, std::size_t n) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
    flex::typed_kernels<T>().log(src, dst, n);
  });
}
FlexTensor Flex::float_sqrt(const FlexTensor& t) {
  return unary(t, "float_sqrt", [](auto* src, auto* dst, std::size_t n) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
    flex::typed_kernels<T>().sqrt(src, dst, n);
  });
}
// Accuracy of exp, log, log1p, tanh, sigmoid and powf_scalar: docs/OPS.md "Accuracy in ulps" (the
// oracle's table, oracle/src/ulp_bounds.cpp), which each kernel of the table promises (kMathUlps):
// glibc's on the portable table, SLEEF's u10 functions and the vectorised expf on the AVX2 one
// (Note [Flex transcendental kernels on SLEEF], Note [Flex vectorised expf]); log1p must stay
// accurate for tiny x, where log(1 + x) is 0.
FlexTensor Flex::float_log1p(const FlexTensor& t) {
  return unary(t, "float_log1p", [](auto* src, auto* dst, std::size_t n) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
    flex::typed_kernels<T>().log1p(src, dst, n);
  });
}

FlexTensor Flex::float_tanh(const FlexTensor& t) {
  return unary(t, "float_tanh", [](auto* src, auto* dst, std::size_t n) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
    flex::typed_kernels<T>().tanh(src, dst, n);
  });
}
FlexTensor Flex::relu(const FlexTensor& t) {
  return unary(t, "relu", [](auto* src, auto* dst, std::size_t n) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
    flex::typed_kernels<T>().relu(src, dst, n);
  });
}
FlexTensor Flex::sigmoid(const FlexTensor& t) {
  return unary(t, "sigmoid", [](auto* src, auto* dst, std::size_t n) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
    flex::typed_kernels<T>().sigmoid(src, dst, n);
  });
}
FlexTensor Flex::float_powf_scalar(const FlexTensor& t, double exponent) {
  // The exponent is converted to the dtype first (docs/OPS.md "Scalar arguments").
  return unary(t, "float_powf_scalar", [exponent](auto* src, auto* dst, std::size_t n) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
    flex::typed_kernels<T>().powf(src, static_cast<T>(exponent), dst, n);
  });
}
FlexTensor Flex::float_add_scalar(const FlexTensor& t, double scalar) {
  return unary(t, "float_add_scalar", [scalar](auto* src, auto* dst, std::size_t n) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
    flex::typed_kernels<T>().add_scalar(src, static_cast<T>(scalar), dst, n);
  });
}
FlexTensor Flex::float_mul_scalar(const FlexTensor& t, double scalar) {
  return unary(t, "float_mul_scalar", [scalar](auto* src, auto* dst, std::size_t n) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
    flex::typed_kernels<T>().mul_scalar(src, static_cast<T>(scalar), dst, n);
  });
}

}  // namespace crossgrad::backends
