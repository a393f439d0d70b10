#include "targets/targets.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace crossgrad::fuzz {

namespace {
// The table, in list order, with the name each target is listed under.
struct Listed {
  std::string_view name;
  const Target *target;
};
#define CROSSGRAD_FUZZ_LISTED_TARGET(name, symbol) Listed{#name, &symbol},
constexpr std::array kListed{CROSSGRAD_FUZZ_TARGETS(CROSSGRAD_FUZZ_LISTED_TARGET)};
#undef CROSSGRAD_FUZZ_LISTED_TARGET
}  // namespace

std::span<const Target> all_targets() {
  // Copied on first use, not at static initialisation: the Target objects live in other
  // translation units. A target whose own name differs from its list entry would be unreachable
  // by name (corpus/<name>/, find_target): stop loudly instead.
  static const std::array<Target, kListed.size()> targets = [] {
    std::array<Target, kListed.size()> copy{};
    for (std::size_t i = 0; i < kListed.size(); ++i) {
      if (kListed[i].target->name != kListed[i].name) {
        std::fprintf(stderr, "fuzz/targets.txt lists %.*s but its Target is named %.*s\n",
                     static_cast<int>(kListed[i].name.size()), kListed[i].name.data(),
                     static_cast<int>(kListed[i].target->name.size()), kListed[i].target->name.data());
        std::abort();
      }
      copy[i] = *kListed[i].target;
    }
    return copy;
  }();
  return targets;
}

}  // namespace crossgrad::fuzz
