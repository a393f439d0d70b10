#pragma once
// The backward rules of the element-wise math ops of issue 36 (docs/OPS.md "Op semantics"), once
// for every backend in terms of B's forward ops, in PyTorch's formulas except where noted (a
// product of two factors for 1 - x^2, which keeps its digits near |x| = 1).
// Included by autodiff/definitions.hpp only.
#include "autodiff/autodiff_impl.hpp"
#include "ops/activation_backward.hpp"

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

// remainder(x, s) = x - floor(x / s) s: d/dx = 1 (PyTorch's rule; the jumps at multiples of s are
// not differentiated).
template <class B>
AutodiffTensor<B> Autodiff<B>::float_remainder_scalar(const Tensor& x, double s) {
  return record<B>(B::float_remainder_scalar(x.primitive, s), {&x}, [](const Primitive& g) { return std::vector<Primitive>{g}; });
}

// remainder(a, b) = a - floor(a / b) b: d/da = 1, d/db = -floor(a / b) (PyTorch's rule), each summed
// back to its operand's shape. The floor is ATen's floor division (c10::div_floor_floating), which
// agrees with the forward's remainder: (a - r) / b rounded to the nearest integer, r the result;
// floor(a / b) alone is one too large where a / b rounds up to an integer (1 / 0.1 = 10, floor
// division 9). A zero quotient takes the sign of a / b, as ATen's copysign(0, a / b): the rounded
// quotient's zero is made -0 (-((-q) + 0), the identity on every other value), then (a * 0) / b, a
// zero of that sign, is added (-0 + z = z; q + z = q for q != 0, also for q = +-inf). NaN where b
// is +-0 or +-inf with a of the other sign (docs/OPS.md, remainder-divisor-gradient-edges).
template <class B>
AutodiffTensor<B> Autodiff<B>::float_remainder(const Tensor& a, const Tensor& b) {
  Primitive out = B::float_remainder(a.primitive, b.primitive);
  auto rule = [pa = a.primitive, pb = b.primitive, out](const Primitive& g) {
    using autodiff_detail::reduce_to_shape;
    // a - y overflows where a is near the dtype's largest value and y has the other sign
    // (DBL_MAX % -1e300: a - y is 1.797693e308 + 5.2e299); there the halves are subtracted and the
    // quotient doubled, exact scalings of the same value.
    const Primitive difference = B::float_sub(pa, out);
    const Primitive halved = B::float_mul_scalar(
        B::float_div(B::float_sub(B::float_mul_scalar(pa, 0.5), B::float_mul_scalar(out, 0.5)), pb), 2.0);
    const Primitive rounded =
        B::float_round(B::float_mask_where(B::float_div(difference, pb), B::float_is_inf(difference), halved));
    const Primitive minus_zero = B::float_neg(B::float_add_scalar(B::float_neg(rounded), 0.0));
    const Primitive q = B::float_add(minus_zero, B::float_div(B::float_mul_scalar(pa, 0.0), pb));
    return std::vector<Primitive>{reduce_to_shape<B>(g, B::shape(pa)),
                                  reduce_to_shape<B>(B::float_neg(B::float_mul(g, q)), B::shape(pb))};
  };
  return record<B>(std::move(out), {&a, &b}, std::move(rule));
}

