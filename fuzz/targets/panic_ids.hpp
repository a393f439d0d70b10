#pragma once
#include <optional>
#include <string_view>

#include "harness/target.hpp"

namespace crossgrad::fuzz {

// The catalog id named `name` ("cross-backend"), as the oracle reports ids by
// name.
inline std::optional<PanicId> panic_id_named(std::string_view name) {
  for (PanicId id : all_panic_ids()) {
    if (panic_id_name(id) == name) return id;
  }
  return std::nullopt;
}
// Records the panic the oracle expects (a catalog id) in the outcome; fails when the catalog does
// not list it. `make_what()` names the step, called only for that failure.
template <class MakeWhat>
void note_expected_lazily(Outcome &out, const std::optional<std::string> &id, MakeWhat &&make_what) {
  if (!id) return;
  const std::optional<PanicId> p = panic_id_named(*id);
  if (!p) fail(std::string(make_what()) + ": the oracle expects panic id '" + *id + "', which the catalog does not list");
  out.panics.insert(*p);
}
inline void note_expected(Outcome &out, const std::optional<std::string> &id, std::string_view what) {
  note_expected_lazily(out, id, [what] { return what; });
}

}  // namespace crossgrad::fuzz
