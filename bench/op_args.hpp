#pragma once
// Note [Benchmarks from the op registry]
// The arguments of a registry op's benchmark, chosen by its signature (OpSig) and operand kind
// only, so an op added to CROSSGRAD_OPS is benchmarked without an edit here: kernels_bench.cpp
// registers <method>/<backend>/<size> for every op and every available backend. A Sig can offer
// several argument families (ToShape: reshape-like and broadcast-like targets); the first one the
// op accepts in a tiny trial call is used, so two ops of one Sig with different shape rules
// (float_reshape, float_expand) both get benchmarks.
#include "bench_common.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace crossgrad::bench {

// Every argument any Sig takes; a Sig's call reads its own (CROSSGRAD_BENCH_CALL_<Sig> in
// kernels_bench.cpp).
template <class B>
struct OpArgs {
  using T = typename B::Tensor;
  T x, y, indices, values;
  std::vector<T> pieces;
  double scalar = 0.5, min = -0.5, max = 0.5;
  std::size_t dim = 0, dim0 = 0, dim1 = 1;
  Shape shape;
  DType dtype = DType::F32;
  std::vector<std::size_t> axes;
  std::vector<Range> ranges;
  IndexingUpdateOp update = IndexingUpdateOp::Add;
  AvgPool2dOptions avg_pool2d;  // AvgPool2d, AvgPool2dBackward
  Size2 output_size{1, 1};      // AdaptivePool2d, Fold4d, Interpolate(Backward)
  InterpolateOptions interpolate;  // Interpolate, InterpolateBackward
  Size3 output_size_3d{1, 1, 1};   // AdaptivePool3d
  MaxPool2dOptions max_pool2d;  // MaxPool2d, MaxPool2dBackward
  Conv2dOptions conv2d;         // Conv2d, Conv2dBackward
  ConvTranspose2dOptions conv_transpose2d;  // ConvTranspose2d, ConvTranspose2dBackward
  ConvTranspose1dOptions conv_transpose1d;  // ConvTranspose1d, ConvTranspose1dBackward
  AvgPool1dOptions avg_pool1d;              // AvgPool1d, AvgPool1dBackward
  Size1 output_size_1d{1};                  // AdaptivePool1d
  MaxPool1dOptions max_pool1d;              // MaxPool1d, MaxPool1dBackward
  Size2 unfold_kernel{1, 1};                // Unfold4d
  UnfoldOptions unfold;                     // Unfold4d, Fold4d
  Conv1dOptions conv1d;                     // Conv1d, Conv1dBackward
  Conv3dOptions conv3d;                     // Conv3d, Conv3dBackward
  ConvTranspose3dOptions conv_transpose3d;  // ConvTranspose3d, ConvTranspose3dBackward
  std::optional<std::size_t> fft_size;      // Rfft, Irfft (with dim)
  AttentionOptions attention;               // Attention
  double input_bytes = 0;  // bytes the op reads (GB/s counts these plus the result's)
};

// One benchmark size: n elements (1-D sizes) or a [side, side] matrix, and the dim for Dim ops.
struct BenchSize {
  std::size_t n = 0;
  std::size_t dim = 0;
};

template <class B>
struct ArgFamily {
  std::vector<BenchSize> sizes;
  BenchSize trial;                                    // a tiny size for the acceptance trial
  std::function<std::string(const BenchSize&)> label;
  std::function<OpArgs<B>(const BenchSize&)> make;
};

inline const std::vector<std::size_t>& elementwise_sizes() {
  static const std::vector<std::size_t> sizes = {std::size_t{1} << 10, std::size_t{1} << 16, std::size_t{1} << 20,
                                                 std::size_t{16} << 20};
  return sizes;
}
inline const std::vector<std::size_t>& matrix_sides() {  // square [side, side]
  static const std::vector<std::size_t> sides = {256, 1024, 4096};
  return sides;
}

template <class B>
double bytes_of(const typename B::Tensor& t) {
  return double(B::shape(t).num_elements()) * double(dtype_size(B::dtype(t)));
}

// A tensor of the operand kind: F32 in [-1, 1], I64 in [-1000, 1000] without 0 (an int divisor), or Bool.
template <class B>
typename B::Tensor operand_tensor(OpKind kind, Shape shape, unsigned seed) {
  if (kind == OpKind::Float) return random_tensor<B>(std::move(shape), seed);
  const std::size_t n = shape.num_elements();
  std::mt19937 rng(seed);
  if (kind == OpKind::Int) {
    std::uniform_int_distribution<std::int64_t> dist(-1000, 1000);
    std::vector<std::int64_t> v(n);
    for (auto& x : v) x = dist(rng) | 1;  // odd: never 0
    return B::from_data(TensorData::from_i64(std::move(v), std::move(shape)), B::default_device());
  }
  std::vector<bool> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = (rng() & 1u) != 0;
  return B::from_data(TensorData::from_bool(std::move(v), std::move(shape)), B::default_device());
}

// I64 indices into a dim of `size`, k of them, repeats included (select's scatter-add path).
template <class B>
typename B::Tensor index_tensor(const Shape& shape, std::size_t size, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::int64_t> dist(0, static_cast<std::int64_t>(size) - 1);
  std::vector<std::int64_t> v(shape.num_elements());
  for (auto& x : v) x = dist(rng);
  return B::from_data(TensorData::from_i64(std::move(v), shape), B::default_device());
}

// A Bool mask, true at about every other element (no pattern a branch predictor could learn).
template <class B>
typename B::Tensor mask_tensor(const Shape& shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<bool> v(shape.num_elements());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = (rng() & 1) != 0;
  return B::from_data(TensorData::from_bool(std::move(v), shape), B::default_device());
}

