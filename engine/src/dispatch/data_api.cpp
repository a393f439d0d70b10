// Data in and out, devices, quantization: the dispatch ops that create or unwrap kinds.
#include "dispatch/create_on.hpp"
#include "dispatch/dispatch_arms.hpp"

#include <crossgrad/core/shape_rules.hpp>
#include <crossgrad/dispatch/dispatch.hpp>

namespace crossgrad {
using namespace dispatch_detail;
namespace {

void check_data_kind(const TensorData& data, DTypeCategory want, const char* op, const char* word) {
  if (dtype_category(data.dtype()) != want) {
    panic(PanicId::DataKindMismatch, {{"op", op}, {"expected", word}, {"dtype", std::string(dtype_name(data.dtype()))}});
  }
}

// The data of the P primitive inside B(P(...)) or Autodiff(B(P(...))), else op-kind-mismatch.
template <template <class> class P>
TensorData read_primitive(const DispatchTensor& t, const char* op, const char* expected) {
  const DispatchTensorKind& k = t.kind.is_autodiff() ? t.kind.autodiff_inner() : t.kind;
  return std::visit(Overloaded{[&](const AutodiffKind&) -> TensorData { kind_mismatch(op, expected, t.kind); },
                               [&]<class B>(const BackendTensor<B>& bt) -> TensorData {
                                 const auto* p = std::get_if<P<B>>(&bt.value);
                                 if (p == nullptr) kind_mismatch(op, expected, t.kind);
                                 return B::into_data(p->tensor);
                               }},
                    k.value);
}

// f.template operator()<B>(primitive) on the float primitive of B(Float(p)) or
// Autodiff(B(Autodiff(a))); op-kind-mismatch on any other kind.
template <class R, class F>
R with_float_primitive(const char* op, const DispatchTensor& t, F&& f) {
  const std::optional<FloatView> v = float_view(t.kind);
  if (!v) kind_mismatch(op, "Float", t.kind);
  const DispatchTensorKind& k = v->tracked ? t.kind.autodiff_inner() : t.kind;
  return std::visit(Overloaded{[](const AutodiffKind&) -> R { panic(PanicId::Unreachable); },
                               [&]<class B>(const BackendTensor<B>& bt) -> R {
                                 if (const auto* p = std::get_if<FloatPrimitive<B>>(&bt.value)) return f.template operator()<B>(p->tensor);
                                 return f.template operator()<B>(std::get<AutodiffTensor<B>>(bt.value).primitive);
                               }},
                    k.value);
}

}  // namespace

DispatchTensor Dispatch::float_from_data(const TensorData& data, const DispatchDevice& device) {
  check_data_kind(data, DTypeCategory::Float, "float_from_data", "float");
  return create_on(device, [&]<class B>(const Device& d) { return BackendTensor<B>::Float(B::from_data(data, d)); });
}

namespace {
DispatchTensor full_named(const char* op, const Shape& shape, double value, const DispatchDevice& device, DType dtype) {
  rules::check_float_dtype(dtype, op);
  return create_on(device, [&]<class B>(const Device& d) { return BackendTensor<B>::Float(B::float_full(shape, value, dtype, d)); });
}
}  // namespace

DispatchTensor Dispatch::float_full(const Shape& shape, double value, const DispatchDevice& device, DType dtype) {
  return full_named("float_full", shape, value, device, dtype);
}
DispatchTensor Dispatch::float_zeros(const Shape& shape, const DispatchDevice& device, DType dtype) {
  return full_named("float_zeros", shape, 0.0, device, dtype);
}
DispatchTensor Dispatch::float_ones(const Shape& shape, const DispatchDevice& device, DType dtype) {
  return full_named("float_ones", shape, 1.0, device, dtype);
}
DispatchTensor Dispatch::float_empty(const Shape& shape, const DispatchDevice& device, DType dtype) {
  return full_named("float_empty", shape, 0.0, device, dtype);
}
DispatchTensor Dispatch::float_random(const Shape& shape, const Distribution& distribution, std::uint64_t seed,
                                      const DispatchDevice& device, DType dtype) {
  const TensorData data = random_data(shape, distribution, seed, dtype, "float_random");
  return create_on(device, [&]<class B>(const Device& d) { return BackendTensor<B>::Float(B::from_data(data, d)); });
}

DispatchTensor Dispatch::int_from_data(const TensorData& data, const DispatchDevice& device) {
  check_data_kind(data, DTypeCategory::Int, "int_from_data", "int");
  return create_on(device, [&]<class B>(const Device& d) { return BackendTensor<B>::Int(B::from_data(data, d)); });
}

DispatchTensor Dispatch::bool_from_data(const TensorData& data, const DispatchDevice& device) {
  check_data_kind(data, DTypeCategory::Bool, "bool_from_data", "bool");
  return create_on(device, [&]<class B>(const Device& d) { return BackendTensor<B>::Bool(B::from_data(data, d)); });
}

TensorData Dispatch::float_into_data(const DispatchTensor& t) {
  return with_float_primitive<TensorData>("float_into_data", t, []<class B>(const auto& p) { return B::into_data(p); });
}

TensorData Dispatch::int_into_data(const DispatchTensor& t) {
  return read_primitive<IntPrimitive>(t, "int_into_data", "Int");
}

TensorData Dispatch::bool_into_data(const DispatchTensor& t) {
  return read_primitive<BoolPrimitive>(t, "bool_into_data", "Bool");
}

DispatchDevice Dispatch::float_device(const DispatchTensor& t) {
  DispatchDevice d = with_float_primitive<DispatchDevice>(
      "float_device", t, []<class B>(const auto& p) { return DispatchDevice::of<B>(B::device(p)); });
  return t.kind.is_autodiff() ? DispatchDevice::Autodiff(std::move(d)) : d;
}

Shape Dispatch::float_shape(const DispatchTensor& t) {
  return with_float_primitive<Shape>("float_shape", t, []<class B>(const auto& p) { return B::shape(p); });
}

DType Dispatch::float_dtype(const DispatchTensor& t) {
  return with_float_primitive<DType>("float_dtype", t, []<class B>(const auto& p) { return B::dtype(p); });
}

// Plain tensors move anywhere (across backends through host data). Tracked tensors move anywhere
// too, differentiably: within their backend through Autodiff<B>::float_to_device, to another
// backend through move_tracked_across, so one graph spans both (CONTRACT section 7). The result
// keeps the receiver's checkpointing strategy, as every op's result does.
DispatchTensor Dispatch::float_to_device(const DispatchTensor& t, const DispatchDevice& device) {
  const std::optional<FloatView> v = float_view(t.kind);
  if (!v) kind_mismatch("float_to_device", "Float", t.kind);
  const bool device_tracked = std::holds_alternative<AutodiffDevice>(device.value);
  if (v->tracked != device_tracked) {
    panic(PanicId::DeviceKindMismatch,
          {{"op", "float_to_device"}, {"tensor", v->tracked ? "an autodiff" : "a plain"}, {"device", device.to_string()}});
  }
  const DispatchDevice& target = device_tracked ? *std::get<AutodiffDevice>(device.value).inner : device;
  if (std::holds_alternative<AutodiffDevice>(target.value)) panic(PanicId::AutodiffWrapsAutodiff);
  if (v->tracked) {
    return std::visit(
        Overloaded{[](const AutodiffKind&) -> DispatchTensor { panic(PanicId::Unreachable); },
                   [&]<class From>(const BackendTensor<From>& bt) -> DispatchTensor {
                     const AutodiffTensor<From>& src = std::get<AutodiffTensor<From>>(bt.value);
                     return std::visit(
                         Overloaded{[](const AutodiffDevice&) -> DispatchTensor { panic(PanicId::Unreachable); },
                                    [&]<class To>(const BackendDevice<To>& d) -> DispatchTensor {
                                      if constexpr (std::is_same_v<From, To>) {
                                        return tracked<To>(Autodiff<To>::float_to_device(src, d.device), t.checkpointing);
                                      } else {
                                        return tracked<To>(move_tracked_across<From, To>(src, d.device), t.checkpointing);
                                      }
                                    }},
                         target.value);
                   }},
        t.kind.autodiff_inner().value);
  }
  return std::visit(
      Overloaded{[](const AutodiffKind&) -> DispatchTensor { panic(PanicId::Unreachable); },
                 [&]<class From>(const BackendTensor<From>& bt) -> DispatchTensor {
                   const typename From::Tensor& src = std::get<FloatPrimitive<From>>(bt.value).tensor;
                   return std::visit(
                       Overloaded{[](const AutodiffDevice&) -> DispatchTensor { panic(PanicId::Unreachable); },
                                  [&]<class To>(const BackendDevice<To>& d) -> DispatchTensor {
                                    if constexpr (std::is_same_v<From, To>) {
                                      return plain<To>(To::float_to_device(src, d.device));
                                    } else {
                                      return plain<To>(To::from_data(From::into_data(src), d.device));
                                    }
                                  }},
                       target.value);
                 }},
      t.kind.value);
}

DispatchTensor Dispatch::quantize(const DispatchTensor& t) {
  DispatchTensorKind q = with_float_primitive<DispatchTensorKind>("quantize", t, []<class B>(const auto& p) {
    return DispatchTensorKind{BackendTensor<B>::Quantized(B::quantize(p))};
  });
  // Note [Checkpointing of op results]: an autodiff result always carries a strategy.
  if (t.kind.is_autodiff()) {
    return {DispatchTensorKind::Autodiff(std::move(q)), t.checkpointing ? t.checkpointing : CheckpointingStrategy::Disabled};
  }
  return {std::move(q), std::nullopt};
}

DispatchTensor Dispatch::dequantize(const DispatchTensor& t) {
  const DispatchTensorKind& k = t.kind.is_autodiff() ? t.kind.autodiff_inner() : t.kind;
  return std::visit(Overloaded{[&](const AutodiffKind&) -> DispatchTensor { kind_mismatch("dequantize", "Quantized", t.kind); },
                               [&]<class B>(const BackendTensor<B>& bt) -> DispatchTensor {
                                 const auto* q = std::get_if<QuantizedPrimitive<B>>(&bt.value);
                                 if (q == nullptr) kind_mismatch("dequantize", "Quantized", t.kind);
                                 typename B::Tensor x = B::dequantize(q->tensor);
                                 if (t.kind.is_autodiff()) return tracked<B>(Autodiff<B>::from_inner(std::move(x)), t.checkpointing);
                                 return plain<B>(std::move(x));
                               }},
                    k.value);
}

}  // namespace crossgrad
