// The ATen plugin's ops: one ATen expression per registry op, written so that the result follows
// crossgrad's documented semantics (docs/OPS.md, section "LibTorch") where PyTorch's own op would
// differ. The engine has checked every contract rule (shapes, dtypes, dims, index values) before
// the call, so nothing here validates input again.
#include "plugin_internal.hpp"

#include <crossgrad/backends/host_formulas.hpp>
#include <crossgrad/core/int_arithmetic.hpp>
#include <crossgrad/core/int_conversion.hpp>
#include <crossgrad/ops/op_list.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <limits>
#include <type_traits>
#include <vector>

namespace crossgrad::aten_plugin {
namespace {

const at::Tensor& in(const cg_aten_call& c, std::size_t i) {
  if (i >= c.input_count) throw std::invalid_argument("missing tensor operand " + std::to_string(i));
  return c.inputs[i]->value;
}
double scalar(const cg_aten_call& c, std::size_t i) {
  if (i >= c.scalar_count) throw std::invalid_argument("missing scalar argument " + std::to_string(i));
  return c.scalars[i];
}
int64_t integer(const cg_aten_call& c, std::size_t i) {
  if (i >= c.int_count) throw std::invalid_argument("missing int argument " + std::to_string(i));
  return c.ints[i];
}
std::vector<int64_t> ints(const cg_aten_call& c) { return std::vector<int64_t>(c.ints, c.ints + c.int_count); }

// Whether every tensor operand of the call holds only finite values: x * 0 is 0 for a finite x and
// NaN for inf or NaN, so its sum is NaN exactly when one is not finite (two vectorised passes;
// at::isfinite(x).all() took 4 ms on 3 M floats).
bool all_finite(const cg_aten_call& c) {
  for (std::size_t i = 0; i < c.input_count; ++i) {
    if (std::isnan(c.inputs[i]->value.mul(0).sum().item<double>())) return false;
  }
  return true;
}

// crossgrad rounds a double scalar to the tensor's dtype first and computes in that dtype (as NdArray's
// static_cast<T>(scalar)); an F32 tensor gets the float nearest the scalar.
at::Scalar in_dtype(const at::Tensor& x, double s) {
  if (x.scalar_type() == at::kFloat) return at::Scalar(static_cast<double>(static_cast<float>(s)));
  return at::Scalar(s);
}

// Element by element with the C library's function, in the tensor's dtype. ATen's vectorized (Sleef)
// exp, log1p and pow overflow before the true result does, far outside crossgrad's error bounds
// (properties Boundary.* and ReferenceOps: exp(709.78271289338397) = inf where it is 1.797e308,
// log1p(DBL_MAX) = inf where it is 709.78, (1.34e154)^2 = inf where it is 1.798e308).
template <class F>
at::Tensor map_libm(const at::Tensor& x, F f) {
  const at::Tensor in = x.contiguous();
  at::Tensor out = at::empty_like(in);
  const int64_t n = in.numel();
  if (in.scalar_type() == at::kFloat) {
    const float* a = in.data_ptr<float>();
    float* o = out.data_ptr<float>();
    for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
  } else {
    const double* a = in.data_ptr<double>();
    double* o = out.data_ptr<double>();
    for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
  }
  return out;
}


// f(a, b) element by element after NumPy broadcasting, with the C library's function in the dtype
// (map_libm for two operands): ATen's vectorized pow overflows early, and C's atan2 keeps the result
// the CPU backends compute.
template <class F>
at::Tensor map2_libm(const at::Tensor& a, const at::Tensor& b, F f) {
  const std::vector<at::Tensor> ab = at::broadcast_tensors({a, b});
  const at::Tensor x = ab[0].contiguous(), y = ab[1].contiguous();
  at::Tensor out = at::empty_like(x);
  const int64_t n = x.numel();
  if (x.scalar_type() == at::kFloat) {
    const float* p = x.data_ptr<float>();
    const float* q = y.data_ptr<float>();
    float* o = out.data_ptr<float>();
    for (int64_t i = 0; i < n; ++i) o[i] = f(p[i], q[i]);
  } else {
    const double* p = x.data_ptr<double>();
    const double* q = y.data_ptr<double>();
    double* o = out.data_ptr<double>();
    for (int64_t i = 0; i < n; ++i) o[i] = f(p[i], q[i]);
  }
  return out;
}

// Sums accumulate in double whatever the dtype and round once to it (crossgrad's reduction rule;
// ATen's F32 sum accumulates in float).
at::Tensor sum_all(const at::Tensor& x, bool mean) {
  at::Tensor acc = x.to(at::kDouble).sum();
  if (mean) acc = acc / static_cast<double>(x.numel());  // 0/0 = NaN for no elements
  return acc.reshape({1}).to(x.scalar_type());
}
at::Tensor sum_dim(const at::Tensor& x, int64_t dim, bool mean) {
  at::Tensor acc = x.to(at::kDouble).sum(dim, /*keepdim=*/true);
  if (mean) acc = acc / static_cast<double>(x.size(dim));
  return acc.to(x.scalar_type());
}

// The index crossgrad's max scan keeps along `dim` (keepdim): the first NaN if the lane has one,
// else the first of the equal maxima (-0 and +0 are equal, so the first of them). ATen's own
// max/argmax do not document which NaN or zero they return; argmax over a 0/1 mask documents the
// first maximal index, which is what this builds on.
// With `min`, the min scan (float_min_dim, float_argmin) the same way.
at::Tensor max_scan_index(const at::Tensor& x, int64_t dim, bool min = false) {
  const at::Tensor nan = at::isnan(x);
  const at::Tensor has_nan = nan.any(dim, /*keepdim=*/true);
  const at::Tensor first_nan = nan.to(at::kByte).argmax(dim, /*keepdim=*/true);
  const at::Tensor finite_or_inf = at::where(nan, at::full_like(x, min ? INFINITY : -INFINITY), x);
  const at::Tensor m = min ? std::get<0>(finite_or_inf.min(dim, /*keepdim=*/true))
                           : std::get<0>(finite_or_inf.max(dim, /*keepdim=*/true));
  const at::Tensor first_max = at::eq(finite_or_inf, m).to(at::kByte).argmax(dim, /*keepdim=*/true);
  return at::where(has_nan, first_nan, first_max);
}

// Products in double from 1 in index order along each lane of `dim` (keepdim), or of every element
// in shape [1] when dim < 0, rounded once to the dtype: crossgrad's product rule (docs/OPS.md).
// ATen's prod multiplies in its own (vectorized) order, which changes the last bits of F64 results
// and where an intermediate overflows.
at::Tensor prod_along(const at::Tensor& x, int64_t dim) {
  const at::Tensor in = x.contiguous();
  std::vector<int64_t> out_sizes{1};
  int64_t outer = 1, len = in.numel(), inner = 1;
  if (dim >= 0) {
    out_sizes = in.sizes().vec();
    out_sizes[static_cast<std::size_t>(dim)] = 1;
    len = in.size(dim);
    for (int64_t d = 0; d < dim; ++d) outer *= in.size(d);
    for (int64_t d = dim + 1; d < in.dim(); ++d) inner *= in.size(d);
  }
  at::Tensor out = at::empty(out_sizes, in.options());
  auto run = [&](auto* a, auto* o) {
    for (int64_t i = 0; i < outer; ++i) {
      for (int64_t j = 0; j < inner; ++j) {
        double acc = 1.0;
        for (int64_t r = 0; r < len; ++r) acc *= static_cast<double>(a[(i * len + r) * inner + j]);
        o[i * inner + j] = static_cast<std::remove_reference_t<decltype(*o)>>(acc);
      }
    }
  };
  if (in.scalar_type() == at::kFloat) run(in.data_ptr<float>(), out.data_ptr<float>());
  else run(in.data_ptr<double>(), out.data_ptr<double>());
  return out;
}

// softmax / log_softmax as docs/OPS.md writes them: m = the max scan, e_i = exp(x_i - m),
// s = sum e_i in the dtype, y_i = e_i / s or (x_i - m) - log(s).
at::Tensor softmax_along(const at::Tensor& x, int64_t dim, bool log) {
  if (x.numel() == 0) return at::empty_like(x);  // nothing to compute, no panic (an empty dim too)
  const at::Tensor m = x.gather(dim, max_scan_index(x, dim));
  const at::Tensor shifted = x - m;
  const at::Tensor e = map_libm(shifted, [](auto v) { return std::exp(v); });
  const at::Tensor s = e.sum(dim, /*keepdim=*/true);
  return log ? shifted - at::log(s) : e / s;
}


at::Tensor run_registry_op(OpId op, const cg_aten_call& c) {
  switch (op) {
    case OpId::float_add: return at::add(in(c, 0), in(c, 1));
    case OpId::float_sub: return at::sub(in(c, 0), in(c, 1));
    case OpId::float_mul: return at::mul(in(c, 0), in(c, 1));
    case OpId::float_div: return at::div(in(c, 0), in(c, 1));
    case OpId::float_matmul: return at::matmul(in(c, 0), in(c, 1));  // ranks >= 2 (checked)
    case OpId::float_neg: return at::neg(in(c, 0));
    case OpId::float_exp: return map_libm(in(c, 0), [](auto v) { return std::exp(v); });
    case OpId::float_log: return at::log(in(c, 0));
    case OpId::float_sqrt: return at::sqrt(in(c, 0));
    case OpId::float_tanh: return at::tanh(in(c, 0));
    case OpId::relu: {
      // relu(-0) = +0 and NaN propagates; at::relu keeps -0's sign.
      const at::Tensor& x = in(c, 0);
      return at::where(x > 0, x, at::where(at::isnan(x), x, at::zeros_like(x)));
    }
    case OpId::sigmoid: {
      // Below 0 as e / (1 + e): ATen's 1 / (1 + exp(-x)) flushes to +0 once exp(-x) overflows.
      const at::Tensor& x = in(c, 0);
      const auto libm_exp = [](auto v) { return std::exp(v); };
      const at::Tensor e = map_libm(x, libm_exp);
      const at::Tensor pos = at::reciprocal(map_libm(-x, libm_exp) + 1);
      return at::where(x >= 0, pos, e / (e + 1));
    }
    case OpId::float_powf_scalar: {
      // C's pow with the exponent rounded to the dtype: ATen's pow(Tensor, Scalar) special-cases
      // exponents (0.5 as sqrt gives sqrt(-0) = -0, sqrt(-inf) = NaN where pow gives +0, +inf), and
      // its vectorized pow overflows early (map_libm).
      const double e = scalar(c, 0);
      return map_libm(in(c, 0), [e](auto v) { return std::pow(v, static_cast<decltype(v)>(e)); });
    }
    case OpId::float_add_scalar: return at::add(in(c, 0), in_dtype(in(c, 0), scalar(c, 0)));
    case OpId::float_mul_scalar: return at::mul(in(c, 0), in_dtype(in(c, 0), scalar(c, 0)));
    case OpId::float_sum: return sum_all(in(c, 0), false);
    case OpId::float_mean: return sum_all(in(c, 0), true);
    case OpId::float_sum_dim: return sum_dim(in(c, 0), integer(c, 0), false);
    case OpId::float_mean_dim: return sum_dim(in(c, 0), integer(c, 0), true);
    case OpId::int_reshape:
    case OpId::bool_reshape:
    case OpId::float_reshape: return in(c, 0).reshape(ints(c));
    case OpId::int_swap_dims:
    case OpId::bool_swap_dims:
    case OpId::float_swap_dims: return in(c, 0).transpose(integer(c, 0), integer(c, 1));
    case OpId::float_cast:
    case OpId::bool_into_float:
    case OpId::int_into_float: return in(c, 0).to(scalar_type(c.dtype));
    case OpId::float_greater_scalar: return at::gt(in(c, 0), in_dtype(in(c, 0), scalar(c, 0)));
    case OpId::float_abs: return at::abs(in(c, 0));
    case OpId::float_clamp: {
      // x < lo ? lo : (x > hi ? hi : x): NaN passes and x keeps its own zero sign at a zero bound;
      // at::clamp's min/max composition does not promise either.
      const at::Tensor& x = in(c, 0);
      const at::Scalar lo = in_dtype(x, scalar(c, 0));
      const at::Scalar hi = in_dtype(x, scalar(c, 1));
      return at::where(x < lo, at::full_like(x, lo), at::where(x > hi, at::full_like(x, hi), x));
    }
    case OpId::float_max_dim: {
      const at::Tensor& x = in(c, 0);
      const int64_t dim = integer(c, 0);
      if (x.numel() == 0) return at::empty(x.sizes().vec(), x.options()).sum(dim, true);  // no lanes
      return x.gather(dim, max_scan_index(x, dim));
    }
    case OpId::float_argmax: {
      const at::Tensor& x = in(c, 0);
      const int64_t dim = integer(c, 0);
      if (x.numel() == 0) return at::empty(x.sizes().vec(), x.options().dtype(at::kLong)).sum(dim, true);
      return max_scan_index(x, dim);
    }
    case OpId::float_min_dim: {
      const at::Tensor& x = in(c, 0);
      const int64_t dim = integer(c, 0);
      if (x.numel() == 0) return at::empty(x.sizes().vec(), x.options()).sum(dim, true);  // no lanes
      return x.gather(dim, max_scan_index(x, dim, /*min=*/true));
    }
    case OpId::float_argmin: {
      const at::Tensor& x = in(c, 0);
      const int64_t dim = integer(c, 0);
      if (x.numel() == 0) return at::empty(x.sizes().vec(), x.options().dtype(at::kLong)).sum(dim, true);
      return max_scan_index(x, dim, /*min=*/true);
    }
    case OpId::float_prod: return prod_along(in(c, 0), -1);
    case OpId::float_prod_dim: return prod_along(in(c, 0), integer(c, 0));
    // The whole tensor as one lane of the max (min) scan; max_abs scans |x| and keeps |x|.
    case OpId::float_max:
    case OpId::float_min: {
      const at::Tensor flat = in(c, 0).reshape({-1});
      return flat.gather(0, max_scan_index(flat, 0, /*min=*/op == OpId::float_min));
    }
    case OpId::float_max_abs: {
      const at::Tensor flat = at::abs(in(c, 0)).reshape({-1});
      return flat.gather(0, max_scan_index(flat, 0));
    }
    case OpId::float_max_abs_dim: {
      const at::Tensor a = at::abs(in(c, 0));
      const int64_t dim = integer(c, 0);
      return a.gather(dim, max_scan_index(a, dim));
    }
    // x != 0 is true for NaN, as crossgrad's any / all say.
    case OpId::float_any: return at::ne(in(c, 0), 0).any().reshape({1});
    case OpId::float_any_dim: return at::ne(in(c, 0), 0).any(integer(c, 0), /*keepdim=*/true);
    case OpId::float_all: return at::ne(in(c, 0), 0).all().reshape({1});
    case OpId::float_all_dim: return at::ne(in(c, 0), 0).all(integer(c, 0), /*keepdim=*/true);
    case OpId::float_greater: return at::gt(in(c, 0), in(c, 1));
    case OpId::float_lower: return at::lt(in(c, 0), in(c, 1));
    case OpId::float_equal: return at::eq(in(c, 0), in(c, 1));
    case OpId::int_cat:
    case OpId::bool_cat:
    case OpId::float_cat: {
      std::vector<at::Tensor> parts;
      parts.reserve(c.input_count);
      for (std::size_t i = 0; i < c.input_count; ++i) parts.push_back(c.inputs[i]->value);
      return at::cat(parts, integer(c, 0));
    }
    case OpId::int_slice:
    case OpId::bool_slice:
    case OpId::float_slice: {
      // The engine resolved crossgrad's bound rules into one [start, end) pair per dim.
      at::Tensor x = in(c, 0);
      for (int64_t d = 0; d < x.dim(); ++d) x = x.slice(d, integer(c, 2 * d), integer(c, 2 * d + 1));
      return x;
    }
    case OpId::int_slice_assign:
    case OpId::bool_slice_assign:
    case OpId::float_slice_assign: {
      // A copy of x whose block (one resolved [start, end) per dim) takes values' elements.
      at::Tensor out = in(c, 0).clone();
      at::Tensor block = out;
      for (int64_t d = 0; d < out.dim(); ++d) block = block.slice(d, integer(c, 2 * d), integer(c, 2 * d + 1));
      block.copy_(in(c, 1));
      return out;
    }
    case OpId::int_select:
    case OpId::bool_select:
    case OpId::float_select: return at::index_select(in(c, 0), integer(c, 0), in(c, 1).to(at::kLong));
    case OpId::float_select_assign:
    case OpId::float_select_add:
    case OpId::int_select_assign:
    case OpId::int_select_add:
      // Adds, as Burn's select_assign does (ints wrap); index_add_ adds duplicates in index order on
      // the CPU.
      return in(c, 0).clone().index_add_(integer(c, 0), in(c, 1).to(at::kLong), in(c, 2));
    // Or: a count of trues in I64 (no wrap), then nonzero.
    case OpId::bool_select_or:
      return in(c, 0).to(at::kLong).index_add_(integer(c, 0), in(c, 1).to(at::kLong), in(c, 2).to(at::kLong)).ne(0);
    // The chosen element unchanged (a bool mask, NumPy broadcasting of all three), the fill value
    // rounded to the tensor's dtype first.
    case OpId::int_mask_where:
    case OpId::bool_mask_where:
    case OpId::float_mask_where: return at::where(in(c, 1), in(c, 2), in(c, 0));
    case OpId::float_mask_fill: return at::where(in(c, 1), in_dtype(in(c, 0), scalar(c, 0)), in(c, 0));
    // The fill already an element of the dtype (fill_element), as an integer.
    case OpId::int_mask_fill:
    case OpId::bool_mask_fill:
      return at::where(in(c, 1), at::scalar_tensor(integer(c, 0), at::TensorOptions().dtype(at::kLong)).to(in(c, 0).scalar_type()),
                       in(c, 0));
    case OpId::int_gather:
    case OpId::bool_gather:
    case OpId::float_gather: return at::gather(in(c, 0), integer(c, 0), in(c, 1).to(at::kLong));
    // On the CPU each lane's index is walked in increasing order: duplicates add in crossgrad's order.
    case OpId::float_scatter_add:
    case OpId::int_scatter_add: return at::scatter_add(in(c, 0), integer(c, 0), in(c, 1).to(at::kLong), in(c, 2));
    case OpId::bool_scatter_or:
      return at::scatter_add(in(c, 0).to(at::kLong), integer(c, 0), in(c, 1).to(at::kLong), in(c, 2).to(at::kLong)).ne(0);
    // float_scatter: ATen's scatter (Assign) and scatter_reduce with the receiver included (Mul, Min,
    // Max: NaN propagates, a tie keeps the receiver's element), walked like scatter_add.
    case OpId::float_scatter:
    case OpId::int_scatter: {
      const at::Tensor index = in(c, 1).to(at::kLong);
      switch (static_cast<IndexingUpdateOp>(integer(c, 1))) {
        case IndexingUpdateOp::Assign: return at::scatter(in(c, 0), integer(c, 0), index, in(c, 2));
        case IndexingUpdateOp::Add: return at::scatter_add(in(c, 0), integer(c, 0), index, in(c, 2));
        case IndexingUpdateOp::Mul: return at::scatter_reduce(in(c, 0), integer(c, 0), index, in(c, 2), "prod");
        case IndexingUpdateOp::Min: return at::scatter_reduce(in(c, 0), integer(c, 0), index, in(c, 2), "amin");
        case IndexingUpdateOp::Max: return at::scatter_reduce(in(c, 0), integer(c, 0), index, in(c, 2), "amax");
      }
      throw std::invalid_argument("unknown indexing update");
    }
    // Rust's `as` element by element (core/int_conversion.hpp): ATen's .to(int) leaves NaN, +-inf
    // and values beyond the target undefined.
    case OpId::float_into_int: {
      const at::Tensor x = in(c, 0).contiguous();
      at::Tensor out = at::empty(x.sizes(), at::TensorOptions().dtype(scalar_type(c.dtype)));
      const auto convert = [&](auto from) {
        using T = decltype(from);
        const T* p = x.data_ptr<T>();
        const auto to = [&](auto zero) {
          using I = decltype(zero);
          I* o = out.data_ptr<I>();
          for (int64_t i = 0; i < x.numel(); ++i) o[i] = saturating_int<I>(p[i]);
        };
        switch (out.scalar_type()) {
          case at::kLong: to(int64_t{}); break;
          case at::kInt: to(int32_t{}); break;
          case at::kChar: to(int8_t{}); break;
          case at::kByte: to(uint8_t{}); break;
          default: throw std::invalid_argument("float_into_int: not an int target");
        }
      };
      if (x.scalar_type() == at::kDouble) convert(double{});
      else convert(float{});
      return out;
    }
    case OpId::int_permute:
    case OpId::bool_permute:
    case OpId::float_permute: return in(c, 0).permute(ints(c));
    case OpId::int_expand:
    case OpId::bool_expand:
    case OpId::float_expand: return in(c, 0).expand(ints(c));
    // ATen's own scans (on the CPU a float lane accumulates in double): within the oracle's
    // accumulation bound of the reference's in-dtype loop, not its bits.
    case OpId::float_cumsum: return at::cumsum(in(c, 0), integer(c, 0));
    case OpId::float_cumprod: return at::cumprod(in(c, 0), integer(c, 0));
    // ATen's running extreme takes x on a tie (>= / <=) or a NaN and keeps a NaN: crossgrad's rule.
    case OpId::float_cummin: return std::get<0>(at::cummin(in(c, 0), integer(c, 0)));
    case OpId::float_cummax: return std::get<0>(at::cummax(in(c, 0), integer(c, 0)));
    case OpId::int_flip:
    case OpId::bool_flip:
    case OpId::float_flip: return at::flip(in(c, 0), ints(c));
    case OpId::softmax: return softmax_along(in(c, 0), integer(c, 0), false);
    case OpId::log_softmax: return softmax_along(in(c, 0), integer(c, 0), true);
    case OpId::float_log1p: return map_libm(in(c, 0), [](auto v) { return std::log1p(v); });
    case OpId::float_cos: return at::cos(in(c, 0));
    case OpId::float_sin: return at::sin(in(c, 0));
    case OpId::float_tan: return at::tan(in(c, 0));
    // The C library's: ATen's cosh and sinh overflow to inf where the result is finite, like its exp
    // (UlpAccuracy on LibTorch: F32 cosh(88.7228394) = inf where it is 1.7014122e38, F64
    // sinh(709.78271289338409) = inf where it is 8.988e307).
    case OpId::float_cosh: return map_libm(in(c, 0), [](auto v) { return std::cosh(v); });
    case OpId::float_sinh: return map_libm(in(c, 0), [](auto v) { return std::sinh(v); });
    case OpId::float_acos: return at::acos(in(c, 0));
    case OpId::float_acosh: return at::acosh(in(c, 0));
    case OpId::float_asin: return at::asin(in(c, 0));
    case OpId::float_asinh: return at::asinh(in(c, 0));
    case OpId::float_atan: return at::atan(in(c, 0));
    case OpId::float_atanh: return at::atanh(in(c, 0));
    case OpId::float_erf: return at::erf(in(c, 0));
    case OpId::float_recip: return at::reciprocal(in(c, 0));
    case OpId::float_round: return at::round(in(c, 0));  // half to even, as crossgrad's
    case OpId::float_floor: return at::floor(in(c, 0));
    case OpId::float_ceil: return at::ceil(in(c, 0));
    case OpId::float_trunc: return at::trunc(in(c, 0));
    case OpId::float_sign: {
      // +1 above 0, -1 below, +0 for +-0 and NaN (docs/OPS.md), written out rather than left to
      // at::sign's treatment of NaN and -0.
      const at::Tensor& x = in(c, 0);
      return at::where(x > 0, at::ones_like(x), at::where(x < 0, at::full_like(x, -1), at::zeros_like(x)));
    }
    // IEEE comparisons in the tensor's dtype (the scalar rounded to it first): NaN compares false
    // except in ne (true), -0 == +0.
    case OpId::float_greater_equal: return at::ge(in(c, 0), in(c, 1));
    case OpId::float_lower_equal: return at::le(in(c, 0), in(c, 1));
    case OpId::float_not_equal: return at::ne(in(c, 0), in(c, 1));
    case OpId::float_greater_equal_elem: return at::ge(in(c, 0), in_dtype(in(c, 0), scalar(c, 0)));
    case OpId::float_lower_elem: return at::lt(in(c, 0), in_dtype(in(c, 0), scalar(c, 0)));
    case OpId::float_lower_equal_elem: return at::le(in(c, 0), in_dtype(in(c, 0), scalar(c, 0)));
    case OpId::float_equal_elem: return at::eq(in(c, 0), in_dtype(in(c, 0), scalar(c, 0)));
    case OpId::float_not_equal_elem: return at::ne(in(c, 0), in_dtype(in(c, 0), scalar(c, 0)));
    case OpId::float_is_nan: return at::isnan(in(c, 0));
    case OpId::float_is_inf: return at::isinf(in(c, 0));
    case OpId::float_sub_scalar: return at::sub(in(c, 0), in_dtype(in(c, 0), scalar(c, 0)));
    // x / s element by element in the dtype: an IEEE division, which ATen's kernel for a scalar
    // divisor does not promise (it may multiply by the reciprocal).
    case OpId::float_div_scalar: {
      const double s = scalar(c, 0);
      return map_libm(in(c, 0), [s](auto v) { return v / static_cast<decltype(v)>(s); });
    }
    // x < s ? s : x (and x > s for clamp_max): NaN passes, x keeps its zero's sign at a zero bound,
    // a NaN bound makes every element NaN (as float_clamp's where form; at::clamp_min does not
    // promise the zero's sign).
    case OpId::float_clamp_min:
    case OpId::float_clamp_max: {
      const at::Tensor& x = in(c, 0);
      const double s = scalar(c, 0);
      if (std::isnan(s)) return at::full_like(x, s);
      const at::Scalar b = in_dtype(x, s);
      const at::Tensor beyond = op == OpId::float_clamp_min ? x < b : x > b;
      return at::where(beyond, at::full_like(x, b), x);
    }
    // The activations in crossgrad's formulas (docs/OPS.md), element by element with the C library:
    // at::gelu's x/2 (1 + erf(x / sqrt 2)) cancels below about -5 (no digit left), so gelu is
    // computed as NdArray's; log_sigmoid as NdArray's (ATen's min(x, 0) - log1p(exp(-|x|)) gives +0
    // where the result is -0).
    case OpId::log_sigmoid:
      return map_libm(in(c, 0), [](auto v) {
        using T = decltype(v);
        return v < T(0) ? v - std::log1p(std::exp(v)) : -std::log1p(std::exp(-v));
      });
    case OpId::gelu:
      return map_libm(in(c, 0), [](auto v) { return static_cast<decltype(v)>(backends::host::gelu_of(static_cast<double>(v))); });
    case OpId::leaky_relu: {
      // x > 0 ? x : x * slope, the slope rounded to the dtype (at::leaky_relu's own form).
      const at::Tensor& x = in(c, 0);
      return at::where(x > 0, x, x * in_dtype(x, scalar(c, 0)));
    }
    // crossgrad's formula element by element (fmod, plus b where a non-zero fmod has the other
    // sign): at::remainder is NaN where a / b overflows (UlpAccuracy on LibTorch: F32
    // 4.2535293e37 % 0.1 gave NaN, the remainder is 0.04375).
    case OpId::float_remainder_scalar: {
      const double s = scalar(c, 0);
      return map_libm(in(c, 0), [s](auto v) { return backends::host::remainder_of(v, static_cast<decltype(v)>(s)); });
    }
    case OpId::float_remainder: return map2_libm(in(c, 0), in(c, 1), [](auto a, auto b) { return backends::host::remainder_of(a, b); });
    case OpId::float_powf: return map2_libm(in(c, 0), in(c, 1), [](auto a, auto b) { return std::pow(a, b); });
    case OpId::float_atan2: return map2_libm(in(c, 0), in(c, 1), [](auto a, auto b) { return std::atan2(a, b); });
    case OpId::float_hypot: return map2_libm(in(c, 0), in(c, 1), [](auto a, auto b) { return std::hypot(a, b); });
    // x > 0 ? x : x * a with NumPy broadcasting (at::prelu would broadcast a along dim 1).
    case OpId::prelu: return map2_libm(in(c, 0), in(c, 1), [](auto x, auto a) { return x > 0 ? x : x * a; });
    // ATen's stable sort: NaN after +inf ascending and before it descending, -0 equal to +0, ties
    // in index order (crossgrad's order); the top k are the first k of the stable descending sort
    // (at::topk does not promise which of equal elements it keeps, nor their order).
    case OpId::float_argsort:
    case OpId::float_sort:
    case OpId::int_argsort:
    case OpId::int_sort: {
      auto [values, positions] = at::sort(in(c, 0), /*stable=*/true, integer(c, 0), /*descending=*/integer(c, 1) != 0);
      return op == OpId::float_sort || op == OpId::int_sort ? values : positions;
    }
    case OpId::float_argtopk:
    case OpId::float_topk:
    case OpId::int_argtopk:
    case OpId::int_topk: {
      const int64_t dim = integer(c, 0);
      auto [values, positions] = at::sort(in(c, 0), /*stable=*/true, dim, /*descending=*/true);
      return (op == OpId::float_topk || op == OpId::int_topk ? values : positions).narrow(dim, 0, integer(c, 1)).contiguous();
    }
    // The int ops (docs/OPS.md "Integer arithmetic"): ATen wraps add, sub, mul, neg and abs, its
    // "trunc" division truncates and its remainder takes the divisor's sign, as crossgrad's rules.
    // A divisor of -1 is taken out first (MIN / -1 raises SIGFPE in ATen's I64 and I32 kernels):
    // x / -1 is -x (wrapping) and x rem -1 is 0. Zero divisors never reach here.
    case OpId::int_add: return at::add(in(c, 0), in(c, 1));
    case OpId::int_sub: return at::sub(in(c, 0), in(c, 1));
    case OpId::int_mul: return at::mul(in(c, 0), in(c, 1));
    case OpId::int_div:
    case OpId::int_remainder: {
      const std::vector<at::Tensor> ab = at::broadcast_tensors({in(c, 0), in(c, 1)});
      const bool is_signed = ab[0].scalar_type() != at::kByte;
      const at::Tensor minus_one = is_signed ? ab[1].eq(-1) : at::zeros_like(ab[1], at::kBool);
      const at::Tensor divisor = at::where(minus_one, at::ones_like(ab[1]), ab[1]);
      if (op == OpId::int_div) return at::where(minus_one, at::neg(ab[0]), at::div(ab[0], divisor, "trunc")).contiguous();
      return at::where(minus_one, at::zeros_like(ab[0]), at::remainder(ab[0], divisor)).contiguous();
    }
    case OpId::int_neg: return at::neg(in(c, 0));
    case OpId::int_abs: return at::abs(in(c, 0));
    case OpId::int_sign: return at::sign(in(c, 0));
    // The scalar arrives as an element of the tensor's dtype (widened to int64).
    case OpId::int_add_scalar: return at::add(in(c, 0), at::Scalar(integer(c, 0)));
    case OpId::int_sub_scalar: return at::sub(in(c, 0), at::Scalar(integer(c, 0)));
    case OpId::int_mul_scalar: return at::mul(in(c, 0), at::Scalar(integer(c, 0)));
    case OpId::int_div_scalar: {
      const int64_t s = integer(c, 0);
      const bool is_signed = in(c, 0).scalar_type() != at::kByte;
      if (is_signed && s == -1) return at::neg(in(c, 0));
      return at::div(in(c, 0), at::Scalar(s), "trunc");
    }
    case OpId::int_remainder_scalar: {
      const int64_t s = integer(c, 0);
      const bool is_signed = in(c, 0).scalar_type() != at::kByte;
      if (is_signed && s == -1) return at::zeros_like(in(c, 0));
      return at::remainder(in(c, 0), at::Scalar(s));
    }
    case OpId::int_equal: return at::eq(in(c, 0), in(c, 1));
    case OpId::int_not_equal: return at::ne(in(c, 0), in(c, 1));
    case OpId::int_greater: return at::gt(in(c, 0), in(c, 1));
    case OpId::int_greater_equal: return at::ge(in(c, 0), in(c, 1));
    case OpId::int_lower: return at::lt(in(c, 0), in(c, 1));
    case OpId::int_lower_equal: return at::le(in(c, 0), in(c, 1));
    case OpId::int_equal_elem: return at::eq(in(c, 0), at::Scalar(integer(c, 0)));
    case OpId::int_not_equal_elem: return at::ne(in(c, 0), at::Scalar(integer(c, 0)));
    case OpId::int_greater_elem: return at::gt(in(c, 0), at::Scalar(integer(c, 0)));
    case OpId::int_greater_equal_elem: return at::ge(in(c, 0), at::Scalar(integer(c, 0)));
    case OpId::int_lower_elem: return at::lt(in(c, 0), at::Scalar(integer(c, 0)));
    case OpId::int_lower_equal_elem: return at::le(in(c, 0), at::Scalar(integer(c, 0)));
    case OpId::bool_equal: return at::eq(in(c, 0), in(c, 1));
    case OpId::bool_not_equal: return at::ne(in(c, 0), in(c, 1));
    case OpId::bitwise_and: return at::bitwise_and(in(c, 0), in(c, 1));
    case OpId::bitwise_or: return at::bitwise_or(in(c, 0), in(c, 1));
    case OpId::bitwise_xor: return at::bitwise_xor(in(c, 0), in(c, 1));
    case OpId::bitwise_not: return at::bitwise_not(in(c, 0));
    case OpId::bitwise_and_scalar: return at::bitwise_and(in(c, 0), at::Scalar(integer(c, 0)));
    case OpId::bitwise_or_scalar: return at::bitwise_or(in(c, 0), at::Scalar(integer(c, 0)));
    case OpId::bitwise_xor_scalar: return at::bitwise_xor(in(c, 0), at::Scalar(integer(c, 0)));
    // crossgrad's shifts (core/int_arithmetic.hpp) element by element: ATen 1.13's CPU shift kernels
    // shift by the count as C++ does, undefined from the width on.
    case OpId::bitwise_left_shift:
    case OpId::bitwise_right_shift:
    case OpId::bitwise_left_shift_scalar:
    case OpId::bitwise_right_shift_scalar: {
      const bool left = op == OpId::bitwise_left_shift || op == OpId::bitwise_left_shift_scalar;
      const bool scalar = op == OpId::bitwise_left_shift_scalar || op == OpId::bitwise_right_shift_scalar;
      const at::Tensor counts = scalar ? at::full_like(in(c, 0), 0).fill_(at::Scalar(integer(c, 0))) : in(c, 1);
      const std::vector<at::Tensor> xb = at::broadcast_tensors({in(c, 0), counts});
      const at::Tensor x = xb[0].contiguous(), n = xb[1].contiguous();
      at::Tensor out = at::empty_like(x);
      const auto shift = [&](auto zero) {
        using I = decltype(zero);
        const I* a = x.data_ptr<I>();
        const I* b = n.data_ptr<I>();
        I* o = out.data_ptr<I>();
        for (int64_t i = 0; i < x.numel(); ++i) o[i] = left ? shift_left<I>(a[i], b[i]) : shift_right<I>(a[i], b[i]);
      };
      switch (x.scalar_type()) {
        case at::kLong: shift(int64_t{}); break;
        case at::kInt: shift(int32_t{}); break;
        case at::kChar: shift(int8_t{}); break;
        case at::kByte: shift(uint8_t{}); break;
        default: throw std::invalid_argument("shift: not an int tensor");
      }
      return out;
    }
    case OpId::int_cast:
    case OpId::bool_into_int: return in(c, 0).to(scalar_type(c.dtype));
    // The int reductions into the receiver's dtype: sums and products accumulate in int64, whose
    // wrapping agrees with the dtype's modulo 2^width; the mean is that sum divided toward zero.
    // ATen's argmax / argmin return the first extreme's index (crossgrad's rule). Any / all of x != 0.
    case OpId::int_sum: return at::sum(in(c, 0), at::kLong).to(in(c, 0).scalar_type()).reshape({1});
    case OpId::int_sum_dim: return at::sum(in(c, 0), {integer(c, 0)}, true, at::kLong).to(in(c, 0).scalar_type());
    case OpId::int_prod: return at::prod(in(c, 0), at::kLong).to(in(c, 0).scalar_type()).reshape({1});
    case OpId::int_prod_dim: return at::prod(in(c, 0), integer(c, 0), true, at::kLong).to(in(c, 0).scalar_type());
    case OpId::int_mean:
    case OpId::int_mean_dim: {
      const at::Tensor& x = in(c, 0);
      const bool whole = op == OpId::int_mean;
      const at::Tensor wrapped = (whole ? at::sum(x, at::kLong).reshape({1}) : at::sum(x, {integer(c, 0)}, true, at::kLong))
                                     .to(x.scalar_type())
                                     .to(at::kLong);
      const int64_t n = whole ? x.numel() : x.size(integer(c, 0));
      return at::div(wrapped, n, "trunc").to(x.scalar_type());
    }
    case OpId::int_max: return at::max(in(c, 0)).reshape({1});
    case OpId::int_min: return at::min(in(c, 0)).reshape({1});
    case OpId::int_max_dim: return at::amax(in(c, 0), {integer(c, 0)}, true);
    case OpId::int_min_dim: return at::amin(in(c, 0), {integer(c, 0)}, true);
    case OpId::int_argmax: return at::argmax(in(c, 0), integer(c, 0), true);
    case OpId::int_argmin: return at::argmin(in(c, 0), integer(c, 0), true);
    case OpId::int_any:
    case OpId::bool_any: return at::any(in(c, 0).ne(0)).reshape({1});
    case OpId::int_all:
    case OpId::bool_all: return at::all(in(c, 0).ne(0)).reshape({1});
    case OpId::int_any_dim:
    case OpId::bool_any_dim: return at::any(in(c, 0).ne(0), integer(c, 0), true);
    case OpId::int_all_dim:
    case OpId::bool_all_dim: return at::all(in(c, 0).ne(0), integer(c, 0), true);
    case OpId::int_max_abs: return at::abs(in(c, 0)).max().reshape({1});  // wrapping: abs(MIN) is MIN
    case OpId::int_max_abs_dim: return at::amax(at::abs(in(c, 0)), {integer(c, 0)}, true);
    // The bounds arrive saturated into the dtype (int_bound): ATen's clamp of ints compares.
    case OpId::int_clamp:
    case OpId::int_clamp_min:
    case OpId::int_clamp_max: return at::clamp(in(c, 0), at::Scalar(integer(c, 0)), at::Scalar(integer(c, 1)));
    case OpId::int_square: return at::mul(in(c, 0), in(c, 0));
    // Integer scans in the tensor's dtype (ATen's default promotes ints to I64): wrapping sums and
    // products; the extremes compare.
    case OpId::int_cumsum: return at::cumsum(in(c, 0), integer(c, 0), in(c, 0).scalar_type());
    case OpId::int_cumprod: return at::cumprod(in(c, 0), integer(c, 0), in(c, 0).scalar_type());
    case OpId::int_cummin: return std::get<0>(at::cummin(in(c, 0), integer(c, 0)));
    case OpId::int_cummax: return std::get<0>(at::cummax(in(c, 0), integer(c, 0)));
    case OpId::int_matmul: return at::matmul(in(c, 0), in(c, 1));  // ranks >= 2 (checked)
    // ATen's integer pow is crossgrad's (wrapping; a negative exponent truncates the true power).
    // The scalar form goes through a tensor exponent: ATen refuses a negative scalar exponent of
    // an int tensor.
    case OpId::int_powi: return at::pow(in(c, 0), in(c, 1));
    case OpId::int_powi_scalar: return at::pow(in(c, 0), at::full_like(in(c, 0), integer(c, 0)));
    case OpId::bool_not: return at::logical_not(in(c, 0));
    case OpId::bool_and: return at::logical_and(in(c, 0), in(c, 1));
    case OpId::bool_or: return at::logical_or(in(c, 0), in(c, 1));
    case OpId::bool_xor: return at::logical_xor(in(c, 0), in(c, 1));
    // The pooling options arrive as ints: kernel_size, stride, padding (2 each), count_include_pad,
    // ceil_mode (pool_ints, libtorch/pool.cpp).
    case OpId::avg_pool2d:
      return at::avg_pool2d(in(c, 0), {integer(c, 0), integer(c, 1)}, {integer(c, 2), integer(c, 3)},
                            {integer(c, 4), integer(c, 5)}, integer(c, 7) != 0, integer(c, 6) != 0);
    case OpId::avg_pool2d_backward:
      return at::avg_pool2d_backward(in(c, 1), in(c, 0), {integer(c, 0), integer(c, 1)}, {integer(c, 2), integer(c, 3)},
                                     {integer(c, 4), integer(c, 5)}, integer(c, 7) != 0, integer(c, 6) != 0,
                                     c10::nullopt);
    case OpId::adaptive_avg_pool2d: return at::adaptive_avg_pool2d(in(c, 0), {integer(c, 0), integer(c, 1)});
    case OpId::adaptive_avg_pool2d_backward: return at::_adaptive_avg_pool2d_backward(in(c, 1), in(c, 0));
    // max_pool2d: kernel_size, stride, padding, dilation (2 each), ceil_mode (max_pool_ints, libtorch/pool.cpp).
    case OpId::max_pool2d:
    case OpId::max_pool2d_indices: {
      auto [values, positions] = at::max_pool2d_with_indices(in(c, 0), {integer(c, 0), integer(c, 1)}, {integer(c, 2), integer(c, 3)},
                                                             {integer(c, 4), integer(c, 5)}, {integer(c, 6), integer(c, 7)},
                                                             integer(c, 8) != 0);
      return op == OpId::max_pool2d ? values : positions;
    }
    case OpId::max_pool2d_with_indices_backward:
      return at::max_pool2d_with_indices_backward(in(c, 1), in(c, 0), {integer(c, 0), integer(c, 1)}, {integer(c, 2), integer(c, 3)},
                                                  {integer(c, 4), integer(c, 5)}, {integer(c, 6), integer(c, 7)},
                                                  integer(c, 8) != 0, in(c, 2).to(at::kLong));
    // embedding: weights, indices; embedding_backward: weights, grad, indices (libtorch/embedding.cpp).
    case OpId::embedding: return at::embedding(in(c, 0), in(c, 1).to(at::kLong));
    case OpId::embedding_backward:
      return at::embedding_dense_backward(in(c, 1), in(c, 2).to(at::kLong), in(c, 0).size(0), /*padding_idx=*/-1,
                                          /*scale_grad_by_freq=*/false);
    // linear: x, weight [d_input, d_output] and the bias if given (libtorch/linear.cpp); PyTorch's
    // weight is [d_output, d_input]. The backward passes fold the leading dims as ints say.
    case OpId::linear:
      return c.input_count > 2 ? at::linear(in(c, 0), in(c, 1).t(), in(c, 2)) : at::linear(in(c, 0), in(c, 1).t());
    case OpId::linear_x_backward: return at::matmul(in(c, 1), in(c, 0).t());
    case OpId::linear_weight_backward:
      return in(c, 0).reshape({integer(c, 0), integer(c, 1)}).t().mm(in(c, 1).reshape({integer(c, 0), integer(c, 2)}));
    case OpId::linear_bias_backward: return in(c, 0).reshape({integer(c, 0), integer(c, 1)}).sum(0);
    // conv2d / conv3d: x, weight and the bias if given; ints stride, padding, dilation (one per
    // spatial dim each), groups (libtorch/conv.cpp). The backward passes: x, weight, grad; the bias
    // passes: grad. The input is zero-padded here and convolved without padding: crossgrad's padding
    // cells are 0 terms (0 * inf is NaN), where ATen's own padding skips them (docs/OPS.md
    // conv-padding-meets-non-finite); x's gradient is then sliced back to x.
    case OpId::conv2d:
    case OpId::conv2d_x_backward:
    case OpId::conv2d_weight_backward:
    case OpId::conv3d:
    case OpId::conv3d_x_backward:
    case OpId::conv3d_weight_backward: {
      const bool is_3d = op == OpId::conv3d || op == OpId::conv3d_x_backward || op == OpId::conv3d_weight_backward;
      const std::size_t n = is_3d ? 3 : 2;
      std::vector<int64_t> stride, padding, dilation, none(n, 0), pads;
      for (std::size_t d = 0; d < n; ++d) {
        stride.push_back(integer(c, d));
        padding.push_back(integer(c, n + d));
        dilation.push_back(integer(c, 2 * n + d));
      }
      for (std::size_t d = n; d-- > 0;) pads.insert(pads.end(), {padding[d], padding[d]});  // last dim first
      const bool padded = std::any_of(padding.begin(), padding.end(), [](int64_t v) { return v != 0; });
      const at::Tensor x = padded ? at::constant_pad_nd(in(c, 0), pads, 0) : in(c, 0);
      const int64_t groups = integer(c, 3 * n);
      if (op == OpId::conv2d || op == OpId::conv3d) {
        const c10::optional<at::Tensor> bias = c.input_count > 2 ? c10::optional<at::Tensor>(in(c, 2)) : c10::nullopt;
        return at::convolution(x, in(c, 1), bias, stride, none, dilation, /*transposed=*/false, none, groups);
      }
      const bool x_grad = op == OpId::conv2d_x_backward || op == OpId::conv3d_x_backward;
      auto grads = at::convolution_backward(in(c, 2), x, in(c, 1), c10::nullopt, stride, none, dilation, /*transposed=*/false,
                                            none, groups, {x_grad, !x_grad, false});
      if (!x_grad) return std::get<1>(grads);
      at::Tensor dx = std::get<0>(grads);
      for (std::size_t d = 0; d < n; ++d) dx = dx.narrow(2 + d, padding[d], dx.size(2 + d) - 2 * padding[d]);
      return dx.contiguous();
    }
    case OpId::conv2d_bias_backward:
    case OpId::conv_transpose2d_bias_backward: return in(c, 0).sum({0, 2, 3});
    case OpId::conv3d_bias_backward:
    case OpId::conv_transpose3d_bias_backward: return in(c, 0).sum({0, 2, 3, 4});
    // unfold4d / fold4d: ints kernel_size, stride, padding, dilation (2 each), then fold4d's output
    // size (libtorch/conv.cpp): ATen's im2col copies, its col2im adds.
    case OpId::unfold4d:
      return at::im2col(in(c, 0), {integer(c, 0), integer(c, 1)}, {integer(c, 6), integer(c, 7)}, {integer(c, 4), integer(c, 5)},
                        {integer(c, 2), integer(c, 3)});
    case OpId::fold4d:
      return at::col2im(in(c, 0), {integer(c, 8), integer(c, 9)}, {integer(c, 0), integer(c, 1)}, {integer(c, 6), integer(c, 7)},
                        {integer(c, 4), integer(c, 5)}, {integer(c, 2), integer(c, 3)});
    // conv_transpose2d / conv_transpose3d: x, weight and the bias if given; ints stride, padding,
    // padding_out, dilation (one per spatial dim each), groups (libtorch/conv.cpp). The forward pass
    // crops with ATen's own padding (no term is dropped: padding only removes cells). The backward
    // passes read the gradient's padded planes, whose padding cells are 0 terms in crossgrad (0 * inf
    // is NaN) where ATen's convolution skips them, so the gradient is zero-padded here and ATen sees
    // padding 0.
    case OpId::conv_transpose2d:
    case OpId::conv_transpose2d_x_backward:
    case OpId::conv_transpose2d_weight_backward:
    case OpId::conv_transpose3d:
    case OpId::conv_transpose3d_x_backward:
    case OpId::conv_transpose3d_weight_backward: {
      const bool is_3d = op == OpId::conv_transpose3d || op == OpId::conv_transpose3d_x_backward ||
                         op == OpId::conv_transpose3d_weight_backward;
      const std::size_t n = is_3d ? 3 : 2;
      std::vector<int64_t> stride, padding, padding_out, dilation, none(n, 0), pads;
      for (std::size_t d = 0; d < n; ++d) {
        stride.push_back(integer(c, d));
        padding.push_back(integer(c, n + d));
        padding_out.push_back(integer(c, 2 * n + d));
        dilation.push_back(integer(c, 3 * n + d));
      }
      const int64_t groups = integer(c, 4 * n);
      if (op == OpId::conv_transpose2d || op == OpId::conv_transpose3d) {
        const c10::optional<at::Tensor> bias = c.input_count > 2 ? c10::optional<at::Tensor>(in(c, 2)) : c10::nullopt;
        return at::convolution(in(c, 0), in(c, 1), bias, stride, padding, dilation, /*transposed=*/true, padding_out, groups);
      }
      for (std::size_t d = n; d-- > 0;) pads.insert(pads.end(), {padding[d], padding[d]});  // last dim first
      const at::Tensor grad = at::constant_pad_nd(in(c, 2), pads, 0);
      const bool x_grad = op == OpId::conv_transpose2d_x_backward || op == OpId::conv_transpose3d_x_backward;
      auto grads = at::convolution_backward(grad, in(c, 0), in(c, 1), c10::nullopt, stride, none, dilation,
                                            /*transposed=*/true, padding_out, groups, {x_grad, !x_grad, false});
      return x_grad ? std::get<0>(grads) : std::get<1>(grads);
    }
    // layer_norm: x, weight and the bias if given (libtorch/layer_norm.cpp), over the last dim;
    // batch_norm: x, weight, bias, mean, variance. ATen's fused kernels where every operand is
    // finite; otherwise the composition step by step (crossgrad's definition): ATen folds the
    // affine step into x * (rstd * weight) + (bias - mean * rstd * weight), which turns an inf
    // weight with a zero mean into NaN where the definition gives inf (and the reverse).
    case OpId::layer_norm: {
      const at::Tensor& x = in(c, 0);
      const bool has_bias = c.input_count > 2;
      const at::Scalar eps = in_dtype(x, scalar(c, 0));
      if (all_finite(c)) {
        const c10::optional<at::Tensor> bias = has_bias ? c10::optional<at::Tensor>(in(c, 2)) : c10::nullopt;
        return at::layer_norm(x, {x.size(x.dim() - 1)}, in(c, 1), bias, eps.toDouble());
      }
      const int64_t last = x.dim() - 1;
      const at::Tensor centered = x - x.mean(last, /*keepdim=*/true);
      const at::Tensor y = centered / at::sqrt((centered * centered).mean(last, /*keepdim=*/true) + eps) * in(c, 1);
      return has_bias ? y + in(c, 2) : y;
    }
    case OpId::batch_norm: {
      const at::Tensor& x = in(c, 0);
      const at::Scalar eps = in_dtype(x, scalar(c, 0));
      if (all_finite(c)) {
        return at::batch_norm(x, in(c, 1), in(c, 2), in(c, 3), in(c, 4), /*training=*/false, /*momentum=*/0.0, eps.toDouble(),
                              /*cudnn_enabled=*/false);
      }
      std::vector<int64_t> per_channel(static_cast<std::size_t>(x.dim()), 1);
      per_channel[1] = x.size(1);
      const auto s = [&](std::size_t k) { return in(c, k).reshape(per_channel); };
      return (x - s(3)) / at::sqrt(s(4) + eps) * s(1) + s(2);
    }
    // attention (libtorch/attention.cpp): PyTorch's math path (matmul, softmax, matmul) with Burn's
    // causal corner and its zeros for a row with every score -inf (where ATen's softmax gives NaN).
    case OpId::attention: {
      const at::Tensor& q = in(c, 0);
      std::size_t next = 3;
      const double neg_inf = -std::numeric_limits<double>::infinity();
      at::Tensor s = at::matmul(q, in(c, 1).transpose(2, 3)).mul(in_dtype(q, scalar(c, 0)));
      if (integer(c, 3) != 0) {
        const at::Scalar cap = in_dtype(q, scalar(c, 1));
        s = at::tanh(s.div(cap)).mul(cap);
      }
      if (integer(c, 0) != 0) s = s.masked_fill(in(c, next++), neg_inf);
      if (integer(c, 2) != 0) {
        const int64_t seq_q = s.size(2), seq_k = s.size(3);
        s = s.masked_fill(at::ones({seq_q, seq_k}, q.options().dtype(at::kBool)).triu(seq_k - seq_q + 1), neg_inf);
      }
      if (integer(c, 1) != 0) s = s.add(in(c, next++));
      const at::Tensor dead = std::get<0>(s.max(3, /*keepdim=*/true)).eq(neg_inf);
      return at::matmul(at::softmax(s, 3).masked_fill(dead, 0.0), in(c, 2));
    }
  }
  throw std::invalid_argument("unknown op code");
}

}  // namespace

at::Tensor run(const cg_aten_call& c) {
  if (c.op == CG_ATEN_OP_FULL) {
    const at::ScalarType type = scalar_type(c.dtype);
    const at::Scalar v = type == at::kFloat ? at::Scalar(static_cast<double>(static_cast<float>(scalar(c, 0))))
                                            : at::Scalar(scalar(c, 0));
    return at::full(ints(c), v, at::TensorOptions().dtype(type));
  }
  if (c.op == CG_ATEN_OP_DEQUANTIZE) {
    // q * scale in F32, as every backend's dequantize.
    return in(c, 0).to(at::kFloat) * at::Scalar(static_cast<double>(static_cast<float>(scalar(c, 0))));
  }
  if (c.op < 0 || static_cast<std::size_t>(c.op) >= kOpCount) throw std::invalid_argument("unknown op code");
  return run_registry_op(static_cast<OpId>(c.op), c);
}

}  // namespace crossgrad::aten_plugin
