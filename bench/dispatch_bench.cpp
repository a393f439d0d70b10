// What the Dispatch layer costs over calling a backend directly (the pairs of dispatch_pairs.hpp):
// add/{Direct,Dispatch}/<B>/1, grad_replace/{Direct,Dispatch}/<B>, grad/{Direct,Dispatch}/<B> and
// backward/{Direct,Dispatch}/<B>. scripts/dispatch-cost counts the same calls' instructions.
#include "bench_common.hpp"
#include "dispatch_pairs.hpp"

#include <string>
#include <string_view>
#include <type_traits>

namespace crossgrad::bench {
namespace {

// The differences measured here are a few nanoseconds: a short run (scripts/bench's default
// --benchmark_min_time) leaves them inside the noise, so these run longer whatever the flag says.
constexpr double kOverheadMinTime = 0.5;

// "add" is the only operation named with its size (one element), as the kernel benchmarks are.
std::string benchmark_name(std::string_view operation, std::string_view path, std::string_view backend) {
  std::string name = std::string(operation) + "/" + std::string(path) + "/" + std::string(backend);
  return operation == "add" ? name + "/1" : name;
}

template <class Pair, bool Direct>
void run_pair(benchmark::State& state) {
  Pair pair;
  for (auto _ : state) {
    if constexpr (std::is_void_v<decltype(pair.direct())>) {
      if constexpr (Direct) pair.direct(); else pair.dispatch();
      benchmark::ClobberMemory();
    } else if constexpr (Direct) {
      benchmark::DoNotOptimize(pair.direct());
    } else {
      benchmark::DoNotOptimize(pair.dispatch());
    }
  }
}

template <class B>
void register_backend() {
  dispatch_pairs::for_each_pair<B>([]<class Pair>(std::string_view operation) {
    benchmark::RegisterBenchmark(benchmark_name(operation, "Direct", B::name).c_str(), run_pair<Pair, true>)
        ->Unit(benchmark::kNanosecond)
        ->MinTime(kOverheadMinTime);
    benchmark::RegisterBenchmark(benchmark_name(operation, "Dispatch", B::name).c_str(), run_pair<Pair, false>)
        ->Unit(benchmark::kNanosecond)
        ->MinTime(kOverheadMinTime);
  });
}

}  // namespace

void register_dispatch_benchmarks() {
  for_each_backend([]<class B>() {
    if (B::is_available()) register_backend<B>();
  });
}

}  // namespace crossgrad::bench
