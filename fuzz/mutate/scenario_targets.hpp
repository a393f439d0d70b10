#pragma once
// The per-target mutators (scenario_kinds.cpp, op_args_kinds.cpp), looked up by name in
// scenario_mutator.cpp.
#include "mutate/scenario_mutator.hpp"

namespace crossgrad::fuzz::mutate {

const ScenarioMutator &grad_replace_mutator();
const ScenarioMutator &gradients_api_mutator();
const ScenarioMutator &ops_differential_mutator();
const ScenarioMutator &op_args_mutator();

}  // namespace crossgrad::fuzz::mutate
