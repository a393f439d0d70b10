#pragma once
// Backward rules of the element-selecting, indexing, layout and normalising ops (abs, clamp,
// max_dim, min_dim, max, min, max_abs, max_abs_dim, cat, slice, select, select_assign /
// select_add, slice_assign, gather, scatter_add, scatter, gather_nd, scatter_nd, mask_select, sort,
// topk, mask_where, mask_fill, repeat_dim, unfold, permute, expand, softmax, log_softmax), written
// once for every backend in terms of B's forward ops. The forward op runs first in each: it applies the
// shape rules, so a rule below never sees invalid arguments. Semantics: docs/OPS.md.
#include "autodiff/autodiff_impl.hpp"
#include "backends/composite_ops.hpp"

#include <numeric>
#include <optional>

namespace crossgrad {
using autodiff_detail::record;

// d|x|/dx = sign(x): +1 above 0, -1 below, 0 at +-0 (and for NaN, whose value is NaN anyway).
template <class B>
AutodiffTensor<B> Autodiff<B>::float_abs(const Tensor& x) {
  return record<B>(B::float_abs(x.primitive), {&x}, [px = x.primitive](const Primitive& g) {
    const DType dt = B::dtype(px);
    const Primitive above = B::bool_into_float(B::float_greater_scalar(px, 0.0), dt);
    const Primitive below = B::bool_into_float(B::float_greater_scalar(B::float_neg(px), 0.0), dt);
    return std::vector<Primitive>{B::float_mul(g, B::float_sub(above, below))};
  });
}

// 1 where min <= x <= max (the bounds themselves included, as in Burn and PyTorch), 0 where the
// value was clamped; a NaN x passes through unclamped, and so does its gradient.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_clamp(const Tensor& x, double min, double max) {
  return record<B>(B::float_clamp(x.primitive, min, max), {&x}, [px = x.primitive, min, max](const Primitive& g) {
    const DType dt = B::dtype(px);
    const Primitive above = B::bool_into_float(B::float_greater_scalar(px, max), dt);
    const Primitive below = B::bool_into_float(B::float_greater_scalar(B::float_neg(px), -min), dt);
    const Primitive kept = B::float_add_scalar(B::float_neg(B::float_add(above, below)), 1.0);
    // + 0.0: a clamped-away zero is +0 (docs/OPS.md "Zero gradients are +0"), as relu's.
    return std::vector<Primitive>{B::float_add_scalar(B::float_mul(g, kept), 0.0)};
  });
}

namespace autodiff_detail {

// g split evenly among the elements of `values` equal to their lane's kept extreme `out`, along
// `dim`, or over the flat `values` (one lane, `out` of shape [1]) without a dim. Ties share it, so
// the rule does not depend on which index argmax would pick. A NaN extreme equals nothing: its
// lane gets 0 * (g / 0) = NaN, so the non-finite input stays visible in the gradient.
template <class B>
typename B::Tensor split_among_equal(const typename B::Tensor& values, const typename B::Tensor& out,
                                     const typename B::Tensor& g, std::optional<std::size_t> dim) {
  const typename B::Tensor hit = B::bool_into_float(B::float_equal(values, out), B::dtype(values));
  const typename B::Tensor count = dim ? B::float_sum_dim(hit, *dim) : B::float_sum(hit);
  return B::float_mul(hit, B::float_div(g, count));
}

// The rule of max_dim and min_dim (along `dim`), of max and min (no dim: the flat tensor, the
// gradient reshaped back), and with `magnitude` of max_abs_dim and max_abs: y = max |x|, so the
// share of each element whose |x| is the maximum times d|x|/dx = sign(x). An x and a -x both at the
// maximum share it with opposite signs (max_abs([-2, 2]) gives [-g/2, g/2], as amax(abs(x)) in
// PyTorch); a maximum of 0 gives 0 (sign(0) = 0).
template <class B>
AutodiffTensor<B> record_extreme(const AutodiffTensor<B>& x, typename B::Tensor out, std::optional<std::size_t> dim,
                                 bool magnitude = false) {
  using Primitive = typename B::Tensor;
  const Primitive px = x.primitive;
  auto rule = [px, out, dim, magnitude](const Primitive& g) {
    const Shape sx = B::shape(px);
    const Primitive v = dim ? px : B::float_reshape(px, Shape(std::vector<std::size_t>{sx.num_elements()}));
    const Primitive share = split_among_equal<B>(magnitude ? B::float_abs(v) : v, out, g, dim);
    const Primitive grad = magnitude ? B::float_mul(share, B::float_sign(v)) : share;
    return std::vector<Primitive>{dim ? grad : B::float_reshape(grad, sx)};
  };
  return record<B>(std::move(out), {&x}, std::move(rule));
}

}  // namespace autodiff_detail

