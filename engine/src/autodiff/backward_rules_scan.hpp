#pragma once
// Backward rules of the scans along a dim (cumsum, cumprod, cummin, cummax), of flip and transpose,
// and of softmin,
// written once for every backend in terms of B's forward ops. Semantics: docs/OPS.md.
#include "autodiff/autodiff_impl.hpp"

#include <cstdint>
#include <vector>

namespace crossgrad {
using autodiff_detail::record;

namespace autodiff_detail {

// sum_{r >= k} g_r along dim, at every k: the transpose of cumsum.
template <class B>
typename B::Tensor reverse_cumsum(const typename B::Tensor& g, std::size_t dim) {
  const std::vector<std::size_t> axes{dim};
  return B::float_flip(B::float_cumsum(B::float_flip(g, axes), dim), axes);
}

}  // namespace autodiff_detail

// Each element is read once, at its mirrored position: the gradient is flipped back.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_flip(const Tensor& x, const std::vector<std::size_t>& axes) {
  return record<B>(B::float_flip(x.primitive, axes), {&x}, [axes](const Primitive& g) {
    return std::vector<Primitive>{B::float_flip(g, axes)};
  });
}

// The last two dims swapped back (a rank below 2 was copied: the gradient passes).
template <class B>
AutodiffTensor<B> Autodiff<B>::float_transpose(const Tensor& x) {
  return record<B>(B::float_transpose(x.primitive), {&x}, [](const Primitive& g) {
    return std::vector<Primitive>{B::float_transpose(g)};
  });
}

// y = softmin(x) = softmax(-x): dx = -(y * (g - sum(g * y))) along dim.
template <class B>
AutodiffTensor<B> Autodiff<B>::softmin(const Tensor& x, std::size_t dim) {
  Primitive y = B::softmin(x.primitive, dim);
  auto rule = [y, dim](const Primitive& g) {
    const Primitive s = B::float_sum_dim(B::float_mul(g, y), dim);
    return std::vector<Primitive>{B::float_neg(B::float_mul(y, B::float_sub(g, s)))};
  };
  return record<B>(std::move(y), {&x}, std::move(rule));
}

// x_k is a term of every y_r with r >= k.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_cumsum(const Tensor& x, std::size_t dim) {
  return record<B>(B::float_cumsum(x.primitive, dim), {&x}, [dim](const Primitive& g) {
    return std::vector<Primitive>{autodiff_detail::reverse_cumsum<B>(g, dim)};
  });
}

// dx_k = sum_{r >= k} g_r * prod_{j <= r, j != k} x_j, without dividing by a zero x_k. Each lane is
// split at its first zero z and its second zero z2 (PyTorch's cumprod_backward, Burn's rule), and a
// product that holds a zero counts as 0 even where another factor is +-inf or NaN:
//  - k < z: only r < z contribute, and every x_j there is nonzero: sum_{k <= r < z} g_r y_r / x_k;
//  - k = z: y_(z-1) * sum_{z <= r < z2} g_r prod_{z < j <= r} x_j (the prefix product factored
//    out of the sum, as PyTorch does);
//  - k > z: 0.
// The regions are picked with 0/1 masks m, and a value that must not reach another region is first
// sent through pow(v, m) (v where m = 1, exactly 1 where m = 0, also for +-inf and NaN: C's pow), so
// no masked-out inf or NaN meets a 0 (0 * inf is NaN).
namespace autodiff_detail {

// At any float dtype (the rule calls it in double for F32).
template <class B>
typename B::Tensor cumprod_gradient(const typename B::Tensor& px, const typename B::Tensor& g, std::size_t dim) {
  using P = typename B::Tensor;
  const DType dt = B::dtype(px);
  const auto mask = [dt](const P& b) { return B::bool_into_float(b, dt); };
  const P zero = mask(B::float_equal_elem(px, 0.0));
  // zeros_seen counts the zeros in x_0..x_k (small integers, exact in either dtype).
  const P zeros_seen = B::float_cumsum(zero, dim);
  const P before = mask(B::float_lower_elem(zeros_seen, 0.5));          // [0, z)
  const P from_first = mask(B::float_equal_elem(zeros_seen, 1.0));      // [z, z2)
  const P at_first = B::float_mul(zero, from_first);                    // z
  const P after_first = B::float_sub(from_first, at_first);             // (z, z2)
  // x before z, 1 from z on: its cumprod is y before z and y_(z-1) from z on.
  const P x_before = B::float_powf(px, before);
  const P prefix = B::float_cumprod(x_before, dim);
  const P classic = B::float_div(
      reverse_cumsum<B>(B::float_mul(B::float_mul(g, before), B::float_powf(prefix, before)), dim),
      x_before);
  // prod_{z < j <= r} x_j for r in [z, z2).
  const P tail = B::float_cumprod(B::float_powf(px, after_first), dim);
  const P sum = reverse_cumsum<B>(
      B::float_mul(B::float_mul(g, from_first), B::float_powf(tail, from_first)), dim);
  const P omitted = B::float_mul(prefix, sum);
  return B::float_add(B::float_mul(classic, before), B::float_mul(B::float_powf(omitted, at_first), at_first));
}

}  // namespace autodiff_detail

