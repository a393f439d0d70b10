#pragma once
// Scenarios of grad_replace_fuzzer and gradients_api_fuzzer, over the oracle's
// spec types.
#include <crossgrad/oracle/op_probe.hpp>
#include <crossgrad/oracle/oracle.hpp>
#include <optional>
#include <string>
#include <vector>

#include "decode/specs.hpp"

namespace crossgrad::fuzz {

inline constexpr std::size_t kMaxStateGraphs = 2;
inline constexpr std::size_t kMaxCommands = 12;

// grad_replace_fuzzer: the oracle's scenario (a gradients state from small
// backward passes, a tensor, a gradient, optionally aimed at a live entry) plus
// an optional second gradient for replace-twice.
struct GradReplaceCase {
  oracle::GradReplaceScenario scenario;
  std::optional<oracle::DispatchSpec> second_grad;
  friend bool operator==(const GradReplaceCase &, const GradReplaceCase &) = default;
};

template <class Io>
void schema(Io &io, GradReplaceCase &c) {
  list(io, c.scenario.graphs, kMaxStateGraphs, [](Io &i, oracle::GraphSpec &g) { graph_spec(i, g, 2, 4); });
  dispatch_spec(io, c.scenario.tensor);
  dispatch_spec(io, c.scenario.grad);
  std::size_t target = c.scenario.target_entry ? 1 + *c.scenario.target_entry : 0;
  io.pick(target, 9);
  c.scenario.target_entry = target ? std::optional<std::size_t>(target - 1) : std::nullopt;
  bool second = c.second_grad.has_value();
  io.flag(second);
  if (second) {
    if constexpr (Io::reading) c.second_grad.emplace();
    dispatch_spec(io, *c.second_grad);
  } else {
    c.second_grad.reset();
  }
  trailing_section(io, [&](Io &i) {
    for (oracle::GraphSpec &g : c.scenario.graphs) leaf_backends(i, g);
  });
}
std::string describe(const GradReplaceCase &c);

// gradients_api_fuzzer: a command sequence on oracle::GradientsSession (system
// + model).
enum class CommandKind : std::uint8_t {
  Backward,
  AddTensor,
  Grad,
  GradRemove,
  GradReplace,
  BackwardOf,
  Inner,
  FromInner,
  kCount
};
struct Command {
  CommandKind kind = CommandKind::Grad;
  oracle::GraphSpec graph;    // Backward
  oracle::DispatchSpec spec;  // AddTensor, GradReplace (the gradient)
  std::size_t index = 0;      // pool index (modulo the pool size)
  friend bool operator==(const Command &, const Command &) = default;
};
struct CommandSequence {
  std::vector<Command> commands;
  friend bool operator==(const CommandSequence &, const CommandSequence &) = default;
};

template <class Io>
void schema(Io &io, Command &c) {
  io.pick_enum(c.kind, static_cast<std::size_t>(CommandKind::kCount));
  switch (c.kind) {
    case CommandKind::Backward:
      graph_spec(io, c.graph, 2, 4);
      break;
    case CommandKind::AddTensor:
      dispatch_spec(io, c.spec);
      break;
    case CommandKind::GradReplace:
      io.pick(c.index, 16);
      dispatch_spec(io, c.spec);
      break;
    case CommandKind::Grad:
    case CommandKind::GradRemove:
    case CommandKind::BackwardOf:
    case CommandKind::Inner:
    case CommandKind::FromInner:
      io.pick(c.index, 16);
      break;
    case CommandKind::kCount:
      break;
  }
}
// The Backward commands' leaf backends follow every command (Note [Trailing sections]).
template <class Io>
void schema(Io &io, CommandSequence &s) {
  list(io, s.commands, kMaxCommands, [](Io &i, Command &c) { schema(i, c); });
  trailing_section(io, [&](Io &i) {
    for (Command &c : s.commands) {
      if (c.kind == CommandKind::Backward) leaf_backends(i, c.graph);
    }
  });
}
std::string_view command_name(CommandKind k);
std::string describe(const Command &c);
std::string describe(const CommandSequence &s);

// ops_differential_fuzzer: an op DAG (compared on every backend with the
// reference, forward and backward), optionally checked by finite differences,
// plus single-op probes of the documented op panics.
struct OpsCase {
  oracle::GraphSpec graph;
  bool finite_differences = false;
  std::vector<oracle::OpProbe> probes;
  friend bool operator==(const OpsCase &, const OpsCase &) = default;
};

template <class Io>
void probe_spec(Io &io, oracle::OpProbe &p) {
  io.pick_enum(p.kind, static_cast<std::size_t>(oracle::OpProbe::Kind::kCount));
  io.pick_enum(p.op, oracle::kOpCodeSpace);
  dispatch_spec(io, p.lhs);
  switch (p.kind) {
    case oracle::OpProbe::Kind::Binary:
      dispatch_spec(io, p.rhs);
      break;
    case oracle::OpProbe::Kind::Reshape:
      shape(io, p.to_shape);
      break;
    case oracle::OpProbe::Kind::ToDevice:
      backend(io, p.target_backend);
      io.flag(p.target_tracked);
      io.flag(p.target_nested);
      break;
    case oracle::OpProbe::Kind::Cast:
      io.pick_enum(p.dtype, all_dtypes().size());
      break;
    case oracle::OpProbe::Kind::Unary:
    case oracle::OpProbe::Kind::SumDim:
    case oracle::OpProbe::Kind::MeanDim:
    case oracle::OpProbe::Kind::SwapDims:
    case oracle::OpProbe::Kind::Quantize:
    case oracle::OpProbe::Kind::kCount:
      break;
  }
  io.pick(p.dim, 6);
  io.pick(p.dim1, 6);
}
template <class Io>
void schema(Io &io, OpsCase &c) {
  graph_spec(io, c.graph);
  io.flag(c.finite_differences);
  list(io, c.probes, 3, [](Io &i, oracle::OpProbe &p) { probe_spec(i, p); });
  trailing_section(io, [&](Io &i) { leaf_backends(i, c.graph); });
}
std::string describe(const OpsCase &c);

}  // namespace crossgrad::fuzz