template <class B>
AutodiffTensor<B> Autodiff<B>::float_max_dim(const Tensor& x, std::size_t dim) {
  return autodiff_detail::record_extreme<B>(x, B::float_max_dim(x.primitive, dim), dim);
}
template <class B>
AutodiffTensor<B> Autodiff<B>::float_min_dim(const Tensor& x, std::size_t dim) {
  return autodiff_detail::record_extreme<B>(x, B::float_min_dim(x.primitive, dim), dim);
}
template <class B>
AutodiffTensor<B> Autodiff<B>::float_max(const Tensor& x) {
  return autodiff_detail::record_extreme<B>(x, B::float_max(x.primitive), std::nullopt);
}
template <class B>
AutodiffTensor<B> Autodiff<B>::float_min(const Tensor& x) {
  return autodiff_detail::record_extreme<B>(x, B::float_min(x.primitive), std::nullopt);
}
template <class B>
AutodiffTensor<B> Autodiff<B>::float_max_abs_dim(const Tensor& x, std::size_t dim) {
  return autodiff_detail::record_extreme<B>(x, B::float_max_abs_dim(x.primitive, dim), dim, /*magnitude=*/true);
}
template <class B>
AutodiffTensor<B> Autodiff<B>::float_max_abs(const Tensor& x) {
  return autodiff_detail::record_extreme<B>(x, B::float_max_abs(x.primitive), std::nullopt, /*magnitude=*/true);
}

// Each input gets its own slice of the gradient along `dim`.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_cat(const std::vector<Tensor>& xs, std::size_t dim) {
  std::vector<Primitive> parts;
  std::vector<const Tensor*> inputs;
  for (const Tensor& x : xs) {
    parts.push_back(x.primitive);
    inputs.push_back(&x);
  }
  Primitive out = B::float_cat(parts, dim);
  std::vector<std::size_t> sizes;
  for (const Primitive& p : parts) sizes.push_back(B::shape(p)[dim]);
  const Shape so = B::shape(out);
  return record<B>(std::move(out), inputs, [sizes, so, dim](const Primitive& g) {
    std::vector<Primitive> grads;
    std::size_t offset = 0;
    for (std::size_t size : sizes) {
      std::vector<Range> ranges(dim + 1);
      for (std::size_t d = 0; d < dim; ++d) ranges[d] = Range{0, so[d]};
      ranges[dim] = Range{offset, offset + size};
      grads.push_back(B::float_slice(g, ranges));
      offset += size;
    }
    return grads;
  });
}

// The gradient padded back to the input's shape with zeros, one sliced dim at a time (cat of
// zeros, g, zeros), so no op beyond cat and full is needed.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_slice(const Tensor& x, const std::vector<Range>& ranges) {
  const Primitive px = x.primitive;
  Primitive out = B::float_slice(px, ranges);
  const Shape sx = B::shape(px);
  return record<B>(std::move(out), {&x}, [sx, ranges](const Primitive& g) {
    Primitive grad = g;
    for (std::size_t d = 0; d < ranges.size(); ++d) {
      const Range r = ranges[d];
      if (r.start == 0 && r.end == sx[d]) continue;
      std::vector<std::size_t> dims = B::shape(grad).dims();
      std::vector<Primitive> pieces;
      if (r.start > 0) {
        dims[d] = r.start;
        pieces.push_back(B::float_full(Shape(dims), 0.0, B::dtype(g), B::device(g)));
      }
      pieces.push_back(grad);
      if (r.end < sx[d]) {
        dims[d] = sx[d] - r.end;
        pieces.push_back(B::float_full(Shape(dims), 0.0, B::dtype(g), B::device(g)));
      }
      grad = B::float_cat(pieces, d);
    }
    return std::vector<Primitive>{grad};
  });
}

