#pragma once
// Where a libFuzzer process's wall time goes: in the target, in mutation (the custom mutator and
// crossover, with the byte-level fallback they call), and the rest, which is libFuzzer's own loop
// (feature collection, corpus writes, scheduling). Printed at exit beside the tally;
// scripts/fuzz-throughput reads it.
//
// Note [The loop clock, not a profiler]
// A sampling profiler attributes a sample to the target only when it can unwind to
// LLVMFuzzerTestOneInput, and in a sanitized fuzzer a good share of stacks do not unwind (the
// sanitizer runtimes and libc keep no frame pointers): perf's split left 43 % of one run's samples
// without a root. Two clock reads around each callback cost ~50 ns against the ~500 us an input
// takes, so the split is measured, not sampled, and always on.
#include <chrono>
#include <cstdio>
#include <string>

namespace crossgrad::fuzz::loop_clock {

using Clock = std::chrono::steady_clock;

struct Totals {
  Clock::time_point started = Clock::now();
  Clock::duration target{};
  Clock::duration mutation{};
};
inline Totals totals;

// Adds the time from its construction to its destruction to one of the totals.
class Span {
 public:
  explicit Span(Clock::duration &into) : into_(into) {}
  Span(const Span &) = delete;
  Span &operator=(const Span &) = delete;
  ~Span() { into_ += Clock::now() - start_; }

 private:
  Clock::duration &into_;
  Clock::time_point start_ = Clock::now();
};

// "loop 16.0 s: target 9.10 s (56.9 %), mutation 0.81 s (5.1 %), libFuzzer 6.09 s (38.0 %)"
inline std::string summary() {
  using Seconds = std::chrono::duration<double>;
  const double all = Seconds(Clock::now() - totals.started).count();
  const double target = Seconds(totals.target).count();
  const double mutation = Seconds(totals.mutation).count();
  const double rest = all - target - mutation;
  const auto pct = [all](double s) { return all > 0 ? 100.0 * s / all : 0.0; };
  char line[200];
  std::snprintf(line, sizeof line,
                "loop %.1f s: target %.2f s (%.1f %%), mutation %.2f s (%.1f %%), libFuzzer %.2f s (%.1f %%)",
                all, target, pct(target), mutation, pct(mutation), rest, pct(rest));
  return line;
}

}  // namespace crossgrad::fuzz::loop_clock
