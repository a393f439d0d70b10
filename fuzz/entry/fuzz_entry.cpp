// LLVMFuzzerTestOneInput for one target, chosen at compile time
// (CROSSGRAD_FUZZ_TARGET). Linked with libFuzzer's main (-fsanitize=fuzzer) it
// is a fuzzer; linked with replay_main.cpp it is the replay executable that
// ctest runs over corpus/<target>/.
#include <cstdio>
#include <cstdlib>

#include <crossgrad/backends/flex_tuning.hpp>

#include "entry/in_process_server.hpp"
#include "entry/loop_clock.hpp"
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

// libFuzzer only (the replay main prints its own summary): at exit, how many
// inputs ran and how many were not applicable here.
// Also gives Remote a server when none is configured (Note [Fuzzing Remote through an in-process
// server]).
//
// Note [Threads start before the first input]
// Flex starts its worker pool on first use. Started inside an input, a worker can be between
// ASan's thread set-up (pthread_getattr_np, whose attribute holds a calloc'd block until
// pthread_attr_destroy) and its registration when libFuzzer's leak check runs: LeakSanitizer does
// not scan that thread yet and reports the block, a leak of 152 + 32 bytes that no replay
// reproduces (seen in a 10-minute time-to-detect trial, docs/FUZZ_MUTATOR.md). So the pool starts
// here, before any input, and no input creates a thread; the pool returns only once its workers
// run (Note [Workers have started when the pool exists], thread_pool.cpp), so a replay that ends
// a millisecond later does not catch one half started either.
extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  (void)crossgrad::fuzz::process_tally();  // exists before the handler below is registered
  (void)crossgrad::backends::flex::num_threads();
  std::fprintf(stderr, "crossgrad-fuzz: Remote: %s\n", crossgrad::fuzz::serve_remote_in_process().c_str());
  crossgrad::fuzz::loop_clock::totals.started = crossgrad::fuzz::loop_clock::Clock::now();
  std::atexit([] {
    std::fprintf(stderr, "crossgrad-fuzz: %s\n", crossgrad::fuzz::process_tally().summary().c_str());
    std::fprintf(stderr, "crossgrad-fuzz: %s\n", crossgrad::fuzz::loop_clock::summary().c_str());
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const crossgrad::fuzz::loop_clock::Span timed(crossgrad::fuzz::loop_clock::totals.target);
  crossgrad::fuzz::run_or_abort(target(), crossgrad::fuzz::Bytes(data, size));
  return 0;
}
