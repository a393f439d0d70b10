#include <crossgrad/oracle/expect.hpp>
#include <crossgrad/oracle/render.hpp>

namespace crossgrad::oracle {

std::string describe(const Outcome& outcome) {
  if (outcome.ok()) return "success";
  return "panic " + *outcome.panic_id + ": \"" + outcome.message + "\"";
}
std::ostream& operator<<(std::ostream& os, const Outcome& outcome) { return os << describe(outcome); }

// Note [Expected panics are caught in a small frame]
Outcome outcome_of_call(void (*call)(void*), void* context) {
  try {
    call(context);
    return Outcome::success();
  } catch (const Panic& p) {
    return Outcome::panic(std::string(panic_id_name(p.id())), p.message());
  } catch (const std::exception& e) {
    return Outcome::panic("<not a crossgrad::Panic>", e.what());
  }
}

std::string cross_backend_message(std::string_view t, std::string_view g) {
  return "The provided tensors are not on the same backend. Got backends " + std::string(t) + " and " +
         std::string(g) + ".";
}

std::string_view got_word(PrimitiveKind primitive) {
  switch (primitive) {
    case PrimitiveKind::Int: return "int";
    case PrimitiveKind::Bool: return "bool";
    case PrimitiveKind::Quantized: return "quantized";
    case PrimitiveKind::Autodiff: return "autodiff";
    case PrimitiveKind::Float: return "float";
  }
  return "?";
}

namespace {
Outcome should_be_float(PrimitiveKind primitive) {
  return Outcome::panic("should-be-float", std::string(text::should_be_float_prefix) + std::string(got_word(primitive)));
}
Outcome requires_autodiff() { return Outcome::panic("requires-autodiff", std::string(text::requires_autodiff)); }
Outcome wraps_autodiff() { return Outcome::panic("autodiff-wraps-autodiff", std::string(text::autodiff_wraps_autodiff)); }
Outcome unreachable() { return Outcome::panic("unreachable", std::string(text::unreachable)); }
}  // namespace

// CONTRACT section 5, in its order: the receiver first, then the pair (inner, grad).
Outcome expect_grad_replace(const KindSpec& tensor, std::optional<std::uint64_t> tensor_node, const KindSpec& grad,
                            std::optional<std::uint64_t> grad_node) {
  if (tensor.autodiff_depth == 0) return requires_autodiff();
  const KindSpec inner = unwrap(tensor);
  if (inner.autodiff_depth == 0 && grad.autodiff_depth == 0 && inner.leaf.backend == grad.leaf.backend) {
    if (inner.leaf.primitive != PrimitiveKind::Autodiff) return unreachable();
    if (grad.leaf.primitive != PrimitiveKind::Float) return should_be_float(grad.leaf.primitive);
    return Outcome::success();
  }
  if (inner.autodiff_depth > 0) return wraps_autodiff();
  return Outcome::panic("cross-backend",
                        cross_backend_message(render_kind(inner, tensor_node), render_kind(grad, grad_node)));
}

Outcome expect_receiver(const KindSpec& tensor) {
  if (tensor.autodiff_depth == 0) return requires_autodiff();
  if (tensor.autodiff_depth > 1) return wraps_autodiff();
  if (tensor.leaf.primitive != PrimitiveKind::Autodiff) return unreachable();
  return Outcome::success();
}

std::vector<std::string> expect_tracking_panics(const KindSpec& tensor) {
  if (!is_float_view(tensor)) return {"op-kind-mismatch"};
  if (tensor.autodiff_depth == 1) return {"require-grad-non-leaf"};
  return {};
}

Outcome expect_from_inner(const KindSpec& tensor) {
  if (tensor.autodiff_depth > 0) return wraps_autodiff();
  if (tensor.leaf.primitive != PrimitiveKind::Float) return should_be_float(tensor.leaf.primitive);
  return Outcome::success();
}

GradExpectation expect_grad(const KindSpec& tensor, std::optional<std::uint64_t> tensor_node,
                            const GradientsSnapshot& grads) {
  GradExpectation e{expect_receiver(tensor), std::nullopt};
  if (!e.outcome.ok() || !tensor_node) return e;
  auto it = grads.find(*tensor_node);
  if (it == grads.end()) return e;
  if (it->second.backend != tensor.leaf.backend) return {unreachable(), std::nullopt};
  e.value = it->second;
  return e;
}

}  // namespace crossgrad::oracle
