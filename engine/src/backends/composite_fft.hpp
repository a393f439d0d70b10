#pragma once
// rfft and irfft (Burn's ModuleOps) for every backend B from its own swap_dims, slice, cat, matmul
// and adds, after rules::plan_rfft / plan_irfft.
//
// Note [The DFT as a matrix product]
// rfft's bins are re[k] = sum_t x[t] cos(2 pi k t / n), im[k] = -sum_t x[t] sin(2 pi k t / n)
// over the n samples (the signal truncated or zero-padded to n along dim), k = 0 .. n / 2. The
// signal's dim is moved last and flattened to rows, and one matmul with the [n, bins] matrix of
// cosines (and one with the negated sines) gives every row's bins: every sample times every twiddle,
// so an inf or NaN sample makes every bin NaN or non-finite (0 * inf is NaN where a twiddle is 0),
// where a butterfly FFT (ATen's) skips the zero twiddles (docs/OPS.md fft-non-finite). irfft is the
// adjoint shape: x[t] = (1 / n) (re[0] + (-1)^t re[n/2] + 2 sum_{0<k<n/2} (re[k] cos - im[k] sin)),
// the weights (c_k / n) cos and -(c_k / n) sin with c_k 1 at bin 0 and bin n / 2 and 2 between; the
// imaginary parts of bins 0 and n / 2 are not read (a real signal's are 0). Twiddles are computed in
// double from (k t mod n) / n, exact at multiples of a quarter turn, then rounded to the dtype; each
// output sums n (rfft) or n / 2 + 1 terms plus (irfft) the interior's n / 2 - 1: the oracle's
// accumulation bound.
#include "composite_host_values.hpp"

#include <crossgrad/core/host_buffer.hpp>
#include <crossgrad/core/module_rules.hpp>
#include <crossgrad/core/tensor_data.hpp>

#include <cmath>
#include <cstddef>
#include <numbers>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

namespace crossgrad::backends::composite {

// cos and sin of 2 pi (m / n), exact where m / n is a multiple of 1/4.
inline std::pair<double, double> twiddle(std::size_t m, std::size_t n) {
  if (m == 0) return {1.0, 0.0};
  if (4 * m == n) return {0.0, 1.0};
  if (2 * m == n) return {-1.0, 0.0};
  if (4 * m == 3 * n) return {0.0, -1.0};
  const double angle = 2.0 * std::numbers::pi * static_cast<double>(m) / static_cast<double>(n);
  return {std::cos(angle), std::sin(angle)};
}

// cos and sin of 2 pi m / n for every m below n (twiddle's values, computed once per call).
struct TwiddleTable {
  std::vector<double> cos, sin;
  explicit TwiddleTable(std::size_t n) : cos(n), sin(n) {
    for (std::size_t m = 0; m < n; ++m) std::tie(cos[m], sin[m]) = twiddle(m, n);
  }
};

// A [rows, cols] matrix of f(r, c) in `like`'s dtype on its device, once it is known to fit
// (tensor-too-large: the matrix is n x (n / 2 + 1), Note [The DFT as a matrix product]).
template <class B, class F>
typename B::Tensor host_matrix(std::size_t rows, std::size_t cols, const typename B::Tensor& like, F f) {
  checked_tensor_bytes(Shape{rows, cols}, DType::F64);
  std::vector<double> v;
  v.reserve(rows * cols);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) v.push_back(f(r, c));
  }
  return from_doubles<B>(std::move(v), Shape{rows, cols}, like);
}

// t with `dim` moved last and the other dims flattened: [the plan's outer * inner, size along dim].
template <class B>
typename B::Tensor rows_along(const typename B::Tensor& t, const rules::FftPlan& p) {
  const std::size_t last = B::shape(t).rank() - 1;
  const typename B::Tensor moved = p.dim == last ? t : B::float_swap_dims(t, p.dim, last);
  return B::float_reshape(moved, Shape{p.outer * p.inner, B::shape(t)[p.dim]});
}

