#pragma once
// The fuzz harness's one notion of a target: decode bytes into a scenario,
// describe it, run it against the oracle. libFuzzer entry points, replay
// executables, `fuzz_repro` and the catalog report are all thin loops over this
// table, so a target is written once.
#include <crossgrad/core/panic.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/io.hpp"

namespace crossgrad::fuzz {

using Bytes = std::span<const std::uint8_t>;

// What one run did. `failure` is set on any oracle mismatch, uncatalogued panic
// or foreign exception; a libFuzzer entry point aborts on it.
struct Outcome {
  std::vector<std::string> log;  // one readable line per step and its result (when keep_log)
  // False while fuzzing: the log is only read when the input failed, so run_or_abort runs without
  // it and builds it by running the failing input once more (Note [The log is built on failure]).
  bool keep_log = true;
  // Appends the line make_line() returns, building it only when the log is kept.
  template <class MakeLine>
  void note(MakeLine &&make_line) {
    if (keep_log) log.push_back(make_line());
  }
  std::set<PanicId> panics;      // catalog panics raised (and expected) during the run
  std::optional<std::string> failure;
  // Set when the scenario names a backend or device this machine lacks ("Cuda: no device"): the
  // target returned before running anything (Note [Backend bytes name registry indices]).
  std::optional<std::string> not_applicable;
};

// Called first by a target body: when a backend (or device) the scenario names cannot run here,
// records why in outcome.not_applicable and returns true; the body then returns.
bool skip_unless_applicable(const std::vector<BackendUse> &uses, Outcome &outcome);

// Thrown by a target body to stop at the first mismatch; caught by run_target.
struct Failure {
  std::string what;
};
[[noreturn]] inline void fail(std::string what) { throw Failure{std::move(what)}; }
// Fails with `failure` when an oracle check returned one.
inline void require(const std::optional<std::string> &failure, std::string_view context = {}) {
  if (failure) fail(context.empty() ? *failure : std::string(context) + ": " + *failure);
}

struct Target {
  std::string_view name;                 // "grad_replace_fuzzer", as corpus/<name>/
  std::string (*describe)(Bytes bytes);  // the decoded scenario, readable
  void (*run)(Bytes bytes,
              Outcome &outcome);  // throws Failure; may let a Panic escape
};

std::span<const Target> all_targets();
const Target *find_target(std::string_view name);

// Runs one input; every escaping exception becomes outcome.failure (a
// catalogued Panic escaping a target body is still a failure: the body must
// expect the panics it provokes). keep_log = false skips building outcome.log.
Outcome run_target(const Target &target, Bytes bytes, bool keep_log = true);
// libFuzzer's entry: runs (without the log), and on failure runs the input again with the log,
// prints the scenario, the log and the first run's failure, then aborts.
void run_or_abort(const Target &target, Bytes bytes);

// What a sequence of inputs did: how many ran and how many were not applicable here, by reason.
struct Tally {
  std::size_t inputs = 0;
  std::size_t run = 0;
  std::map<std::string, std::size_t> not_applicable;  // reason -> inputs
  void add(const Outcome &outcome);
  std::size_t not_applicable_count() const;
  // "812 inputs, 790 run, 22 not applicable here (Cuda: no device)"
  std::string summary() const;
};
// The tally of every input run_or_abort has seen in this process.
Tally &process_tally();

// Marker line printed before abort; scripts/fuzz dedups crashes on what follows
// it.
inline constexpr std::string_view kFailureMarker = "CROSSGRAD-FUZZ-FAILURE: ";

}  // namespace crossgrad::fuzz
