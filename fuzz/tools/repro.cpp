// fuzz_repro: prints a corpus file's decoded scenario, runs it, prints each
// step and the outcome.
//   fuzz_repro [--target NAME] [--describe] [--canonical DIR] FILE...
// (--describe: print the decoded scenarios only, without running them;
//  --canonical DIR: also write each file's canonical encoding, encode(decode(bytes)), to DIR under
//  the same name, for targets with a scenario mutator. The writer writes registry indices
//  themselves, so a file rewritten this way by the build that decodes it as intended keeps that
//  meaning after a backend is appended: Note [Backend bytes name registry indices].)
// The target is taken from --target, else from the file's directory
// (corpus/<target>/...), else from a "<target>" prefix of the file name. Exit
// status 1 when any input fails. An input naming a backend or device this
// machine lacks is decoded and described, then reported "not applicable here"
// (not run); the last line counts them: "N inputs, M run, K not applicable here".
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "harness/target.hpp"
#include "mutate/scenario_mutator.hpp"

namespace fs = std::filesystem;
using namespace crossgrad::fuzz;
using crossgrad::fuzz::mutate::ByteVector;
using crossgrad::fuzz::mutate::ScenarioMutator;
using crossgrad::fuzz::mutate::scenario_mutator_for;

namespace {
const Target *guess(const fs::path &file) {
  for (fs::path p = file.parent_path(); !p.empty() && p != p.parent_path(); p = p.parent_path()) {
    if (const Target *t = find_target(p.filename().string())) return t;
  }
  for (const Target &t : all_targets()) {
    if (file.filename().string().rfind(std::string(t.name), 0) == 0) return &t;
  }
  return nullptr;
}
}  // namespace

int main(int argc, char **argv) {
  const Target *forced = nullptr;
  bool describe_only = false;
  fs::path canonical_dir;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--describe") {
      describe_only = true;
    } else if (a == "--canonical" && i + 1 < argc) {
      canonical_dir = argv[++i];
      describe_only = true;
    } else if (a == "--target" && i + 1 < argc) {
      forced = find_target(argv[++i]);
      if (!forced) {
        std::fprintf(stderr, "fuzz_repro: unknown target %s\n", argv[i]);
        return 2;
      }
    } else {
      files.emplace_back(a);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: fuzz_repro [--target NAME] [--describe] [--canonical DIR] FILE...\n");
    return 2;
  }
  int status = 0;
  Tally tally;
  for (const fs::path &f : files) {
    const Target *t = forced ? forced : guess(f);
    if (!t) {
      std::fprintf(stderr, "fuzz_repro: cannot tell the target of %s; pass --target\n", f.string().c_str());
      return 2;
    }
    std::ifstream in(f, std::ios::binary);
    if (!in) {  // not an empty input: an empty input is a scenario of its own
      std::fprintf(stderr, "fuzz_repro: cannot read %s\n", f.string().c_str());
      return 2;
    }
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::printf("== %s (%s, %zu bytes)\n%s\n", f.string().c_str(), std::string(t->name).c_str(), bytes.size(),
                t->describe(bytes).c_str());
    if (!canonical_dir.empty()) {
      const ScenarioMutator *m = scenario_mutator_for(t->name);
      if (m == nullptr) {
        std::fprintf(stderr, "fuzz_repro: %s has no scenario writer; --canonical cannot rewrite %s\n",
                     std::string(t->name).c_str(), f.string().c_str());
        return 2;
      }
      const ByteVector canon = m->canonical(bytes);
      fs::create_directories(canonical_dir);
      std::ofstream(canonical_dir / f.filename(), std::ios::binary)
          .write(reinterpret_cast<const char *>(canon.data()), static_cast<std::streamsize>(canon.size()));
      std::printf("canonical: %s (%zu bytes)\n", (canonical_dir / f.filename()).string().c_str(), canon.size());
    }
    if (describe_only) continue;
    const Outcome out = run_target(*t, bytes);
    tally.add(out);
    for (const std::string &line : out.log) std::printf("  . %s\n", line.c_str());
    std::string reached;
    for (crossgrad::PanicId id : out.panics)
      reached += (reached.empty() ? "" : ", ") + std::string(crossgrad::panic_id_name(id));
    std::printf("catalog panics reached: %s\n", reached.empty() ? "none" : reached.c_str());
    if (out.not_applicable) {
      std::printf("OUTCOME: not applicable here (%s)\n", out.not_applicable->c_str());
    } else if (out.failure) {
      std::printf("OUTCOME: FAILURE\n%.*s%s\n", static_cast<int>(kFailureMarker.size()), kFailureMarker.data(),
                  out.failure->c_str());
      status = 1;
    } else {
      std::printf("OUTCOME: ok\n");
    }
  }
  if (!describe_only) std::printf("fuzz_repro: %s\n", tally.summary().c_str());
  return status;
}
