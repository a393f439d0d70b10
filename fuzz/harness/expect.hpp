#pragma once
// Running an engine call whose outcome is either a value or a documented panic.
#include <optional>
#include <string>
#include <type_traits>
#include <variant>

#include "harness/catalog.hpp"
#include "harness/target.hpp"

namespace crossgrad::fuzz {

template <class R>
struct Attempt {
  std::optional<R> value;
  std::optional<Panic> panic;
  bool ok() const { return value.has_value(); }
};

// Runs call(context); the Panic it raised, if any. The handler is out of line (expect.cpp), in a
// small frame (Note [Expected panics are caught in a small frame], oracle/expect.hpp).
std::optional<Panic> panic_of_call(void (*call)(void *), void *context);

// Runs f(). A catalogued Panic is captured; an uncatalogued one is a failure at
// once.
template <class F>
auto attempt(F &&f) {
  using R0 = std::invoke_result_t<F>;
  using R = std::conditional_t<std::is_void_v<R0>, std::monostate, R0>;
  Attempt<R> a;
  auto run = [&] {
    if constexpr (std::is_void_v<R0>) {
      f();
      a.value.emplace();
    } else {
      a.value.emplace(f());
    }
  };
  if (std::optional<Panic> p = panic_of_call([](void *c) { (*static_cast<decltype(run) *>(c))(); }, &run)) {
    if (auto bad = check_catalogued(*p)) fail("uncatalogued panic: " + *bad);
    a.panic.emplace(std::move(*p));
  }
  return a;
}

// The attempt must have panicked with exactly (id, message); records it in the
// outcome.
template <class R>
void expect_panic(Outcome &out, const Attempt<R> &a, PanicId id, const std::string &message, std::string_view what) {
  if (!a.panic)
    fail(std::string(what) + ": expected panic " + std::string(panic_id_name(id)) + " \"" + message +
         "\" but it succeeded");
  if (a.panic->id() != id || a.panic->message() != message) {
    fail(std::string(what) + ": expected panic " + std::string(panic_id_name(id)) + " \"" + message + "\", got " +
         std::string(panic_id_name(a.panic->id())) + " \"" + a.panic->message() + "\"");
  }
  out.panics.insert(id);
  out.note([&] { return std::string(what) + " -> panic " + std::string(panic_id_name(id)) + ": " + message; });
}

// The attempt must have succeeded; returns the value.
template <class R>
R expect_value(const Attempt<R> &a, std::string_view what) {
  if (a.panic) {
    fail(std::string(what) + ": expected success, got panic " + std::string(panic_id_name(a.panic->id())) + " \"" +
         a.panic->message() + "\"");
  }
  return *a.value;
}

}  // namespace crossgrad::fuzz
