#pragma once
// Is a panic one the catalog documents: a known id whose message matches that
// entry's pattern.
#include <crossgrad/core/panic.hpp>
#include <optional>
#include <string>

namespace crossgrad::fuzz {

// nullopt when p's message fully matches panic_pattern(p.id()); else why not.
std::optional<std::string> check_catalogued(const Panic &p);

}  // namespace crossgrad::fuzz
