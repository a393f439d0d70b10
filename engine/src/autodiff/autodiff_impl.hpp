#pragma once
// Definitions of Autodiff<B>'s members. Included only by autodiff/definitions.hpp, whose files instantiate them
// once per registered backend; everything else sees the declarations in autodiff.hpp.
#include <crossgrad/autodiff/autodiff.hpp>
#include <crossgrad/core/module_rules.hpp>
#include <crossgrad/core/panic.hpp>
#include <crossgrad/core/shape_rules.hpp>

#include "autodiff/gradient_entry.hpp"

#include <initializer_list>
#include <iterator>
#include <span>
#include <type_traits>

namespace crossgrad {
namespace autodiff_detail {

// Marks a member's parameters used (the generated members that only panic).
template <class... A>
void unused(const A&...) {}

// Sums a broadcast gradient back to the shape of the operand it flows to.
template <class B>
typename B::Tensor reduce_to_shape(typename B::Tensor grad, const Shape& target) {
  const Shape gs = B::shape(grad);
  if (gs == target) return grad;
  // An empty gradient sums to zeros. Summing it dim by dim could pass through a shape that does
  // not fit ([0, 2^40, 2^40] -> [1, 2^40, 2^40]) although the target exists.
  if (gs.num_elements() == 0) return B::float_full(target, 0.0, B::dtype(grad), B::device(grad));
  const std::size_t offset = gs.rank() - target.rank();
  for (std::size_t d = 0; d < gs.rank(); ++d) {
    const bool extra = d < offset;
    if (extra || (target[d - offset] == 1 && gs[d] != 1)) grad = B::float_sum_dim(grad, d);
  }
  return B::float_reshape(grad, target);
}

// A double scalar as every kernel uses it: converted to the tensor's float dtype first (docs/OPS.md
// "Scalar arguments"). A rule that differentiates with the unconverted scalar differentiates
// another function than the forward computed (x^1e-50 is x^0 in F32).
inline double in_dtype(double scalar, DType dtype) {
  return dtype == DType::F32 ? static_cast<double>(static_cast<float>(scalar)) : scalar;
}

// Broadcasts a reduced gradient ([1], or a kept dim of size 1) back to `target`.
template <class B>
typename B::Tensor expand_to_shape(const typename B::Tensor& grad, const Shape& target) {
  const typename B::Tensor ones = B::float_full(target, 1.0, B::dtype(grad), B::device(grad));
  return B::float_reshape(B::float_mul(ones, grad), target);
}

}  // namespace autodiff_detail

namespace autodiff_detail {

// A tracked result: `out` with a node whose parents are `inputs` and whose backward maps the
// incoming gradient to one gradient per input, all on B (the rules are written per backend; the
// node itself is backend-neutral, Note [One graph across backends]).
//
// The rule is taken as its own type and the inputs as a list, not as a std::function and a vector:
// every recorded op paid for both (a vector of input pointers, and a std::function holding the
// rule inside the node's std::function), and an allocation is what costs most in a sanitized fuzz
// run (docs/FUZZ_THROUGHPUT.md, round 8).
//
// `site` defaults to the caller's name, the Autodiff<B> member of the op ("float_exp"): the node
// keeps it so that a rule returning a misfit gradient is named by backward's panic (Note [Backward
// checks what rules return]) without every rule spelling its own name. __builtin_FUNCTION (GCC and
// clang), not std::source_location: the fuzz builds' clang 14 has no std::source_location.
template <class B, class Rule>
AutodiffTensor<B> record(typename B::Tensor out, std::span<const AutodiffTensor<B>* const> inputs, Rule&& backward,
                         const char* site = __builtin_FUNCTION()) {
  static_assert(std::is_invocable_r_v<std::vector<typename B::Tensor>, Rule&, const typename B::Tensor&>);
  auto node = std::make_shared<Node>();
  node->id = next_node_id();
  node->meta = node_meta_of<B>(out);
  node->op = site;
  node->parents.reserve(inputs.size());
  for (const AutodiffTensor<B>* in : inputs) node->parents.push_back(in->node);
  node->backward = [rule = std::forward<Rule>(backward)](const AnyTensor& g) {
    std::vector<typename B::Tensor> grads = rule(entry_of<B>(g));
    return std::vector<AnyTensor>(std::make_move_iterator(grads.begin()), std::make_move_iterator(grads.end()));
  };
  return AutodiffTensor<B>{std::move(out), std::move(node)};
}

template <class B, class Rule>
AutodiffTensor<B> record(typename B::Tensor out, std::initializer_list<const AutodiffTensor<B>*> inputs, Rule&& backward,
                         const char* site = __builtin_FUNCTION()) {
  return record<B>(std::move(out), std::span<const AutodiffTensor<B>* const>(inputs.begin(), inputs.size()),
                   std::forward<Rule>(backward), site);
}

}  // namespace autodiff_detail

template <class B>
AutodiffTensor<B> Autodiff<B>::from_inner(Primitive primitive) {
  return leaf_with_id(std::move(primitive), next_node_id());
}

template <class B>
AutodiffTensor<B> Autodiff<B>::leaf_with_id(Primitive primitive, NodeId id) {
  auto node = std::make_shared<Node>();
  node->id = id;
  node->meta = node_meta_of<B>(primitive);
  return Tensor{std::move(primitive), std::move(node)};
}

template <class B>
AutodiffTensor<B> Autodiff<B>::from_data(const TensorData& data, const Device& device) {
  return from_inner(B::from_data(data, device));
}

// Members the registry derives without a hand-written rule (Note [The op registry]): ops with
// Int or Bool results run B on the untracked primitives (no gradient flows through a comparison
// or an index), int/bool -> float conversions start a new leaf.
#define CROSSGRAD_AD_DEFINE(name, method, Sig, Operand, Result, Rule) CROSSGRAD_AD_DEFINE_##Rule(name, Sig, Operand)
#define CROSSGRAD_AD_DEFINE_Backward(name, Sig, Operand)
#define CROSSGRAD_AD_DEFINE_None(name, Sig, Operand) CROSSGRAD_AD_NONE_##Operand(name, Sig)
#define CROSSGRAD_AD_NONE_Float(name, Sig) CROSSGRAD_PP_CAT(CROSSGRAD_AD_NONE_, CROSSGRAD_SIG_CLASS_##Sig)(name, Sig)
// Int and bool receivers are B's primitives already: the op is B's with every argument forwarded
// and no node (Burn's Autodiff<B> forwards its int and bool ops the same way).
#define CROSSGRAD_AD_NONE_Int(name, Sig)                                                        \
  template <class B>                                                                           \
  auto Autodiff<B>::name CROSSGRAD_SIG_PARAMS_##Sig(Primitive, Primitive)->Primitive {         \
    return B::name(CROSSGRAD_SIG_ARGS_##Sig);                                                  \
  }
#define CROSSGRAD_AD_NONE_Bool(name, Sig) CROSSGRAD_AD_NONE_Int(name, Sig)
#define CROSSGRAD_AD_NONE_MAP(name, Sig)                                                        \
  template <class B>                                                                           \
  auto Autodiff<B>::name CROSSGRAD_SIG_PARAMS_##Sig(Tensor, Primitive)->Primitive {            \
    return B::name(tensor.primitive CROSSGRAD_SIG_EXTRA_##Sig);                                \
  }
#define CROSSGRAD_AD_NONE_ZIP(name, Sig)                                                        \
  template <class B>                                                                           \
  auto Autodiff<B>::name CROSSGRAD_SIG_PARAMS_##Sig(Tensor, Primitive)->Primitive {            \
    return B::name(lhs.primitive, rhs.primitive);                                              \
  }
