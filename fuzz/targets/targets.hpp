#pragma once
// The four targets, each defined in its own file; all_targets() lists them
// (targets.cpp).
#include "harness/target.hpp"

namespace crossgrad::fuzz {

extern const Target kTensorDataTarget;
extern const Target kGradReplaceTarget;
extern const Target kOpsDifferentialTarget;
extern const Target kGradientsApiTarget;

}  // namespace crossgrad::fuzz
