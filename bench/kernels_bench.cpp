// Kernel benchmarks on every available backend of the registry: matmul, add, exp, sum_dim,
// mean_dim and the backward pass of a two-layer MLP. A backend added to CROSSGRAD_BACKENDS is
// benchmarked here without any edit.
#include "bench_common.hpp"

namespace crossgrad::bench {
namespace {

struct MatmulSize {
  std::size_t m, k, n;
  std::string label() const {
    if (m == k && k == n) return std::to_string(m);
    return std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
  }
};

const MatmulSize kMatmulSizes[] = {{64, 64, 64},     {128, 128, 128},  {256, 256, 256},
                                   {512, 512, 512},  {1024, 1024, 1024},
                                   {4096, 256, 64},  {64, 4096, 256},  {1, 1024, 1024}};
const std::size_t kElementwiseSizes[] = {std::size_t{1} << 10, std::size_t{1} << 16,
                                         std::size_t{1} << 20, std::size_t{16} << 20};
const std::size_t kReduceSides[] = {256, 1024, 4096};  // square [n, n]
const std::size_t kMlpBatches[] = {32, 256};

template <class B>
void register_backend() {
  const std::string name(B::name);
  for (const MatmulSize& s : kMatmulSizes) {
    if (is_reference_backend<B>() && s.m * s.k * s.n > std::size_t{512} * 512 * 512) continue;
    benchmark::RegisterBenchmark(("matmul/" + name + "/" + s.label()).c_str(), [s](benchmark::State& state) {
      const auto a = random_tensor<B>(Shape{s.m, s.k}, 1);
      const auto b = random_tensor<B>(Shape{s.k, s.n}, 2);
      time_op<B>(state, [&] { return B::float_matmul(a, b); });
      set_flops(state, 2.0 * double(s.m) * double(s.k) * double(s.n));
    })->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
  for (std::size_t n : kElementwiseSizes) {
    benchmark::RegisterBenchmark(("add/" + name + "/" + size_label(n)).c_str(), [n](benchmark::State& state) {
      const auto a = random_tensor<B>(Shape{n}, 1);
      const auto b = random_tensor<B>(Shape{n}, 2);
      time_op<B>(state, [&] { return B::float_add(a, b); });
      set_bytes(state, 3.0 * 4.0 * double(n));  // two reads, one write
      set_flops(state, double(n));
    })->UseRealTime()->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("exp/" + name + "/" + size_label(n)).c_str(), [n](benchmark::State& state) {
      const auto a = random_tensor<B>(Shape{n}, 1);
      time_op<B>(state, [&] { return B::float_exp(a); });
      set_bytes(state, 2.0 * 4.0 * double(n));
    })->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
  for (std::size_t side : kReduceSides) {
    for (std::size_t dim : {std::size_t{0}, std::size_t{1}}) {
      const std::string label = std::to_string(side) + "x" + std::to_string(side) + "/d" + std::to_string(dim);
      benchmark::RegisterBenchmark(("sum_dim/" + name + "/" + label).c_str(), [side, dim](benchmark::State& state) {
        const auto a = random_tensor<B>(Shape{side, side}, 1);
        time_op<B>(state, [&] { return B::float_sum_dim(a, dim); });
        set_bytes(state, 4.0 * double(side) * double(side));
      })->UseRealTime()->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark(("mean_dim/" + name + "/" + label).c_str(), [side, dim](benchmark::State& state) {
        const auto a = random_tensor<B>(Shape{side, side}, 1);
        time_op<B>(state, [&] { return B::float_mean_dim(a, dim); });
        set_bytes(state, 4.0 * double(side) * double(side));
      })->UseRealTime()->Unit(benchmark::kMicrosecond);
    }
  }
  // Two-layer MLP, [batch, 256] -> relu(x W1) [batch, 256] -> W2 [batch, 16] -> sum; forward
  // and backward through Autodiff<B>.
  for (std::size_t batch : kMlpBatches) {
    benchmark::RegisterBenchmark(("mlp_backward/" + name + "/" + std::to_string(batch)).c_str(),
                                 [batch](benchmark::State& state) {
      using AD = Autodiff<B>;
      constexpr std::size_t in = 256, hidden = 256, out = 16;
      const auto x = random_tensor<B>(Shape{batch, in}, 1);
      const auto w1 = random_tensor<B>(Shape{in, hidden}, 2);
      const auto w2 = random_tensor<B>(Shape{hidden, out}, 3);
      time_op<B>(state, [&] {
        const auto tx = AD::from_inner(x), tw1 = AD::from_inner(w1), tw2 = AD::from_inner(w2);
        const auto h = AD::relu(AD::float_matmul(tx, tw1));
        const auto loss = AD::float_sum(AD::float_matmul(h, tw2));
        return AD::backward(loss);
      });
      // forward 2 matmuls, backward 4 (dX is computed too, x being a tracked leaf)
      set_flops(state, 3.0 * 2.0 * double(batch) * double(in * hidden + hidden * out));
    })->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace

void register_kernel_benchmarks() {
  for_each_backend([]<class B>() {
    if (B::is_available()) register_backend<B>();
  });
}

}  // namespace crossgrad::bench
