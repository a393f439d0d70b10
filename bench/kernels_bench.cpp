// Kernel benchmarks on every available backend of the backend registry: every op of the op
// registry (Note [Benchmarks from the op registry] in op_args.hpp), named <method>/<backend>/<size>,
// plus the GEMM shapes of matmul and the backward pass of a two-layer MLP, on one backend and
// spanning NdArray and another backend through hops. A backend added to
// CROSSGRAD_BACKENDS or an op added to CROSSGRAD_OPS is benchmarked here without any edit.
#include "bench_common.hpp"
#include "op_args.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

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
const std::size_t kMlpBatches[] = {32, 256};
// The two-layer MLP of mlp_backward and mlp_backward_hop, one shape for both so that they compare:
// [batch, in] -> relu(x W1) [batch, hidden] -> W2 [batch, out] -> sum.
constexpr std::size_t kMlpIn = 256, kMlpHidden = 256, kMlpOut = 16;
// Forward 2 matmuls, backward 4 (dX is computed too, x being a tracked leaf).
double mlp_flops(std::size_t batch) { return 3.0 * 2.0 * double(batch) * double(kMlpIn * kMlpHidden + kMlpHidden * kMlpOut); }

// Ops whose benchmarks are written out below instead: matmul's sizes are GEMM shapes with a FLOP
// counter, compared with the OpenBLAS and cuBLAS anchors of the same names.
constexpr OpId kHandWritten[] = {OpId::float_matmul};

