#include <crossgrad/core/panic.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>

namespace crossgrad {
namespace {

struct CatalogEntry {
  PanicId id;
  std::string_view name;
  std::string_view tmpl;
  std::string_view pattern;
};

constexpr std::array kCatalog = {
#define CROSSGRAD_PANIC(ident, id, tmpl, regex) CatalogEntry{PanicId::ident, id, tmpl, regex},
#include <crossgrad/core/panic_catalog.inc>
#undef CROSSGRAD_PANIC
};

constexpr std::array kIds = {
#define CROSSGRAD_PANIC(ident, id, tmpl, regex) PanicId::ident,
#include <crossgrad/core/panic_catalog.inc>
#undef CROSSGRAD_PANIC
};

const CatalogEntry& entry(PanicId id) { return kCatalog[static_cast<std::size_t>(id)]; }

}  // namespace

std::span<const PanicId> all_panic_ids() { return kIds; }
std::string_view panic_id_name(PanicId id) { return entry(id).name; }
std::string_view panic_template(PanicId id) { return entry(id).tmpl; }
std::string_view panic_pattern(PanicId id) { return entry(id).pattern; }

// Note [A panic throws from a frame with nothing to clean up]
// The message is formatted in its own function, so that panic() holds no local with a destructor
// when it throws: a frame with a cleanup is a landing pad during unwinding, and resuming from it
// (_Unwind_Resume) restarts the unwinder's context, several thousand instructions per panic. The
// fuzz targets raise several panics per input on purpose (docs/FUZZ_THROUGHPUT.md, round 8). A
// caller that renders arguments into temporaries does the same through make_panic in a helper.
Panic make_panic(PanicId id, std::initializer_list<PanicArg> args) {
  const std::string_view tmpl = entry(id).tmpl;
  std::string message;
  message.reserve(tmpl.size() + 64);
  std::size_t i = 0;
  while (i < tmpl.size()) {
    const std::size_t open = tmpl.find('{', i);
    if (open == std::string_view::npos) {
      message.append(tmpl.substr(i));
      break;
    }
    const std::size_t close = tmpl.find('}', open);
    message.append(tmpl.substr(i, open - i));
    const std::string_view key = tmpl.substr(open + 1, close - open - 1);
    const PanicArg* found = nullptr;
    for (const PanicArg& arg : args) {
      if (arg.name == key) found = &arg;
    }
    if (found == nullptr) {
      // A message outside the catalog would be worse than stopping: this is an engine bug.
      std::fprintf(stderr, "crossgrad: panic '%.*s' raised without placeholder {%.*s}\n",
                   static_cast<int>(entry(id).name.size()), entry(id).name.data(),
                   static_cast<int>(key.size()), key.data());
      std::abort();
    }
    message.append(found->value);
    i = close + 1;
  }
  return Panic(id, std::move(message));
}

void panic(PanicId id, std::initializer_list<PanicArg> args) { throw make_panic(id, args); }

}  // namespace crossgrad
