// fuzz_catalog_report: which catalog entries each corpus reaches.
//   fuzz_catalog_report [--require-all] CORPUS_ROOT
// Replays every file of CORPUS_ROOT/<target>/ for every target and prints, per
// catalog entry, the targets (and file counts) that raise it as an expected
// panic. With --require-all it fails when an entry is reached by no corpus,
// except entries whose trigger needs hardware this build lacks (the cuda-*
// entries without an available Cuda backend), or when any corpus file fails.
#include <algorithm>
#include <crossgrad/crossgrad.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "harness/target.hpp"

namespace fs = std::filesystem;
using namespace crossgrad;
using namespace crossgrad::fuzz;

int main(int argc, char **argv) {
  bool require_all = false;
  fs::path root;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--require-all")
      require_all = true;
    else
      root = a;
  }
  if (root.empty()) {
    std::fprintf(stderr, "usage: fuzz_catalog_report [--require-all] CORPUS_ROOT\n");
    return 2;
  }
  std::map<PanicId, std::map<std::string, int>> reach;
  int failures = 0;
  for (const Target &t : all_targets()) {
    const fs::path dir = root / std::string(t.name);
    if (!fs::is_directory(dir)) continue;
    std::vector<fs::path> files;
    for (const auto &e : fs::directory_iterator(dir)) {
      if (e.is_regular_file() && e.path().filename().string().rfind('.', 0) != 0) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path &f : files) {
      std::ifstream in(f, std::ios::binary);
      const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      const Outcome out = run_target(t, bytes);
      if (out.failure) {
        ++failures;
        std::printf("FAILING INPUT %s: %s\n", f.string().c_str(), out.failure->c_str());
      }
      for (PanicId id : out.panics) ++reach[id][std::string(t.name)];
    }
  }
  bool cuda_here = false;
  for (const BackendInfo &b : registered_backends()) cuda_here = cuda_here || (b.name == "Cuda" && b.available);
  int missing = 0;
  std::printf("%-30s %s\n", "catalog entry", "reached by (files)");
  for (PanicId id : all_panic_ids()) {
    const std::string name(panic_id_name(id));
    std::string by;
    for (const auto &[target, n] : reach[id]) by += (by.empty() ? "" : ", ") + target + " (" + std::to_string(n) + ")";
    const bool exempt = name.rfind("cuda-", 0) == 0 && !cuda_here;
    if (by.empty()) {
      by = exempt ? "-- not reachable here (needs an available Cuda device)" : "-- NOT REACHED";
      if (!exempt) ++missing;
    }
    std::printf("%-30s %s\n", name.c_str(), by.c_str());
  }
  std::printf("%zu entries, %d not reached, %d failing inputs\n", all_panic_ids().size(), missing, failures);
  if (failures) return 1;
  return require_all && missing ? 1 : 0;
}