// How each Sig's arguments are passed (the registry's CROSSGRAD_SIG_PARAMS_<Sig> order).
#define CROSSGRAD_BENCH_CALL_Unary(f) f(a.x)
#define CROSSGRAD_BENCH_CALL_Binary(f) f(a.x, a.y)
#define CROSSGRAD_BENCH_CALL_Scalar(f) f(a.x, a.scalar)
#define CROSSGRAD_BENCH_CALL_Bounds(f) f(a.x, a.min, a.max)
#define CROSSGRAD_BENCH_CALL_Dim(f) f(a.x, a.dim)
#define CROSSGRAD_BENCH_CALL_DimPair(f) f(a.x, a.dim0, a.dim1)
#define CROSSGRAD_BENCH_CALL_ToShape(f) f(a.x, a.shape)
#define CROSSGRAD_BENCH_CALL_ToDType(f) f(a.x, a.dtype)
#define CROSSGRAD_BENCH_CALL_Axes(f) f(a.x, a.axes)
#define CROSSGRAD_BENCH_CALL_Ranges(f) f(a.x, a.ranges)
#define CROSSGRAD_BENCH_CALL_Select(f) f(a.x, a.dim, a.indices)
#define CROSSGRAD_BENCH_CALL_SelectAssign(f) f(a.x, a.dim, a.indices, a.values)
#define CROSSGRAD_BENCH_CALL_Gather(f) f(a.x, a.dim, a.indices)
#define CROSSGRAD_BENCH_CALL_Scatter(f) f(a.x, a.dim, a.indices, a.values)
#define CROSSGRAD_BENCH_CALL_MaskWhere(f) f(a.x, a.indices, a.values)
#define CROSSGRAD_BENCH_CALL_MaskFill(f) f(a.x, a.indices, a.scalar)
#define CROSSGRAD_BENCH_CALL_Affine(f) f(a.x, a.min, a.max)
#define CROSSGRAD_BENCH_CALL_Repeat(f) f(a.x, a.dim, a.dim1)
#define CROSSGRAD_BENCH_CALL_Window(f) f(a.x, a.dim, a.dim0, a.dim1)
#define CROSSGRAD_BENCH_CALL_BinaryDim(f) f(a.x, a.y, a.dim)
#define CROSSGRAD_BENCH_CALL_RangesAssign(f) f(a.x, a.ranges, a.values)
#define CROSSGRAD_BENCH_CALL_Sort(f) f(a.x, a.dim, a.dim1 != 0)
#define CROSSGRAD_BENCH_CALL_TopK(f) f(a.x, a.dim, a.dim1)
#define CROSSGRAD_BENCH_CALL_ScatterUpdate(f) f(a.x, a.dim, a.indices, a.values, a.update)
#define CROSSGRAD_BENCH_CALL_GatherNd(f) f(a.x, a.indices)
#define CROSSGRAD_BENCH_CALL_ScatterNd(f) f(a.x, a.indices, a.values, a.update)
#define CROSSGRAD_BENCH_CALL_MaskSelect(f) f(a.x, a.indices)
#define CROSSGRAD_BENCH_CALL_Cat(f) f(a.pieces, a.dim)
#define CROSSGRAD_BENCH_CALL_AvgPool2d(f) f(a.x, a.avg_pool2d)
#define CROSSGRAD_BENCH_CALL_AvgPool2dBackward(f) f(a.x, a.y, a.avg_pool2d)
#define CROSSGRAD_BENCH_CALL_AdaptivePool2d(f) f(a.x, a.output_size)
#define CROSSGRAD_BENCH_CALL_AdaptivePool2dBackward(f) f(a.x, a.y)
#define CROSSGRAD_BENCH_CALL_MaxPool2d(f) f(a.x, a.max_pool2d)
#define CROSSGRAD_BENCH_CALL_MaxPool2dBackward(f) f(a.x, a.y, a.indices, a.max_pool2d)
#define CROSSGRAD_BENCH_CALL_AvgPool1d(f) f(a.x, a.avg_pool1d)
#define CROSSGRAD_BENCH_CALL_Unfold4d(f) f(a.x, a.unfold_kernel, a.unfold)
#define CROSSGRAD_BENCH_CALL_Fold4d(f) f(a.x, a.output_size, a.unfold_kernel, a.unfold)
#define CROSSGRAD_BENCH_CALL_AdaptivePool3d(f) f(a.x, a.output_size_3d)
#define CROSSGRAD_BENCH_CALL_AdaptivePool3dBackward(f) f(a.x, a.y)
#define CROSSGRAD_BENCH_CALL_Interpolate(f) f(a.x, a.output_size, a.interpolate)
#define CROSSGRAD_BENCH_CALL_InterpolateBackward(f) f(a.x, a.y, a.output_size, a.interpolate)
#define CROSSGRAD_BENCH_CALL_AvgPool1dBackward(f) f(a.x, a.y, a.avg_pool1d)
#define CROSSGRAD_BENCH_CALL_AdaptivePool1d(f) f(a.x, a.output_size_1d)
#define CROSSGRAD_BENCH_CALL_AdaptivePool1dBackward(f) f(a.x, a.y)
#define CROSSGRAD_BENCH_CALL_MaxPool1d(f) f(a.x, a.max_pool1d)
#define CROSSGRAD_BENCH_CALL_MaxPool1dBackward(f) f(a.x, a.y, a.indices, a.max_pool1d)
#define CROSSGRAD_BENCH_CALL_Embedding(f) f(a.x, a.indices)
#define CROSSGRAD_BENCH_CALL_EmbeddingBackward(f) f(a.x, a.y, a.indices)
#define CROSSGRAD_BENCH_CALL_Linear(f) f(a.x, a.y, std::make_optional(a.values))
#define CROSSGRAD_BENCH_CALL_LayerNorm(f) f(a.x, a.y, std::make_optional(a.values), a.scalar)
#define CROSSGRAD_BENCH_CALL_BatchNorm(f) f(a.x, a.y, a.values, a.indices, a.pieces.at(0), a.scalar)
#define CROSSGRAD_BENCH_CALL_Attention(f) f(a.x, a.y, a.values, std::optional<typename B::Tensor>(), std::optional<typename B::Tensor>(), a.attention)
#define CROSSGRAD_BENCH_CALL_LinearXBackward(f) f(a.x, a.y)
#define CROSSGRAD_BENCH_CALL_LinearWeightBackward(f) f(a.x, a.y)
#define CROSSGRAD_BENCH_CALL_LinearBiasBackward(f) f(a.x)
#define CROSSGRAD_BENCH_CALL_Conv2d(f) f(a.x, a.y, std::make_optional(a.values), a.conv2d)
#define CROSSGRAD_BENCH_CALL_Conv2dBackward(f) f(a.x, a.y, a.values, a.conv2d)
#define CROSSGRAD_BENCH_CALL_Conv2dBiasBackward(f) f(a.x, a.y, a.values)
#define CROSSGRAD_BENCH_CALL_ConvTranspose2d(f) f(a.x, a.y, std::make_optional(a.values), a.conv_transpose2d)
#define CROSSGRAD_BENCH_CALL_ConvTranspose2dBackward(f) f(a.x, a.y, a.values, a.conv_transpose2d)
#define CROSSGRAD_BENCH_CALL_Conv1d(f) f(a.x, a.y, std::make_optional(a.values), a.conv1d)
#define CROSSGRAD_BENCH_CALL_Conv1dBackward(f) f(a.x, a.y, a.values, a.conv1d)
#define CROSSGRAD_BENCH_CALL_Conv1dBiasBackward(f) f(a.x, a.y, a.values)
#define CROSSGRAD_BENCH_CALL_ConvTranspose1d(f) f(a.x, a.y, std::make_optional(a.values), a.conv_transpose1d)
#define CROSSGRAD_BENCH_CALL_ConvTranspose1dBackward(f) f(a.x, a.y, a.values, a.conv_transpose1d)
#define CROSSGRAD_BENCH_CALL_Rfft(f) f(a.x, a.dim, a.fft_size)
#define CROSSGRAD_BENCH_CALL_Irfft(f) f(a.x, a.y, a.dim, a.fft_size)
#define CROSSGRAD_BENCH_CALL_Conv3d(f) f(a.x, a.y, std::make_optional(a.values), a.conv3d)
#define CROSSGRAD_BENCH_CALL_Conv3dBackward(f) f(a.x, a.y, a.values, a.conv3d)
#define CROSSGRAD_BENCH_CALL_Conv3dBiasBackward(f) f(a.x, a.y, a.values)
#define CROSSGRAD_BENCH_CALL_ConvTranspose3d(f) f(a.x, a.y, std::make_optional(a.values), a.conv_transpose3d)
#define CROSSGRAD_BENCH_CALL_ConvTranspose3dBackward(f) f(a.x, a.y, a.values, a.conv_transpose3d)

