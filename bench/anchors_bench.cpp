// Anchors measured in the same binary and run as the kernels, so ratios are side by side:
// matmul/OpenBLAS/<n> (cblas_sgemm, with as many threads as Flex) and copy/memcpy/<n> (memory
// bandwidth, preallocated buffers): copy/memcpy/<n> on one thread, and copy/memcpy_mt/<n> split over
// Flex's thread count, the fair anchor for Flex's multithreaded element-wise kernels.
#include "bench_common.hpp"

#include <crossgrad/backends/flex_tuning.hpp>  // Flex's thread count, so OpenBLAS gets the same

#include <cblas.h>

#include <cstring>
#include <algorithm>
#include <barrier>
#include <thread>

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

// memcpy in contiguous slices, one per thread, on workers that live as long as the benchmark (as
// Flex's pool does), so a call pays a barrier wake-up, not thread starts.
class ParallelCopy {
 public:
  explicit ParallelCopy(std::size_t threads)
      : threads_(std::max<std::size_t>(threads, 1)), start_(std::ptrdiff_t(threads_)), done_(std::ptrdiff_t(threads_)) {
    for (std::size_t t = 1; t < threads_; ++t) {
      workers_.emplace_back([this, t] {
        for (;;) {
          start_.arrive_and_wait();
          if (stop_) return;
          slice(t);
          done_.arrive_and_wait();
        }
      });
    }
  }
  ~ParallelCopy() {
    stop_ = true;
    start_.arrive_and_wait();
  }
  void operator()(float* dst, const float* src, std::size_t n) {
    dst_ = dst, src_ = src, n_ = n;
    start_.arrive_and_wait();
    slice(0);
    done_.arrive_and_wait();
  }

 private:
  void slice(std::size_t t) const {
    const std::size_t per = (n_ + threads_ - 1) / threads_, begin = std::min(n_, t * per);
    std::memcpy(dst_ + begin, src_ + begin, (std::min(n_, begin + per) - begin) * sizeof(float));
  }
  std::size_t threads_;
  std::barrier<> start_, done_;
  std::vector<std::jthread> workers_;
  float* dst_ = nullptr;
  const float* src_ = nullptr;
  std::size_t n_ = 0;
  bool stop_ = false;
};

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
  const std::size_t threads = backends::flex::num_threads();
  for (std::size_t n : {std::size_t{1} << 20, std::size_t{16} << 20}) {
    benchmark::RegisterBenchmark(("copy/memcpy_mt/" + size_label(n)).c_str(), [n, threads](benchmark::State& state) {
      const auto src = random_values(n, 1);
      std::vector<float> dst(n);
      ParallelCopy copy(threads);
      for (auto _ : state) {
        copy(dst.data(), src.data(), n);
        benchmark::DoNotOptimize(dst.data());
        benchmark::ClobberMemory();
      }
      set_bytes(state, 2.0 * 4.0 * double(n));
      state.counters["threads"] = double(threads);
    })->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace crossgrad::bench