// a^b: d/da = b a^(b-1), d/db = a^b log(a) (PyTorch's pow_backward_self / pow_backward_exponent),
// per element as float_powf_scalar's rule (docs/OPS.md "powf_scalar backward"):
// - where b = 0 the base's derivative is g * 0 (a^0 = 1 everywhere), also at a = 0 where the formula
//   would give 0 * inf: the power is taken with exponent b - 1 + [b == 0], i.e. a^0 = 1 there;
// - where a = 0 and b >= 0 the exponent's derivative is 0 (PyTorch's where(a == 0 & b >= 0, 0, ..)),
//   where y log(a) would be 1 * -inf or 0 * -inf: the log is taken of a + [a == 0 & b >= 0], log 1 = 0.
// Each is summed back to its operand's shape.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_powf(const Tensor& a, const Tensor& b) {
  Primitive out = B::float_powf(a.primitive, b.primitive);
  auto rule = [pa = a.primitive, pb = b.primitive, out](const Primitive& g) {
    using autodiff_detail::reduce_to_shape;
    const DType dt = B::dtype(pa);
    const auto zeros_like = [dt](const Primitive& p) { return B::float_full(B::shape(p), 0.0, dt, B::device(p)); };
    const Primitive b_zero = B::bool_into_float(B::float_equal(pb, zeros_like(pb)), dt);
    const Primitive exponent = B::float_add(B::float_add_scalar(pb, -1.0), b_zero);
    // + 0.0: where b = -0 the product is -0; a derivative of zero is +0 (docs/OPS.md "Zero gradients are +0").
    const Primitive da = B::float_add_scalar(B::float_mul(g, B::float_mul(pb, B::float_powf(pa, exponent))), 0.0);
    const Primitive a_zero = B::bool_into_float(B::float_equal(pa, zeros_like(pa)), dt);
    const Primitive b_nonneg = B::float_add_scalar(B::float_neg(B::bool_into_float(B::float_greater_scalar(B::float_neg(pb), 0.0), dt)), 1.0);
    const Primitive log_arg = B::float_add(pa, B::float_mul(a_zero, b_nonneg));
    const Primitive db = B::float_mul(g, B::float_mul(out, B::float_log(log_arg)));
    return std::vector<Primitive>{reduce_to_shape<B>(da, B::shape(pa)), reduce_to_shape<B>(db, B::shape(pb))};
  };
  return record<B>(std::move(out), {&a, &b}, std::move(rule));
}

