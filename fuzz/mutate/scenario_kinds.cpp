// The mutation kinds of the three scenario targets built from the oracle's specs: the aspects of
// spec_mutations.hpp over each scenario's Parts, and the kinds of its own structure (commands,
// probes, graphs of the state, the target entry).
#include <algorithm>
#include <iterator>

#include "decode/scenarios.hpp"
#include "mutate/schema_mutator.hpp"
#include "mutate/scenario_targets.hpp"
#include "mutate/spec_mutations.hpp"
#include "mutate/values.hpp"

namespace crossgrad::fuzz::mutate {
namespace {

constexpr std::size_t kStateLeaves = 2, kStateOps = 4;  // graph_spec(io, g, 2, 4) in the schemas
constexpr std::size_t kPoolIndices = 16;
constexpr std::size_t kTargetEntries = 8;
constexpr std::size_t kMaxProbes = 3;

// --- Parts of each scenario ---------------------------------------------------------------------
Parts parts_of(GradReplaceCase &c) {
  Parts p;
  for (oracle::GraphSpec &g : c.scenario.graphs) p.graphs.push_back({&g, kStateLeaves, kStateOps});
  p.specs = {&c.scenario.tensor, &c.scenario.grad};
  if (c.second_grad) p.specs.push_back(&*c.second_grad);
  return p;
}
Parts parts_of(CommandSequence &s) {
  Parts p;
  for (Command &c : s.commands) {
    if (c.kind == CommandKind::Backward) p.graphs.push_back({&c.graph, kStateLeaves, kStateOps});
    if (c.kind == CommandKind::AddTensor || c.kind == CommandKind::GradReplace) p.specs.push_back(&c.spec);
  }
  return p;
}
Parts parts_of(OpsCase &c) {
  Parts p;
  p.graphs.push_back({&c.graph, kMaxGraphLeaves, kMaxGraphOps});
  for (oracle::OpProbe &q : c.probes) {
    p.probes.push_back(&q);
    p.specs.push_back(&q.lhs);
    if (q.kind == oracle::OpProbe::Kind::Binary) p.specs.push_back(&q.rhs);
  }
  return p;
}

template <class S, bool (*F)(Rng &, Parts &)>
bool on_parts(Rng &rng, S &s) {
  Parts p = parts_of(s);
  return F(rng, p);
}

// The aspect kinds every scenario has (those that find nothing return false and another is tried).
template <class S>
std::vector<Kind<S>> aspect_kinds() {
  return {{"backend", &on_parts<S, change_backend>},
          {"primitive", &on_parts<S, change_primitive>},
          {"depth", &on_parts<S, change_depth>},
          {"dtype", &on_parts<S, change_dtype>},
          {"shape", &on_parts<S, change_shape>},
          {"values", &on_parts<S, change_values>},
          {"checkpointing", &on_parts<S, change_checkpointing>},
          {"op_insert", &on_parts<S, insert_op>},
          {"op_remove", &on_parts<S, remove_op>},
          {"op_replace", &on_parts<S, replace_op>},
          {"op_operands", &on_parts<S, change_op_operands>},
          {"leaf_insert_remove", &on_parts<S, insert_or_remove_leaf>}};
}

template <class T>
void splice(Rng &rng, std::vector<T> &child, const std::vector<T> &other, std::size_t max) {
  const std::size_t cut = rng.below(child.size() + 1), from = rng.below(other.size() + 1);
  child.resize(cut);
  for (std::size_t i = from; i < other.size() && child.size() < max; ++i) child.push_back(other[i]);
}

// --- grad_replace_fuzzer ------------------------------------------------------------------------
bool grad_replace_target_entry(Rng &rng, GradReplaceCase &c) {
  std::optional<std::size_t> &e = c.scenario.target_entry;
  const std::size_t now = e ? 1 + *e : 0;
  const std::size_t next = other_than(rng, now, kTargetEntries + 1);
  e = next ? std::optional<std::size_t>(next - 1) : std::nullopt;
  return true;
}
bool grad_replace_second_grad(Rng &rng, GradReplaceCase &c) {
  if (c.second_grad && rng.chance(1, 2))
    c.second_grad.reset();
  else
    c.second_grad = rng.chance(1, 2) ? c.scenario.grad : random_dispatch_spec(rng);
  return true;
}
bool grad_replace_graph_insert_remove(Rng &rng, GradReplaceCase &c) {
  std::vector<oracle::GraphSpec> &g = c.scenario.graphs;
  if (!g.empty() && (g.size() >= kMaxStateGraphs || rng.chance(1, 2)))
    g.erase(g.begin() + static_cast<std::ptrdiff_t>(rng.below(g.size())));
  else
    g.insert(g.begin() + static_cast<std::ptrdiff_t>(rng.below(g.size() + 1)),
             random_graph(rng, kStateLeaves, kStateOps));
  return true;
}
bool grad_replace_swap_specs(Rng &, GradReplaceCase &c) {  // the gradient as the tensor and back
  std::swap(c.scenario.tensor, c.scenario.grad);
  return true;
}
bool grad_replace_cross(Rng &rng, GradReplaceCase &child, const GradReplaceCase &other) {
  if (rng.chance(1, 2)) child.scenario.graphs = other.scenario.graphs;
  else splice(rng, child.scenario.graphs, other.scenario.graphs, kMaxStateGraphs);
  if (rng.chance(1, 2)) child.scenario.tensor = other.scenario.tensor;
  else child.scenario.grad = other.scenario.grad;
  if (rng.chance(1, 2)) child.scenario.target_entry = other.scenario.target_entry;
  if (rng.chance(1, 2)) child.second_grad = other.second_grad;
  return true;
}

// --- gradients_api_fuzzer ----------------------------------------------------------------------
Command random_command(Rng &rng) {
  Command c;
  c.kind = static_cast<CommandKind>(rng.below(static_cast<std::size_t>(CommandKind::kCount)));
  if (c.kind == CommandKind::Backward) c.graph = random_graph(rng, kStateLeaves, kStateOps);
  if (c.kind == CommandKind::AddTensor || c.kind == CommandKind::GradReplace) c.spec = random_dispatch_spec(rng);
  c.index = rng.chance(3, 4) ? rng.below(4) : rng.below(kPoolIndices);  // the pool is small
  return c;
}
bool command_insert(Rng &rng, CommandSequence &s) {
  if (s.commands.size() >= kMaxCommands) return false;
  s.commands.insert(s.commands.begin() + static_cast<std::ptrdiff_t>(rng.below(s.commands.size() + 1)),
                    random_command(rng));
  return true;
}
bool command_remove(Rng &rng, CommandSequence &s) {
  if (s.commands.empty()) return false;
  s.commands.erase(s.commands.begin() + static_cast<std::ptrdiff_t>(rng.below(s.commands.size())));
  return true;
}
bool command_replace(Rng &rng, CommandSequence &s) {
  if (s.commands.empty()) return false;
  s.commands[rng.below(s.commands.size())] = random_command(rng);
  return true;
}
bool command_kind(Rng &rng, CommandSequence &s) {  // the same fields under another command
  if (s.commands.empty()) return false;
  Command &c = s.commands[rng.below(s.commands.size())];
  c.kind = static_cast<CommandKind>(
      other_than(rng, static_cast<std::size_t>(c.kind), static_cast<std::size_t>(CommandKind::kCount)));
  if (c.kind == CommandKind::Backward && c.graph.leaf_shapes.empty())
    c.graph = random_graph(rng, kStateLeaves, kStateOps);
  return true;
}
bool command_index(Rng &rng, CommandSequence &s) {
  if (s.commands.empty()) return false;
  Command &c = s.commands[rng.below(s.commands.size())];
  c.index = other_than(rng, c.index % kPoolIndices, rng.chance(3, 4) ? 4 : kPoolIndices);
  return true;
}
bool command_duplicate(Rng &rng, CommandSequence &s) {  // the same command twice (replace twice, remove twice)
  if (s.commands.empty() || s.commands.size() >= kMaxCommands) return false;
  const Command c = s.commands[rng.below(s.commands.size())];
  s.commands.insert(s.commands.begin() + static_cast<std::ptrdiff_t>(rng.below(s.commands.size() + 1)), c);
  return true;
}
bool command_swap(Rng &rng, CommandSequence &s) {
  if (s.commands.size() < 2) return false;
  const std::size_t i = rng.below(s.commands.size()), j = other_than(rng, i, s.commands.size());
  if (s.commands[i] == s.commands[j]) return false;
  std::swap(s.commands[i], s.commands[j]);
  return true;
}
bool commands_cross(Rng &rng, CommandSequence &child, const CommandSequence &other) {
  splice(rng, child.commands, other.commands, kMaxCommands);
  return true;
}

// --- ops_differential_fuzzer --------------------------------------------------------------------
bool probe_insert(Rng &rng, OpsCase &c) {
  if (c.probes.size() >= kMaxProbes) return false;
  c.probes.insert(c.probes.begin() + static_cast<std::ptrdiff_t>(rng.below(c.probes.size() + 1)), random_probe(rng));
  return true;
}
bool probe_remove(Rng &rng, OpsCase &c) {
  if (c.probes.empty()) return false;
  c.probes.erase(c.probes.begin() + static_cast<std::ptrdiff_t>(rng.below(c.probes.size())));
  return true;
}
bool probe_replace(Rng &rng, OpsCase &c) {
  if (c.probes.empty()) return false;
  c.probes[rng.below(c.probes.size())] = random_probe(rng);
  return true;
}
bool finite_differences(Rng &, OpsCase &c) {
  c.finite_differences = !c.finite_differences;
  return true;
}
bool ops_cross(Rng &rng, OpsCase &child, const OpsCase &other) {
  if (rng.chance(1, 3)) {
    child.graph.ops = other.graph.ops;  // the other's ops over these leaves
  } else if (rng.chance(1, 2)) {
    splice(rng, child.graph.ops, other.graph.ops, kMaxGraphOps);
  } else {
    child.graph.leaf_shapes = other.graph.leaf_shapes;  // these ops over the other's leaves
    child.graph.leaf_values = other.graph.leaf_values;
    child.graph.leaf_backends = other.graph.leaf_backends;
  }
  splice(rng, child.probes, other.probes, kMaxProbes);
  return true;
}

template <class S>
std::vector<Kind<S>> with(std::vector<Kind<S>> own) {
  std::vector<Kind<S>> all = aspect_kinds<S>();
  all.insert(all.end(), own.begin(), own.end());
  return all;
}

}  // namespace

const ScenarioMutator &grad_replace_mutator() {
  static const SchemaMutator<GradReplaceCase> m(with<GradReplaceCase>({{"target_entry", &grad_replace_target_entry},
                                                                       {"second_grad", &grad_replace_second_grad},
                                                                       {"graph_insert_remove", &grad_replace_graph_insert_remove},
                                                                       {"swap_tensor_grad", &grad_replace_swap_specs}}),
                                                &grad_replace_cross);
  return m;
}

const ScenarioMutator &gradients_api_mutator() {
  static const SchemaMutator<CommandSequence> m(with<CommandSequence>({{"command_insert", &command_insert},
                                                                       {"command_remove", &command_remove},
                                                                       {"command_replace", &command_replace},
                                                                       {"command_kind", &command_kind},
                                                                       {"command_index", &command_index},
                                                                       {"command_duplicate", &command_duplicate},
                                                                       {"command_swap", &command_swap}}),
                                                &commands_cross);
  return m;
}

const ScenarioMutator &ops_differential_mutator() {
  static const SchemaMutator<OpsCase> m(with<OpsCase>({{"probe_insert", &probe_insert},
                                                       {"probe_remove", &probe_remove},
                                                       {"probe_replace", &probe_replace},
                                                       {"probe_change", &on_parts<OpsCase, change_probe>},
                                                       {"finite_differences", &finite_differences}}),
                                        &ops_cross);
  return m;
}

}  // namespace crossgrad::fuzz::mutate
