// Anchors measured in the same binary and run as the kernels, so ratios are side by side:
// matmul/OpenBLAS/<n> (cblas_sgemm, with as many threads as Flex) and copy/memcpy/<n> (memory
// bandwidth, one thread, preallocated buffers).
#include "bench_common.hpp"

#include "backends/flex/thread_pool.hpp"  // Flex's thread count, so OpenBLAS gets the same

#include <cblas.h>

#include <cstring>

namespace crossgrad::bench {
namespace {

void sgemm(benchmark::State& state, std::size_t m, std::size_t k, std::size_t n) {
  const auto a = random_values(m * k, 1), b = random_values(k * n, 2);
  std::vector<float> c(m * n);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(m), int(n), int(k), 1.0f, a.data(), int(k),
                b.data(), int(n), 0.0f, c.data(), int(n));
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  set_flops(state, 2.0 * double(m) * double(k) * double(n));
}

}  // namespace

void register_anchor_benchmarks() {
  openblas_set_num_threads(static_cast<int>(backends::flex::num_threads()));
  for (std::size_t n : {64, 128, 256, 512, 1024}) {
    benchmark::RegisterBenchmark(("matmul/OpenBLAS/" + std::to_string(n)).c_str(),
                                 [n](benchmark::State& state) { sgemm(state, n, n, n); })
        ->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
  const std::size_t skinny[][3] = {{4096, 256, 64}, {64, 4096, 256}, {1, 1024, 1024}};
  for (const auto& s : skinny) {
    const std::string label = std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]);
    benchmark::RegisterBenchmark(("matmul/OpenBLAS/" + label).c_str(),
                                 [s](benchmark::State& state) { sgemm(state, s[0], s[1], s[2]); })
        ->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
  for (std::size_t n : {std::size_t{1} << 10, std::size_t{1} << 16, std::size_t{1} << 20, std::size_t{16} << 20}) {
    benchmark::RegisterBenchmark(("copy/memcpy/" + size_label(n)).c_str(), [n](benchmark::State& state) {
      const auto src = random_values(n, 1);
      std::vector<float> dst(n);
      for (auto _ : state) {
        std::memcpy(dst.data(), src.data(), n * sizeof(float));
        benchmark::DoNotOptimize(dst.data());
        benchmark::ClobberMemory();
      }
      set_bytes(state, 2.0 * 4.0 * double(n));  // one read, one write
    })->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace crossgrad::bench
