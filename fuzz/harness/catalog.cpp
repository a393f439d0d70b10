#include "harness/catalog.hpp"

#include <crossgrad/oracle/message_pattern.hpp>

#include <utility>
#include <vector>

namespace crossgrad::fuzz {

namespace {
// Every catalog pattern compiled once, in catalog order, before the first use (a function-local
// static: thread-safe initialisation, immutable afterwards, so no lock per panic). The oracle's
// MessagePattern gives std::regex's answers for the catalog's pattern language
// (tests/unit/message_pattern_test.cpp checks every entry); it refuses a pattern outside that
// language at this point rather than matching it differently.
const std::vector<std::pair<PanicId, oracle::MessagePattern>> &catalog_patterns() {
  static const auto patterns = [] {
    std::vector<std::pair<PanicId, oracle::MessagePattern>> out;
    for (PanicId id : all_panic_ids()) out.emplace_back(id, oracle::MessagePattern(panic_pattern(id)));
    return out;
  }();
  return patterns;
}
}  // namespace

std::optional<std::string> check_catalogued(const Panic &p) {
  for (const auto &[id, pattern] : catalog_patterns()) {
    if (id != p.id()) continue;
    if (!pattern.full_match(p.message())) {
      return "panic " + std::string(panic_id_name(p.id())) +
             " with a message its catalog pattern does not match: " + p.message();
    }
    return std::nullopt;
  }
  return "panic with an id outside the catalog: " + p.message();
}

}  // namespace crossgrad::fuzz
