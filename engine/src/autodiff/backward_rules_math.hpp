#pragma once
// The backward rules of the element-wise math ops of issue 36 (docs/OPS.md "Op semantics"), once
// for every backend in terms of B's forward ops, in PyTorch's formulas except where noted (a
// product of two factors for 1 - x^2, which keeps its digits near |x| = 1).
// Included by instantiate.cpp only.
#include "autodiff/autodiff_impl.hpp"

#include <cmath>
#include <numbers>

namespace crossgrad {
using autodiff_detail::record;

namespace autodiff_detail {

// g * f(x) for a unary op whose derivative f is formed from x with B's forward ops.
template <class B, class Forward, class Derivative>
AutodiffTensor<B> unary_rule(const AutodiffTensor<B>& x, Forward forward, Derivative derivative) {
  using Primitive = typename B::Tensor;
  return record<B>(forward(x.primitive), {&x}, [px = x.primitive, derivative](const Primitive& g) {
    return std::vector<Primitive>{derivative(g, px)};
  });
}

// The rounding ops and sign: the derivative is 0 where it exists and taken as 0 at the jumps, and
// the gradient is +0 everywhere, whatever g is (also -g, inf and NaN: zeros of x's shape, as
// PyTorch's zeros_like; docs/OPS.md "Zero gradients are +0").
template <class B, class Forward>
AutodiffTensor<B> zero_gradient_rule(const AutodiffTensor<B>& x, Forward forward) {
  using Primitive = typename B::Tensor;
  const Primitive& px = x.primitive;
  return record<B>(forward(px), {&x}, [shape = B::shape(px), dtype = B::dtype(px), device = B::device(px)](const Primitive&) {
    return std::vector<Primitive>{B::float_full(shape, 0.0, dtype, device)};
  });
}

// (1 - x)(1 + x) = 1 - x^2 without the cancellation of 1 - x*x near |x| = 1.
template <class B, class P>
P one_minus_square(const P& x) {
  return B::float_mul(B::float_add_scalar(B::float_neg(x), 1.0), B::float_add_scalar(x, 1.0));
}

}  // namespace autodiff_detail

// d/dx cos x = -sin x.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_cos(const Tensor& x) {
  return autodiff_detail::unary_rule<B>(x, [](const Primitive& p) { return B::float_cos(p); },
                                        [](const Primitive& g, const Primitive& p) { return B::float_mul(g, B::float_neg(B::float_sin(p))); });
}

// d/dx sin x = cos x.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_sin(const Tensor& x) {
  return autodiff_detail::unary_rule<B>(x, [](const Primitive& p) { return B::float_sin(p); },
                                        [](const Primitive& g, const Primitive& p) { return B::float_mul(g, B::float_cos(p)); });
}

// d/dx tan x = 1 + tan^2 x, from the result (PyTorch's form).
template <class B>
AutodiffTensor<B> Autodiff<B>::float_tan(const Tensor& x) {
  Primitive out = B::float_tan(x.primitive);
  auto rule = [out](const Primitive& g) {
    return std::vector<Primitive>{B::float_mul(g, B::float_add_scalar(B::float_mul(out, out), 1.0))};
  };
  return record<B>(std::move(out), {&x}, std::move(rule));
}

// d/dx cosh x = sinh x.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_cosh(const Tensor& x) {
  return autodiff_detail::unary_rule<B>(x, [](const Primitive& p) { return B::float_cosh(p); },
                                        [](const Primitive& g, const Primitive& p) { return B::float_mul(g, B::float_sinh(p)); });
}

// d/dx sinh x = cosh x.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_sinh(const Tensor& x) {
  return autodiff_detail::unary_rule<B>(x, [](const Primitive& p) { return B::float_sinh(p); },
                                        [](const Primitive& g, const Primitive& p) { return B::float_mul(g, B::float_cosh(p)); });
}

// d/dx acos x = -1 / sqrt(1 - x^2): -inf at +-1, NaN outside [-1, 1].
template <class B>
AutodiffTensor<B> Autodiff<B>::float_acos(const Tensor& x) {
  return autodiff_detail::unary_rule<B>(x, [](const Primitive& p) { return B::float_acos(p); }, [](const Primitive& g, const Primitive& p) {
    return B::float_neg(B::float_div(g, B::float_sqrt(autodiff_detail::one_minus_square<B>(p))));
  });
}

// d/dx acosh x = 1 / sqrt(x^2 - 1), Burn's and PyTorch's form: finite also below -1, where acosh
// itself is NaN (sqrt(x - 1) sqrt(x + 1) would give NaN there: property.torch_differential found
// the difference), and 0 where x^2 overflows (beyond about 1.8e19 in F32, 1.3e154 in F64).
template <class B>
AutodiffTensor<B> Autodiff<B>::float_acosh(const Tensor& x) {
  return autodiff_detail::unary_rule<B>(x, [](const Primitive& p) { return B::float_acosh(p); }, [](const Primitive& g, const Primitive& p) {
    return B::float_div(g, B::float_sqrt(B::float_add_scalar(B::float_mul(p, p), -1.0)));
  });
}

