// The run-time switch of the mutation build (tools/mutate, README "Mutation testing"). It is
// force-included (-include) into every translation unit of build/mutate only; the engine never
// includes it, and no other build sees it.
//
// CROSSGRAD_MUTANT=<id> makes on(id) true for that one mutant; unset, every site runs its original
// code. CROSSGRAD_MUTATION_TRACE=<dir> records which sites ran, and the process writes them at exit
// to <dir>/<pid>.trace, headed by its command line and its ancestors', so that tools/mutate knows which tests reach
// which mutants ("not covered" when none does) and runs only those.
#pragma once
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <unistd.h>

namespace crossgrad_mutation {

inline constexpr int kCapacity = 1 << 16;

struct State {
  int active = 0;
  const char* trace_dir = nullptr;
  std::atomic<unsigned char> seen[kCapacity] = {};

  State() {
    if (const char* s = std::getenv("CROSSGRAD_MUTANT")) active = std::atoi(s);
    trace_dir = std::getenv("CROSSGRAD_MUTATION_TRACE");
  }
  ~State() {
    if (trace_dir == nullptr) return;
    // The command lines of this process and its ancestors, so that a helper process started by a
    // test (a build, a script) is credited to that test.
    std::string chain;
    for (long pid = ::getpid(), depth = 0; pid > 1 && depth < 8; ++depth) {
      const std::string proc = "/proc/" + std::to_string(pid);
      if (FILE* f = std::fopen((proc + "/cmdline").c_str(), "rb")) {
        int c;
        while ((c = std::fgetc(f)) != EOF) chain.push_back(c == 0 ? '\x1f' : c == '\n' ? ' ' : static_cast<char>(c));
        std::fclose(f);
      }
      chain.push_back('\x1e');
      long parent = 0;
      if (FILE* f = std::fopen((proc + "/stat").c_str(), "r")) {
        // pid (comm) state ppid ...; comm may hold spaces, so read after the last ')'.
        std::string stat;
        int c;
        while ((c = std::fgetc(f)) != EOF) stat.push_back(static_cast<char>(c));
        std::fclose(f);
        const auto close = stat.rfind(')');
        if (close != std::string::npos) std::sscanf(stat.c_str() + close + 1, " %*c %ld", &parent);
      }
      pid = parent;
    }
    const std::string path = std::string(trace_dir) + "/" + std::to_string(::getpid()) + ".trace";
    if (FILE* f = std::fopen(path.c_str(), "w")) {
      std::fprintf(f, "%s\n", chain.c_str());
      for (int i = 0; i < kCapacity; ++i)
        if (seen[i].load(std::memory_order_relaxed)) std::fprintf(f, "%d\n", i);
      std::fclose(f);
    }
  }
};

inline State& state() {
  static State s;
  return s;
}

inline bool on(int id) {
  State& s = state();
  if (s.trace_dir != nullptr && id > 0 && id < kCapacity && !s.seen[id].load(std::memory_order_relaxed))
    s.seen[id].store(1, std::memory_order_relaxed);
  return id == s.active;
}

}  // namespace crossgrad_mutation