// rows [rows, length] truncated or zero-padded to `size` columns.
template <class B>
typename B::Tensor fitted(const typename B::Tensor& rows, std::size_t size) {
  const Shape& s = B::shape(rows);
  if (s[1] == size) return rows;
  if (s[1] > size) return B::float_slice(rows, {Range{0, s[0]}, Range{0, size}});
  const typename B::Tensor zeros = B::float_full(Shape{s[0], size - s[1]}, 0.0, B::dtype(rows), B::device(rows));
  return B::float_cat({rows, zeros}, 1);
}

// rows [rows, size] back to `like`'s shape with `dim`'s size `size` (the inverse of rows_along).
template <class B>
typename B::Tensor unrows(const typename B::Tensor& rows, const Shape& like, std::size_t dim, std::size_t size) {
  std::vector<std::size_t> moved = like.dims();
  const std::size_t last = moved.size() - 1;
  std::swap(moved[dim], moved[last]);
  moved[last] = size;
  const typename B::Tensor t = B::float_reshape(rows, Shape(std::move(moved)));
  return dim == last ? t : B::float_swap_dims(t, dim, last);
}

template <class B>
typename B::Tensor rfft(const typename B::Tensor& signal, std::size_t dim, std::optional<std::size_t> n) {
  const rules::FftPlan p = rules::plan_rfft(B::shape(signal), B::dtype(signal), dim, n);
  if (p.out.num_elements() == 0) return B::float_full(p.out, 0.0, B::dtype(signal), B::device(signal));
  const typename B::Tensor x = fitted<B>(rows_along<B>(signal, p), p.n_fft);
  checked_tensor_bytes(Shape{p.n_fft, p.bins}, DType::F64);  // the matrices fit before any is built
  const TwiddleTable w(p.n_fft);
  const auto cos_of = [&](std::size_t t, std::size_t k) { return w.cos[k * t % p.n_fft]; };
  const auto minus_sin_of = [&](std::size_t t, std::size_t k) { return -w.sin[k * t % p.n_fft]; };
  const typename B::Tensor re = B::float_matmul(x, host_matrix<B>(p.n_fft, p.bins, signal, cos_of));
  const typename B::Tensor im = B::float_matmul(x, host_matrix<B>(p.n_fft, p.bins, signal, minus_sin_of));
  return B::float_cat({unrows<B>(re, B::shape(signal), dim, p.bins), unrows<B>(im, B::shape(signal), dim, p.bins)}, 0);
}

template <class B>
typename B::Tensor irfft(const typename B::Tensor& real, const typename B::Tensor& imaginary, std::size_t dim,
                         std::optional<std::size_t> n) {
  const rules::FftPlan p = rules::plan_irfft(B::shape(real), B::dtype(real), B::shape(imaginary), B::dtype(imaginary), dim, n);
  if (p.out.num_elements() == 0) return B::float_full(p.out, 0.0, B::dtype(real), B::device(real));
  const double scale = 1.0 / static_cast<double>(p.n_fft);
  const std::size_t last = p.bins - 1;  // bin n / 2 (bin 0 when n is 1)
  const typename B::Tensor re = fitted<B>(rows_along<B>(real, p), p.bins);
  checked_tensor_bytes(Shape{p.bins, p.n_fft}, DType::F64);  // the matrices fit before any is built
  const TwiddleTable w(p.n_fft);
  const auto re_weight = [&](std::size_t k, std::size_t t) { return (k == 0 || k == last ? 1.0 : 2.0) * scale * w.cos[k * t % p.n_fft]; };
  typename B::Tensor out = B::float_matmul(re, host_matrix<B>(p.bins, p.n_fft, real, re_weight));
  if (p.bins > 2) {  // the interior bins' imaginary parts (bins 0 and n / 2 are not read)
    const typename B::Tensor im = fitted<B>(rows_along<B>(imaginary, p), p.bins);
    const typename B::Tensor interior = B::float_slice(im, {Range{0, B::shape(im)[0]}, Range{1, last}});
    const auto im_weight = [&](std::size_t k, std::size_t t) { return -2.0 * scale * w.sin[(k + 1) * t % p.n_fft]; };
    out = B::float_add(out, B::float_matmul(interior, host_matrix<B>(last - 1, p.n_fft, real, im_weight)));
  }
  return unrows<B>(out, B::shape(real), dim, p.n_fft);
}

}  // namespace crossgrad::backends::composite
