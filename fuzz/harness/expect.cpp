#include "harness/expect.hpp"

namespace crossgrad::fuzz {

std::optional<Panic> panic_of_call(void (*call)(void *), void *context) {
  try {
    call(context);
  } catch (const Panic &p) {
    return p;
  }
  return std::nullopt;
}

}  // namespace crossgrad::fuzz
