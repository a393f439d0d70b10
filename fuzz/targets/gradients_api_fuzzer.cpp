// gradients_api_fuzzer: bytes -> a sequence of backward / grad / grad_remove /
// grad_replace / inner / from_inner commands on one Gradients and a pool of
// tensors, each checked against the oracle's model (oracle::GradientsSession),
// the container compared with the model after each. from_inner first checks
// Burn's tracking calls (detach, set / is_require_grad) on the same tensor.
#include "decode/scenarios.hpp"
#include "targets/panic_ids.hpp"
#include "targets/targets.hpp"

namespace crossgrad::fuzz {
namespace {

Decoded<CommandSequence> decode(Bytes bytes) {
  return decode_noting_uses<CommandSequence>(bytes, [](auto &io, auto &x) { schema(io, x); });
}

// The oracle's expected outcome of a command on the current pool, for the
// catalog report.
std::optional<std::string> expected_panic(const oracle::GradientsSession &session, const Command &c) {
  if (session.pool().empty()) return std::nullopt;
  const oracle::GradientsSession::PoolEntry &e = session.pool()[c.index % session.pool().size()];
  const std::optional<std::uint64_t> node = oracle::node_of(e.tensor.kind);
  switch (c.kind) {
    case CommandKind::Grad:
    case CommandKind::GradRemove:
      return oracle::expect_grad(e.spec, node, session.model()).outcome.panic_id;
    case CommandKind::BackwardOf:
    case CommandKind::Inner:
      return oracle::expect_receiver(e.spec).panic_id;
    case CommandKind::FromInner:
      return oracle::expect_from_inner(e.spec).panic_id;
    case CommandKind::GradReplace:
      return oracle::expect_grad_replace(e.spec, node, c.spec.kind, std::nullopt).panic_id;
    case CommandKind::Backward:
    case CommandKind::AddTensor:
    case CommandKind::kCount:
      break;
  }
  return std::nullopt;
}

void run(Bytes bytes, Outcome &out) {
  const Decoded<CommandSequence> decoded = decode(bytes);
  if (skip_unless_applicable(decoded.uses, out)) return;
  const CommandSequence &seq = decoded.scenario;
  oracle::GradientsSession session;
  for (std::size_t i = 0; i < seq.commands.size(); ++i) {
    const Command &c = seq.commands[i];
    // Built only for a failure or the log.
    const auto what = [&] { return "command " + std::to_string(i) + " " + describe(c); };
    const std::optional<std::string> expected = expected_panic(session, c);
    const std::vector<std::string> tracking_panics =
        c.kind == CommandKind::FromInner && !session.pool().empty()
            ? oracle::expect_tracking_panics(session.pool()[c.index % session.pool().size()].spec)
            : std::vector<std::string>{};
    oracle::Failure f;
    switch (c.kind) {
      case CommandKind::Backward:
        f = session.backward(c.graph);
        break;
      case CommandKind::AddTensor:
        f = session.add_tensor(c.spec);
        break;
      case CommandKind::Grad:
        f = session.grad(c.index);
        break;
      case CommandKind::GradRemove:
        f = session.grad_remove(c.index);
        break;
      case CommandKind::GradReplace:
        f = session.grad_replace(c.index, c.spec);
        break;
      case CommandKind::BackwardOf:
        f = session.backward_of(c.index);
        break;
      case CommandKind::Inner:
        f = session.inner(c.index);
        break;
      case CommandKind::FromInner:
        f = session.tracking(c.index);
        if (!f) f = session.from_inner(c.index);
        break;
      case CommandKind::kCount:
        break;
    }
    if (f) fail(what() + ": " + *f);
    note_expected_lazily(out, expected, what);
    for (const std::string &id : tracking_panics) note_expected_lazily(out, id, what);
    out.note([&] {
      return what() + " -> " + (expected ? "panic " + *expected : std::string("ok")) + "; " +
             std::to_string(session.model().size()) + " entries, pool " + std::to_string(session.pool().size());
    });
  }
}

std::string describe_bytes(Bytes bytes) { return describe(decode(bytes).scenario); }

}  // namespace

const Target kGradientsApiTarget{"gradients_api_fuzzer", &describe_bytes, &run};

}  // namespace crossgrad::fuzz