// d/dx asin x = 1 / sqrt(1 - x^2).
template <class B>
AutodiffTensor<B> Autodiff<B>::float_asin(const Tensor& x) {
  return autodiff_detail::unary_rule<B>(x, [](const Primitive& p) { return B::float_asin(p); }, [](const Primitive& g, const Primitive& p) {
    return B::float_div(g, B::float_sqrt(autodiff_detail::one_minus_square<B>(p)));
  });
}

// d/dx asinh x = 1 / sqrt(x^2 + 1) (PyTorch's form).
template <class B>
AutodiffTensor<B> Autodiff<B>::float_asinh(const Tensor& x) {
  return autodiff_detail::unary_rule<B>(x, [](const Primitive& p) { return B::float_asinh(p); }, [](const Primitive& g, const Primitive& p) {
    return B::float_div(g, B::float_sqrt(B::float_add_scalar(B::float_mul(p, p), 1.0)));
  });
}

// d/dx atan x = 1 / (1 + x^2) (PyTorch's form).
template <class B>
AutodiffTensor<B> Autodiff<B>::float_atan(const Tensor& x) {
  return autodiff_detail::unary_rule<B>(x, [](const Primitive& p) { return B::float_atan(p); }, [](const Primitive& g, const Primitive& p) {
    return B::float_div(g, B::float_add_scalar(B::float_mul(p, p), 1.0));
  });
}

// d/dx atanh x = 1 / (1 - x^2): +-inf at +-1.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_atanh(const Tensor& x) {
  return autodiff_detail::unary_rule<B>(x, [](const Primitive& p) { return B::float_atanh(p); }, [](const Primitive& g, const Primitive& p) {
    return B::float_div(g, autodiff_detail::one_minus_square<B>(p));
  });
}

// d/dx erf x = 2 / sqrt(pi) exp(-x^2).
template <class B>
AutodiffTensor<B> Autodiff<B>::float_erf(const Tensor& x) {
  return autodiff_detail::unary_rule<B>(x, [](const Primitive& p) { return B::float_erf(p); }, [](const Primitive& g, const Primitive& p) {
    const Primitive e = B::float_exp(B::float_neg(B::float_mul(p, p)));
    return B::float_mul(g, B::float_mul_scalar(e, 2 * std::numbers::inv_sqrtpi));
  });
}

// d/dx 1/x = -1/x^2 = -y^2, as -(g * (y * y)) (PyTorch's form).
template <class B>
AutodiffTensor<B> Autodiff<B>::float_recip(const Tensor& x) {
  Primitive out = B::float_recip(x.primitive);
  auto rule = [out](const Primitive& g) { return std::vector<Primitive>{B::float_neg(B::float_mul(g, B::float_mul(out, out)))}; };
  return record<B>(std::move(out), {&x}, std::move(rule));
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_round(const Tensor& x) {
  return autodiff_detail::zero_gradient_rule<B>(x, [](const Primitive& p) { return B::float_round(p); });
}
template <class B>
AutodiffTensor<B> Autodiff<B>::float_floor(const Tensor& x) {
  return autodiff_detail::zero_gradient_rule<B>(x, [](const Primitive& p) { return B::float_floor(p); });
}
template <class B>
AutodiffTensor<B> Autodiff<B>::float_ceil(const Tensor& x) {
  return autodiff_detail::zero_gradient_rule<B>(x, [](const Primitive& p) { return B::float_ceil(p); });
}
template <class B>
AutodiffTensor<B> Autodiff<B>::float_trunc(const Tensor& x) {
  return autodiff_detail::zero_gradient_rule<B>(x, [](const Primitive& p) { return B::float_trunc(p); });
}
template <class B>
AutodiffTensor<B> Autodiff<B>::float_sign(const Tensor& x) {
  return autodiff_detail::zero_gradient_rule<B>(x, [](const Primitive& p) { return B::float_sign(p); });
}

// x - s: d/dx = 1.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_sub_scalar(const Tensor& x, double s) {
  return record<B>(B::float_sub_scalar(x.primitive, s), {&x}, [](const Primitive& g) { return std::vector<Primitive>{g}; });
}

// x / s: d/dx = 1 / s, as g / s (PyTorch's form), s converted to the dtype as in the forward.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_div_scalar(const Tensor& x, double s) {
  return record<B>(B::float_div_scalar(x.primitive, s), {&x},
                   [s](const Primitive& g) { return std::vector<Primitive>{B::float_div_scalar(g, s)}; });
}