#define CROSSGRAD_AD_DEFINE_Leaf(name, Sig, Operand)                                                   \
  template <class B>                                                                           \
  auto Autodiff<B>::name CROSSGRAD_SIG_PARAMS_##Sig(Primitive, Primitive)->Tensor {            \
    return from_inner(B::name(tensor CROSSGRAD_SIG_EXTRA_##Sig));                              \
  }
// A backward pass itself (Rule NotDifferentiable): refused on an autodiff device, as Burn's.
#define CROSSGRAD_AD_DEFINE_NotDifferentiable(name, Sig, Operand)                                     \
  template <class B>                                                                           \
  auto Autodiff<B>::name CROSSGRAD_SIG_PARAMS_##Sig(Tensor, Primitive)->Tensor {               \
    autodiff_detail::unused(CROSSGRAD_SIG_ARGS_##Sig);                                         \
    rules::not_differentiable(#name);                                                          \
  }
CROSSGRAD_OPS(CROSSGRAD_AD_DEFINE)
#undef CROSSGRAD_AD_DEFINE

template <class B>
AutodiffTensor<B> Autodiff<B>::float_to_device(const Tensor& x, const Device& d) {
  const Device from = device(x);
  return autodiff_detail::record<B>(B::float_to_device(x.primitive, d), {&x},
                   [from](const Primitive& g) { return std::vector<Primitive>{B::float_to_device(g, from)}; });
}

// The traversal is backend-neutral (backward_graph.cpp): a graph may span backends.
template <class B>
Gradients Autodiff<B>::backward(const Tensor& root) {
  return backward_from(*root.node, AnyTensor{B::float_full(shape(root), 1.0, dtype(root), device(root))});
}

template <class B>
std::optional<typename B::Tensor> Autodiff<B>::grad(const Tensor& t, const Gradients& grads) {
  const Primitive* entry = autodiff_detail::gradient_entry(t, grads);
  if (entry == nullptr) return std::nullopt;
  return *entry;
}

template <class B>
std::optional<typename B::Tensor> Autodiff<B>::grad_remove(const Tensor& t, Gradients& grads) {
  const AnyTensor* entry = grads.find(t.id());
  if (entry == nullptr) return std::nullopt;
  typename B::Tensor out = autodiff_detail::entry_of<B>(*entry);  // checked before the container changes
  grads.remove(t.id());
  return out;
}

template <class B>
void Autodiff<B>::grad_replace(const Tensor& t, Gradients& grads, Primitive grad) {
  grads.remove(t.id());
  grads.register_grad(t.id(), AnyTensor{std::move(grad)});
}

}  // namespace crossgrad
