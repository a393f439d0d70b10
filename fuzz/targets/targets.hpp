#pragma once
// The fuzz targets, each defined in its own file fuzz/targets/<name>.cpp; all_targets() lists them
// (targets.cpp). The list is fuzz/targets.txt: CMake turns it into the X-macro
// CROSSGRAD_FUZZ_TARGETS(X) (fuzz_targets.inc in the build tree, fuzz/targets.cmake), one
// X(name, symbol) per target, so no target is named here.
#include "fuzz_targets.inc"
#include "harness/target.hpp"

namespace crossgrad::fuzz {

// Declared extern here so each target file's `const Target k...Target{...}` has external linkage.
#define CROSSGRAD_FUZZ_DECLARE_TARGET(name, symbol) extern const Target symbol;
CROSSGRAD_FUZZ_TARGETS(CROSSGRAD_FUZZ_DECLARE_TARGET)
#undef CROSSGRAD_FUZZ_DECLARE_TARGET

}  // namespace crossgrad::fuzz
