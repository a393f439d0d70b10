#include <crossgrad/dispatch/debug.hpp>

#include "dispatch/dispatch_arms.hpp"

namespace crossgrad {
namespace {

// Note [Debug renderings append into one string]
// Renderings are built on hot paths (every grad_replace cross-backend panic renders both kinds,
// and the fuzz targets check the renderer on every input), so each piece is appended into the one
// result instead of concatenating temporaries: a handful of allocations fewer per rendering.
template <class B>
void append_tensor_struct(std::string& s, const typename B::Tensor& t) {
  s += B::name;
  s += "Tensor { shape: ";
  s += B::shape(t).to_string();
  s += ", dtype: ";
  s += dtype_name(B::dtype(t));
  s += ", device: ";
  s += B::device(t).to_string();
  s += " }";
}

template <class B>
void append_primitive(std::string& s, const BackendTensor<B>& bt) {
  using dispatch_detail::Overloaded;
  const auto wrapped = [&](std::string_view name, const typename B::Tensor& t) {
    s += name;
    s += '(';
    append_tensor_struct<B>(s, t);
    s += ')';
  };
  std::visit(Overloaded{[&](const FloatPrimitive<B>& p) { wrapped("Float", p.tensor); },
                        [&](const IntPrimitive<B>& p) { wrapped("Int", p.tensor); },
                        [&](const BoolPrimitive<B>& p) { wrapped("Bool", p.tensor); },
                        [&](const QuantizedPrimitive<B>& p) { wrapped("Quantized", p.tensor.values); },
                        [&](const AutodiffTensor<B>& a) {
                          s += "Autodiff(AutodiffTensor { primitive: ";
                          append_tensor_struct<B>(s, a.primitive);
                          s += ", node: NodeId(";
                          s += std::to_string(a.id().value);
                          s += ") })";
                        }},
             bt.value);
}

void append_debug(std::string& s, const DispatchTensorKind& kind) {
  using dispatch_detail::Overloaded;
  std::visit(Overloaded{[&](const AutodiffKind& ak) {
                          s += "Autodiff(";
                          append_debug(s, *ak.inner);
                          s += ')';
                        },
                        [&]<class B>(const BackendTensor<B>& bt) {
                          s += B::name;
                          s += '(';
                          append_primitive<B>(s, bt);
                          s += ')';
                        }},
             kind.value);
}

}  // namespace

std::string debug(const DispatchTensorKind& kind) {
  std::string s;
  s.reserve(160);  // the longest common rendering (Autodiff of a rank-4 tensor) fits
  append_debug(s, kind);
  return s;
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