// One registry op on B, called with its Sig's arguments. A plain function pointer, not the lambda's
// own type: register_op is then compiled once per backend instead of once per op and backend,
// which took this file from 137 s to 18 s of compile time with gcc. The timed loop pays one
// indirect call per iteration, the same for every backend (bench/performance-notes.md).
template <class B>
using OpCall = typename B::Tensor (*)(const OpArgs<B>&);

// Registers `op` on B with the first argument family the op accepts (a tiny trial call that
// raises no panic). An op no family fits stops the suite: a new Sig needs its family in op_args.hpp.
template <class B>
void register_op(const OpInfo& op, OpCall<B> call) {
  if (std::find(std::begin(kHandWritten), std::end(kHandWritten), op.id) != std::end(kHandWritten)) return;
  for (const ArgFamily<B>& family : arg_families<B>(op)) {
    try {
      benchmark::DoNotOptimize(call(family.make(family.trial)));
      B::synchronize(B::default_device());
    } catch (const Panic&) {
      continue;
    }
    const std::string prefix = std::string(op.method) + "/" + std::string(B::name) + "/";
    for (const BenchSize& size : family.sizes) {
      const auto make = family.make;
      benchmark::RegisterBenchmark((prefix + family.label(size)).c_str(), [make, call, size](benchmark::State& state) {
        const OpArgs<B> a = make(size);
        const auto out = call(a);
        time_op<B>(state, [&] { return call(a); });
        set_bytes(state, a.input_bytes + bytes_of<B>(out));
      })->UseRealTime()->Unit(benchmark::kMicrosecond);
    }
    return;
  }
  std::fprintf(stderr, "crossgrad_bench: no argument family of bench/op_args.hpp fits %.*s (Sig %.*s) on %.*s\n",
               int(op.name.size()), op.name.data(), int(op_sig_name(op.sig).size()), op_sig_name(op.sig).data(),
               int(B::name.size()), B::name.data());
  std::abort();
}