// Scatter-add: an index selected twice receives both gradients.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_select(const Tensor& x, std::size_t dim, const Primitive& indices) {
  const Primitive px = x.primitive;
  Primitive out = B::float_select(px, dim, indices);
  return record<B>(std::move(out), {&x}, [px, dim, indices](const Primitive& g) {
    const Primitive zeros = B::float_full(B::shape(px), 0.0, B::dtype(px), B::device(px));
    return std::vector<Primitive>{B::float_select_assign(zeros, dim, indices, g)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_select_assign(const Tensor& x, std::size_t dim, const Primitive& indices,
                                                   const Tensor& values) {
  Primitive out = B::float_select_assign(x.primitive, dim, indices, values.primitive);
  return record<B>(std::move(out), {&x, &values}, [dim, indices](const Primitive& g) {
    return std::vector<Primitive>{g, B::float_select(g, dim, indices)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_select_add(const Tensor& x, std::size_t dim, const Primitive& indices,
                                                const Tensor& values) {
  Primitive out = B::float_select_add(x.primitive, dim, indices, values.primitive);
  return record<B>(std::move(out), {&x, &values}, [dim, indices](const Primitive& g) {
    return std::vector<Primitive>{g, B::float_select(g, dim, indices)};
  });
}

// Scatter-add along dim: an element gathered twice receives both gradients.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_gather(const Tensor& x, std::size_t dim, const Primitive& indices) {
  const Primitive px = x.primitive;
  Primitive out = B::float_gather(px, dim, indices);
  return record<B>(std::move(out), {&x}, [px, dim, indices](const Primitive& g) {
    const Primitive zeros = B::float_full(B::shape(px), 0.0, B::dtype(px), B::device(px));
    return std::vector<Primitive>{B::float_scatter_add(zeros, dim, indices, g)};
  });
}

// The block's gradient goes to the values, the rest to the tensor (+0 where the block was).
template <class B>
AutodiffTensor<B> Autodiff<B>::float_slice_assign(const Tensor& x, const std::vector<Range>& ranges, const Tensor& values) {
  Primitive out = B::float_slice_assign(x.primitive, ranges, values.primitive);
  return record<B>(std::move(out), {&x, &values}, [ranges, pv = values.primitive](const Primitive& g) {
    const Primitive zeros = B::float_full(B::shape(pv), 0.0, B::dtype(pv), B::device(pv));
    return std::vector<Primitive>{B::float_slice_assign(g, ranges, zeros), B::float_slice(g, ranges)};
  });
}

// sort and topk move each kept element to a new place: its gradient goes back to the position
// float_argsort / float_argtopk name (recomputed from x when backward runs: the same order as the
// forward's), +0 where topk kept nothing. Ties are stable, so a gradient goes to the element the
// forward took, never split.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_sort(const Tensor& x, std::size_t dim, bool descending) {
  const Primitive px = x.primitive;
  Primitive out = B::float_sort(px, dim, descending);
  return record<B>(std::move(out), {&x}, [px, dim, descending](const Primitive& g) {
    const Primitive zeros = B::float_full(B::shape(px), 0.0, B::dtype(px), B::device(px));
    return std::vector<Primitive>{B::float_scatter_add(zeros, dim, B::float_argsort(px, dim, descending), g)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_topk(const Tensor& x, std::size_t dim, std::size_t k) {
  const Primitive px = x.primitive;
  Primitive out = B::float_topk(px, dim, k);
  return record<B>(std::move(out), {&x}, [px, dim, k](const Primitive& g) {
    const Primitive zeros = B::float_full(B::shape(px), 0.0, B::dtype(px), B::device(px));
    return std::vector<Primitive>{B::float_scatter_add(zeros, dim, B::float_argtopk(px, dim, k), g)};
  });
}

// The receiver's gradient passes; each value's is the gradient at the element it was added to.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_scatter_add(const Tensor& x, std::size_t dim, const Primitive& indices,
                                                 const Tensor& values) {
  Primitive out = B::float_scatter_add(x.primitive, dim, indices, values.primitive);
  return record<B>(std::move(out), {&x, &values}, [dim, indices](const Primitive& g) {
    return std::vector<Primitive>{g, B::float_gather(g, dim, indices)};
  });
}

namespace autodiff_detail {

// The gradients of a scatter with `update` Add or Assign, written once for float_scatter and
// float_scatter_nd: `scatter(t, v)` and `gather(t)` are the op's own pair (along dim, or by index
// rows). Add: g passes to the receiver and each value takes g where it landed. Assign: +0 where a
// value replaced the receiver's element, and a value takes g where it landed unless a later value
// overwrote it (+0): positions 1..n of the values (F64, exact to 2^53) are scattered the same way
// into zeros of the receiver's shape and gathered back; a value was kept where its own position
// came back.
template <class B, class Scatter, class Gather>
std::vector<typename B::Tensor> scatter_gradients(const typename B::Tensor& g, const Shape& target, const Shape& values,
                                                  IndexingUpdateOp update, Scatter&& scatter, Gather&& gather) {
  using P = typename B::Tensor;
  const P at_values = gather(g);
  if (update == IndexingUpdateOp::Add) return std::vector<P>{g, at_values};
  const Device device = B::device(g);
  std::vector<double> positions(values.num_elements());
  std::iota(positions.begin(), positions.end(), 1.0);
  const P at = B::from_data(TensorData::from_f64(std::move(positions), values), device);
  const P lost = B::float_not_equal(gather(scatter(B::float_full(target, 0.0, DType::F64, device), at)), at);
  const P zeros = B::float_full(values, 0.0, B::dtype(g), device);
  return std::vector<P>{scatter(g, zeros), B::float_mask_fill(at_values, lost, 0.0)};
}

}  // namespace autodiff_detail

// Add and Assign: scatter_gradients. Mul, Min and Max have no rule (scatter-update-gradient, after
// the forward op's own checks).
template <class B>
AutodiffTensor<B> Autodiff<B>::float_scatter(const Tensor& x, std::size_t dim, const Primitive& indices,
                                             const Tensor& values, IndexingUpdateOp update) {
  Primitive out = B::float_scatter(x.primitive, dim, indices, values.primitive, update);
  rules::check_scatter_update_tracked(update, "float_scatter");
  return record<B>(std::move(out), {&x, &values}, [dim, indices, update, sx = shape(x), sv = shape(values)](const Primitive& g) {
    return autodiff_detail::scatter_gradients<B>(
        g, sx, sv, update, [&](const Primitive& t, const Primitive& v) { return B::float_scatter(t, dim, indices, v, update); },
        [&](const Primitive& t) { return B::float_gather(t, dim, indices); });
  });
}

// Each gathered element's gradient goes back to where it came from, added in index-row order.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_gather_nd(const Tensor& x, const Primitive& indices) {
  const Primitive px = x.primitive;
  Primitive out = B::float_gather_nd(px, indices);
  return record<B>(std::move(out), {&x}, [px, indices](const Primitive& g) {
    const Primitive zeros = B::float_full(B::shape(px), 0.0, B::dtype(px), B::device(px));
    return std::vector<Primitive>{B::float_scatter_nd(zeros, indices, g, IndexingUpdateOp::Add)};
  });
}

// float_scatter's rules with the index-row pair.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_scatter_nd(const Tensor& x, const Primitive& indices, const Tensor& values,
                                                IndexingUpdateOp update) {
  Primitive out = B::float_scatter_nd(x.primitive, indices, values.primitive, update);
  rules::check_scatter_update_tracked(update, "float_scatter_nd");
  return record<B>(std::move(out), {&x, &values}, [indices, update, sx = shape(x), sv = shape(values)](const Primitive& g) {
    return autodiff_detail::scatter_gradients<B>(
        g, sx, sv, update, [&](const Primitive& t, const Primitive& v) { return B::float_scatter_nd(t, indices, v, update); },
        [&](const Primitive& t) { return B::float_gather_nd(t, indices); });
  });
}

// Each picked element's gradient goes back to its place, +0 elsewhere.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_mask_select(const Tensor& x, const Primitive& mask) {
  const Primitive px = x.primitive;
  Primitive out = B::float_mask_select(px, mask);
  return record<B>(std::move(out), {&x}, [px, mask](const Primitive& g) {
    const Shape sx = B::shape(px);
    const Primitive zeros = B::float_full(Shape{sx.num_elements()}, 0.0, B::dtype(px), B::device(px));
    const Primitive at = backends::composite::mask_positions<B>(mask, B::device(px));
    return std::vector<Primitive>{B::float_reshape(B::float_select_add(zeros, 0, at, g), sx)};
  });
}

// g where the mask chose the tensor (else +0) to the tensor, g where it chose the value to the
// value, each summed back over the dims it was broadcast along. Selections, never products with
// the mask: an inf or NaN in g must not leak into the side not taken (0 * inf is NaN).
template <class B>
AutodiffTensor<B> Autodiff<B>::float_mask_where(const Tensor& x, const Primitive& mask, const Tensor& value) {
  Primitive out = B::float_mask_where(x.primitive, mask, value.primitive);
  return record<B>(std::move(out), {&x, &value}, [mask, sx = shape(x), sv = shape(value)](const Primitive& g) {
    using autodiff_detail::reduce_to_shape;
    const Primitive zeros = B::float_full(B::shape(g), 0.0, B::dtype(g), B::device(g));
    return std::vector<Primitive>{reduce_to_shape<B>(B::float_mask_fill(g, mask, 0.0), sx),
                                  reduce_to_shape<B>(B::float_mask_where(zeros, mask, g), sv)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_mask_fill(const Tensor& x, const Primitive& mask, double value) {
  Primitive out = B::float_mask_fill(x.primitive, mask, value);
  return record<B>(std::move(out), {&x}, [mask, sx = shape(x)](const Primitive& g) {
    return std::vector<Primitive>{autodiff_detail::reduce_to_shape<B>(B::float_mask_fill(g, mask, 0.0), sx)};
  });
}

// Each element was copied into `times` blocks: their gradients summed in block order.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_repeat_dim(const Tensor& x, std::size_t dim, std::size_t times) {
  Primitive out = B::float_repeat_dim(x.primitive, dim, times);
  return record<B>(std::move(out), {&x}, [sx = shape(x), dim, times](const Primitive& g) {
    const rules::DimSplit split = rules::split_at_dim(sx, dim);
    const std::size_t row = split.len * split.inner;
    const Primitive blocks = B::float_reshape(g, Shape{split.outer, times, row});
    return std::vector<Primitive>{B::float_reshape(B::float_sum_dim(blocks, 1), sx)};
  });
}

// An element in several windows receives each window's gradient, added window by window
// (select_add of the gradient with the size dim moved back beside the windows).
template <class B>
AutodiffTensor<B> Autodiff<B>::float_unfold(const Tensor& x, std::size_t dim, std::size_t size, std::size_t step) {
  Primitive out = B::float_unfold(x.primitive, dim, size, step);
  const std::size_t windows = B::shape(out)[dim];
  return record<B>(std::move(out), {&x}, [px = x.primitive, dim, size, step, windows](const Primitive& g) {
    const Shape sx = B::shape(px);
    const backends::composite::UnfoldPlan plan(sx, dim, windows, size, step);
    std::vector<std::size_t> back(plan.to_last.size());
    for (std::size_t i = 0; i < plan.to_last.size(); ++i) back[plan.to_last[i]] = i;
    std::vector<std::size_t> rows = sx.dims();
    rows[dim] = plan.positions.size();
    const Primitive per_position = B::float_reshape(B::float_permute(g, back), Shape(rows));
    const Primitive zeros = B::float_full(sx, 0.0, B::dtype(px), B::device(px));
    return std::vector<Primitive>{B::float_select_add(zeros, dim, plan.index<B>(B::device(px)), per_position)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_permute(const Tensor& x, const std::vector<std::size_t>& axes) {
  Primitive out = B::float_permute(x.primitive, axes);  // validates axes before they index below
  std::vector<std::size_t> inverse(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i) inverse[axes[i]] = i;
  return record<B>(std::move(out), {&x},
                   [inverse](const Primitive& g) { return std::vector<Primitive>{B::float_permute(g, inverse)}; });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_expand(const Tensor& x, const Shape& shape) {
  const Shape sx = B::shape(x.primitive);
  return record<B>(B::float_expand(x.primitive, shape), {&x}, [sx](const Primitive& g) {
    return std::vector<Primitive>{autodiff_detail::reduce_to_shape<B>(g, sx)};
  });
}

// y = softmax(x): dx = y * (g - sum(g * y)) along dim.
template <class B>
AutodiffTensor<B> Autodiff<B>::softmax(const Tensor& x, std::size_t dim) {
  Primitive y = B::softmax(x.primitive, dim);
  auto rule = [y, dim](const Primitive& g) {
    const Primitive s = B::float_sum_dim(B::float_mul(g, y), dim);
    return std::vector<Primitive>{B::float_mul(y, B::float_sub(g, s))};
  };
  return record<B>(std::move(y), {&x}, std::move(rule));
}

// y = log_softmax(x): dx = g - exp(y) * sum(g) along dim.
template <class B>
AutodiffTensor<B> Autodiff<B>::log_softmax(const Tensor& x, std::size_t dim) {
  Primitive y = B::log_softmax(x.primitive, dim);
  auto rule = [y, dim](const Primitive& g) {
    const Primitive s = B::float_sum_dim(g, dim);
    return std::vector<Primitive>{B::float_sub(g, B::float_mul(B::float_exp(y), s))};
  };
  return record<B>(std::move(y), {&x}, std::move(rule));
}

}  // namespace crossgrad
