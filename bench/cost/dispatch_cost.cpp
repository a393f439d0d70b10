// dispatch_cost: runs one side of one Direct / Dispatch pair (bench/dispatch_pairs.hpp) a given
// number of times, for scripts/dispatch-cost to count its instructions under callgrind.
//   dispatch_cost --list                                  "<operation> <backend>" per line
//   dispatch_cost <operation> <Direct|Dispatch> <backend> <calls>
// The calls run inside measured_calls (never inlined) and nothing else does, so callgrind's
// --toggle-collect='*measured_calls*' counts them alone: setup, the one warm-up call before them
// and process start-up stay out of the count.
#include "dispatch_pairs.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <type_traits>

namespace {

using namespace crossgrad;
using namespace crossgrad::bench::dispatch_pairs;

// Keeps a result alive as far as the optimiser can tell (as benchmark::DoNotOptimize does).
template <class T>
void keep(T& value) {
  asm volatile("" : : "r"(&value) : "memory");
}

template <bool Direct, class Pair>
void call_once(Pair& pair) {
  if constexpr (std::is_void_v<decltype(pair.direct())>) {
    if constexpr (Direct) pair.direct(); else pair.dispatch();
    asm volatile("" : : : "memory");
  } else if constexpr (Direct) {
    auto r = pair.direct();
    keep(r);
  } else {
    auto r = pair.dispatch();
    keep(r);
  }
}

template <bool Direct, class Pair>
[[gnu::noinline]] void measured_calls(Pair& pair, long calls) {
  for (long i = 0; i < calls; ++i) call_once<Direct>(pair);
}

template <class Pair>
void run(bool direct, long calls) {
  Pair pair;
  // One call outside the count: first-use work (lazy statics, a first allocation of a size) is
  // not a per-call cost.
  if (direct) call_once<true>(pair); else call_once<false>(pair);
  if (direct) measured_calls<true>(pair, calls); else measured_calls<false>(pair, calls);
}

int usage() {
  std::fputs("usage: dispatch_cost --list | <operation> <Direct|Dispatch> <backend> <calls>\n", stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string_view(argv[1]) == "--list") {
    for_each_backend([]<class B>() {
      if (!B::is_available()) return;
      for (std::string_view op : kOperations) std::printf("%.*s %.*s\n", int(op.size()), op.data(), int(B::name.size()), B::name.data());
    });
    return 0;
  }
  if (argc != 5) return usage();
  const std::string_view operation = argv[1], path = argv[2], backend = argv[3];
  const long calls = std::strtol(argv[4], nullptr, 10);
  if ((path != "Direct" && path != "Dispatch") || calls <= 0) return usage();
  bool found = false;
  for_each_backend([&]<class B>() {
    if (backend != B::name || !B::is_available()) return;
    for_each_pair<B>([&]<class Pair>(std::string_view op) {
      if (op != operation) return;
      found = true;
      run<Pair>(path == "Direct", calls);
    });
  });
  if (!found) {
    std::fprintf(stderr, "dispatch_cost: no pair '%s' on an available backend '%s' (--list)\n", argv[1], argv[3]);
    return 2;
  }
  return 0;
}
