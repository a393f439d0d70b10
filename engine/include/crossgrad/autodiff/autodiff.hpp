#pragma once
// Note [Autodiff<B> is one decorator]
// Autodiff<B> wraps any backend B: its tensor is a B float primitive plus a graph node. Forward
// ops call B and record a backward closure; the backward rules (autodiff_rules.hpp) are written
// once, in terms of B's forward ops, for every backend. Members are defined in autodiff_impl.hpp
// and instantiated once per registered backend (src/autodiff/instantiate_<backend>.cpp).
#include <crossgrad/autodiff/gradients.hpp>
#include <crossgrad/autodiff/node.hpp>
#include <crossgrad/backends/registry.hpp>
#include <crossgrad/core/panic.hpp>
#include <crossgrad/ops/op_list.hpp>

#include <memory>
#include <optional>
#include <variant>
#include <vector>

// Autodiff<B>'s parameter and result types per registry kind: a float receiver is tracked, an int
// or bool one (and any index tensor) is B's primitive.
#define CROSSGRAD_AD_OPERAND_Float Tensor
#define CROSSGRAD_AD_OPERAND_Int Primitive
#define CROSSGRAD_AD_OPERAND_Bool Primitive
#define CROSSGRAD_AD_RESULT_Float Tensor
#define CROSSGRAD_AD_RESULT_Int Primitive
#define CROSSGRAD_AD_RESULT_Bool Primitive
#define CROSSGRAD_AUTODIFF_OP_DECL(name, method, Sig, Operand, Result, Rule) \
  static CROSSGRAD_AD_RESULT_##Result name CROSSGRAD_SIG_PARAMS_##Sig(CROSSGRAD_AD_OPERAND_##Operand, Primitive);

namespace crossgrad {

template <class B>
struct AutodiffTensor {
  typename B::Tensor primitive;
  std::shared_ptr<const Node> node;
  NodeId id() const { return node->id; }
};

template <class B>
struct Autodiff {
  using Inner = B;
  using Tensor = AutodiffTensor<B>;
  using Primitive = typename B::Tensor;

  // A tracked leaf holding `primitive`, with a fresh node id (or the given one, for the harness:
  // backward panics duplicate-node-id if two distinct nodes of one graph end up with one id).
  static Tensor from_inner(Primitive primitive);
  static Tensor leaf_with_id(Primitive primitive, NodeId id);
  static Primitive inner(const Tensor& tensor) { return tensor.primitive; }

  static Tensor from_data(const TensorData& data, const Device& device);
  static TensorData into_data(const Tensor& t) { return B::into_data(t.primitive); }
  static Shape shape(const Tensor& t) { return B::shape(t.primitive); }
  static DType dtype(const Tensor& t) { return B::dtype(t.primitive); }
  static Device device(const Tensor& t) { return B::device(t.primitive); }

  // Every op of the registry (Note [The op registry]). Float results are tracked; Int and Bool
  // results are B's untracked primitives; int/bool -> float conversions start new leaves.
  CROSSGRAD_OPS(CROSSGRAD_AUTODIFF_OP_DECL)
  // Differentiable within B: the gradient moves back to the source device. Moves to another
  // backend are move_tracked_across below.
  static Tensor float_to_device(const Tensor& t, const Device& device);

  // Seeds the root with ones of its shape (a non-scalar root acts like its sum) and returns the
  // gradient of every tracked leaf the root depends on. Panics duplicate-node-id when two
  // distinct nodes of the graph share an id (Gradients could not keep both apart).
  static Gradients backward(const Tensor& root);
  static std::optional<Primitive> grad(const Tensor& t, const Gradients& grads);
  static std::optional<Primitive> grad_remove(const Tensor& t, Gradients& grads);
  // Replaces (never accumulates) t's entry with `grad`; any shape, dtype or device of B is accepted.
  static void grad_replace(const Tensor& t, Gradients& grads, Primitive grad);
};

// Moves tracked `t` of backend From onto `device` of backend To (CONTRACT section 7): a new node
// on To, child of t's node, whose backward moves the incoming gradient back to t's device on From,
// bit for bit through host data (same dtype). The graph then spans both backends (Note [One graph
// across backends]) and backward gives each leaf its gradient on its own backend.
template <class From, class To>
AutodiffTensor<To> move_tracked_across(const AutodiffTensor<From>& t, const Device& device) {
  const Device source = From::device(t.primitive);
  auto node = std::make_shared<Node>();
  node->id = next_node_id();
  node->parents.push_back(t.node);
  node->op = "float_to_device";
  node->backward = [source](const AnyTensor& g) {
    const auto* on_to = std::get_if<typename To::Tensor>(&g);
    if (on_to == nullptr) panic(PanicId::Unreachable);
    return std::vector<AnyTensor>{AnyTensor{From::from_data(To::into_data(*on_to), source)}};
  };
  typename To::Tensor moved = To::from_data(From::into_data(t.primitive), device);
  node->meta = node_meta_of<To>(moved);
  return AutodiffTensor<To>{std::move(moved), std::move(node)};
}

#define CROSSGRAD_X(Name) extern template struct Autodiff<backends::Name>;
CROSSGRAD_BACKENDS(CROSSGRAD_X)
#undef CROSSGRAD_X

}  // namespace crossgrad