// The pooling benchmarks' inputs, by BenchSize::n: ResNet-50's first pooling (64 channels of 112x112,
// batch 8) and a stage-4 map (512 channels of 14x14); the last entry is the acceptance trial's.
struct PoolCase {
  Shape input;
  AvgPool2dOptions options;  // avg_pool2d; max_pool2d takes its kernel_size, stride and padding
  Size2 output_size;         // adaptive_avg_pool2d
  const char* label;
};
inline const std::vector<PoolCase>& pool_cases() {
  static const std::vector<PoolCase> cases = {
      {Shape{8, 64, 112, 112}, AvgPool2dOptions{{3, 3}, {2, 2}, {1, 1}, true, false}, Size2{7, 7}, "8x64x112x112"},
      {Shape{8, 512, 14, 14}, AvgPool2dOptions{{2, 2}, {2, 2}, {0, 0}, true, false}, Size2{1, 1}, "8x512x14x14"},
      {Shape{1, 2, 5, 5}, AvgPool2dOptions{{3, 3}, {2, 2}, {1, 1}, true, false}, Size2{2, 2}, "trial"},
  };
  return cases;
}

inline std::string square_label(const BenchSize& s) { return std::to_string(s.n) + "x" + std::to_string(s.n); }

// The argument families of `op`, in the order they are tried.
template <class B>
std::vector<ArgFamily<B>> arg_families(const OpInfo& op) {
  const OpKind kind = op.operand;
  std::vector<BenchSize> flat, squares, square_dims;
  for (std::size_t n : elementwise_sizes()) flat.push_back({n, 0});
  for (std::size_t s : matrix_sides()) {
    squares.push_back({s, 0});
    for (std::size_t d : {std::size_t{0}, std::size_t{1}}) square_dims.push_back({s, d});
  }
  const auto flat_label = [](const BenchSize& s) { return size_label(s.n); };
  const auto receiver = [kind](Shape shape, OpArgs<B>& a) {
    a.x = operand_tensor<B>(kind, std::move(shape), 1);
    a.input_bytes += bytes_of<B>(a.x);
  };
  const auto square = [](const BenchSize& s) { return Shape{s.n, s.n}; };
  const auto dim_label = [](const BenchSize& s) { return square_label(s) + "/d" + std::to_string(s.dim); };

  switch (op.sig) {
    case OpSig::Unary:
    case OpSig::Scalar:
    case OpSig::Bounds:
      return {{flat, {16, 0}, flat_label, [=](const BenchSize& s) {
                 OpArgs<B> a;
                 receiver(Shape{s.n}, a);
                 if (kind == OpKind::Int) a.scalar = 7;  // an int divisor (0.5 would be 0), not a power of two
                 return a;
               }}};
    case OpSig::Binary:
      if (op_stem(op.id) == "matmul") {  // int_matmul ([n, n] x [n, n]; float_matmul is written out in kernels_bench.cpp)
        // Sides up to 256: NdArray's plain triple loop takes seconds per 1024^3 product.
        const std::vector<BenchSize> small_squares{{64, 0}, {256, 0}};
        return {{small_squares, {16, 0}, square_label, [=](const BenchSize& s) {
                   OpArgs<B> a;
                   receiver(square(s), a);
                   a.y = operand_tensor<B>(kind, square(s), 2);
                   a.input_bytes += bytes_of<B>(a.y);
                   return a;
                 }}};
      }
      return {{flat, {16, 0}, flat_label, [=](const BenchSize& s) {
                 OpArgs<B> a;
                 receiver(Shape{s.n}, a);
                 a.y = operand_tensor<B>(kind, Shape{s.n}, 2);
                 a.input_bytes += bytes_of<B>(a.y);
                 return a;
               }}};
    case OpSig::BinaryDim:
      return {{flat, {16, 0}, flat_label, [=](const BenchSize& s) {  // n 3-vectors, [n, 3] along dim 1
                 OpArgs<B> a;
                 receiver(Shape{s.n, 3}, a);
                 a.y = operand_tensor<B>(kind, Shape{s.n, 3}, 2);
                 a.input_bytes += bytes_of<B>(a.y);
                 a.dim = 1;
                 return a;
               }}};
    case OpSig::Affine:
      return {{flat, {16, 0}, flat_label, [=](const BenchSize& s) {  // hard_sigmoid's usual 1/6, 1/2
                 OpArgs<B> a;
                 receiver(Shape{s.n}, a);
                 a.min = 1.0 / 6;
                 a.max = 0.5;
                 return a;
               }}};
    case OpSig::Repeat:
      return {{square_dims, {4, 0}, dim_label, [=](const BenchSize& s) {  // the square twice along dim
                 OpArgs<B> a;
                 receiver(square(s), a);
                 a.dim = s.dim;
                 a.dim1 = 2;
                 return a;
               }}};
    case OpSig::Window:
      return {{square_dims, {4, 0}, dim_label, [=](const BenchSize& s) {  // windows of 4, every 2
                 OpArgs<B> a;
                 receiver(square(s), a);
                 a.dim = s.dim;
                 a.dim0 = 4;
                 a.dim1 = 2;
                 return a;
               }}};
    case OpSig::Sort:
      return {{square_dims, {4, 0}, dim_label, [=](const BenchSize& s) {  // every lane along dim, ascending
                 OpArgs<B> a;
                 receiver(square(s), a);
                 a.dim = s.dim;
                 a.dim1 = 0;
                 return a;
               }}};
    case OpSig::TopK:
      return {{square_dims, {4, 0}, dim_label, [=](const BenchSize& s) {  // the top 8 of every lane along dim
                 OpArgs<B> a;
                 receiver(square(s), a);
                 a.dim = s.dim;
                 a.dim1 = std::min<std::size_t>(8, s.n);
                 return a;
               }}};
    case OpSig::MaskWhere:
    case OpSig::MaskFill:
    case OpSig::MaskSelect:
      return {{flat, {16, 0}, flat_label, [=](const BenchSize& s) {
                 OpArgs<B> a;
                 receiver(Shape{s.n}, a);
                 a.indices = mask_tensor<B>(Shape{s.n}, 5);
                 a.input_bytes += bytes_of<B>(a.indices);
                 if (op.sig == OpSig::MaskWhere) {
                   a.values = operand_tensor<B>(kind, Shape{s.n}, 2);
                   a.input_bytes += bytes_of<B>(a.values);
                 }
                 return a;
               }}};
    case OpSig::ToDType:
      return {{flat, {16, 0}, flat_label, [=](const BenchSize& s) {
                 OpArgs<B> a;
                 receiver(Shape{s.n}, a);
                 // A float cast converts; float_into_int takes an int target.
                 a.dtype = op.result == OpKind::Int ? DType::I32 : kind == OpKind::Float ? DType::F64 : DType::F32;
                 return a;
               }}};
    case OpSig::Dim:
      return {{square_dims, {4, 1}, dim_label, [=](const BenchSize& s) {
                 OpArgs<B> a;
                 receiver(square(s), a);
                 a.dim = s.dim;
                 return a;
               }}};
    case OpSig::DimPair:
      return {{squares, {4, 0}, square_label, [=](const BenchSize& s) {
                 OpArgs<B> a;
                 receiver(square(s), a);
                 return a;
               }}};
    case OpSig::Axes:
      return {{squares, {4, 0}, square_label, [=](const BenchSize& s) {
                 OpArgs<B> a;
                 receiver(square(s), a);
                 a.axes = {1, 0};
                 return a;
               }}};
    case OpSig::ToShape:
      return {{squares, {4, 0}, square_label,  // reshape-like: same elements, new shape
               [=](const BenchSize& s) {
                 OpArgs<B> a;
                 receiver(square(s), a);
                 a.shape = Shape{s.n * s.n};
                 return a;
               }},
              {squares, {4, 0}, square_label,  // broadcast-like: a row to a square
               [=](const BenchSize& s) {
                 OpArgs<B> a;
                 receiver(Shape{1, s.n}, a);
                 a.shape = square(s);
                 return a;
               }}};
    case OpSig::Ranges:
      return {{squares, {4, 0}, square_label, [=](const BenchSize& s) {
                 OpArgs<B> a;
                 receiver(square(s), a);
                 a.ranges = {Range{s.n / 4, s.n / 4 + s.n / 2}, Range{0, s.n / 2}};  // a centred quarter
                 return a;
               }}};
    case OpSig::RangesAssign:
      return {{squares, {4, 0}, square_label, [=](const BenchSize& s) {  // a centred quarter replaced
                 OpArgs<B> a;
                 receiver(square(s), a);
                 a.ranges = {Range{s.n / 4, s.n / 4 + s.n / 2}, Range{s.n / 4, s.n / 4 + s.n / 2}};
                 a.values = operand_tensor<B>(kind, Shape{s.n / 2, s.n / 2}, 2);
                 a.input_bytes += bytes_of<B>(a.values);
                 return a;
               }}};
    case OpSig::Select:
    case OpSig::SelectAssign:
      return {{squares, {4, 0}, square_label, [=](const BenchSize& s) {
                 OpArgs<B> a;
                 receiver(square(s), a);
                 a.dim = 0;
                 a.indices = index_tensor<B>(Shape{s.n}, s.n, 3);
                 a.input_bytes += bytes_of<B>(a.indices);
                 if (op.sig == OpSig::SelectAssign) {
                   a.values = operand_tensor<B>(kind, square(s), 4);
                   a.input_bytes += bytes_of<B>(a.values);
                 }
                 return a;
               }}};
    case OpSig::Gather:
    case OpSig::Scatter:
      // One random position along dim 1 per element of the square (row-wise, as embedding lookups
      // and their gradients index).
      return {{squares, {4, 0}, square_label, [=](const BenchSize& s) {
                 OpArgs<B> a;
                 receiver(square(s), a);
                 a.dim = 1;
                 a.indices = index_tensor<B>(square(s), s.n, 3);
                 a.input_bytes += bytes_of<B>(a.indices);
                 if (op.sig == OpSig::Scatter) {
                   a.values = operand_tensor<B>(kind, square(s), 4);
                   a.input_bytes += bytes_of<B>(a.values);
                 }
                 return a;
               }}};
    case OpSig::ScatterUpdate:
      // scatter's family with the update that compares (Max): Add is scatter_add's row.
      return {{squares, {4, 0}, [](const BenchSize& s) { return square_label(s) + "/Max"; }, [=](const BenchSize& s) {
                 OpArgs<B> a;
                 receiver(square(s), a);
                 a.dim = 1;
                 a.indices = index_tensor<B>(square(s), s.n, 3);
                 a.values = operand_tensor<B>(kind, square(s), 4);
                 a.update = IndexingUpdateOp::Max;
                 a.input_bytes += bytes_of<B>(a.indices) + bytes_of<B>(a.values);
                 return a;
               }}};
    case OpSig::GatherNd:
    case OpSig::ScatterNd:
      // n random rows of the square by one coordinate each (embedding lookups; scatter_nd adds
      // n rows of values back, as their gradient does).
      return {{squares, {4, 0}, square_label, [=](const BenchSize& s) {
                 OpArgs<B> a;
                 receiver(square(s), a);
                 a.indices = index_tensor<B>(Shape{s.n, 1}, s.n, 3);
                 a.input_bytes += bytes_of<B>(a.indices);
                 if (op.sig == OpSig::ScatterNd) {
                   a.values = operand_tensor<B>(kind, square(s), 4);
                   a.input_bytes += bytes_of<B>(a.values);
                 }
                 return a;
               }}};
    case OpSig::AvgPool2d:
    case OpSig::AvgPool2dBackward:
    case OpSig::AdaptivePool2d:
    case OpSig::AdaptivePool2dBackward:
    case OpSig::MaxPool2d:
    case OpSig::MaxPool2dBackward: {
      // The forward ops read x; the backward passes x, the gradient of the forward's output and
      // (max) the forward's indices.
      const bool backward = op.sig == OpSig::AvgPool2dBackward || op.sig == OpSig::AdaptivePool2dBackward ||
                            op.sig == OpSig::MaxPool2dBackward;
      const bool adaptive = op.sig == OpSig::AdaptivePool2d || op.sig == OpSig::AdaptivePool2dBackward;
      const bool max = op.sig == OpSig::MaxPool2d || op.sig == OpSig::MaxPool2dBackward;
      return {{{{0, 0}, {1, 0}}, {2, 0}, [](const BenchSize& s) { return std::string(pool_cases()[s.n].label); },
               [=](const BenchSize& s) {
                 const PoolCase& c = pool_cases()[s.n];
                 OpArgs<B> a;
                 receiver(c.input, a);
                 a.avg_pool2d = c.options;
                 a.output_size = c.output_size;
                 a.max_pool2d = MaxPool2dOptions{c.options.kernel_size, c.options.stride, c.options.padding, {1, 1}, false};
                 if (backward) {
                   const Shape out = adaptive ? B::shape(B::adaptive_avg_pool2d(a.x, c.output_size))
                                     : max    ? B::shape(B::max_pool2d(a.x, a.max_pool2d))
                                              : B::shape(B::avg_pool2d(a.x, c.options));
                   a.y = operand_tensor<B>(kind, out, 2);
                   a.input_bytes += bytes_of<B>(a.y);
                   if (max) {
                     a.indices = B::max_pool2d_indices(a.x, a.max_pool2d);
                     a.input_bytes += bytes_of<B>(a.indices);
                   }
                 }
                 return a;
               }}};
    }
    case OpSig::AvgPool1d:
    case OpSig::AvgPool1dBackward:
    case OpSig::AdaptivePool1d:
    case OpSig::AdaptivePool1dBackward:
    case OpSig::MaxPool1d:
    case OpSig::MaxPool1dBackward: {
      // A sequence model's pooling, batch 8: size 0 256 channels of 4096 steps, kernel 3 stride 2
      // padding 1 (adaptive: to 64); size 1 768 channels of 512 steps, kernel 2 stride 2 (adaptive:
      // to 1, a global average) (trial: [1, 2, 5]). The backward passes read x, the forward's
      // output gradient and (max) its indices.
      const bool backward = op.sig == OpSig::AvgPool1dBackward || op.sig == OpSig::AdaptivePool1dBackward ||
                            op.sig == OpSig::MaxPool1dBackward;
      const bool adaptive = op.sig == OpSig::AdaptivePool1d || op.sig == OpSig::AdaptivePool1dBackward;
      const bool max = op.sig == OpSig::MaxPool1d || op.sig == OpSig::MaxPool1dBackward;
      return {{{{0, 0}, {1, 0}}, {2, 0}, [](const BenchSize& s) { return std::string(s.n == 0 ? "8x256x4096k3s2" : "8x768x512k2s2"); },
               [=](const BenchSize& s) {
                 const Shape input = s.n == 0 ? Shape{8, 256, 4096} : s.n == 1 ? Shape{8, 768, 512} : Shape{1, 2, 5};
                 const std::size_t k = s.n == 1 ? 2 : 3, padding = s.n == 1 ? 0 : 1;
                 OpArgs<B> a;
                 receiver(input, a);
                 a.avg_pool1d = AvgPool1dOptions{{k}, {2}, {padding}, true, false};
                 a.max_pool1d = MaxPool1dOptions{{k}, {2}, {padding}, {1}, false};
                 a.output_size_1d = {s.n == 0 ? 64u : s.n == 1 ? 1u : 2u};
                 if (backward) {
                   const Shape out = adaptive ? B::shape(B::adaptive_avg_pool1d(a.x, a.output_size_1d))
                                     : max    ? B::shape(B::max_pool1d(a.x, a.max_pool1d))
                                              : B::shape(B::avg_pool1d(a.x, a.avg_pool1d));
                   a.y = operand_tensor<B>(kind, out, 2);
                   a.input_bytes += bytes_of<B>(a.y);
                   if (max) {
                     a.indices = B::max_pool1d_indices(a.x, a.max_pool1d);
                     a.input_bytes += bytes_of<B>(a.indices);
                   }
                 }
                 return a;
               }}};
    }
    case OpSig::AdaptivePool3d:
    case OpSig::AdaptivePool3dBackward: {
      // A video network's pooling, batch 8 of 64 channels over 16 frames of 28x28: size 0 the global
      // pooling to 1x1x1, size 1 to 4x7x7 (trial: [1, 2, 3, 4, 5] to 2x3x2). The backward pass takes a
      // gradient of the output's shape.
      const bool backward = op.sig == OpSig::AdaptivePool3dBackward;
      return {{{{0, 0}, {1, 0}}, {2, 0}, [](const BenchSize& s) { return std::string(s.n == 0 ? "8x64x16x28x28to1" : "8x64x16x28x28to4x7x7"); },
               [=](const BenchSize& s) {
                 OpArgs<B> a;
                 receiver(s.n < 2 ? Shape{8, 64, 16, 28, 28} : Shape{1, 2, 3, 4, 5}, a);
                 a.output_size_3d = s.n == 0 ? Size3{1, 1, 1} : s.n == 1 ? Size3{4, 7, 7} : Size3{2, 3, 2};
                 if (backward) {
                   const Shape& x = B::shape(a.x);
                   a.y = operand_tensor<B>(kind, Shape{x[0], x[1], a.output_size_3d[0], a.output_size_3d[1], a.output_size_3d[2]}, 2);
                   a.input_bytes += bytes_of<B>(a.y);
                 }
                 return a;
               }}};
    }
    case OpSig::Interpolate:
    case OpSig::InterpolateBackward: {
      // Size 0: a segmentation decoder's 2x bilinear upsampling, 8x64x56x56 to 112x112 (half-pixel);
      // size 1: resizing a batch of 224x224 RGB images to 299x299, bicubic, corners aligned (trial:
      // [1, 2, 3, 4] to 5x3 bilinear). The backward pass takes a gradient of the output's shape.
      const bool backward = op.sig == OpSig::InterpolateBackward;
      return {{{{0, 0}, {1, 0}}, {2, 0},
               [](const BenchSize& s) { return std::string(s.n == 0 ? "8x64x56x56to112bilinear" : "8x3x224x224to299bicubic"); },
               [=](const BenchSize& s) {
                 OpArgs<B> a;
                 receiver(s.n == 0 ? Shape{8, 64, 56, 56} : s.n == 1 ? Shape{8, 3, 224, 224} : Shape{1, 2, 3, 4}, a);
                 a.output_size = s.n == 0 ? Size2{112, 112} : s.n == 1 ? Size2{299, 299} : Size2{5, 3};
                 a.interpolate = s.n == 1 ? InterpolateOptions{InterpolateMode::Bicubic, true}
                                          : InterpolateOptions{InterpolateMode::Bilinear, false};
                 if (backward) {
                   const Shape& x = B::shape(a.x);
                   a.y = operand_tensor<B>(kind, Shape{x[0], x[1], a.output_size[0], a.output_size[1]}, 2);
                   a.input_bytes += bytes_of<B>(a.y);
                 }
                 return a;
               }}};
    }
    case OpSig::Unfold4d:
    case OpSig::Fold4d:
      // conv2d's im2col at ResNet-like shapes, batch 8: size 0 64 channels of 56x56, 3x3 blocks
      // padding 1; size 1 a ViT's patches, 3 channels of 224x224 in 16x16 blocks stride 16 (trial:
      // [1, 2, 5, 5], 3x3 padding 1). fold4d folds those blocks back to the images (col2im).
      return {{{{0, 0}, {1, 0}}, {2, 0}, [](const BenchSize& s) { return std::string(s.n == 0 ? "8x64x56x56k3p1" : "8x3x224x224k16s16"); },
               [=](const BenchSize& s) {
                 OpArgs<B> a;
                 const Shape image = s.n == 0 ? Shape{8, 64, 56, 56} : s.n == 1 ? Shape{8, 3, 224, 224} : Shape{1, 2, 5, 5};
                 const std::size_t k = s.n == 1 ? 16 : 3, stride = s.n == 1 ? 16 : 1, padding = s.n == 1 ? 0 : 1;
                 const std::size_t blocks = image[2] / stride * (image[3] / stride);  // padding (k - 1) / 2 or k = stride
                 receiver(op.sig == OpSig::Unfold4d ? image : Shape{image[0], image[1] * k * k, blocks}, a);
                 a.output_size = {image[2], image[3]};
                 a.unfold_kernel = {k, k};
                 a.unfold = UnfoldOptions{{stride, stride}, {padding, padding}, {1, 1}};
                 return a;
               }}};
    case OpSig::Embedding:
    case OpSig::EmbeddingBackward:
      // A token table read at a batch of sequences (size 0: 1,000 x 64 at [8, 64]; size 1: a
      // 32,000 x 512 vocabulary at [32, 128]); the backward pass adds the output's gradient back.
      return {{{{0, 0}, {1, 0}}, {0, 0}, [](const BenchSize& s) { return std::string(s.n == 0 ? "1000x64@8x64" : "32000x512@32x128"); },
               [=](const BenchSize& s) {
                 const Shape table = s.n == 0 ? Shape{1000, 64} : Shape{32000, 512};
                 const Shape positions = s.n == 0 ? Shape{8, 64} : Shape{32, 128};
                 OpArgs<B> a;
                 receiver(table, a);
                 a.indices = index_tensor<B>(positions, table[0], 3);
                 a.input_bytes += bytes_of<B>(a.indices);
                 if (op.sig == OpSig::EmbeddingBackward) {
                   a.y = operand_tensor<B>(kind, Shape{positions[0], positions[1], table[1]}, 2);
                   a.input_bytes += bytes_of<B>(a.y);
                 }
                 return a;
               }}};
    case OpSig::LayerNorm:
      // A transformer's normalisation over d_model with a weight and bias, epsilon 1e-5: size 0
      // BERT-base's [8, 512, 768], size 1 [32, 128, 1024] (trial: [2, 3]).
      return {{{{0, 0}, {1, 0}}, {2, 0}, [](const BenchSize& s) { return std::string(s.n == 0 ? "8x512x768" : "32x128x1024"); },
               [=](const BenchSize& s) {
                 const Shape x = s.n == 0 ? Shape{8, 512, 768} : s.n == 1 ? Shape{32, 128, 1024} : Shape{2, 3};
                 OpArgs<B> a;
                 receiver(x, a);
                 a.y = operand_tensor<B>(kind, Shape{x[x.rank() - 1]}, 2);
                 a.values = operand_tensor<B>(kind, Shape{x[x.rank() - 1]}, 3);
                 a.input_bytes += bytes_of<B>(a.y) + bytes_of<B>(a.values);
                 a.scalar = 1e-5;
                 return a;
               }}};
    case OpSig::BatchNorm:
      // Inference-mode normalisation with given statistics: size 0 a ResNet stage [8, 64, 56, 56],
      // size 1 [8, 256, 14, 14] (trial: [1, 2, 3]). weight, bias, mean and variance are a.y,
      // a.values, a.indices and a.pieces[0] ([channels]; the variance of the operand values
      // squared, so positive).
      return {{{{0, 0}, {1, 0}}, {2, 0}, [](const BenchSize& s) { return std::string(s.n == 0 ? "8x64x56x56" : "8x256x14x14"); },
               [=](const BenchSize& s) {
                 const Shape x = s.n == 0 ? Shape{8, 64, 56, 56} : s.n == 1 ? Shape{8, 256, 14, 14} : Shape{1, 2, 3};
                 OpArgs<B> a;
                 receiver(x, a);
                 const Shape c{x[1]};
                 a.y = operand_tensor<B>(kind, c, 2);
                 a.values = operand_tensor<B>(kind, c, 3);
                 a.indices = operand_tensor<B>(kind, c, 4);
                 const auto v = operand_tensor<B>(kind, c, 5);
                 a.pieces = {B::float_mul(v, v)};
                 a.input_bytes += 4 * bytes_of<B>(a.y);
                 a.scalar = 1e-5;
                 return a;
               }}};
    case OpSig::Attention:
      // Self-attention of one sequence of 512 over 8 heads of 64 (the shape: query, key and
      // value [1, 8, 512, 64]), size 0 without masking, size 1 causal (trial: [1, 1, 2, 2]).
      return {{{{0, 0}, {1, 0}}, {2, 0}, [](const BenchSize& s) { return std::string(s.n == 0 ? "1x8x512x64" : "1x8x512x64causal"); },
               [=](const BenchSize& s) {
                 const Shape q = s.n < 2 ? Shape{1, 8, 512, 64} : Shape{1, 1, 2, 2};
                 OpArgs<B> a;
                 receiver(q, a);
                 a.y = operand_tensor<B>(kind, q, 2);
                 a.values = operand_tensor<B>(kind, q, 3);
                 a.input_bytes += bytes_of<B>(a.y) + bytes_of<B>(a.values);
                 a.attention.is_causal = s.n == 1;
                 return a;
               }}};
    case OpSig::Linear:
    case OpSig::LinearXBackward:
    case OpSig::LinearWeightBackward:
    case OpSig::LinearBiasBackward:
      // A transformer's projection, x [batch, seq, d_input] @ weight [d_input, d_output] + bias
      // (size 0: [8, 16, 64] -> 64; size 1: [4, 128, 512] -> 512; trial: [1, 2, 3] -> 2); the
      // backward passes take the output's gradient. x / weight / bias / grad are a.x, a.y, a.values
      // and a.y or a.x by the op's operand order.
      return {{{{0, 0}, {1, 0}}, {2, 0},
               [](const BenchSize& s) { return std::string(s.n == 0 ? "8x16x64@64x64" : "4x128x512@512x512"); },
               [=](const BenchSize& s) {
                 const std::size_t batch = s.n == 0 ? 8 : s.n == 1 ? 4 : 1, seq = s.n == 0 ? 16 : s.n == 1 ? 128 : 2,
                                   d_in = s.n == 0 ? 64 : s.n == 1 ? 512 : 3, d_out = s.n == 0 ? 64 : s.n == 1 ? 512 : 2;
                 const Shape x{batch, seq, d_in}, w{d_in, d_out}, g{batch, seq, d_out};
                 OpArgs<B> a;
                 if (op.sig == OpSig::LinearBiasBackward) {  // grad
                   receiver(g, a);
                   return a;
                 }
                 // linear: x, weight, bias; linear_x_backward: weight, grad; linear_weight_backward: x, grad.
                 receiver(op.sig == OpSig::LinearXBackward ? w : x, a);
                 a.y = operand_tensor<B>(kind, op.sig == OpSig::Linear ? w : g, 2);
                 a.input_bytes += bytes_of<B>(a.y);
                 if (op.sig == OpSig::Linear) {
                   a.values = operand_tensor<B>(kind, Shape{d_out}, 3);
                   a.input_bytes += bytes_of<B>(a.values);
                 }
                 return a;
               }}};
    case OpSig::Conv2d:
    case OpSig::Conv2dBackward:
    case OpSig::Conv2dBiasBackward:
      // ResNet's convolutions, batch 8 (issue 38): size 0 the stem 3 -> 64, 7x7 stride 2 padding 3
      // at 224x224; size 1 64 -> 64 3x3 at 56x56; size 2 256 -> 256 3x3 at 14x14 (trial: a 1x1x3x3
      // input). conv2d reads x, the weight and a bias; the backward passes x, the weight (or the
      // bias) and the output's gradient.
      return {{{{0, 0}, {1, 0}, {2, 0}}, {3, 0},
               [](const BenchSize& s) {
                 return std::string(s.n == 0 ? "8x3x224x224@64x7x7s2" : s.n == 1 ? "8x64x56x56@64x3x3" : "8x256x14x14@256x3x3");
               },
               [=](const BenchSize& s) {
                 const std::size_t c = s.n == 0 ? 3 : s.n == 1 ? 64 : s.n == 2 ? 256 : 1, co = s.n == 2 ? 256 : s.n == 3 ? 1 : 64;
                 const std::size_t side = s.n == 0 ? 224 : s.n == 1 ? 56 : s.n == 2 ? 14 : 3, k = s.n == 0 ? 7 : 3;
                 const std::size_t batch = s.n == 3 ? 1 : 8;
                 OpArgs<B> a;
                 a.conv2d.stride = s.n == 0 ? Size2{2, 2} : Size2{1, 1};
                 a.conv2d.padding = s.n == 0 ? Size2{3, 3} : Size2{1, 1};
                 receiver(Shape{batch, c, side, side}, a);
                 const Shape w{co, c, k, k};
                 a.y = op.sig == OpSig::Conv2dBiasBackward ? operand_tensor<B>(kind, Shape{co}, 2) : operand_tensor<B>(kind, w, 2);
                 a.input_bytes += bytes_of<B>(a.y);
                 if (op.sig == OpSig::Conv2d) {
                   a.values = operand_tensor<B>(kind, Shape{co}, 3);
                 } else {
                   const std::size_t out = (side + 2 * a.conv2d.padding[0] - k) / a.conv2d.stride[0] + 1;
                   a.values = operand_tensor<B>(kind, Shape{batch, co, out, out}, 3);
                 }
                 a.input_bytes += bytes_of<B>(a.values);
                 return a;
               }}};
    case OpSig::Conv1d:
    case OpSig::Conv1dBackward:
    case OpSig::Conv1dBiasBackward:
      // A speech or sequence model's convolution, batch 8: size 0 256 -> 256 channels, kernel 3
      // padding 1 over 1024 steps; size 1 80 -> 512, kernel 5 padding 2 over 400 (trial: a 1x1x3
      // input). conv1d reads x, the weight and a bias; the backward passes x, the weight (or the
      // bias) and the output's gradient.
      return {{{{0, 0}, {1, 0}}, {2, 0},
               [](const BenchSize& s) { return std::string(s.n == 0 ? "8x256x1024@256x3" : "8x80x400@512x5"); },
               [=](const BenchSize& s) {
                 const std::size_t c = s.n == 0 ? 256 : s.n == 1 ? 80 : 1, co = s.n == 0 ? 256 : s.n == 1 ? 512 : 1;
                 const std::size_t length = s.n == 0 ? 1024 : s.n == 1 ? 400 : 3, k = s.n == 1 ? 5 : 3, batch = s.n == 2 ? 1 : 8;
                 OpArgs<B> a;
                 a.conv1d.padding = {k / 2};
                 receiver(Shape{batch, c, length}, a);
                 a.y = op.sig == OpSig::Conv1dBiasBackward ? operand_tensor<B>(kind, Shape{co}, 2) : operand_tensor<B>(kind, Shape{co, c, k}, 2);
                 a.input_bytes += bytes_of<B>(a.y);
                 // A kernel of k with padding k / 2 (k odd) keeps the length.
                 a.values = op.sig == OpSig::Conv1d ? operand_tensor<B>(kind, Shape{co}, 3)
                                                    : operand_tensor<B>(kind, Shape{batch, co, length}, 3);
                 a.input_bytes += bytes_of<B>(a.values);
                 return a;
               }}};
    case OpSig::Rfft:
    case OpSig::Irfft:
      // Audio frames: 64 frames of 1024 samples transformed along dim 1 (rfft), or their 513 bins
      // back (irfft) (trial: 2 frames of 4 samples, 3 bins).
      return {{{{0, 0}}, {1, 0},
               [](const BenchSize&) { return std::string("64x1024"); },
               [=](const BenchSize& s) {
                 const bool trial = s.n == 1;
                 const std::size_t frames = trial ? 2 : 64, n = trial ? 4 : 1024;
                 OpArgs<B> a;
                 a.dim = 1;
                 if (op.sig == OpSig::Rfft) {
                   receiver(Shape{frames, n}, a);
                 } else {
                   receiver(Shape{frames, n / 2 + 1}, a);
                   a.y = operand_tensor<B>(kind, Shape{frames, n / 2 + 1}, 2);
                   a.input_bytes += bytes_of<B>(a.y);
                 }
                 return a;
               }}};
    case OpSig::Conv3d:
    case OpSig::Conv3dBackward:
    case OpSig::Conv3dBiasBackward:
      // A video model's convolution (C3D-like), batch 2: 32 -> 32 channels, 3x3x3 padding 1 over 8
      // frames of 28x28 (trial: a 1x1x1x3x3 input). conv3d reads x, the weight and a bias; the
      // backward passes x, the weight (or the bias) and the output's gradient.
      return {{{{0, 0}}, {1, 0},
               [](const BenchSize&) { return std::string("2x32x8x28x28@32x3x3x3"); },
               [=](const BenchSize& s) {
                 const bool trial = s.n == 1;
                 const std::size_t c = trial ? 1 : 32, co = c, batch = trial ? 1 : 2, depth = trial ? 1 : 8, side = trial ? 3 : 28;
                 OpArgs<B> a;
                 a.conv3d.padding = {1, 1, 1};
                 receiver(Shape{batch, c, depth, side, side}, a);
                 a.y = op.sig == OpSig::Conv3dBiasBackward ? operand_tensor<B>(kind, Shape{co}, 2)
                                                           : operand_tensor<B>(kind, Shape{co, c, 3, 3, 3}, 2);
                 a.input_bytes += bytes_of<B>(a.y);
                 // A 3x3x3 kernel with padding 1 keeps every dim.
                 a.values = op.sig == OpSig::Conv3d ? operand_tensor<B>(kind, Shape{co}, 3)
                                                    : operand_tensor<B>(kind, Shape{batch, co, depth, side, side}, 3);
                 a.input_bytes += bytes_of<B>(a.values);
                 return a;
               }}};
    case OpSig::ConvTranspose3d:
    case OpSig::ConvTranspose3dBackward:
      // A volumetric decoder's upsampling (3-D U-Net-like), batch 2: 64 -> 32 channels, 4x4x4
      // stride 2 padding 1, 4x14x14 -> 8x28x28 (trial: a 1x1x1x3x3 input, 3x3x3 padding 1). The
      // forward pass reads x, the weight and a bias; the backward passes x, the weight and the
      // output's gradient.
      return {{{{0, 0}}, {1, 0},
               [](const BenchSize&) { return std::string("2x64x4x14x14@32x4x4x4s2"); },
               [=](const BenchSize& s) {
                 const bool trial = s.n == 1;
                 const std::size_t c = trial ? 1 : 64, co = trial ? 1 : 32, batch = trial ? 1 : 2, k = trial ? 3 : 4;
                 const std::size_t depth = trial ? 1 : 4, side = trial ? 3 : 14;
                 OpArgs<B> a;
                 a.conv_transpose3d.stride = trial ? Size3{1, 1, 1} : Size3{2, 2, 2};
                 a.conv_transpose3d.padding = {1, 1, 1};
                 receiver(Shape{batch, c, depth, side, side}, a);
                 a.y = operand_tensor<B>(kind, Shape{c, co, k, k, k}, 2);
                 a.input_bytes += bytes_of<B>(a.y);
                 if (op.sig == OpSig::ConvTranspose3d) {
                   a.values = operand_tensor<B>(kind, Shape{co}, 3);
                 } else {
                   const std::size_t st = a.conv_transpose3d.stride[0];
                   const std::size_t out_d = (depth - 1) * st + k - 2, out_s = (side - 1) * st + k - 2;
                   a.values = operand_tensor<B>(kind, Shape{batch, co, out_d, out_s, out_s}, 3);
                 }
                 a.input_bytes += bytes_of<B>(a.values);
                 return a;
               }}};
    case OpSig::ConvTranspose2d:
    case OpSig::ConvTranspose2dBackward:
      // A DCGAN generator's upsampling, batch 8: size 0 256 -> 128 channels, 4x4 stride 2 padding 1,
      // 16x16 -> 32x32; size 1 64 -> 64 3x3 stride 1 padding 1 at 56x56 (conv2d's x gradient
      // shape) (trial: a 1x1x3x3 input). The forward pass reads x, the weight and a bias; the
      // backward passes x, the weight and the output's gradient.
      return {{{{0, 0}, {1, 0}}, {2, 0},
               [](const BenchSize& s) { return std::string(s.n == 0 ? "8x256x16x16@128x4x4s2" : "8x64x56x56@64x3x3"); },
               [=](const BenchSize& s) {
                 const std::size_t c = s.n == 0 ? 256 : s.n == 1 ? 64 : 1, co = s.n == 0 ? 128 : s.n == 1 ? 64 : 1;
                 const std::size_t side = s.n == 0 ? 16 : s.n == 1 ? 56 : 3, k = s.n == 0 ? 4 : 3, batch = s.n == 2 ? 1 : 8;
                 OpArgs<B> a;
                 a.conv_transpose2d.stride = s.n == 0 ? Size2{2, 2} : Size2{1, 1};
                 a.conv_transpose2d.padding = Size2{1, 1};
                 receiver(Shape{batch, c, side, side}, a);
                 a.y = operand_tensor<B>(kind, Shape{c, co, k, k}, 2);
                 a.input_bytes += bytes_of<B>(a.y);
                 if (op.sig == OpSig::ConvTranspose2d) {
                   a.values = operand_tensor<B>(kind, Shape{co}, 3);
                 } else {
                   const std::size_t out = (side - 1) * a.conv_transpose2d.stride[0] + k - 2 * a.conv_transpose2d.padding[0];
                   a.values = operand_tensor<B>(kind, Shape{batch, co, out, out}, 3);
                 }
                 a.input_bytes += bytes_of<B>(a.values);
                 return a;
               }}};
    case OpSig::ConvTranspose1d:
    case OpSig::ConvTranspose1dBackward:
      // A vocoder's upsampling (HiFi-GAN-like), batch 8: size 0 512 -> 256 channels, kernel 16
      // stride 8 padding 4, 64 -> 512 steps; size 1 256 -> 128, kernel 4 stride 2 padding 1, 256 ->
      // 512 (trial: a 1x1x3 input, kernel 3 padding 1). The forward pass reads x, the weight and a
      // bias; the backward passes x, the weight and the output's gradient.
      return {{{{0, 0}, {1, 0}}, {2, 0},
               [](const BenchSize& s) { return std::string(s.n == 0 ? "8x512x64@256x16s8" : "8x256x256@128x4s2"); },
               [=](const BenchSize& s) {
                 const std::size_t c = s.n == 0 ? 512 : s.n == 1 ? 256 : 1, co = s.n == 0 ? 256 : s.n == 1 ? 128 : 1;
                 const std::size_t length = s.n == 0 ? 64 : s.n == 1 ? 256 : 3, k = s.n == 0 ? 16 : s.n == 1 ? 4 : 3;
                 const std::size_t batch = s.n == 2 ? 1 : 8;
                 OpArgs<B> a;
                 a.conv_transpose1d.stride = {s.n == 0 ? 8u : s.n == 1 ? 2u : 1u};
                 a.conv_transpose1d.padding = {s.n == 0 ? 4u : 1u};
                 receiver(Shape{batch, c, length}, a);
                 a.y = operand_tensor<B>(kind, Shape{c, co, k}, 2);
                 a.input_bytes += bytes_of<B>(a.y);
                 if (op.sig == OpSig::ConvTranspose1d) {
                   a.values = operand_tensor<B>(kind, Shape{co}, 3);
                 } else {
                   const std::size_t out = (length - 1) * a.conv_transpose1d.stride[0] + k - 2 * a.conv_transpose1d.padding[0];
                   a.values = operand_tensor<B>(kind, Shape{batch, co, out}, 3);
                 }
                 a.input_bytes += bytes_of<B>(a.values);
                 return a;
               }}};
    case OpSig::Cat:
      return {{squares, {4, 0}, square_label, [=](const BenchSize& s) {  // two squares along dim 0
                 OpArgs<B> a;
                 for (unsigned seed : {1u, 2u}) {
                   a.pieces.push_back(operand_tensor<B>(kind, square(s), seed));
                   a.input_bytes += bytes_of<B>(a.pieces.back());
                 }
                 return a;
               }}};
  }
  return {};
}

}  // namespace crossgrad::bench
