#pragma once
// Tensor: a friendlier value type over DispatchTensor, with operators and methods named as in
// Burn's Tensor API. Every call is one Dispatch call; panics are the same.
#include <crossgrad/dispatch/dispatch.hpp>

#include <optional>
#include <vector>
#include <utility>

// Tensor's method for one registry op. The receiver is *this; tensor operands of the signature
// are Tensors (index tensors: DispatchTensor, they are Int); Cat is a static member.
#define CROSSGRAD_TENSOR_RESULT_Float Tensor
#define CROSSGRAD_TENSOR_RESULT_Int DispatchTensor
#define CROSSGRAD_TENSOR_RESULT_Bool DispatchTensor
#define CROSSGRAD_TENSOR_METHOD(name, method, Sig, Operand, Result, Rule) \
  CROSSGRAD_TENSOR_METHOD_##Operand(name, method, Sig, Result)
#define CROSSGRAD_TENSOR_METHOD_Int(name, method, Sig, Result)
#define CROSSGRAD_TENSOR_METHOD_Bool(name, method, Sig, Result)
#define CROSSGRAD_TENSOR_METHOD_Float(name, method, Sig, Result) \
  CROSSGRAD_PP_CAT(CROSSGRAD_TENSOR_METHOD_, CROSSGRAD_SIG_CLASS_##Sig)(name, method, Sig, Result)
#define CROSSGRAD_TENSOR_METHOD_MAP(name, method, Sig, Result)                                       \
  CROSSGRAD_TENSOR_RESULT_##Result method CROSSGRAD_SIG_TAIL_##Sig const {                         \
    return CROSSGRAD_TENSOR_RESULT_##Result(Dispatch::name(inner_ CROSSGRAD_SIG_EXTRA_##Sig));      \
  }
#define CROSSGRAD_TENSOR_METHOD_ZIP(name, method, Sig, Result)          \
  CROSSGRAD_TENSOR_RESULT_##Result method(const Tensor& rhs) const {    \
    return CROSSGRAD_TENSOR_RESULT_##Result(Dispatch::name(inner_, rhs.inner_)); \
  }
#define CROSSGRAD_TENSOR_METHOD_ZIP_WITH(name, method, Sig, Result)                                    \
  CROSSGRAD_TENSOR_RESULT_##Result method(const Tensor& second CROSSGRAD_SIG_TAIL_##Sig) const {       \
    return CROSSGRAD_TENSOR_RESULT_##Result(Dispatch::name(inner_, second.inner_ CROSSGRAD_SIG_EXTRA_##Sig)); \
  }
