// The Cuda backend's pooling kernels (<crossgrad/backends/cuda_kernels/pool_kernels.cuh>), run on
// the CPU as in cuda_dim_kernels_emulation_test.cpp (a sequential emulation: these kernels use no
// block-level synchronisation). Expected values come from loops written here from the definition
// (docs/OPS.md "Module ops": windows over the padded grid, outputs scattering g / divisor in
// row-major order), not from the engine, and are compared bit for bit: the forward kernels sum
// each window row by row and the backward kernels gather the same shares in the same order.
// Small grids (2 blocks of 32 threads) make every grid-stride loop take several turns.
//
// Needs no CUDA toolkit: built in every configuration.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include "cuda_sequential_emulation.hpp"
#include <crossgrad/backends/cuda_kernels/pool_kernels.cuh>

#undef threadIdx
#undef blockIdx
#undef blockDim
#undef gridDim

#include <gtest/gtest.h>

namespace {

using namespace crossgrad::backends::cuda_detail;
constexpr unsigned kBlocks = 2;
constexpr unsigned kBlockThreads = 32;

std::vector<float> coarse(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-40, 40);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(dist(rng)) * 0.37f;
  return v;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

struct Pooling {
  std::int64_t planes, in_h, in_w, k_h, k_w, s_h, s_w, p_h, p_w;
  bool include_pad, ceil_mode;
};

// Output positions along a dim: windows wholly in the grid of in + 2p cells; under ceil_mode one
// more if the window before stops short of the grid's end and it starts before the right padding.
std::int64_t positions(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t p, bool ceil_mode) {
  std::int64_t n = 0;
  for (;; ++n) {
    if (n * s + k <= in + 2 * p) continue;
    if (ceil_mode && n > 0 && n * s < in + p && (n - 1) * s + k < in + 2 * p) continue;
    return n;
  }
}

PoolGeometry geometry_of(const Pooling& c) {
  PoolGeometry g;
  g.planes = c.planes;
  g.in_h = c.in_h;
  g.in_w = c.in_w;
  g.out_h = positions(c.in_h, c.k_h, c.s_h, c.p_h, c.ceil_mode);
  g.out_w = positions(c.in_w, c.k_w, c.s_w, c.p_w, c.ceil_mode);
  g.kernel_h = c.k_h;
  g.kernel_w = c.k_w;
  g.stride_h = c.s_h;
  g.stride_w = c.s_w;
  g.pad_h = c.p_h;
  g.pad_w = c.p_w;
  g.count_include_pad = c.include_pad;
  return g;
}

// Calls cell(input offset) for each input cell of output (plane, oh, ow)'s window, row by row, and
// returns its divisor.
template <class F>
int window(const PoolGeometry& g, std::int64_t plane, std::int64_t oh, std::int64_t ow, F cell) {
  int grid = 0, input = 0;
  for (std::int64_t i = 0; i < g.kernel_h; ++i) {
    const std::int64_t r = oh * g.stride_h + i;  // a grid row
    if (r >= g.in_h + 2 * g.pad_h) continue;
    for (std::int64_t j = 0; j < g.kernel_w; ++j) {
      const std::int64_t c = ow * g.stride_w + j;
      if (c >= g.in_w + 2 * g.pad_w) continue;
      ++grid;
      if (r < g.pad_h || r >= g.pad_h + g.in_h || c < g.pad_w || c >= g.pad_w + g.in_w) continue;
      ++input;
      cell((plane * g.in_h + r - g.pad_h) * g.in_w + c - g.pad_w);
    }
  }
  return g.count_include_pad ? grid : input;
}

const Pooling kPoolings[] = {
    {3, 4, 4, 2, 2, 2, 2, 0, 0, true, false},   {2, 5, 7, 3, 3, 2, 2, 1, 1, true, false},
    {2, 5, 7, 3, 3, 2, 2, 1, 1, false, true},   {1, 9, 6, 3, 2, 3, 1, 1, 1, false, false},
    {4, 4, 4, 2, 2, 3, 3, 0, 0, true, true},    {1, 7, 5, 1, 2, 2, 2, 0, 1, true, true},
    {2, 6, 6, 3, 3, 1, 1, 1, 1, false, false},  {1, 1, 1, 1, 1, 1, 1, 0, 0, true, false},
};

TEST(CudaPoolKernelsEmulation, AvgPool2dSumsEachWindowRowByRow) {
  for (const Pooling& c : kPoolings) {
    const PoolGeometry g = geometry_of(c);
    const std::vector<float> x = coarse(static_cast<std::size_t>(g.planes * g.in_h * g.in_w), 7);
    std::vector<float> y(static_cast<std::size_t>(g.planes * g.out_h * g.out_w), -1.0f);
    emu_seq::launch(kBlocks, kBlockThreads, [&] { avg_pool2d_kernel<float>(x.data(), y.data(), g); });
    std::size_t f = 0;
    for (std::int64_t plane = 0; plane < g.planes; ++plane) {
      for (std::int64_t oh = 0; oh < g.out_h; ++oh) {
        for (std::int64_t ow = 0; ow < g.out_w; ++ow, ++f) {
          float sum = 0;
          const int n = window(g, plane, oh, ow, [&](std::int64_t at) { sum += x[static_cast<std::size_t>(at)]; });
          EXPECT_TRUE(same_bits(y[f], sum / static_cast<float>(n))) << "output " << f << ": " << y[f];
        }
      }
    }
  }
}

TEST(CudaPoolKernelsEmulation, AvgPool2dBackwardGathersTheSharesInOutputOrder) {
  for (const Pooling& c : kPoolings) {
    const PoolGeometry g = geometry_of(c);
    const std::vector<float> grad = coarse(static_cast<std::size_t>(g.planes * g.out_h * g.out_w), 11);
    std::vector<float> dx(static_cast<std::size_t>(g.planes * g.in_h * g.in_w), -1.0f);
    emu_seq::launch(kBlocks, kBlockThreads, [&] { avg_pool2d_backward_kernel<float>(grad.data(), dx.data(), g); });
    std::vector<float> want(dx.size(), 0.0f);
    std::size_t f = 0;
    for (std::int64_t plane = 0; plane < g.planes; ++plane) {
      for (std::int64_t oh = 0; oh < g.out_h; ++oh) {
        for (std::int64_t ow = 0; ow < g.out_w; ++ow, ++f) {
          std::vector<std::int64_t> cells;
          const int n = window(g, plane, oh, ow, [&](std::int64_t at) { cells.push_back(at); });
          for (std::int64_t at : cells) want[static_cast<std::size_t>(at)] += grad[f] / static_cast<float>(n);
        }
      }
    }
    for (std::size_t i = 0; i < dx.size(); ++i) EXPECT_TRUE(same_bits(dx[i], want[i])) << "cell " << i << ": " << dx[i];
  }
}

// adaptive pooling's cells along a dim: floor(o in / out) .. ceil((o + 1) in / out) - 1.
std::pair<std::int64_t, std::int64_t> cells_of(std::int64_t o, std::int64_t in, std::int64_t out) {
  return {static_cast<std::int64_t>(std::floor(double(o * in) / double(out))),
          static_cast<std::int64_t>(std::ceil(double((o + 1) * in) / double(out)))};
}

TEST(CudaPoolKernelsEmulation, AdaptiveAvgPool2dAndItsBackwardFollowTheWindows) {
  const std::int64_t sizes[][4] = {{5, 7, 2, 3}, {3, 3, 5, 4}, {7, 6, 7, 6}, {4, 9, 1, 1}, {1, 1, 3, 2}, {10, 3, 4, 5}};
  for (const auto& s : sizes) {
    PoolGeometry g;
    g.planes = 2;
    g.in_h = s[0];
    g.in_w = s[1];
    g.out_h = s[2];
    g.out_w = s[3];
    const std::vector<float> x = coarse(static_cast<std::size_t>(g.planes * g.in_h * g.in_w), 3);
    const std::vector<float> grad = coarse(static_cast<std::size_t>(g.planes * g.out_h * g.out_w), 5);
    std::vector<float> y(grad.size(), -1.0f), dx(x.size(), -1.0f);
    emu_seq::launch(kBlocks, kBlockThreads, [&] { adaptive_avg_pool2d_kernel<float>(x.data(), y.data(), g); });
    emu_seq::launch(kBlocks, kBlockThreads, [&] { adaptive_avg_pool2d_backward_kernel<float>(grad.data(), dx.data(), g); });
    std::vector<float> want_dx(x.size(), 0.0f);
    std::size_t f = 0;
    for (std::int64_t plane = 0; plane < g.planes; ++plane) {
      for (std::int64_t oh = 0; oh < g.out_h; ++oh) {
        const auto [h0, h1] = cells_of(oh, g.in_h, g.out_h);
        for (std::int64_t ow = 0; ow < g.out_w; ++ow, ++f) {
          const auto [w0, w1] = cells_of(ow, g.in_w, g.out_w);
          float sum = 0;
          for (std::int64_t h = h0; h < h1; ++h) {
            for (std::int64_t w = w0; w < w1; ++w) sum += x[static_cast<std::size_t>((plane * g.in_h + h) * g.in_w + w)];
          }
          const float n = static_cast<float>((h1 - h0) * (w1 - w0));
          EXPECT_TRUE(same_bits(y[f], sum / n)) << "output " << f;
          for (std::int64_t h = h0; h < h1; ++h) {
            for (std::int64_t w = w0; w < w1; ++w) want_dx[static_cast<std::size_t>((plane * g.in_h + h) * g.in_w + w)] += grad[f] / n;
          }
        }
      }
    }
    for (std::size_t i = 0; i < dx.size(); ++i) EXPECT_TRUE(same_bits(dx[i], want_dx[i])) << "cell " << i;
  }
}

// max_pool2d_kernel (values and indices) against a scan written here: cells o * stride - padding +
// i * dilation that are input cells, row by row, kept when greater or NaN from -inf at the first
// one; then max_pool2d_backward_kernel against a scatter in output order, with indices anywhere in
// the plane.
TEST(CudaPoolKernelsEmulation, MaxPool2dScansAndScattersAsTheDefinition) {
  struct MaxCase {
    std::int64_t planes, in_h, in_w, k_h, k_w, s_h, s_w, p_h, p_w, d_h, d_w;
    bool ceil_mode;
  };
  const MaxCase cases[] = {{2, 5, 7, 3, 3, 2, 2, 1, 1, 1, 1, false}, {1, 6, 6, 2, 2, 1, 1, 1, 1, 2, 2, false},
                           {3, 4, 5, 2, 3, 3, 2, 0, 1, 1, 1, true},  {1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, false}};
  for (const MaxCase& c : cases) {
    const std::int64_t span_h = c.d_h * (c.k_h - 1) + 1, span_w = c.d_w * (c.k_w - 1) + 1;
    const std::int64_t out_h = positions(c.in_h, span_h, c.s_h, c.p_h, c.ceil_mode);
    const std::int64_t out_w = positions(c.in_w, span_w, c.s_w, c.p_w, c.ceil_mode);
    std::vector<float> x = coarse(static_cast<std::size_t>(c.planes * c.in_h * c.in_w), 13);
    for (std::size_t i = 3; i < x.size(); i += 11) x[i] = std::numeric_limits<float>::quiet_NaN();
    const crossgrad::MaxPoolWindow w{c.in_h, c.in_w, c.k_h, c.k_w, c.s_h, c.s_w, c.p_h, c.p_w, c.d_h, c.d_w};
    const std::size_t outputs = static_cast<std::size_t>(c.planes * out_h * out_w);
    std::vector<float> y(outputs, -1.0f);
    std::vector<std::int64_t> at(outputs, -1);
    emu_seq::launch(kBlocks, kBlockThreads,
                    [&] { max_pool2d_kernel<float, false>(x.data(), y.data(), nullptr, c.planes, out_h, out_w, w); });
    emu_seq::launch(kBlocks, kBlockThreads,
                    [&] { max_pool2d_kernel<float, true>(x.data(), nullptr, at.data(), c.planes, out_h, out_w, w); });
    std::size_t f = 0;
    for (std::int64_t plane = 0; plane < c.planes; ++plane) {
      for (std::int64_t oh = 0; oh < out_h; ++oh) {
        for (std::int64_t ow = 0; ow < out_w; ++ow, ++f) {
          std::int64_t kept = -1;
          float kept_value = -std::numeric_limits<float>::infinity();
          for (std::int64_t i = 0; i < c.k_h; ++i) {
            const std::int64_t h = oh * c.s_h - c.p_h + i * c.d_h;
            if (h < 0 || h >= c.in_h) continue;
            for (std::int64_t j = 0; j < c.k_w; ++j) {
              const std::int64_t col = ow * c.s_w - c.p_w + j * c.d_w;
              if (col < 0 || col >= c.in_w) continue;
              const float v = x[static_cast<std::size_t>((plane * c.in_h + h) * c.in_w + col)];
              if (kept < 0) kept = h * c.in_w + col;
              if (v > kept_value || std::isnan(v)) {
                kept_value = v;
                kept = h * c.in_w + col;
              }
            }
          }
          EXPECT_EQ(at[f], kept) << "output " << f;
          EXPECT_TRUE(same_bits(y[f], x[static_cast<std::size_t>(plane * c.in_h * c.in_w + kept)])) << "output " << f;
        }
      }
    }
    // The backward scatter, with indices anywhere in the plane (repeats included).
    const std::int64_t plane_size = c.in_h * c.in_w;
    std::vector<std::int32_t> indices(outputs);
    for (std::size_t i = 0; i < outputs; ++i) indices[i] = static_cast<std::int32_t>((i * 7) % static_cast<std::size_t>(plane_size));
    const std::vector<float> grad = coarse(outputs, 17);
    std::vector<float> dx(x.size(), -1.0f), want(x.size(), 0.0f);
    emu_seq::launch(kBlocks, kBlockThreads, [&] {
      max_pool2d_backward_kernel<float, std::int32_t>(grad.data(), indices.data(), dx.data(), c.planes, plane_size,
                                                      out_h * out_w);
    });
    for (std::size_t o = 0; o < outputs; ++o) {
      want[o / static_cast<std::size_t>(out_h * out_w) * static_cast<std::size_t>(plane_size) + static_cast<std::size_t>(indices[o])] += grad[o];
    }
    for (std::size_t i = 0; i < dx.size(); ++i) EXPECT_TRUE(same_bits(dx[i], want[i])) << "cell " << i;
  }
}

}  // namespace
