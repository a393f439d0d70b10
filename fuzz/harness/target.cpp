#include "harness/target.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "harness/catalog.hpp"

namespace crossgrad::fuzz {

const Target *find_target(std::string_view name) {
  for (const Target &t : all_targets()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

Outcome run_target(const Target &target, Bytes bytes) {
  Outcome out;
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

void run_or_abort(const Target &target, Bytes bytes) {
  const Outcome out = run_target(target, bytes);
  if (!out.failure) return;
  std::fprintf(stderr, "\n%s\n", target.describe(bytes).c_str());
  for (const std::string &line : out.log) std::fprintf(stderr, "  %s\n", line.c_str());
  std::fprintf(stderr, "%.*s%s\n", static_cast<int>(kFailureMarker.size()), kFailureMarker.data(),
               out.failure->c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace crossgrad::fuzz
