// Flex's add kernel alone, into a preallocated output (threads as in the op): separates the
// kernel's bandwidth from the cost of allocating a fresh output, which float_add pays and which
// dominates at 16M elements where the allocator maps (and page-faults) new memory every call.
// Named add_kernel/Flex/<size> so it is not mistaken for the op.
//
// math_kernel/<op>/<table>/<size>: one transcendental kernel of each table (portable: the libm
// loops Flex ran before SLEEF; avx2: Note [Flex transcendental kernels on SLEEF]) on one thread
// into a preallocated output, F32 in [-1, 1] as the op benchmarks (powf with their exponent 0.5),
// so one run gives the before/after ratio of the kernels under the same load. powf takes the
// op benchmarks' exponent 0.5, one IEEE sqrt on the AVX2 table; powf3 goes through SLEEF's pow.
#include "bench_common.hpp"

#include <crossgrad/backends/flex_testing.hpp>

#include <string>

namespace crossgrad::bench {
namespace {

namespace flex = backends::flex;

void register_math_kernel(const std::string& op, const flex::KernelTable& table, std::size_t n) {
  const auto k = table.f32;
  benchmark::RegisterBenchmark(("math_kernel/" + op + "/" + table.isa + "/" + size_label(n)).c_str(),
                               [op, k, n](benchmark::State& state) {
    const auto in = random_values(n, 1);
    std::vector<float> out(n);
    for (auto _ : state) {
      if (op == "exp") k.exp(in.data(), out.data(), n);
      else if (op == "log") k.log(in.data(), out.data(), n);
      else if (op == "log1p") k.log1p(in.data(), out.data(), n);
      else if (op == "tanh") k.tanh(in.data(), out.data(), n);
      else if (op == "sigmoid") k.sigmoid(in.data(), out.data(), n);
      else if (op == "powf") k.powf(in.data(), 0.5f, out.data(), n);
      else k.powf(in.data(), 3.0f, out.data(), n);
      benchmark::DoNotOptimize(out.data());
      benchmark::ClobberMemory();
    }
    set_bytes(state, 2.0 * 4.0 * double(n));
  })->UseRealTime()->Unit(benchmark::kMicrosecond);
}

}  // namespace

void register_flex_internal_benchmarks() {
  for (const char* op : {"exp", "log", "log1p", "tanh", "sigmoid", "powf", "powf3"}) {
    for (std::size_t n : {std::size_t{1} << 10, std::size_t{1} << 16, std::size_t{1} << 20}) {
      register_math_kernel(op, flex::portable_kernels(), n);
      if (flex::cpu_has_avx2_fma()) register_math_kernel(op, flex::avx2_kernels(), n);
    }
  }
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
