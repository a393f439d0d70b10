#pragma once
// Note [Interpolation as separable taps]
// interpolate reads, for every output cell (oh, ow), the input cells (h_j(oh), w_k(ow)) of a few
// taps per axis (nearest 1, bilinear 2, bicubic 4) with weights a_j(oh) and b_k(ow), and is
// separable: out = sum_j a_j (sum_k b_k x[h_j, w_k]), the inner sum along the width first. That is
// ATen's CPU kernel (upsample_generic_Nd, PyTorch 1.13), term for term: each inner term is
// x * weight, added left to right, then each row sum times its weight, added left to right, in the
// dtype. Every backend runs it as two passes of its own ops, one per axis: float_select of tap k's
// columns (rows), times tap k's weights broadcast along the other axes, summed over the taps in
// order; nearest skips the product (its one weight is 1). A tap whose weight is 0 is still read
// (ATen's bilinear reads cell h + 1 with weight 0 at an exact source position), so an inf or NaN
// there gives NaN as in ATen. interpolate_backward is the adjoint: the gradient times tap j's
// height weights added back with float_select_add into the rows the taps read, then those rows
// times the width weights added back into the columns; cells no tap reads get +0.
//
// The taps and weights are ATen's, computed here on the host in the dtype's C type T (float for F32,
// double for F64), per axis of `in` input and `out` output cells, for output cell o:
// - nearest: min(floor(float(s * o)), in - 1) with s = T(in) / out, in T;
// - nearest_exact: min(floor(float(double(max(0, s * (o + 0.5) - 0.5)) + 0.5)), in - 1), s as for
//   nearest, in T;
// - bilinear: taps (o, o), weights (1, 0) when out == in; else the ratio r = align_corners ?
//   (out > 1 ? T(in - 1) / (out - 1) : 0) : T(in) / out, the source x = double(r) * o with
//   align_corners, else max(0, fma(double(r), o + 0.5, -0.5)), in double; taps i0 = trunc(x) and
//   i0 + 1 (i0 when i0 = in - 1), weights T(1) - T(x - i0) and T(x - i0);
// - bicubic: r as for bilinear, x = double(r) * o, or fma(double(r), o + 0.5, -0.5) (not clamped),
//   in double; i = floor(float(x)), t = T(x - i); taps clamp(i - 1 + j, 0, in - 1), j = 0..3, with
//   Keys' cubic convolution weights (A = -0.75) at t + 1, t, 1 - t and 2 - t in T, each evaluated
//   as ATen writes it.
// The source positions are computed in double with one rounding for r * (o + 0.5) - 0.5, as
// Debian's libtorch 1.13 does (its build contracts them into fused multiply-adds): a weight that
// rounding would make exactly 0 is ATen's tiny one, so an inf read there gives what ATen gives.
#include "composite_host_values.hpp"

#include <crossgrad/core/module_rules.hpp>
#include <crossgrad/core/tensor_data.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace crossgrad::backends::composite {

// One axis's taps: output cell o reads input cells index[j][o] with weights weight[j][o], j <
// count.
struct AxisTaps {
  std::size_t count = 1;
  std::vector<std::int64_t> index[4];
  std::vector<double> weight[4];  // values of T, held as doubles
};

template <class T>
AxisTaps axis_taps_in(std::size_t in, std::size_t out, const InterpolateOptions& o) {
  AxisTaps taps;
  const std::int64_t last = static_cast<std::int64_t>(in) - 1;
  const auto push = [&](std::size_t j, std::int64_t at, T w) {
    taps.index[j].push_back(at);
    taps.weight[j].push_back(static_cast<double>(w));
  };
  // Bilinear's and bicubic's ratio, in T, as a double for the source positions.
  const double r = static_cast<double>(o.align_corners ? (out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0))
                                                       : static_cast<T>(in) / static_cast<T>(out));
  switch (o.mode) {
    case InterpolateMode::Nearest:
    case InterpolateMode::NearestExact: {
      const T s = static_cast<T>(in) / static_cast<T>(out);  // align_corners plays no part
      for (std::size_t i = 0; i < out; ++i) {
        const float at = o.mode == InterpolateMode::Nearest
                             ? static_cast<float>(s * static_cast<T>(i))
                             : static_cast<float>(static_cast<double>(std::max(T(0), s * (static_cast<T>(i) + T(0.5)) - T(0.5))) + 0.5);
        push(0, std::min(static_cast<std::int64_t>(std::floor(at)), last), T(1));
      }
      return taps;
    }
    case InterpolateMode::Bilinear: {
      taps.count = 2;
      for (std::size_t i = 0; i < out; ++i) {
        if (out == in) {
          push(0, static_cast<std::int64_t>(i), T(1));
          push(1, static_cast<std::int64_t>(i), T(0));
          continue;
        }
        const double x = o.align_corners ? r * static_cast<double>(i) : std::max(0.0, std::fma(r, static_cast<double>(i) + 0.5, -0.5));
        const std::int64_t i0 = static_cast<std::int64_t>(x);
        const T lambda1 = static_cast<T>(x - static_cast<double>(i0));
        push(0, i0, T(1) - lambda1);
        push(1, i0 + (i0 < last ? 1 : 0), lambda1);
      }
      return taps;
    }
    case InterpolateMode::Bicubic: {
      taps.count = 4;
      const T a = T(-0.75);
      const auto near = [a](T x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };         // |x| <= 1
      const auto far = [a](T x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };  // 1 < |x| < 2
      for (std::size_t i = 0; i < out; ++i) {
        const double x = o.align_corners ? r * static_cast<double>(i) : std::fma(r, static_cast<double>(i) + 0.5, -0.5);
        const std::int64_t at = static_cast<std::int64_t>(std::floor(static_cast<float>(x)));
        const T t = static_cast<T>(x - static_cast<double>(at));
        const T w[4] = {far(t + T(1)), near(t), near(T(1) - t), far(T(1) - t + T(1))};
        for (std::size_t j = 0; j < 4; ++j) push(j, std::clamp<std::int64_t>(at - 1 + static_cast<std::int64_t>(j), 0, last), w[j]);
      }
      return taps;
    }
  }
  return taps;  // unreachable: plan_interpolate refused any other mode
}

