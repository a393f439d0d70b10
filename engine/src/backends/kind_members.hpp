#pragma once
// Note [One layout kernel for every kind]
// The layout ops move elements without reading them (reshape, swap_dims, permute, transpose,
// expand, flip, repeat_dim, unfold, cat, slice, slice_assign, select), so a backend writes each
// once, over the element's bits, and the registry's float_, int_ and bool_ entries of the op are
// three one-line members that call it with their own OpId: the kernel checks the receiver's kind
// (rules::check_kind_dtype with operand_category(op)) and names the op in every panic. The
// composites of composite_ops.hpp get the OpId too, and call the moves of its kind (kind_moves
// below), so int_transpose is int_swap_dims, never a float op on int bits.
#include <crossgrad/ops/op_list.hpp>

#include <vector>

// Backend::name(params...) { return kernel(args..., OpId::name); }
#define CROSSGRAD_KIND_MEMBER(Backend, name, Sig, kernel)                                    \
  Backend::Tensor Backend::name CROSSGRAD_SIG_PARAMS_##Sig(Backend::Tensor, Backend::Tensor) { \
    return kernel(CROSSGRAD_SIG_ARGS_##Sig, ::crossgrad::OpId::name);                        \
  }
// The float_, int_ and bool_ members of one layout op.
#define CROSSGRAD_KIND_MEMBERS(Backend, op, Sig, kernel)      \
  CROSSGRAD_KIND_MEMBER(Backend, float_##op, Sig, kernel)     \
  CROSSGRAD_KIND_MEMBER(Backend, int_##op, Sig, kernel)       \
  CROSSGRAD_KIND_MEMBER(Backend, bool_##op, Sig, kernel)

namespace crossgrad::backends::kind_moves {

// B's member of the op for tensors of `kind` (the composites' building blocks).
template <class B>
typename B::Tensor reshape(OpKind kind, const typename B::Tensor& t, const Shape& shape) {
  if (kind == OpKind::Int) return B::int_reshape(t, shape);
  if (kind == OpKind::Bool) return B::bool_reshape(t, shape);
  return B::float_reshape(t, shape);
}
template <class B>
typename B::Tensor expand(OpKind kind, const typename B::Tensor& t, const Shape& shape) {
  if (kind == OpKind::Int) return B::int_expand(t, shape);
  if (kind == OpKind::Bool) return B::bool_expand(t, shape);
  return B::float_expand(t, shape);
}
template <class B>
typename B::Tensor permute(OpKind kind, const typename B::Tensor& t, const std::vector<std::size_t>& axes) {
  if (kind == OpKind::Int) return B::int_permute(t, axes);
  if (kind == OpKind::Bool) return B::bool_permute(t, axes);
  return B::float_permute(t, axes);
}
template <class B>
typename B::Tensor swap_dims(OpKind kind, const typename B::Tensor& t, std::size_t dim0, std::size_t dim1) {
  if (kind == OpKind::Int) return B::int_swap_dims(t, dim0, dim1);
  if (kind == OpKind::Bool) return B::bool_swap_dims(t, dim0, dim1);
  return B::float_swap_dims(t, dim0, dim1);
}
template <class B>
typename B::Tensor select(OpKind kind, const typename B::Tensor& t, std::size_t dim, const typename B::Tensor& indices) {
  if (kind == OpKind::Int) return B::int_select(t, dim, indices);
  if (kind == OpKind::Bool) return B::bool_select(t, dim, indices);
  return B::float_select(t, dim, indices);
}
template <class B>
typename B::Tensor slice(OpKind kind, const typename B::Tensor& t, const std::vector<Range>& ranges) {
  if (kind == OpKind::Int) return B::int_slice(t, ranges);
  if (kind == OpKind::Bool) return B::bool_slice(t, ranges);
  return B::float_slice(t, ranges);
}
template <class B>
typename B::Tensor cat(OpKind kind, const std::vector<typename B::Tensor>& ts, std::size_t dim) {
  if (kind == OpKind::Int) return B::int_cat(ts, dim);
  if (kind == OpKind::Bool) return B::bool_cat(ts, dim);
  return B::float_cat(ts, dim);
}

template <class B>
typename B::Tensor gather(OpKind kind, const typename B::Tensor& t, std::size_t dim, const typename B::Tensor& indices) {
  if (kind == OpKind::Int) return B::int_gather(t, dim, indices);
  if (kind == OpKind::Bool) return B::bool_gather(t, dim, indices);
  return B::float_gather(t, dim, indices);
}
// The sorting positions of a float or int tensor (there is no bool argsort).
template <class B>
typename B::Tensor argsort(OpKind kind, const typename B::Tensor& t, std::size_t dim, bool descending) {
  if (kind == OpKind::Int) return B::int_argsort(t, dim, descending);
  return B::float_argsort(t, dim, descending);
}
template <class B>
typename B::Tensor argtopk(OpKind kind, const typename B::Tensor& t, std::size_t dim, std::size_t k) {
  if (kind == OpKind::Int) return B::int_argtopk(t, dim, k);
  return B::float_argtopk(t, dim, k);
}

}  // namespace crossgrad::backends::kind_moves