template <class B>
AutodiffTensor<B> Autodiff<B>::float_cumprod(const Tensor& x, std::size_t dim) {
  return record<B>(B::float_cumprod(x.primitive, dim), {&x}, [px = x.primitive, dim](const Primitive& g) {
    // Lanes of one element: y = x, so dx = g (an empty product), also at inf and NaN.
    if (B::shape(px)[dim] == 1) return std::vector<Primitive>{g};
    // F32 in double: the classic form divides partial products by x_k, and F32 products of a few
    // small factors underflow (1.4e-45 * -0.25 is -0 in F32), where double keeps them; rounded
    // once to F32 at the end.
    if (B::dtype(px) == DType::F32) {
      const Primitive dx = autodiff_detail::cumprod_gradient<B>(B::float_cast(px, DType::F64), B::float_cast(g, DType::F64), dim);
      return std::vector<Primitive>{B::float_cast(dx, DType::F32)};
    }
    return std::vector<Primitive>{autodiff_detail::cumprod_gradient<B>(px, g, dim)};
  });
}

namespace autodiff_detail {

// For each position r of each lane, the position whose value y_r is: the last k <= r where the
// running extreme took x_k (x_k at least as extreme as y_(k-1), or NaN; Note on cummin / cummax in
// docs/OPS.md). Found on the host from x's values: crossgrad has no int ops on a device yet.
template <class B>
typename B::Tensor extreme_sources(const typename B::Tensor& px, std::size_t dim, bool is_max) {
  const Shape shape = B::shape(px);
  const std::vector<double> x = B::into_data(px).to_f64();
  std::vector<std::int64_t> source(x.size());
  const rules::DimSplit split = rules::split_at_dim(shape, dim);
  for (std::size_t o = 0; o < split.outer && split.len > 0; ++o) {
    for (std::size_t i = 0; i < split.inner; ++i) {
      const std::size_t base = o * split.len * split.inner + i;
      double best = x[base];
      std::int64_t at = 0;
      for (std::size_t r = 0; r < split.len; ++r) {
        const double v = x[base + r * split.inner];
        if (v != v || (is_max ? v >= best : v <= best)) {
          best = v;
          at = static_cast<std::int64_t>(r);
        }
        source[base + r * split.inner] = at;
      }
    }
  }
  return B::from_data(TensorData::from_i64(std::move(source), shape), B::device(px));
}

// Each g_r goes to the source of y_r, added in r order along the lane (scatter_add's order).
template <class B>
AutodiffTensor<B> cumulative_extreme(const AutodiffTensor<B>& x, std::size_t dim, bool is_max) {
  using P = typename B::Tensor;
  P out = is_max ? B::float_cummax(x.primitive, dim) : B::float_cummin(x.primitive, dim);
  return record<B>(std::move(out), {&x}, [px = x.primitive, dim, is_max](const P& g) {
    const P zeros = B::float_full(B::shape(px), 0.0, B::dtype(px), B::device(px));
    return std::vector<P>{B::float_scatter_add(zeros, dim, extreme_sources<B>(px, dim, is_max), g)};
  });
}

}  // namespace autodiff_detail

template <class B>
AutodiffTensor<B> Autodiff<B>::float_cummin(const Tensor& x, std::size_t dim) {
  return autodiff_detail::cumulative_extreme<B>(x, dim, false);
}
template <class B>
AutodiffTensor<B> Autodiff<B>::float_cummax(const Tensor& x, std::size_t dim) {
  return autodiff_detail::cumulative_extreme<B>(x, dim, true);
}

}  // namespace crossgrad
