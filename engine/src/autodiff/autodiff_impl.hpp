#pragma once
// Definitions of Autodiff<B>'s members. Included only by instantiate.cpp, which instantiates them
// once per registered backend; everything else sees the declarations in autodiff.hpp.
#include <crossgrad/autodiff/autodiff.hpp>
#include <crossgrad/core/panic.hpp>
#include <crossgrad/core/shape_rules.hpp>

#include <unordered_map>

namespace crossgrad {
namespace autodiff_detail {

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

// Broadcasts a reduced gradient ([1], or a kept dim of size 1) back to `target`.
template <class B>
typename B::Tensor expand_to_shape(const typename B::Tensor& grad, const Shape& target) {
  const typename B::Tensor ones = B::float_full(target, 1.0, B::dtype(grad), B::device(grad));
  return B::float_reshape(B::float_mul(ones, grad), target);
}

// An entry of another backend under this node's id can only come from a hand-assembled container.
template <class B>
const typename B::Tensor& entry_of(const AnyTensor& entry) {
  const auto* g = std::get_if<typename B::Tensor>(&entry);
  if (g == nullptr) panic(PanicId::Unreachable);
  return *g;
}

}  // namespace autodiff_detail

namespace {

template <class B>
AutodiffTensor<B> record(typename B::Tensor out, std::vector<const AutodiffTensor<B>*> inputs,
                         std::function<std::vector<typename B::Tensor>(const typename B::Tensor&)> backward) {
  auto node = std::make_shared<Node<typename B::Tensor>>();
  node->id = next_node_id();
  for (const AutodiffTensor<B>* in : inputs) node->parents.push_back(in->node);
  node->backward = std::move(backward);
  return AutodiffTensor<B>{std::move(out), std::move(node)};
}

}  // namespace

template <class B>
AutodiffTensor<B> Autodiff<B>::from_inner(Primitive primitive) {
  return leaf_with_id(std::move(primitive), next_node_id());
}

template <class B>
AutodiffTensor<B> Autodiff<B>::leaf_with_id(Primitive primitive, NodeId id) {
  auto node = std::make_shared<Node<Primitive>>();
  node->id = id;
  return Tensor{std::move(primitive), std::move(node)};
}

template <class B>
AutodiffTensor<B> Autodiff<B>::from_data(const TensorData& data, const Device& device) {
  return from_inner(B::from_data(data, device));
}

// The backward rules, written once for every backend in terms of B's forward ops.
// Binary ops reduce broadcast gradients back to each operand's shape.

template <class B>
AutodiffTensor<B> Autodiff<B>::float_add(const Tensor& a, const Tensor& b) {
  const Shape sa = shape(a), sb = shape(b);
  return record<B>(B::float_add(a.primitive, b.primitive), {&a, &b}, [sa, sb](const Primitive& g) {
    using autodiff_detail::reduce_to_shape;
    return std::vector<Primitive>{reduce_to_shape<B>(g, sa), reduce_to_shape<B>(g, sb)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_sub(const Tensor& a, const Tensor& b) {
  const Shape sa = shape(a), sb = shape(b);
  return record<B>(B::float_sub(a.primitive, b.primitive), {&a, &b}, [sa, sb](const Primitive& g) {
    using autodiff_detail::reduce_to_shape;
    return std::vector<Primitive>{reduce_to_shape<B>(g, sa), reduce_to_shape<B>(B::float_neg(g), sb)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_mul(const Tensor& a, const Tensor& b) {
  const Primitive pa = a.primitive, pb = b.primitive;
  return record<B>(B::float_mul(pa, pb), {&a, &b}, [pa, pb](const Primitive& g) {
    using autodiff_detail::reduce_to_shape;
    return std::vector<Primitive>{reduce_to_shape<B>(B::float_mul(g, pb), B::shape(pa)),
                                  reduce_to_shape<B>(B::float_mul(g, pa), B::shape(pb))};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_div(const Tensor& a, const Tensor& b) {
  const Primitive pa = a.primitive, pb = b.primitive;
  return record<B>(B::float_div(pa, pb), {&a, &b}, [pa, pb](const Primitive& g) {
    using autodiff_detail::reduce_to_shape;
    // d(a/b)/db = -a / b^2
    const Primitive gb = B::float_neg(B::float_div(B::float_mul(g, pa), B::float_mul(pb, pb)));
    return std::vector<Primitive>{reduce_to_shape<B>(B::float_div(g, pb), B::shape(pa)),
                                  reduce_to_shape<B>(gb, B::shape(pb))};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_matmul(const Tensor& a, const Tensor& b) {
  const Primitive pa = a.primitive, pb = b.primitive;
  return record<B>(B::float_matmul(pa, pb), {&a, &b}, [pa, pb](const Primitive& g) {
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
  const Primitive out = B::float_exp(x.primitive);
  return record<B>(out, {&x}, [out](const Primitive& g) { return std::vector<Primitive>{B::float_mul(g, out)}; });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_log(const Tensor& x) {
  const Primitive px = x.primitive;
  return record<B>(B::float_log(px), {&x}, [px](const Primitive& g) { return std::vector<Primitive>{B::float_div(g, px)}; });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_sqrt(const Tensor& x) {
  const Primitive out = B::float_sqrt(x.primitive);
  return record<B>(out, {&x}, [out](const Primitive& g) {
    return std::vector<Primitive>{B::float_mul_scalar(B::float_div(g, out), 0.5)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_tanh(const Tensor& x) {
  const Primitive out = B::float_tanh(x.primitive);
  return record<B>(out, {&x}, [out](const Primitive& g) {
    const Primitive one_minus_sq = B::float_add_scalar(B::float_neg(B::float_mul(out, out)), 1.0);
    return std::vector<Primitive>{B::float_mul(g, one_minus_sq)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::sigmoid(const Tensor& x) {
  const Primitive out = B::sigmoid(x.primitive);
  return record<B>(out, {&x}, [out](const Primitive& g) {
    const Primitive one_minus = B::float_add_scalar(B::float_neg(out), 1.0);
    return std::vector<Primitive>{B::float_mul(g, B::float_mul(out, one_minus))};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::relu(const Tensor& x) {
  const Primitive px = x.primitive;
  return record<B>(B::relu(px), {&x}, [px](const Primitive& g) {
    const Primitive mask = B::bool_into_float(B::float_greater_scalar(px, 0.0), B::dtype(px));
    return std::vector<Primitive>{B::float_mul(g, mask)};
  });
}

// d/dx x^p = p * x^(p-1), evaluated in IEEE arithmetic (docs/OPS.md "powf_scalar backward"):
// at x = 0 that gives 1 for p = 1, 0 for p > 1, +-inf for p < 1 (the one-sided slope). p = 0 is
// the exception: x^0 = 1 everywhere, so its derivative is 0 everywhere, where the formula would
// give 0 * 0^-1 = 0 * inf = NaN at x = 0. The incoming gradient is still multiplied (g * 0), so
// a non-finite upstream gradient stays visible as NaN, as for any other zero derivative.
template <class B>
AutodiffTensor<B> Autodiff<B>::float_powf_scalar(const Tensor& x, double p) {
  const Primitive px = x.primitive;
  return record<B>(B::float_powf_scalar(px, p), {&x}, [px, p](const Primitive& g) {
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
  const Shape sx = shape(x);
  return record<B>(B::float_sum(x.primitive), {&x}, [sx](const Primitive& g) {
    return std::vector<Primitive>{autodiff_detail::expand_to_shape<B>(g, sx)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_mean(const Tensor& x) {
  const Shape sx = shape(x);
  return record<B>(B::float_mean(x.primitive), {&x}, [sx](const Primitive& g) {
    const double n = static_cast<double>(sx.num_elements());
    return std::vector<Primitive>{B::float_mul_scalar(autodiff_detail::expand_to_shape<B>(g, sx), 1.0 / n)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_sum_dim(const Tensor& x, std::size_t dim) {
  const Shape sx = shape(x);
  return record<B>(B::float_sum_dim(x.primitive, dim), {&x}, [sx](const Primitive& g) {
    return std::vector<Primitive>{autodiff_detail::expand_to_shape<B>(g, sx)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_mean_dim(const Tensor& x, std::size_t dim) {
  const Shape sx = shape(x);
  return record<B>(B::float_mean_dim(x.primitive, dim), {&x}, [sx, dim](const Primitive& g) {
    const double n = static_cast<double>(sx[dim]);
    return std::vector<Primitive>{B::float_mul_scalar(autodiff_detail::expand_to_shape<B>(g, sx), 1.0 / n)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_reshape(const Tensor& x, const Shape& s) {
  const Shape sx = shape(x);
  return record<B>(B::float_reshape(x.primitive, s), {&x},
                   [sx](const Primitive& g) { return std::vector<Primitive>{B::float_reshape(g, sx)}; });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_swap_dims(const Tensor& x, std::size_t d0, std::size_t d1) {
  return record<B>(B::float_swap_dims(x.primitive, d0, d1), {&x}, [d0, d1](const Primitive& g) {
    return std::vector<Primitive>{B::float_swap_dims(g, d0, d1)};
  });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_to_device(const Tensor& x, const Device& d) {
  const Device from = device(x);
  return record<B>(B::float_to_device(x.primitive, d), {&x},
                   [from](const Primitive& g) { return std::vector<Primitive>{B::float_to_device(g, from)}; });
}

template <class B>
AutodiffTensor<B> Autodiff<B>::float_cast(const Tensor& x, DType to) {
  const DType from = dtype(x);
  return record<B>(B::float_cast(x.primitive, to), {&x},
                   [from](const Primitive& g) { return std::vector<Primitive>{B::float_cast(g, from)}; });
}

// Note [One node per id]
// backward's bookkeeping and its result (Gradients, keyed by node id: CONTRACT section 2) both
// identify a node by its id, so two distinct nodes of one graph sharing an id (possible through
// the public leaf_with_id) would be merged: one's gradient added into, or lost behind, the
// other's. The traversal below therefore maps every id it meets to the node it belongs to and
// panics duplicate-node-id when a second node shows up under the same id, before any backward
// rule runs. The same node reached along several paths is one node, not a duplicate.
template <class B>
Gradients Autodiff<B>::backward(const Tensor& root) {
  using NodePtr = const Node<Primitive>*;
  // Iterative post-order DFS: graphs from fuzzers can be deep chains, recursion would overflow.
  std::vector<NodePtr> order;
  std::unordered_map<std::uint64_t, NodePtr> visited;  // id -> the one node that carries it
  std::vector<std::pair<NodePtr, std::size_t>> stack{{root.node.get(), 0}};
  visited.emplace(root.id().value, root.node.get());
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < node->parents.size()) {
      NodePtr parent = node->parents[next++].get();
      const auto [seen, fresh] = visited.emplace(parent->id.value, parent);
      if (fresh) {
        stack.emplace_back(parent, 0);
      } else if (seen->second != parent) {
        panic(PanicId::DuplicateNodeId, {{"id", std::to_string(parent->id.value)}});
      }
    } else {
      order.push_back(node);
      stack.pop_back();
    }
  }

  std::unordered_map<std::uint64_t, Primitive> pending;
  pending.emplace(root.id().value, B::float_full(shape(root), 1.0, dtype(root), device(root)));
  Gradients grads;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const NodePtr node = *it;
    auto found = pending.find(node->id.value);
    if (found == pending.end()) continue;
    Primitive g = std::move(found->second);
    pending.erase(found);
    if (node->is_leaf()) {
      grads.register_grad(node->id, AnyTensor{std::move(g)});
      continue;
    }
    std::vector<Primitive> parent_grads = node->backward(g);
    for (std::size_t i = 0; i < node->parents.size(); ++i) {
      const std::uint64_t pid = node->parents[i]->id.value;
      auto slot = pending.find(pid);
      if (slot == pending.end()) {
        pending.emplace(pid, std::move(parent_grads[i]));
      } else {
        slot->second = B::float_add(slot->second, parent_grads[i]);
      }
    }
  }
  return grads;
}

template <class B>
std::optional<typename B::Tensor> Autodiff<B>::grad(const Tensor& t, const Gradients& grads) {
  const AnyTensor* entry = grads.find(t.id());
  if (entry == nullptr) return std::nullopt;
  return autodiff_detail::entry_of<B>(*entry);
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
