// Flex's add kernel alone, into a preallocated output (threads as in the op): separates the
// kernel's bandwidth from the cost of allocating a fresh output, which float_add pays and which
// dominates at 16M elements where the allocator maps (and page-faults) new memory every call.
// Named add_kernel/Flex/<size> so it is not mistaken for the op.
#include "bench_common.hpp"

#include <crossgrad/backends/flex_testing.hpp>

namespace crossgrad::bench {

void register_flex_internal_benchmarks() {
  namespace flex = backends::flex;
  for (std::size_t n : {std::size_t{1} << 20, std::size_t{16} << 20}) {
    benchmark::RegisterBenchmark(("add_kernel/Flex/" + size_label(n)).c_str(), [n](benchmark::State& state) {
      const auto a = random_values(n, 1), b = random_values(n, 2);
      std::vector<float> out(n);
      const auto kernel = flex::typed_kernels<float>().binary_vv[static_cast<std::size_t>(flex::BinaryOp::Add)];
      for (auto _ : state) {
        flex::parallel_range(n, std::size_t{1} << 15, [&](std::size_t begin, std::size_t end) {
          kernel(a.data() + begin, b.data() + begin, out.data() + begin, end - begin);
        });
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
      }
      set_bytes(state, 3.0 * 4.0 * double(n));
    })->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace crossgrad::bench
