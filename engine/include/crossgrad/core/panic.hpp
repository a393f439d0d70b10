#pragma once
// crossgrad::Panic — the one exception type the engine throws. Every id, template and regex comes
// from engine/panics.json (generated into panic_catalog.inc), so code and docs cannot drift.
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

namespace crossgrad {

enum class PanicId : std::uint16_t {
#define CROSSGRAD_PANIC(ident, id, tmpl, regex) ident,
#include <crossgrad/core/panic_catalog.inc>
#undef CROSSGRAD_PANIC
};

// Every catalog entry, in catalog order; lets tests and the harness iterate the catalog.
std::span<const PanicId> all_panic_ids();
std::string_view panic_id_name(PanicId id);      // "cross-backend"
std::string_view panic_template(PanicId id);     // the exact template, placeholders and all
std::string_view panic_pattern(PanicId id);      // the catalog's regex (ECMAScript)

// One placeholder value: {name} in the template is replaced by value.
struct PanicArg {
  std::string_view name;
  std::string value;
};

class Panic : public std::exception {
 public:
  Panic(PanicId id, std::string message) : id_(id), message_(std::move(message)) {}
  PanicId id() const noexcept { return id_; }
  const std::string& message() const noexcept { return message_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  PanicId id_;
  std::string message_;
};

// Fills the template's {placeholders} from args and throws. A placeholder without an arg is a
// programming error in the engine and aborts rather than throwing a message that is not in the
// catalog.
[[noreturn]] void panic(PanicId id, std::initializer_list<PanicArg> args = {});
// The Panic that panic(id, args) throws, built and not thrown (the same checks): a caller whose
// arguments are temporaries can build it in a helper and throw it where nothing is left to clean up
// (Note [A panic throws from a frame with nothing to clean up], core/panic.cpp).
Panic make_panic(PanicId id, std::initializer_list<PanicArg> args = {});

}  // namespace crossgrad