#define CROSSGRAD_TENSOR_METHOD_ZIP_OPTIONAL(name, method, Sig, Result)                                \
  Tensor method(const Tensor& weight, const std::optional<Tensor>& bias CROSSGRAD_SIG_TAIL_##Sig) const { \
    return Tensor(Dispatch::name(inner_, weight.inner_,                                                  \
                                 bias ? std::optional<DispatchTensor>(bias->inner_) : std::nullopt       \
                                     CROSSGRAD_SIG_EXTRA_##Sig));                                        \
  }
#define CROSSGRAD_TENSOR_METHOD_ZIP3_WITH(name, method, Sig, Result)                                   \
  Tensor method(const Tensor& second, const Tensor& grad CROSSGRAD_SIG_TAIL_##Sig) const {               \
    return Tensor(Dispatch::name(inner_, second.inner_, grad.inner_ CROSSGRAD_SIG_EXTRA_##Sig));        \
  }
#define CROSSGRAD_TENSOR_METHOD_ZIP5_WITH(name, method, Sig, Result)                                   \
  Tensor method(const Tensor& weight, const Tensor& bias, const Tensor& mean,                            \
                const Tensor& variance CROSSGRAD_SIG_TAIL_##Sig) const {                                 \
    return Tensor(Dispatch::name(inner_, weight.inner_, bias.inner_, mean.inner_,                        \
                                 variance.inner_ CROSSGRAD_SIG_EXTRA_##Sig));                             \
  }
#define CROSSGRAD_TENSOR_METHOD_ATTENTION(name, method, Sig, Result)                                  \
  Tensor method(const Tensor& key, const Tensor& value, const std::optional<DispatchTensor>& mask,       \
                const std::optional<Tensor>& bias CROSSGRAD_SIG_TAIL_##Sig) const {                     \
    return Tensor(Dispatch::name(inner_, key.inner_, value.inner_, mask,                                  \
                                 bias ? std::optional<DispatchTensor>(bias->inner_) : std::nullopt        \
                                     CROSSGRAD_SIG_EXTRA_##Sig));                                         \
  }
#define CROSSGRAD_TENSOR_METHOD_INDEXED_WITH(name, method, Sig, Result)                                     \
  Tensor method(const Tensor& grad, const DispatchTensor& indices CROSSGRAD_SIG_TAIL_##Sig) const {             \
    return Tensor(Dispatch::name(inner_, grad.inner_, indices CROSSGRAD_SIG_EXTRA_##Sig));                     \
  }
#define CROSSGRAD_TENSOR_METHOD_SELECT(name, method, Sig, Result)                            \
  Tensor method(std::size_t dim, const DispatchTensor& indices) const {                       \
    return Tensor(Dispatch::name(inner_, dim, indices));                                      \
  }
#define CROSSGRAD_TENSOR_METHOD_ASSIGN(name, method, Sig, Result)                                   \
  Tensor method(std::size_t dim, const DispatchTensor& indices, const Tensor& values) const {         \
    return Tensor(Dispatch::name(inner_, dim, indices, values.inner_));                              \
  }
#define CROSSGRAD_TENSOR_METHOD_ASSIGN_UPDATE(name, method, Sig, Result)                                  \
  Tensor method(std::size_t dim, const DispatchTensor& indices, const Tensor& values, IndexingUpdateOp update) const { \
    return Tensor(Dispatch::name(inner_, dim, indices, values.inner_, update));                                    \
  }
#define CROSSGRAD_TENSOR_METHOD_GATHER_ND(name, method, Sig, Result) \
  Tensor method(const DispatchTensor& indices) const { return Tensor(Dispatch::name(inner_, indices)); }
#define CROSSGRAD_TENSOR_METHOD_SCATTER_ND(name, method, Sig, Result)                                   \
  Tensor method(const DispatchTensor& indices, const Tensor& values, IndexingUpdateOp update) const { \
    return Tensor(Dispatch::name(inner_, indices, values.inner_, update));                           \
  }
#define CROSSGRAD_TENSOR_METHOD_ZIP_DIM(name, method, Sig, Result)                      \
  CROSSGRAD_TENSOR_RESULT_##Result method(const Tensor& rhs, std::size_t dim) const {             \
    return CROSSGRAD_TENSOR_RESULT_##Result(Dispatch::name(inner_, rhs.inner_, dim));              \
  }
#define CROSSGRAD_TENSOR_METHOD_ZIP_RANGES(name, method, Sig, Result)                            \
  Tensor method(const std::vector<Range>& ranges, const Tensor& values) const {                       \
    return Tensor(Dispatch::name(inner_, ranges, values.inner_));                                     \
  }
#define CROSSGRAD_TENSOR_METHOD_MASKED(name, method, Sig, Result)                                 \
  Tensor method(const DispatchTensor& mask, const Tensor& value) const {                             \
    return Tensor(Dispatch::name(inner_, mask, value.inner_));                                     \
  }
#define CROSSGRAD_TENSOR_METHOD_MASK_FILL(name, method, Sig, Result)                                 \
  Tensor method(const DispatchTensor& mask, double value) const {                                    \
    return Tensor(Dispatch::name(inner_, mask, value));                                            \
  }
#define CROSSGRAD_TENSOR_METHOD_MASK_SELECT(name, method, Sig, Result) \
  Tensor method(const DispatchTensor& mask) const { return Tensor(Dispatch::name(inner_, mask)); }
#define CROSSGRAD_TENSOR_METHOD_CAT(name, method, Sig, Result)                  \
  static Tensor method(const std::vector<Tensor>& tensors, std::size_t dim) {   \
    std::vector<DispatchTensor> inner;                                           \
    for (const Tensor& t : tensors) inner.push_back(t.inner_);                  \
    return Tensor(Dispatch::name(inner, dim));                                   \
  }

namespace crossgrad {

class Tensor {
 public:
  explicit Tensor(DispatchTensor inner) : inner_(std::move(inner)) {}
  static Tensor from_data(const TensorData& data, const DispatchDevice& device) {
    return Tensor(Dispatch::float_from_data(data, device));
  }

  static Tensor full(const Shape& shape, double value, const DispatchDevice& device, DType dtype = DType::F32) {
    return Tensor(Dispatch::float_full(shape, value, device, dtype));
  }
  static Tensor zeros(const Shape& shape, const DispatchDevice& device, DType dtype = DType::F32) {
    return Tensor(Dispatch::float_zeros(shape, device, dtype));
  }
  static Tensor ones(const Shape& shape, const DispatchDevice& device, DType dtype = DType::F32) {
    return Tensor(Dispatch::float_ones(shape, device, dtype));
  }
  static Tensor empty(const Shape& shape, const DispatchDevice& device, DType dtype = DType::F32) {
    return Tensor(Dispatch::float_empty(shape, device, dtype));
  }
  static Tensor random(const Shape& shape, const Distribution& distribution, std::uint64_t seed,
                       const DispatchDevice& device, DType dtype = DType::F32) {
    return Tensor(Dispatch::float_random(shape, distribution, seed, device, dtype));
  }

  const DispatchTensor& dispatch() const { return inner_; }
  TensorData into_data() const { return Dispatch::float_into_data(inner_); }
  DispatchDevice device() const { return Dispatch::float_device(inner_); }

  // One method per registry op with a float receiver (Note [The op registry]), named as in Burn's
  // Tensor API: float results are Tensors, int and bool results DispatchTensors.
  CROSSGRAD_OPS(CROSSGRAD_TENSOR_METHOD)

  // Burn's two-result methods: (values, positions), each a Dispatch pair of registry ops.
  std::pair<Tensor, DispatchTensor> sort_with_indices(std::size_t dim, bool descending) const {
    return wrap(Dispatch::float_sort_with_indices(inner_, dim, descending));
  }
  std::pair<Tensor, DispatchTensor> topk_with_indices(std::size_t dim, std::size_t k) const {
    return wrap(Dispatch::float_topk_with_indices(inner_, dim, k));
  }
  std::pair<Tensor, DispatchTensor> max_dim_with_indices(std::size_t dim) const {
    return wrap(Dispatch::float_max_dim_with_indices(inner_, dim));
  }
  std::pair<Tensor, DispatchTensor> min_dim_with_indices(std::size_t dim) const {
    return wrap(Dispatch::float_min_dim_with_indices(inner_, dim));
  }
  std::pair<Tensor, DispatchTensor> max_pool2d_with_indices(const MaxPool2dOptions& options) const {
    return wrap(Dispatch::max_pool2d_with_indices(inner_, options));
  }
  std::pair<Tensor, DispatchTensor> max_pool1d_with_indices(const MaxPool1dOptions& options) const {
    return wrap(Dispatch::max_pool1d_with_indices(inner_, options));
  }

  // Composed ops (docs/OPS.md "Composed ops").
  DispatchTensor greater_elem(double scalar) const { return Dispatch::float_greater_elem(inner_, scalar); }
  Tensor powi_scalar(double scalar) const { return Tensor(Dispatch::float_powi_scalar(inner_, scalar)); }
  Tensor powi(const DispatchTensor& exponents) const { return Tensor(Dispatch::float_powi(inner_, exponents)); }

  friend Tensor operator+(const Tensor& a, const Tensor& b) { return a.add(b); }
  friend Tensor operator-(const Tensor& a, const Tensor& b) { return a.sub(b); }
  friend Tensor operator*(const Tensor& a, const Tensor& b) { return a.mul(b); }
  friend Tensor operator/(const Tensor& a, const Tensor& b) { return a.div(b); }
  friend Tensor operator+(const Tensor& a, double s) { return a.add_scalar(s); }
  friend Tensor operator*(const Tensor& a, double s) { return a.mul_scalar(s); }
  Tensor operator-() const { return neg(); }
  Tensor to_device(const DispatchDevice& device) const { return Tensor(Dispatch::float_to_device(inner_, device)); }

  Gradients backward() const { return Dispatch::backward(inner_); }
  std::optional<Tensor> grad(const Gradients& grads) const {
    auto g = Dispatch::grad(inner_, grads);
    return g ? std::optional<Tensor>(Tensor(std::move(*g))) : std::nullopt;
  }
  void grad_replace(Gradients& grads, const Tensor& grad) const { Dispatch::grad_replace(inner_, grads, grad.inner_); }
  Tensor inner() const { return Tensor(Dispatch::inner(inner_)); }
  Tensor detach() const { return Tensor(Dispatch::float_detach(inner_)); }
  Tensor set_require_grad(bool require_grad) const { return Tensor(Dispatch::float_set_require_grad(inner_, require_grad)); }
  bool is_require_grad() const { return Dispatch::float_is_require_grad(inner_); }
  static Tensor from_inner(const Tensor& t) { return Tensor(Dispatch::from_inner(t.inner_)); }

 private:
  static std::pair<Tensor, DispatchTensor> wrap(std::pair<DispatchTensor, DispatchTensor> p) {
    return {Tensor(std::move(p.first)), std::move(p.second)};
  }
  DispatchTensor inner_;
};

}  // namespace crossgrad
