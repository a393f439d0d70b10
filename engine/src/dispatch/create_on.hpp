#pragma once
// create_on: the one place that turns a DispatchDevice into a new tensor's kind, shared by the
// float creation functions (data_api.cpp) and the int and bool ones (int_bool_data_api.cpp), so
// that every kind lands on an autodiff device the same way.
#include "dispatch/dispatch_arms.hpp"

#include <crossgrad/dispatch/device.hpp>

#include <variant>

namespace crossgrad::dispatch_detail {

// Builds a primitive on `device` with make<B>(device) -> BackendTensor<B>. On Autodiff(B device)
// float data becomes a tracked leaf, Autodiff(B(Autodiff(...))); int and bool data become
// Autodiff(B(Int/Bool(...))), as in Burn, where only floats are tracked.
template <class Make>
DispatchTensor create_on(const DispatchDevice& device, Make&& make) {
  return std::visit(
      Overloaded{[&](const AutodiffDevice& ad) -> DispatchTensor {
                   return std::visit(
                       Overloaded{[](const AutodiffDevice&) -> DispatchTensor { panic(PanicId::AutodiffWrapsAutodiff); },
                                  [&]<class B>(const BackendDevice<B>& d) -> DispatchTensor {
                                    BackendTensor<B> bt = make.template operator()<B>(d.device);
                                    if (auto* f = std::get_if<FloatPrimitive<B>>(&bt.value)) {
                                      bt = BackendTensor<B>::Autodiff(Autodiff<B>::from_inner(f->tensor));
                                    }
                                    return {DispatchTensorKind::Autodiff(DispatchTensorKind{std::move(bt)}),
                                            CheckpointingStrategy::Disabled};
                                  }},
                       ad.inner->value);
                 },
                 [&]<class B>(const BackendDevice<B>& d) -> DispatchTensor {
                   return {DispatchTensorKind{make.template operator()<B>(d.device)}, std::nullopt};
                 }},
      device.value);
}

}  // namespace crossgrad::dispatch_detail
