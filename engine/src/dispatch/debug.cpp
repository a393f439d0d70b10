#include <crossgrad/dispatch/debug.hpp>

#include "dispatch/dispatch_arms.hpp"

namespace crossgrad {
namespace {

template <class B>
std::string tensor_struct(const typename B::Tensor& t) {
  std::string s(B::name);
  s += "Tensor { shape: ";
  s += B::shape(t).to_string();
  s += ", dtype: ";
  s += dtype_name(B::dtype(t));
  s += ", device: ";
  s += B::device(t).to_string();
  s += " }";
  return s;
}

template <class B>
std::string primitive(const BackendTensor<B>& bt) {
  using dispatch_detail::Overloaded;
  return std::visit(
      Overloaded{[](const FloatPrimitive<B>& p) { return "Float(" + tensor_struct<B>(p.tensor) + ")"; },
                 [](const IntPrimitive<B>& p) { return "Int(" + tensor_struct<B>(p.tensor) + ")"; },
                 [](const BoolPrimitive<B>& p) { return "Bool(" + tensor_struct<B>(p.tensor) + ")"; },
                 [](const QuantizedPrimitive<B>& p) { return "Quantized(" + tensor_struct<B>(p.tensor.values) + ")"; },
                 [](const AutodiffTensor<B>& a) {
                   return "Autodiff(AutodiffTensor { primitive: " + tensor_struct<B>(a.primitive) + ", node: NodeId(" +
                          std::to_string(a.id().value) + ") })";
                 }},
      bt.value);
}

}  // namespace

std::string debug(const DispatchTensorKind& kind) {
  using dispatch_detail::Overloaded;
  return std::visit(Overloaded{[](const AutodiffKind& ak) { return "Autodiff(" + debug(*ak.inner) + ")"; },
                               [&]<class B>(const BackendTensor<B>& bt) {
                                 return std::string(B::name) + "(" + primitive<B>(bt) + ")";
                               }},
                    kind.value);
}

std::string_view primitive_kind_name(PrimitiveKind kind) {
  switch (kind) {
    case PrimitiveKind::Float:
      return "Float";
    case PrimitiveKind::Int:
      return "Int";
    case PrimitiveKind::Bool:
      return "Bool";
    case PrimitiveKind::Quantized:
      return "Quantized";
    case PrimitiveKind::Autodiff:
      return "Autodiff";
  }
  return "Float";
}

std::string_view DispatchTensorKind::backend_name() const {
  return std::visit(dispatch_detail::Overloaded{[](const AutodiffKind&) { return std::string_view("Autodiff"); },
                                                []<class B>(const BackendTensor<B>&) { return B::name; }},
                    value);
}

}  // namespace crossgrad
