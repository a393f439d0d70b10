#pragma once
// CG_STEP_ENUM(LIST): from an X-list of step names (LIST(X) expands X(name) per step), the enum
// StepOp, all_steps() in list order and step_name(), for the properties that run random programs
// of steps.
#include <vector>

#define CG_STEP_ENUMERATOR(name) name,
#define CG_STEP_VALUE(name) StepOp::name,
#define CG_STEP_CASE(name) \
  case StepOp::name:       \
    return #name;
#define CG_STEP_ENUM(LIST)                                            \
  enum class StepOp { LIST(CG_STEP_ENUMERATOR) };                     \
  inline const std::vector<StepOp>& all_steps() {                     \
    static const std::vector<StepOp> steps = {LIST(CG_STEP_VALUE)};   \
    return steps;                                                     \
  }                                                                   \
  inline const char* step_name(StepOp op) {                           \
    switch (op) { LIST(CG_STEP_CASE) }                                \
    return "?";                                                       \
  }
