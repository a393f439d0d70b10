// main() for builds without libFuzzer: runs LLVMFuzzerTestOneInput over every
// file named on the command line, directories recursively (hidden files
// skipped), in sorted order. A failing input aborts inside the target after
// printing its scenario, so the last "replaying" line names it. The last line
// counts the inputs that ran and those not applicable here (a backend or device
// this machine lacks), e.g.
//   replay: 812 inputs, 790 run, 22 not applicable here (Cuda: no device); no failure
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "entry/in_process_server.hpp"
#include "harness/target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size);

namespace fs = std::filesystem;

namespace {
char current[4096] = "";
// Names the input that aborted (the target prints its scenario and failure
// first).
void on_abort(int) {
  const char head[] = "replay: failing input: ";
  (void)!write(2, head, sizeof(head) - 1);
  (void)!write(2, current, std::strlen(current));
  (void)!write(2, "\n", 1);
  std::signal(SIGABRT, SIG_DFL);
  std::raise(SIGABRT);
}
}  // namespace

int main(int argc, char **argv) {
  std::vector<fs::path> files;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-v" || arg == "--verbose") {
      verbose = true;
      continue;
    }
    if (!arg.empty() && arg[0] == '-') continue;  // libFuzzer flags are accepted and ignored
    const fs::path p(arg);
    if (fs::is_directory(p)) {
      for (const auto &e : fs::recursive_directory_iterator(p)) {
        if (e.is_regular_file() && e.path().filename().string().rfind('.', 0) != 0) files.push_back(e.path());
      }
    } else if (fs::is_regular_file(p)) {
      files.push_back(p);
    } else {
      std::fprintf(stderr, "replay: no such file or directory: %s\n", arg.c_str());
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  // Remote runs against the configured server, else one started here (Note [Fuzzing Remote through
  // an in-process server]); CROSSGRAD_FUZZ_REMOTE=off: not applicable here.
  const std::string remote = crossgrad::fuzz::serve_remote_in_process();
  if (verbose) std::fprintf(stderr, "replay: Remote: %s\n", remote.c_str());
  std::signal(SIGABRT, on_abort);
  for (const fs::path &f : files) {
    if (verbose) std::fprintf(stderr, "replaying %s\n", f.string().c_str());
    std::ifstream in(f, std::ios::binary);
    std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::snprintf(current, sizeof(current), "%s", f.string().c_str());
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  std::printf("replay: %s; no failure\n", crossgrad::fuzz::process_tally().summary().c_str());
  return files.empty() ? 3 : 0;
}