// atan2(a, b): d/da = b / (a^2 + b^2), d/db = -a / (a^2 + b^2), as PyTorch's atan2_backward:
// (g * b) * r and (g * -a) * r with r = 1 / (a * a + b * b); NaN at a = b = 0, 0 where a^2 + b^2
// overflows.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_atan2(const Tensor& a, const Tensor& b) {
  return record<B>(B::float_atan2(a.primitive, b.primitive), {&a, &b}, [pa = a.primitive, pb = b.primitive](const Primitive& g) {
    using autodiff_detail::reduce_to_shape;
    const Primitive r = B::float_recip(B::float_add(B::float_mul(pa, pa), B::float_mul(pb, pb)));
    return std::vector<Primitive>{reduce_to_shape<B>(B::float_mul(B::float_mul(g, pb), r), B::shape(pa)),
                                  reduce_to_shape<B>(B::float_mul(B::float_mul(g, B::float_neg(pa)), r), B::shape(pb))};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_clamp_min(const Tensor& x, double min) {
  return autodiff_detail::one_bound_clamp<B>(x, min, true);
}
template <class B>
AutodiffTensor<B> Autodiff<B>::float_clamp_max(const Tensor& x, double max) {
  return autodiff_detail::one_bound_clamp<B>(x, max, false);
}

// The activations (Burn's ActivationOps, docs/OPS.md).

// d/dx log_sigmoid x = sigmoid(-x) (= 1 - sigmoid(x), without its cancellation for x > 0).
template <class B>
AutodiffTensor<B> Autodiff<B>::log_sigmoid(const Tensor& x) {
  return autodiff_detail::unary_rule<B>(x, [](const Primitive& p) { return B::log_sigmoid(p); },
                                        [](const Primitive& g, const Primitive& p) { return activation_backward::log_sigmoid<B>(p, g); });
}

// activation_backward::gelu (ops/activation_backward.hpp): Phi(x) + x phi(x).
template <class B>
AutodiffTensor<B> Autodiff<B>::gelu(const Tensor& x) {
  return autodiff_detail::unary_rule<B>(x, [](const Primitive& p) { return B::gelu(p); },
                                        [](const Primitive& g, const Primitive& p) { return activation_backward::gelu<B>(p, g); });
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

// prelu: leaky_relu with a slope tensor a (broadcast). d/dx is leaky_relu's factor with the slope
// tensor, prelu(2 mask - 1, -a): 1 where x > 0, a elsewhere, exactly for every a; d/da is x where
// x <= 0 (also NaN), 0 above: -relu(-x). Each reduced to its operand's shape; + 0.0 makes zero
// gradients +0.
template <class B>
AutodiffTensor<B> Autodiff<B>::prelu(const Tensor& x, const Tensor& a) {
  return record<B>(B::prelu(x.primitive, a.primitive), {&x, &a}, [px = x.primitive, pa = a.primitive](const Primitive& g) {
    using autodiff_detail::reduce_to_shape;
    const Primitive mask = B::bool_into_float(B::float_greater_scalar(px, 0.0), B::dtype(px));
    const Primitive factor = B::prelu(B::float_add_scalar(B::float_mul_scalar(mask, 2.0), -1.0), B::float_neg(pa));
    const Primitive below = B::float_neg(B::relu(B::float_neg(px)));
    return std::vector<Primitive>{reduce_to_shape<B>(B::float_add_scalar(B::float_mul(g, factor), 0.0), B::shape(px)),
                                  reduce_to_shape<B>(B::float_add_scalar(B::float_mul(g, below), 0.0), B::shape(pa))};
  });
}

// hypot(a, b) = h: d/da = a / h, d/db = b / h (each at most 1 in size, so g * (a / h) cannot
// overflow where g does not); NaN at a = b = 0, where h has no derivative (0 / 0), as PyTorch's.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_hypot(const Tensor& a, const Tensor& b) {
  Primitive h = B::float_hypot(a.primitive, b.primitive);
  auto rule = [pa = a.primitive, pb = b.primitive, h](const Primitive& g) {
    using autodiff_detail::reduce_to_shape;
    return std::vector<Primitive>{reduce_to_shape<B>(B::float_mul(g, B::float_div(pa, h)), B::shape(pa)),
                                  reduce_to_shape<B>(B::float_mul(g, B::float_div(pb, h)), B::shape(pb))};
  };
  return record<B>(std::move(h), {&a, &b}, std::move(rule));
}

// d/dx clamp(alpha x + beta, 0, 1) = alpha where 0 <= alpha x + beta <= 1 (the clamp's bounds
// included, as float_clamp's rule and Burn's composition give), +0 where it was clamped; a NaN
// inside passes g * alpha, as clamp passes a NaN's gradient.
template <class B>
AutodiffTensor<B> Autodiff<B>::hard_sigmoid(const Tensor& x, double alpha, double beta) {
  return record<B>(B::hard_sigmoid(x.primitive, alpha, beta), {&x}, [px = x.primitive, alpha, beta](const Primitive& g) {
    const Primitive t = B::float_add_scalar(B::float_mul_scalar(px, alpha), beta);
    const Primitive slope = B::float_mul_scalar(g, alpha);
    const Primitive above = B::float_mask_fill(slope, B::float_greater_scalar(t, 1.0), 0.0);
    return std::vector<Primitive>{B::float_mask_fill(above, B::float_lower_elem(t, 0.0), 0.0)};
  });
}

// sum(g . (a x b)) = sum(a . (b x g)) = sum(b . (g x a)) (the triple product is cyclic): da = b x g,
// db = g x a, each summed back over the dims it was broadcast along; + 0.0 makes a zero +0 (docs/OPS.md
// "Zero gradients are +0"; b1 g2 - b2 g1 is -0 for b = (-0, 0, NaN) .. at g = (0, 1, -0)).
template <class B>
AutodiffTensor<B> Autodiff<B>::float_cross(const Tensor& a, const Tensor& b, std::size_t dim) {
  return record<B>(B::float_cross(a.primitive, b.primitive, dim), {&a, &b},
                   [pa = a.primitive, pb = b.primitive, dim](const Primitive& g) {
                     using autodiff_detail::reduce_to_shape;
                     return std::vector<Primitive>{
                         reduce_to_shape<B>(B::float_add_scalar(B::float_cross(pb, g, dim), 0.0), B::shape(pa)),
                         reduce_to_shape<B>(B::float_add_scalar(B::float_cross(g, pa, dim), 0.0), B::shape(pb))};
                   });
}

}  // namespace crossgrad
