#pragma once
// The backends the suite runs on: the registry's, at run time. A backend with no device here is
// left out, and the suite says so once (to stderr) the first time it is asked.
#include <crossgrad/oracle/registry.hpp>

#include <vector>

namespace crossgrad::properties::gen {

const std::vector<oracle::BackendRef>& tested_backends();
std::vector<std::size_t> tested_backend_indices();

}  // namespace crossgrad::properties::gen
