// What the Dispatch layer costs over calling a backend directly: the same grad_replace through
// Dispatch and through Autodiff<B>, and a one-element add through Dispatch and through B.
#include "bench_common.hpp"

namespace crossgrad::bench {
namespace {

// The differences measured here are a few nanoseconds: a short run (scripts/bench's default
// --benchmark_min_time) leaves them inside the noise, so these run longer whatever the flag says.
constexpr double kOverheadMinTime = 0.5;

template <class B>
void register_backend() {
  const std::string name(B::name);
  const auto data = TensorData::from_f32({1, 2, 3, 4}, {2, 2});
  const auto one = TensorData::from_f32({1.5f}, {1});

  benchmark::RegisterBenchmark(("grad_replace/Direct/" + name).c_str(), [data](benchmark::State& state) {
    using AD = Autodiff<B>;
    const auto x = AD::from_data(data, B::default_device());
    Gradients grads = AD::backward(AD::float_sum(AD::float_mul(x, x)));
    const auto g = B::from_data(data, B::default_device());
    for (auto _ : state) {
      AD::grad_replace(x, grads, g);
      benchmark::ClobberMemory();
    }
  })->Unit(benchmark::kNanosecond)->MinTime(kOverheadMinTime);

  benchmark::RegisterBenchmark(("grad_replace/Dispatch/" + name).c_str(), [data](benchmark::State& state) {
    const auto device = DispatchDevice::of<B>(B::default_device());
    const DispatchTensor x = Dispatch::float_from_data(data, DispatchDevice::Autodiff(device));
    Gradients grads = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(x, x)));
    const DispatchTensor g = Dispatch::float_from_data(data, device);
    for (auto _ : state) {
      Dispatch::grad_replace(x, grads, g);
      benchmark::ClobberMemory();
    }
  })->Unit(benchmark::kNanosecond)->MinTime(kOverheadMinTime);

  benchmark::RegisterBenchmark(("add/Direct/" + name + "/1").c_str(), [one](benchmark::State& state) {
    const auto a = B::from_data(one, B::default_device());
    for (auto _ : state) benchmark::DoNotOptimize(B::float_add(a, a));
  })->Unit(benchmark::kNanosecond)->MinTime(kOverheadMinTime);

  benchmark::RegisterBenchmark(("add/Dispatch/" + name + "/1").c_str(), [one](benchmark::State& state) {
    const DispatchTensor a = Dispatch::float_from_data(one, DispatchDevice::of<B>(B::default_device()));
    for (auto _ : state) benchmark::DoNotOptimize(Dispatch::float_add(a, a));
  })->Unit(benchmark::kNanosecond)->MinTime(kOverheadMinTime);
}

}  // namespace

void register_dispatch_benchmarks() {
  for_each_backend([]<class B>() {
    if (B::is_available()) register_backend<B>();
  });
}

}  // namespace crossgrad::bench
