// Burn's tracking calls (docs/OPS.md "Tracking"): float_detach, float_set_require_grad and
// float_is_require_grad, in crossgrad's terms. Every leaf of an autodiff device receives its
// gradient (CONTRACT section 7), so "requires grad" is "a tracked leaf", and a tensor no backward
// reaches is a plain one.
#include "dispatch/dispatch_arms.hpp"

#include <crossgrad/dispatch/dispatch.hpp>

namespace crossgrad {
using namespace dispatch_detail;
namespace {

// The float view of t, or op-kind-mismatch naming `op`.
FloatView float_or_panic(const char* op, const DispatchTensor& t) {
  const std::optional<FloatView> v = float_view(t.kind);
  if (!v) kind_mismatch(op, "Float", t.kind);
  return *v;
}

bool is_tracked_leaf(const DispatchTensor& t) {
  return with_receiver<bool>(t, []<class B>(const AutodiffTensor<B>& a) { return a.node->is_leaf(); });
}

}  // namespace

// A tracked tensor's values as a new leaf: backward from what is computed from it stops there.
DispatchTensor Dispatch::float_detach(const DispatchTensor& tensor) {
  if (!float_or_panic("float_detach", tensor).tracked) return tensor;
  return from_inner(inner(tensor));
}

DispatchTensor Dispatch::float_set_require_grad(const DispatchTensor& tensor, bool require_grad) {
  const FloatView v = float_or_panic("float_set_require_grad", tensor);
  if (!require_grad) return v.tracked ? inner(tensor) : tensor;
  if (!v.tracked) return from_inner(tensor);
  if (!is_tracked_leaf(tensor)) panic(PanicId::RequireGradNonLeaf);
  return tensor;
}

bool Dispatch::float_is_require_grad(const DispatchTensor& tensor) {
  return float_or_panic("float_is_require_grad", tensor).tracked && is_tracked_leaf(tensor);
}

}  // namespace crossgrad
