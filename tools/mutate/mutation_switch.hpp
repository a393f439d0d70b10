// The run-time switch of the mutation build (tools/mutate, README "Mutation testing"). It is
// force-included (-include) into every translation unit of build/mutate only; the engine never
// includes it, and no other build sees it.
//
// CROSSGRAD_MUTANT=<id> makes on(id) true for that one mutant; unset, every site runs its original
// code. CROSSGRAD_MUTATION_TRACE=<dir> records which sites ran in <dir>/<pid>.trace, headed by the
// process's command line and its ancestors', so that tools/mutate knows which tests reach which
// mutants ("not covered" when none does) and runs only those.
//
// Note [Traces are written as sites are first seen]
// Each site is appended to the trace the first time the process runs it, not at exit: a death
// test's child ends in abort() or _exit(), which run no destructor, and a trace written at exit lost
// every site only such a child reached. Those mutants were then never run on the death test that
// kills them (a deleted allocation-failure panic "survived"). A child forked by the death test
// (gtest's "fast" style) shares its parent's file and is credited to the same test; a re-executed
// one ("threadsafe") writes its own, credited through its parent's command line.
#pragma once
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace crossgrad_mutation {

inline constexpr int kCapacity = 1 << 16;

// The command lines of this process and its ancestors, so that a helper process started by a test
// (a build, a script) is credited to that test.
inline std::string command_chain() {
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
  return chain;
}

struct State {
  int active = 0;
  const char* trace_dir = nullptr;
  std::atomic<unsigned char> seen[kCapacity] = {};
  std::once_flag opened;
  int fd = -1;

  State() {
    if (const char* s = std::getenv("CROSSGRAD_MUTANT")) active = std::atoi(s);
    trace_dir = std::getenv("CROSSGRAD_MUTATION_TRACE");
  }

  // One write per line with O_APPEND: lines from threads, and from a forked child sharing the
  // file, never interleave. O_CLOEXEC: an exec'd child writes a file of its own.
  void record(int id) {
    std::call_once(opened, [this] {
      const std::string path = std::string(trace_dir) + "/" + std::to_string(::getpid()) + ".trace";
      fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
      const std::string header = command_chain() + "\n";
      if (fd >= 0 && ::write(fd, header.data(), header.size()) < 0) fd = -1;
    });
    if (fd < 0) return;
    const std::string line = std::to_string(id) + "\n";
    (void)!::write(fd, line.data(), line.size());
  }
};

inline State& state() {
  static State s;
  return s;
}

inline bool on(int id) {
  State& s = state();
  if (s.trace_dir != nullptr && id > 0 && id < kCapacity && !s.seen[id].load(std::memory_order_relaxed) &&
      s.seen[id].exchange(1, std::memory_order_relaxed) == 0)
    s.record(id);
  return id == s.active;
}

}  // namespace crossgrad_mutation