namespace autodiff_detail {

// clamp_min / clamp_max: float_clamp's rule with one bound. g where the value is x (the bound itself
// included, and a NaN x, which passes through), +0 where it is the bound: g * kept + 0, so a
// masked-out zero is +0 (docs/OPS.md "Zero gradients are +0"). A NaN bound gives NaN everywhere,
// a value that does not depend on x: +0 everywhere (zeros of x's shape, never g * 0).
template <class B>
AutodiffTensor<B> one_bound_clamp(const AutodiffTensor<B>& x, double bound, bool is_min) {
  using Primitive = typename B::Tensor;
  const Primitive& px = x.primitive;
  Primitive out = is_min ? B::float_clamp_min(px, bound) : B::float_clamp_max(px, bound);
  return record<B>(std::move(out), {&x}, [px, bound, is_min](const Primitive& g) {
    const DType dt = B::dtype(px);
    if (std::isnan(bound)) return std::vector<Primitive>{B::float_full(B::shape(px), 0.0, dt, B::device(px))};
    // Clamped: x < min (as -x > -min) or x > max; false for a NaN x.
    const Primitive clamped = is_min ? B::bool_into_float(B::float_greater_scalar(B::float_neg(px), -bound), dt)
                                     : B::bool_into_float(B::float_greater_scalar(px, bound), dt);
    const Primitive kept = B::float_add_scalar(B::float_neg(clamped), 1.0);
    return std::vector<Primitive>{B::float_add_scalar(B::float_mul(g, kept), 0.0)};
  });
}

}  // namespace autodiff_detail

template <class B>
AutodiffTensor<B> Autodiff<B>::float_clamp_min(const Tensor& x, double min) {
  return autodiff_detail::one_bound_clamp<B>(x, min, true);
}
template <class B>
AutodiffTensor<B> Autodiff<B>::float_clamp_max(const Tensor& x, double max) {
  return autodiff_detail::one_bound_clamp<B>(x, max, false);
// The activations (Burn's ActivationOps, docs/OPS.md).

// d/dx log_sigmoid x = sigmoid(-x) (= 1 - sigmoid(x), without its cancellation for x > 0).
template <class B>
AutodiffTensor<B> Autodiff<B>::log_sigmoid(const Tensor& x) {
  return autodiff_detail::unary_rule<B>(x, [](const Primitive& p) { return B::log_sigmoid(p); },
                                        [](const Primitive& g, const Primitive& p) { return B::float_mul(g, B::sigmoid(B::float_neg(p))); });
}

// d/dx gelu x = Phi(x) + x phi(x), in PyTorch's form: cdf = (1 + erf(x / sqrt 2)) / 2, pdf =
// exp(-x^2 / 2) / sqrt(2 pi), g * (cdf + x * pdf).
template <class B>
AutodiffTensor<B> Autodiff<B>::gelu(const Tensor& x) {
  return autodiff_detail::unary_rule<B>(x, [](const Primitive& p) { return B::gelu(p); }, [](const Primitive& g, const Primitive& p) {
    const Primitive cdf = B::float_mul_scalar(B::float_add_scalar(B::float_erf(B::float_mul_scalar(p, std::numbers::sqrt2 / 2)), 1.0), 0.5);
    const Primitive pdf = B::float_mul_scalar(B::float_exp(B::float_mul_scalar(B::float_mul(p, p), -0.5)),
                                              std::numbers::inv_sqrtpi / std::numbers::sqrt2);
    return B::float_mul(g, B::float_add(cdf, B::float_mul(p, pdf)));
  });
}

// d/dx leaky_relu x = 1 above 0, the slope s elsewhere (PyTorch's x > 0 mask). The factor is
// leaky_relu(2 mask - 1, -s): 1 where x > 0, -1 * -s = s elsewhere, exactly, for every s (also
// +-inf and NaN, where a blend like mask + (1 - mask) s would give 0 * inf = NaN above 0). + 0.0:
// a zero gradient is +0 (docs/OPS.md "Zero gradients are +0"), as relu's.
template <class B>
AutodiffTensor<B> Autodiff<B>::leaky_relu(const Tensor& x, double negative_slope) {
  return record<B>(B::leaky_relu(x.primitive, negative_slope), {&x}, [px = x.primitive, negative_slope](const Primitive& g) {
    const Primitive mask = B::bool_into_float(B::float_greater_scalar(px, 0.0), B::dtype(px));
    const Primitive factor = B::leaky_relu(B::float_add_scalar(B::float_mul_scalar(mask, 2.0), -1.0), -negative_slope);
    return std::vector<Primitive>{B::float_add_scalar(B::float_mul(g, factor), 0.0)};
  });
}

}  // namespace crossgrad
