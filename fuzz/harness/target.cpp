#include "harness/target.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>

#include <crossgrad/oracle/registry.hpp>

#include "harness/catalog.hpp"

namespace crossgrad::fuzz {

const Target *find_target(std::string_view name) {
  for (const Target &t : all_targets()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

bool skip_unless_applicable(const std::vector<BackendUse> &uses, Outcome &outcome) {
  for (const BackendUse &use : uses) {
    const std::size_t backend = use.backend;
    if (backend >= oracle::all_backends().size()) {
      outcome.not_applicable = "backend " + std::to_string(backend) + ": not registered";
      return true;
    }
    oracle::DeviceSpec device = oracle::all_backends()[backend].default_device;
    device.index = use.device;
    if (std::optional<std::string> why = oracle::unavailable_here(backend, device)) {
      outcome.not_applicable = std::move(why);
      outcome.note([&] { return "not applicable here (" + *outcome.not_applicable + ")"; });
      return true;
    }
  }
  return false;
}

void Tally::add(const Outcome &outcome) {
  ++inputs;
  if (outcome.not_applicable)
    ++not_applicable[*outcome.not_applicable];
  else
    ++run;
}

std::size_t Tally::not_applicable_count() const {
  std::size_t n = 0;
  for (const auto &[why, count] : not_applicable) n += count;
  return n;
}

std::string Tally::summary() const {
  std::string s = std::to_string(inputs) + " inputs, " + std::to_string(run) + " run, " +
                  std::to_string(not_applicable_count()) + " not applicable here";
  if (not_applicable.size() == 1) {
    s += " (" + not_applicable.begin()->first + ")";
  } else if (!not_applicable.empty()) {
    std::string why;
    for (const auto &[reason, count] : not_applicable)
      why += (why.empty() ? "" : "; ") + reason + ": " + std::to_string(count);
    s += " (" + why + ")";
  }
  return s;
}

Tally &process_tally() {
  // Never destroyed: the fuzz entry's atexit summary reads it after static destructors have run
  // (a function-local static constructed after that handler was registered dies first — ASan saw
  // the heap-use-after-free in every fuzz-smoke run).
  static Tally *const tally = new Tally;
  return *tally;
}

Outcome run_target(const Target &target, Bytes bytes, bool keep_log) {
  Outcome out;
  out.keep_log = keep_log;
  try {
    target.run(bytes, out);
  } catch (const Failure &f) {
    out.failure = f.what;
  } catch (const Panic &p) {
    const std::optional<std::string> bad = check_catalogued(p);
    out.failure = bad ? "uncatalogued panic: " + *bad
                      : "unexpected panic " + std::string(panic_id_name(p.id())) + ": " + p.message();
  } catch (const std::exception &e) {
    out.failure = std::string("foreign exception: ") + e.what();
  } catch (...) {
    out.failure = "foreign exception of unknown type";
  }
  return out;
}

// Note [The log is built on failure]
// The log lines (readable steps, scenario renderings) cost more than many checks on inputs of a
// few elements, and only a failing input's log is ever printed. So the fuzz entry runs each input
// without the log and, when it fails, runs it once more with the log; the failure printed is the
// first run's. A second run that does not fail (state outside the input) is said so, with its log.
void run_or_abort(const Target &target, Bytes bytes) {
  const Outcome out = run_target(target, bytes, /*keep_log=*/false);
  process_tally().add(out);
  if (!out.failure) return;
  const Outcome logged = run_target(target, bytes, /*keep_log=*/true);
  std::fprintf(stderr, "\n%s\n", target.describe(bytes).c_str());
  for (const std::string &line : logged.log) std::fprintf(stderr, "  %s\n", line.c_str());
  if (!logged.failure) std::fprintf(stderr, "  (the run with the log did not fail: the failure depends on more than the input)\n");
  std::fprintf(stderr, "%.*s%s\n", static_cast<int>(kFailureMarker.size()), kFailureMarker.data(),
               out.failure->c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace crossgrad::fuzz
