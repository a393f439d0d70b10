// LLVMFuzzerTestOneInput for one target, chosen at compile time
// (CROSSGRAD_FUZZ_TARGET). Linked with libFuzzer's main (-fsanitize=fuzzer) it
// is a fuzzer; linked with replay_main.cpp it is the replay executable that
// ctest runs over corpus/<target>/.
#include <cstdio>
#include <cstdlib>

#include "harness/target.hpp"

namespace {
const crossgrad::fuzz::Target &target() {
  static const crossgrad::fuzz::Target *t = [] {
    const crossgrad::fuzz::Target *found = crossgrad::fuzz::find_target(CROSSGRAD_FUZZ_TARGET);
    if (found == nullptr) {
      std::fprintf(stderr, "no fuzz target named %s\n", CROSSGRAD_FUZZ_TARGET);
      std::abort();
    }
    return found;
  }();
  return *t;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  crossgrad::fuzz::run_or_abort(target(), crossgrad::fuzz::Bytes(data, size));
  return 0;
}
