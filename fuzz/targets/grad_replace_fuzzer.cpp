// grad_replace_fuzzer: bytes -> (tensor kind, gradient kind, data, a Gradients
// state from small backward passes) -> Dispatch::grad_replace, checked by the
// shared oracle (CONTRACT section 5): outcome and exact message,
// replace-not-accumulate, nothing touched on a panic, checkpointing irrelevant,
// debug renderings.
#include <crossgrad/dispatch/debug.hpp>

#include "decode/scenarios.hpp"
#include "targets/panic_ids.hpp"
#include "targets/targets.hpp"

namespace crossgrad::fuzz {
namespace {

std::string engine_debug(const DispatchTensorKind &k) { return debug(k); }

Decoded<GradReplaceCase> decode(Bytes bytes) {
  return decode_noting_uses<GradReplaceCase>(bytes, [](auto &io, auto &x) { schema(io, x); });
}

void run(Bytes bytes, Outcome &out) {
  const Decoded<GradReplaceCase> decoded = decode(bytes);
  if (skip_unless_applicable(decoded.uses, out)) return;
  const GradReplaceCase &c = decoded.scenario;
  const oracle::GradReplaceScenario &s = c.scenario;
  const oracle::Outcome expected = oracle::expect_grad_replace(s.tensor.kind, std::nullopt, s.grad.kind, std::nullopt);
  out.note([&] { return "oracle: grad_replace -> " + oracle::describe(expected); });
  // The scenario's backward passes run once; each check works on its own copy of their result (the
  // same state a fresh build gives, so each check still sees the state it checks).
  const Gradients built = oracle::build_gradients(s.graphs);
  require(oracle::check_grad_replace(s, built), "grad_replace");
  note_expected(out, expected.panic_id, "grad_replace");
  require(oracle::check_checkpointing_irrelevant(s, built), "checkpointing");
  require(oracle::check_debug_rendering(s.tensor.kind, engine_debug), "debug(tensor)");
  require(oracle::check_debug_rendering(s.grad.kind, engine_debug), "debug(grad)");
  if (expected.panic_id && *expected.panic_id == "cross-backend") {
    require(oracle::check_cross_backend_message(s.tensor, s.grad), "cross-backend message");
  }
  if (c.second_grad) {
    require(oracle::check_replace_twice(s, *c.second_grad, built), "replace twice");
    out.note([] { return std::string("replace twice -> ok"); });
  }
}

std::string describe_bytes(Bytes bytes) { return describe(decode(bytes).scenario); }

}  // namespace

const Target kGradReplaceTarget{"grad_replace_fuzzer", &describe_bytes, &run};

}  // namespace crossgrad::fuzz
