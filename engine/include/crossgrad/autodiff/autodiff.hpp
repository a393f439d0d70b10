#pragma once
// Note [Autodiff<B> is one decorator]
// Autodiff<B> wraps any backend B: its tensor is a B float primitive plus a graph node. Forward
// ops call B and record a backward closure; the backward rules (autodiff_rules.hpp) are written
// once, in terms of B's forward ops, for every backend. Members are defined in autodiff_impl.hpp
// and instantiated once per registered backend (src/autodiff/instantiate.cpp).
#include <crossgrad/autodiff/gradients.hpp>
#include <crossgrad/autodiff/node.hpp>
#include <crossgrad/backends/registry.hpp>

#include <memory>
#include <optional>

namespace crossgrad {

template <class B>
struct AutodiffTensor {
  typename B::Tensor primitive;
  std::shared_ptr<const Node<typename B::Tensor>> node;
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

  static Tensor float_add(const Tensor& lhs, const Tensor& rhs);
  static Tensor float_sub(const Tensor& lhs, const Tensor& rhs);
  static Tensor float_mul(const Tensor& lhs, const Tensor& rhs);
  static Tensor float_div(const Tensor& lhs, const Tensor& rhs);
  static Tensor float_matmul(const Tensor& lhs, const Tensor& rhs);
  static Tensor float_neg(const Tensor& t);
  static Tensor float_exp(const Tensor& t);
  static Tensor float_log(const Tensor& t);
  static Tensor float_sqrt(const Tensor& t);
  static Tensor float_tanh(const Tensor& t);
  static Tensor relu(const Tensor& t);
  static Tensor sigmoid(const Tensor& t);
  static Tensor float_powf_scalar(const Tensor& t, double exponent);
  static Tensor float_add_scalar(const Tensor& t, double scalar);
  static Tensor float_mul_scalar(const Tensor& t, double scalar);
  static Tensor float_sum(const Tensor& t);
  static Tensor float_mean(const Tensor& t);
  static Tensor float_sum_dim(const Tensor& t, std::size_t dim);
  static Tensor float_mean_dim(const Tensor& t, std::size_t dim);
  static Tensor float_reshape(const Tensor& t, const Shape& shape);
  static Tensor float_swap_dims(const Tensor& t, std::size_t dim0, std::size_t dim1);
  static Tensor float_to_device(const Tensor& t, const Device& device);
  static Tensor float_cast(const Tensor& t, DType dtype);

  // Seeds the root with ones of its shape (a non-scalar root acts like its sum) and returns the
  // gradient of every tracked leaf the root depends on. Panics duplicate-node-id when two
  // distinct nodes of the graph share an id (Gradients could not keep both apart).
  static Gradients backward(const Tensor& root);
  static std::optional<Primitive> grad(const Tensor& t, const Gradients& grads);
  static std::optional<Primitive> grad_remove(const Tensor& t, Gradients& grads);
  // Replaces (never accumulates) t's entry with `grad`; any shape, dtype or device of B is accepted.
  static void grad_replace(const Tensor& t, Gradients& grads, Primitive grad);
};

#define CROSSGRAD_X(Name) extern template struct Autodiff<backends::Name>;
CROSSGRAD_BACKENDS(CROSSGRAD_X)
#undef CROSSGRAD_X

}  // namespace crossgrad
