#include <crossgrad/dispatch/device.hpp>

#include "dispatch/dispatch_arms.hpp"

namespace crossgrad {

std::string DispatchDevice::to_string() const {
  return std::visit(dispatch_detail::Overloaded{
                        [](const AutodiffDevice& ad) { return "Autodiff(" + ad.inner->to_string() + ")"; },
                        []<class B>(const BackendDevice<B>& d) { return std::string(B::name) + "(" + d.device.to_string() + ")"; }},
                    value);
}

bool operator==(const DispatchDevice& a, const DispatchDevice& b) {
  if (a.value.index() != b.value.index()) return false;
  return std::visit(dispatch_detail::Overloaded{
                        [&](const AutodiffDevice& ad) { return *ad.inner == *std::get<AutodiffDevice>(b.value).inner; },
                        [&]<class B>(const BackendDevice<B>& d) { return d == std::get<BackendDevice<B>>(b.value); }},
                    a.value);
}

}  // namespace crossgrad
