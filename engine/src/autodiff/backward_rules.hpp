#pragma once
// The backward rules of Autodiff<B> (Note [Autodiff<B> is one decorator]): one per registry op whose
// Rule is Backward, written once for every backend in terms of B's forward ops. Binary ops reduce
// broadcast gradients back to each operand's shape. Included by autodiff/definitions.hpp only.
#include "autodiff/autodiff_impl.hpp"
#include "ops/activation_backward.hpp"

namespace crossgrad {
using autodiff_detail::record;

template <class B>
AutodiffTensor<B> Autodiff<B>::float_add(const Tensor& a, const Tensor& b) {
  return record<B>(B::float_add(a.primitive, b.primitive), {&a, &b}, [sa = shape(a), sb = shape(b)](const Primitive& g) {
    using autodiff_detail::reduce_to_shape;
    return std::vector<Primitive>{reduce_to_shape<B>(g, sa), reduce_to_shape<B>(g, sb)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_sub(const Tensor& a, const Tensor& b) {
  return record<B>(B::float_sub(a.primitive, b.primitive), {&a, &b}, [sa = shape(a), sb = shape(b)](const Primitive& g) {
    using autodiff_detail::reduce_to_shape;
    return std::vector<Primitive>{reduce_to_shape<B>(g, sa), reduce_to_shape<B>(B::float_neg(g), sb)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_mul(const Tensor& a, const Tensor& b) {
  return record<B>(B::float_mul(a.primitive, b.primitive), {&a, &b}, [pa = a.primitive, pb = b.primitive](const Primitive& g) {
    using autodiff_detail::reduce_to_shape;
    return std::vector<Primitive>{reduce_to_shape<B>(B::float_mul(g, pb), B::shape(pa)),
                                  reduce_to_shape<B>(B::float_mul(g, pa), B::shape(pb))};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_div(const Tensor& a, const Tensor& b) {
  return record<B>(B::float_div(a.primitive, b.primitive), {&a, &b}, [pa = a.primitive, pb = b.primitive](const Primitive& g) {
    using autodiff_detail::reduce_to_shape;
    // d(a/b)/db = -a / b^2, evaluated as -(g * ((a / b) / b)) as PyTorch does: forming g*a or b*b
    // first overflows or underflows where the quotient does not (a = inf, b = FLT_MAX gave NaN for
    // -inf; a = FLT_MAX, b = inf gave NaN for -0; a tiny a lost its low bits in g*a's subnormal).
    const Primitive gb = B::float_neg(B::float_mul(g, B::float_div(B::float_div(pa, pb), pb)));
    return std::vector<Primitive>{reduce_to_shape<B>(B::float_div(g, pb), B::shape(pa)),
                                  reduce_to_shape<B>(gb, B::shape(pb))};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_matmul(const Tensor& a, const Tensor& b) {
  return record<B>(B::float_matmul(a.primitive, b.primitive), {&a, &b}, [pa = a.primitive, pb = b.primitive](const Primitive& g) {
    using autodiff_detail::reduce_to_shape;
    // An empty output (m or n = 0) contributes nothing: zeros, without forming g^T-products whose
    // shape ([batch.., k, n] with a huge batch) may not fit even though both operands exist.
    if (B::shape(g).num_elements() == 0) {
      return std::vector<Primitive>{B::float_full(B::shape(pa), 0.0, B::dtype(pa), B::device(pa)),
                                    B::float_full(B::shape(pb), 0.0, B::dtype(pb), B::device(pb))};
    }
    const auto t = [](const Primitive& x) {
      const std::size_t r = B::shape(x).rank();
      return B::float_swap_dims(x, r - 2, r - 1);
    };
    return std::vector<Primitive>{reduce_to_shape<B>(B::float_matmul(g, t(pb)), B::shape(pa)),
                                  reduce_to_shape<B>(B::float_matmul(t(pa), g), B::shape(pb))};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_neg(const Tensor& x) {
  return record<B>(B::float_neg(x.primitive), {&x},
                   [](const Primitive& g) { return std::vector<Primitive>{B::float_neg(g)}; });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_exp(const Tensor& x) {
  Primitive out = B::float_exp(x.primitive);
  auto rule = [out](const Primitive& g) { return std::vector<Primitive>{B::float_mul(g, out)}; };
  return record<B>(std::move(out), {&x}, std::move(rule));
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_log(const Tensor& x) {
  return record<B>(B::float_log(x.primitive), {&x}, [px = x.primitive](const Primitive& g) { return std::vector<Primitive>{B::float_div(g, px)}; });
}

// d/dx log(1 + x) = 1 / (1 + x).
template <class B>
AutodiffTensor<B> Autodiff<B>::float_log1p(const Tensor& x) {
  return record<B>(B::float_log1p(x.primitive), {&x},
                   [px = x.primitive](const Primitive& g) { return std::vector<Primitive>{B::float_div(g, B::float_add_scalar(px, 1.0))}; });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_sqrt(const Tensor& x) {
  Primitive out = B::float_sqrt(x.primitive);
  auto rule = [out](const Primitive& g) {
    return std::vector<Primitive>{B::float_mul_scalar(B::float_div(g, out), 0.5)};
  };
  return record<B>(std::move(out), {&x}, std::move(rule));
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_tanh(const Tensor& x) {
  Primitive out = B::float_tanh(x.primitive);
  auto rule = [out](const Primitive& g) {
    const Primitive one_minus_sq = B::float_add_scalar(B::float_neg(B::float_mul(out, out)), 1.0);
    return std::vector<Primitive>{B::float_mul(g, one_minus_sq)};
  };
  return record<B>(std::move(out), {&x}, std::move(rule));
}

template <class B>
AutodiffTensor<B> Autodiff<B>::sigmoid(const Tensor& x) {
  Primitive out = B::sigmoid(x.primitive);
  auto rule = [out](const Primitive& g) { return std::vector<Primitive>{activation_backward::sigmoid<B>(out, g)}; };
  return record<B>(std::move(out), {&x}, std::move(rule));
}

template <class B>
AutodiffTensor<B> Autodiff<B>::relu(const Tensor& x) {
  return record<B>(B::relu(x.primitive), {&x}, [px = x.primitive](const Primitive& g) {
    return std::vector<Primitive>{activation_backward::relu<B>(px, g)};
  });
}

// d/dx x^p = p * x^(p-1), evaluated in IEEE arithmetic (docs/OPS.md "powf_scalar backward"):
// at x = 0 that gives 1 for p = 1, 0 for p > 1, +-inf for p < 1 (the one-sided slope). p = 0 is
// the exception: x^0 = 1 everywhere, so its derivative is 0 everywhere, where the formula would
// give 0 * 0^-1 = 0 * inf = NaN at x = 0. The incoming gradient is still multiplied (g * 0), so
// a non-finite upstream gradient stays visible as NaN, as for any other zero derivative.
//
// The rule takes p as the kernel does, converted to x's dtype (docs/OPS.md "Scalar arguments"): with
// the double p, 1e-50 (0 in F32) took the p != 0 branch and gave 0 * inf = NaN at x = 0, and
// 2^24 + 1 (2^24 in F32) gave p x^(p - 1) of another exponent.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_powf_scalar(const Tensor& x, double exponent) {
  const double p = autodiff_detail::in_dtype(exponent, dtype(x));
  return record<B>(B::float_powf_scalar(x.primitive, p), {&x}, [px = x.primitive, p](const Primitive& g) {
    if (p == 0.0) return std::vector<Primitive>{B::float_mul_scalar(g, 0.0)};
    return std::vector<Primitive>{B::float_mul(g, B::float_mul_scalar(B::float_powf_scalar(px, p - 1.0), p))};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_add_scalar(const Tensor& x, double s) {
  return record<B>(B::float_add_scalar(x.primitive, s), {&x},
                   [](const Primitive& g) { return std::vector<Primitive>{g}; });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_mul_scalar(const Tensor& x, double s) {
  return record<B>(B::float_mul_scalar(x.primitive, s), {&x},
                   [s](const Primitive& g) { return std::vector<Primitive>{B::float_mul_scalar(g, s)}; });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_sum(const Tensor& x) {
  return record<B>(B::float_sum(x.primitive), {&x}, [sx = shape(x)](const Primitive& g) {
    return std::vector<Primitive>{autodiff_detail::expand_to_shape<B>(g, sx)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_mean(const Tensor& x) {
  return record<B>(B::float_mean(x.primitive), {&x}, [sx = shape(x)](const Primitive& g) {
    const double n = static_cast<double>(sx.num_elements());
    return std::vector<Primitive>{B::float_mul_scalar(autodiff_detail::expand_to_shape<B>(g, sx), 1.0 / n)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_sum_dim(const Tensor& x, std::size_t dim) {
  return record<B>(B::float_sum_dim(x.primitive, dim), {&x}, [sx = shape(x)](const Primitive& g) {
    return std::vector<Primitive>{autodiff_detail::expand_to_shape<B>(g, sx)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_mean_dim(const Tensor& x, std::size_t dim) {
  return record<B>(B::float_mean_dim(x.primitive, dim), {&x}, [sx = shape(x), dim](const Primitive& g) {
    const double n = static_cast<double>(sx[dim]);
    return std::vector<Primitive>{B::float_mul_scalar(autodiff_detail::expand_to_shape<B>(g, sx), 1.0 / n)};
  });
}

namespace autodiff_detail {

// The products of the other elements along `dim`: prod_{j != i} x_j = (prod_{j < i} x_j) *
// (prod_{j > i} x_j), each side an exclusive scan by doubling (Hillis-Steele: log2(len) passes of
// slice, cat and mul). No division by x_i, so zeros get their true gradient: one zero gets the
// product of the others, the rest 0; two zeros give 0 everywhere (IEEE: NaN where an inf or NaN
// is among the others). Also right where dividing the product by x_i would not be: the product
// overflows or underflows but the others' does not.
template <class B>
typename B::Tensor products_of_others(const typename B::Tensor& x, std::size_t dim) {
  using Primitive = typename B::Tensor;
  const Shape s = B::shape(x);
  const std::size_t len = s[dim];
  if (len <= 1) return B::float_full(s, 1.0, B::dtype(x), B::device(x));
  // p shifted by k along dim, with 1s in the k places it leaves: towards higher indices
  // (`up`: p_{i-k}) or lower ones (p_{i+k}).
  auto shifted = [&](const Primitive& p, std::size_t k, bool up) {
    std::vector<Range> keep(dim + 1);
    for (std::size_t d = 0; d < dim; ++d) keep[d] = Range{0, s[d]};
    keep[dim] = up ? Range{0, len - k} : Range{k, len};
    std::vector<std::size_t> pad_dims = s.dims();
    pad_dims[dim] = k;
    const Primitive ones = B::float_full(Shape(std::move(pad_dims)), 1.0, B::dtype(x), B::device(x));
    const Primitive kept = B::float_slice(p, keep);
    return up ? B::float_cat({ones, kept}, dim) : B::float_cat({kept, ones}, dim);
  };
  auto exclusive_scan = [&](bool up) {
    Primitive p = shifted(x, 1, up);
    for (std::size_t k = 1; k < len; k *= 2) p = B::float_mul(p, shifted(p, k, up));
    return p;
  };
  return B::float_mul(exclusive_scan(true), exclusive_scan(false));
}

// g * products_of_others(x), in double whatever the dtype (as the forward product): an F32 lane
// whose partial products leave F32's range in the scan's order (tiny factors first: 4.2e-45 *
// 0.25 * 0.25 is 0 in F32) still gets its others' product, rounded once to F32 at the end.
template <class B>
typename B::Tensor prod_gradient(const typename B::Tensor& g, const typename B::Tensor& x, std::size_t dim) {
  const DType dt = B::dtype(x);
  if (dt == DType::F64) return B::float_mul(g, products_of_others<B>(x, dim));
  const typename B::Tensor others = products_of_others<B>(B::float_cast(x, DType::F64), dim);
  return B::float_cast(B::float_mul(B::float_cast(g, DType::F64), others), dt);
}

}  // namespace autodiff_detail

// d(prod x)/dx_i = the product of the other elements (products_of_others), times g.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_prod(const Tensor& x) {
  return record<B>(B::float_prod(x.primitive), {&x}, [px = x.primitive](const Primitive& g) {
    const Shape sx = B::shape(px);
    const Primitive flat = B::float_reshape(px, Shape(std::vector<std::size_t>{sx.num_elements()}));
    return std::vector<Primitive>{B::float_reshape(autodiff_detail::prod_gradient<B>(g, flat, 0), sx)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_prod_dim(const Tensor& x, std::size_t dim) {
  return record<B>(B::float_prod_dim(x.primitive, dim), {&x}, [px = x.primitive, dim](const Primitive& g) {
    return std::vector<Primitive>{autodiff_detail::prod_gradient<B>(g, px, dim)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_reshape(const Tensor& x, const Shape& s) {
  return record<B>(B::float_reshape(x.primitive, s), {&x},
                   [sx = shape(x)](const Primitive& g) { return std::vector<Primitive>{B::float_reshape(g, sx)}; });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_swap_dims(const Tensor& x, std::size_t d0, std::size_t d1) {
  return record<B>(B::float_swap_dims(x.primitive, d0, d1), {&x}, [d0, d1](const Primitive& g) {
    return std::vector<Primitive>{B::float_swap_dims(g, d0, d1)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_cast(const Tensor& x, DType to) {
  const DType from = dtype(x);
  return record<B>(B::float_cast(x.primitive, to), {&x},
                   [from](const Primitive& g) { return std::vector<Primitive>{B::float_cast(g, from)}; });
}

}  // namespace crossgrad