template <class B>
void register_registry_ops() {
#define CROSSGRAD_X(name, method, Sig, Operand, Result, Rule) \
  register_op<B>(op_info(OpId::name), [](const OpArgs<B>& a) -> typename B::Tensor { return CROSSGRAD_BENCH_CALL_##Sig(B::name); });
  CROSSGRAD_OPS(CROSSGRAD_X)
#undef CROSSGRAD_X
}

// mlp_backward_hop/<B>/<batch>: the same MLP in one graph spanning NdArray and B (CONTRACT section
// 7): x is an NdArray leaf that hops NdArray -> B, both layers run on B with B's weights, the
// logits hop B -> NdArray and the sum and the seed are on NdArray. Beside mlp_backward/<B>/<batch>
// it prices what the hops add: x and the logits moved forward, their gradients moved back.
template <class B>
void register_hop_mlp() {
  const std::string name(B::name);
  for (std::size_t batch : kMlpBatches) {
    benchmark::RegisterBenchmark(("mlp_backward_hop/" + name + "/" + std::to_string(batch)).c_str(),
                                 [batch](benchmark::State& state) {
      using Home = backends::NdArray;
      using AD = Autodiff<B>;
      const auto x = random_tensor<Home>(Shape{batch, kMlpIn}, 1);
      const auto w1 = random_tensor<B>(Shape{kMlpIn, kMlpHidden}, 2);
      const auto w2 = random_tensor<B>(Shape{kMlpHidden, kMlpOut}, 3);
      time_op<B>(state, [&] {
        const auto tx = Autodiff<Home>::from_inner(x);
        const auto tw1 = AD::from_inner(w1), tw2 = AD::from_inner(w2);
        const auto x_on_b = move_tracked_across<Home, B>(tx, B::default_device());
        const auto logits = AD::float_matmul(AD::relu(AD::float_matmul(x_on_b, tw1)), tw2);
        const auto loss = Autodiff<Home>::float_sum(move_tracked_across<B, Home>(logits, Home::default_device()));
        return Autodiff<Home>::backward(loss);
      });
      set_flops(state, mlp_flops(batch));
    })->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
}

template <class B>
void register_backend() {
  const std::string name(B::name);
  register_registry_ops<B>();
  for (const MatmulSize& s : kMatmulSizes) {
    if (is_reference_backend<B>() && s.m * s.k * s.n > std::size_t{512} * 512 * 512) continue;
    benchmark::RegisterBenchmark(("matmul/" + name + "/" + s.label()).c_str(), [s](benchmark::State& state) {
      const auto a = random_tensor<B>(Shape{s.m, s.k}, 1);
      const auto b = random_tensor<B>(Shape{s.k, s.n}, 2);
      time_op<B>(state, [&] { return B::float_matmul(a, b); });
      set_flops(state, 2.0 * double(s.m) * double(s.k) * double(s.n));
    })->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
  // The MLP (kMlpIn above), forward and backward through Autodiff<B>.
  for (std::size_t batch : kMlpBatches) {
    benchmark::RegisterBenchmark(("mlp_backward/" + name + "/" + std::to_string(batch)).c_str(),
                                 [batch](benchmark::State& state) {
      using AD = Autodiff<B>;
      const auto x = random_tensor<B>(Shape{batch, kMlpIn}, 1);
      const auto w1 = random_tensor<B>(Shape{kMlpIn, kMlpHidden}, 2);
      const auto w2 = random_tensor<B>(Shape{kMlpHidden, kMlpOut}, 3);
      time_op<B>(state, [&] {
        const auto tx = AD::from_inner(x), tw1 = AD::from_inner(w1), tw2 = AD::from_inner(w2);
        const auto h = AD::relu(AD::float_matmul(tx, tw1));
        const auto loss = AD::float_sum(AD::float_matmul(h, tw2));
        return AD::backward(loss);
      });
      set_flops(state, mlp_flops(batch));
    })->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
  if constexpr (!std::is_same_v<B, backends::NdArray>) register_hop_mlp<B>();
  // attention_backward/<B>/...: attention's forward and backward through Autodiff<B> (Burn's
  // composition over it: the gradient of every step), query, key and value [1, 8, 512, 64] as the
  // registry's attention benchmark, plain and causal.
  for (const bool causal : {false, true}) {
    benchmark::RegisterBenchmark(("attention_backward/" + name + "/1x8x512x64" + (causal ? "causal" : "")).c_str(),
                                 [causal](benchmark::State& state) {
      using AD = Autodiff<B>;
      const Shape shape{1, 8, 512, 64};
      const auto q = random_tensor<B>(shape, 1), k = random_tensor<B>(shape, 2), v = random_tensor<B>(shape, 3);
      const AttentionOptions options{std::nullopt, std::nullopt, causal};
      time_op<B>(state, [&] {
        const auto tq = AD::from_inner(q), tk = AD::from_inner(k), tv = AD::from_inner(v);
        return AD::backward(AD::float_sum(AD::attention(tq, tk, tv, std::nullopt, std::nullopt, options)));
      });
      set_flops(state, 3 * 4.0 * 8 * 512 * 512 * 64);  // forward QK^T and PV, backward twice that
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
