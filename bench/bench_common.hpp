#pragma once
// Shared helpers for the crossgrad benchmarks. Every benchmark is named <op>/<backend>/<size> so
// that runs pair up across backends and commits (scripts/bench-compare, scripts/gen-performance).
#include <crossgrad/crossgrad.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace crossgrad::bench {

// 1024 -> "1K", 16 << 20 -> "16M"; other sizes print as numbers.
inline std::string size_label(std::size_t n) {
  if (n >= (std::size_t{1} << 20) && n % (std::size_t{1} << 20) == 0) return std::to_string(n >> 20) + "M";
  if (n >= 1024 && n % 1024 == 0) return std::to_string(n >> 10) + "K";
  return std::to_string(n);
}

inline std::vector<float> random_values(std::size_t n, unsigned seed = 42) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

template <class B>
typename B::Tensor random_tensor(Shape shape, unsigned seed = 42) {
  const std::size_t n = shape.num_elements();
  return B::from_data(TensorData::from_f32(random_values(n, seed), std::move(shape)), B::default_device());
}

// Counters reported next to the time; rates use real time (the benchmarks call UseRealTime).
inline void set_flops(benchmark::State& state, double flops_per_iteration) {
  state.counters["GFLOP/s"] = benchmark::Counter(flops_per_iteration * 1e-9,
                                                 benchmark::Counter::kIsIterationInvariantRate);
}
inline void set_bytes(benchmark::State& state, double bytes_per_iteration) {
  state.counters["GB/s"] = benchmark::Counter(bytes_per_iteration * 1e-9,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

// NdArray is the plain-loop oracle: its largest kernels would take seconds per iteration, so the
// suite caps its sizes (every other backend runs the full range).
// Times op() per iteration on backend B. One untimed call first, so the result's memory is
// already mapped (first-touch page faults are not the kernel's cost; the host buffer cache keeps
// it mapped afterwards), and each call waits for queued work (B::synchronize), so a backend
// whose ops only enqueue (Cuda) is timed for the work, not the launch.
template <class B, class Op>
void time_op(benchmark::State& state, Op&& op) {
  benchmark::DoNotOptimize(op());
  B::synchronize(B::default_device());
  for (auto _ : state) {
    benchmark::DoNotOptimize(op());
    B::synchronize(B::default_device());
  }
}

template <class B>
constexpr bool is_reference_backend() {
  return std::string_view(B::name) == "NdArray";
}

void register_kernel_benchmarks();
void register_anchor_benchmarks();
void register_dispatch_benchmarks();
void register_flex_internal_benchmarks();
void register_remote_benchmarks();  // remote_bench.cpp: round trip, transfers, loopback anchor

}  // namespace crossgrad::bench