inline AxisTaps axis_taps(std::size_t in, std::size_t out, const InterpolateOptions& o, DType dtype) {
  return dtype == DType::F64 ? axis_taps_in<double>(in, out, o) : axis_taps_in<float>(in, out, o);
}

// Tap j's index list as an I64 tensor and its weights as a float tensor of t's dtype shaped to
// broadcast along `dim` of a rank-4 tensor.
template <class B>
typename B::Tensor tap_indices(const AxisTaps& taps, std::size_t j, const typename B::Tensor& like) {
  return B::from_data(TensorData::from_i64(taps.index[j], Shape{taps.index[j].size()}), B::device(like));
}
template <class B>
typename B::Tensor tap_weights(const AxisTaps& taps, std::size_t j, std::size_t dim, const typename B::Tensor& like) {
  const std::size_t n = taps.weight[j].size();
  return from_doubles<B>(taps.weight[j], dim == 2 ? Shape{1, 1, n, 1} : Shape{1, 1, 1, n}, like);
}

// One pass: along `dim` (2: height, 3: width), sum_j t[.., taps_j, ..] * weight_j, in tap order.
template <class B>
typename B::Tensor interpolate_along(const typename B::Tensor& t, std::size_t dim, const AxisTaps& taps, bool weighted) {
  typename B::Tensor out = B::float_select(t, dim, tap_indices<B>(taps, 0, t));
  if (weighted) out = B::float_mul(out, tap_weights<B>(taps, 0, dim, t));
  for (std::size_t j = 1; j < taps.count; ++j) {
    out = B::float_add(out, B::float_mul(B::float_select(t, dim, tap_indices<B>(taps, j, t)), tap_weights<B>(taps, j, dim, t)));
  }
  return out;
}

// The adjoint pass: g [.., out, ..] along `dim` back onto `in` cells, sum_j select_add(g * weight_j).
template <class B>
typename B::Tensor interpolate_back_along(const typename B::Tensor& g, std::size_t dim, std::size_t in, const AxisTaps& taps,
                                          bool weighted) {
  const Shape& gs = B::shape(g);
  const Shape s = dim == 2 ? Shape{gs[0], gs[1], in, gs[3]} : Shape{gs[0], gs[1], gs[2], in};
  typename B::Tensor acc = B::float_full(s, 0.0, B::dtype(g), B::device(g));
  for (std::size_t j = 0; j < taps.count; ++j) {
    const typename B::Tensor part = weighted ? B::float_mul(g, tap_weights<B>(taps, j, dim, g)) : g;
    acc = B::float_select_add(acc, dim, tap_indices<B>(taps, j, g), part);
  }
  return acc;
}

inline bool weighted(const InterpolateOptions& o) {
  return o.mode == InterpolateMode::Bilinear || o.mode == InterpolateMode::Bicubic;
}

template <class B>
typename B::Tensor interpolate(const typename B::Tensor& x, const Size2& output_size, const InterpolateOptions& o) {
  const rules::Pool2dPlan p = rules::plan_interpolate(B::shape(x), B::dtype(x), output_size, o);
  if (p.out.num_elements() == 0) return B::float_full(p.out, 0.0, B::dtype(x), B::device(x));
  const typename B::Tensor rows = interpolate_along<B>(x, 3, axis_taps(p.in_w, p.out_w, o, B::dtype(x)), weighted(o));
  return interpolate_along<B>(rows, 2, axis_taps(p.in_h, p.out_h, o, B::dtype(x)), weighted(o));
}

template <class B>
typename B::Tensor interpolate_backward(const typename B::Tensor& x, const typename B::Tensor& grad, const Size2& output_size,
                                        const InterpolateOptions& o) {
  const rules::Pool2dPlan p =
      rules::plan_interpolate_backward(B::shape(x), B::dtype(x), B::shape(grad), B::dtype(grad), output_size, o);
  if (p.out.num_elements() == 0) return B::float_full(B::shape(x), 0.0, B::dtype(x), B::device(x));
  const typename B::Tensor rows = interpolate_back_along<B>(grad, 2, p.in_h, axis_taps(p.in_h, p.out_h, o, B::dtype(x)), weighted(o));
  return interpolate_back_along<B>(rows, 3, p.in_w, axis_taps(p.in_w, p.out_w, o, B::dtype(x)), weighted(o));
}

}  // namespace crossgrad::backends::composite
