#include "decode/scenarios.hpp"

#include <crossgrad/oracle/op_probe.hpp>
#include <sstream>

namespace crossgrad::fuzz {

std::string describe(const GradReplaceCase &c) {
  std::ostringstream os;
  os << "grad_replace:\n";
  for (std::size_t i = 0; i < c.scenario.graphs.size(); ++i)
    os << "  state graph " << i << ": " << oracle::describe(c.scenario.graphs[i]) << "\n";
  os << "  tensor: " << oracle::describe(c.scenario.tensor) << "\n";
  os << "  grad:   " << oracle::describe(c.scenario.grad) << "\n";
  os << "  target entry: "
     << (c.scenario.target_entry ? std::to_string(*c.scenario.target_entry) : std::string("none"));
  if (c.second_grad) os << "\n  second grad: " << oracle::describe(*c.second_grad);
  return os.str();
}

std::string_view command_name(CommandKind k) {
  switch (k) {
    case CommandKind::Backward:
      return "backward(graph)";
    case CommandKind::AddTensor:
      return "add_tensor";
    case CommandKind::Grad:
      return "grad";
    case CommandKind::GradRemove:
      return "grad_remove";
    case CommandKind::GradReplace:
      return "grad_replace";
    case CommandKind::BackwardOf:
      return "backward";
    case CommandKind::Inner:
      return "inner";
    case CommandKind::FromInner:
      return "from_inner";
    case CommandKind::kCount:
      break;
  }
  return "?";
}

std::string describe(const Command &c) {
  std::ostringstream os;
  os << command_name(c.kind);
  switch (c.kind) {
    case CommandKind::Backward:
      os << " " << oracle::describe(c.graph);
      break;
    case CommandKind::AddTensor:
      os << " " << oracle::describe(c.spec);
      break;
    case CommandKind::GradReplace:
      os << " pool[" << c.index << "] <- " << oracle::describe(c.spec);
      break;
    case CommandKind::Grad:
    case CommandKind::GradRemove:
    case CommandKind::BackwardOf:
    case CommandKind::Inner:
    case CommandKind::FromInner:
      os << " pool[" << c.index << "]";
      break;
    case CommandKind::kCount:
      break;
  }
  return os.str();
}

std::string describe(const CommandSequence &s) {
  std::ostringstream os;
  os << "gradients_api: " << s.commands.size() << " commands";
  for (const Command &c : s.commands) os << "\n  " << describe(c);
  return os.str();
}

std::string describe(const OpsCase &c) {
  std::ostringstream os;
  os << "ops_differential:\n  graph: " << oracle::describe(c.graph);
  if (c.finite_differences) os << "\n  + finite differences (F64 graphs)";
  for (const oracle::OpProbe &p : c.probes) os << "\n  probe: " << oracle::describe(p);
  return os.str();
}

}  // namespace crossgrad::fuzz
