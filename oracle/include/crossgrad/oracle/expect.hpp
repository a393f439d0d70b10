#pragma once
// Expected outcomes of the autodiff API (CONTRACT sections 4-5), decided from specs alone.
#include <crossgrad/core/panic.hpp>
#include <crossgrad/oracle/snapshot.hpp>
#include <crossgrad/oracle/spec.hpp>

#include <cstdint>
#include <memory>
#include <type_traits>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace crossgrad::oracle {

// Success, or a panic with its catalog id and exact message.
struct Outcome {
  std::optional<std::string> panic_id;
  std::string message;

  bool ok() const { return !panic_id; }
  static Outcome success() { return {}; }
  static Outcome panic(std::string id, std::string message) { return {std::move(id), std::move(message)}; }
  friend bool operator==(const Outcome&, const Outcome&) = default;
};
std::string describe(const Outcome& outcome);
std::ostream& operator<<(std::ostream& os, const Outcome& outcome);

// Runs call(context) and reports what happened as an Outcome (outcome_of's catch, out of line).
Outcome outcome_of_call(void (*call)(void*), void* context);

// Runs f against the engine and reports what happened as an Outcome; an exception that is not a
// crossgrad::Panic gets an id no catalog entry has, so it can never match an expectation.
//
// Note [Expected panics are caught in a small frame]
// The handler is in outcome_of_call (expect.cpp), not in the check that calls outcome_of. An
// expected panic unwinds every frame up to its handler, and the C++ personality routine scans a
// frame's call-site table from its start, in both unwinding phases: with the try block inlined
// into a large check function, that scan was a large share of each panic's ~30,000 instructions
// (docs/FUZZ_THROUGHPUT.md, round 8), and a fuzz input panics several times on purpose.
template <class F>
Outcome outcome_of(F&& f) {
  using Fn = std::remove_reference_t<F>;
  return outcome_of_call([](void* c) { (*static_cast<Fn*>(c))(); },
                         const_cast<void*>(static_cast<const void*>(std::addressof(f))));
}

// The catalog's texts, copied from CONTRACT section 4 (not read from the engine).
namespace text {
inline constexpr std::string_view requires_autodiff = "Requires autodiff tensor.";
inline constexpr std::string_view autodiff_wraps_autodiff = "Autodiff should not wrap an autodiff tensor.";
inline constexpr std::string_view unreachable = "internal error: entered unreachable code";
inline constexpr std::string_view should_be_float_prefix = "Should be float, got ";
// The seed record's messagePattern.
inline constexpr std::string_view cross_backend_pattern =
    R"(The provided tensors are not on the same backend\. Got backends (.+?) and (.+?)\.)";
}  // namespace text
std::string cross_backend_message(std::string_view t, std::string_view g);

// The panics GradientsSession::tracking expects for a tensor of this kind (docs/OPS.md
// "Tracking"): op-kind-mismatch for a kind that is no float tensor, require-grad-non-leaf (for
// float_neg of it) when it is tracked, none for a plain float tensor.
std::vector<std::string> expect_tracking_panics(const KindSpec& tensor);
// "int" | "bool" | "quantized" | "autodiff" ("float" never panics).
std::string_view got_word(PrimitiveKind primitive);

// Operations of section 5; `node` arguments are the autodiff node ids of the built tensors
// (node_of), needed only to render cross-backend messages.
Outcome expect_grad_replace(const KindSpec& tensor, std::optional<std::uint64_t> tensor_node,
                            const KindSpec& grad, std::optional<std::uint64_t> grad_node);
// grad, grad_remove, backward, inner: the receiver checks.
Outcome expect_receiver(const KindSpec& tensor);
Outcome expect_from_inner(const KindSpec& tensor);

// grad / grad_remove also depend on the container: an entry of another backend than the node's
// is `unreachable` (catalog); no entry is success with nothing.
struct GradExpectation {
  Outcome outcome;
  std::optional<EntrySnapshot> value;
};
GradExpectation expect_grad(const KindSpec& tensor, std::optional<std::uint64_t> tensor_node,
                            const GradientsSnapshot& grads);

}  // namespace crossgrad::oracle
