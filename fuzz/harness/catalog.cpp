#include "harness/catalog.hpp"

#include <map>
#include <mutex>
#include <regex>

namespace crossgrad::fuzz {

std::optional<std::string> check_catalogued(const Panic &p) {
  static std::mutex mu;
  static std::map<PanicId, std::regex> patterns;
  bool known = false;
  for (PanicId id : all_panic_ids()) known = known || id == p.id();
  if (!known) return "panic with an id outside the catalog: " + p.message();
  std::lock_guard lock(mu);
  auto it = patterns.find(p.id());
  if (it == patterns.end()) it = patterns.emplace(p.id(), std::regex(std::string(panic_pattern(p.id())))).first;
  if (!std::regex_match(p.message(), it->second)) {
    return "panic " + std::string(panic_id_name(p.id())) +
           " with a message its catalog pattern does not match: " + p.message();
  }
  return std::nullopt;
}

}  // namespace crossgrad::fuzz
