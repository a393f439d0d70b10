// The Cuda backend's embedding kernels (<crossgrad/backends/cuda_kernels/embedding_kernels.cuh>), run
// on the CPU as in cuda_pool_kernels_emulation_test.cpp (a sequential emulation: the kernels use no
// block-level synchronisation). Expected values come from loops written here from the definition
// (docs/OPS.md "Module ops": a row per position; the gradient of a row is the sum of its
// positions' gradients in position order), compared bit for bit. Small grids (2 blocks of 32
// threads) make every grid-stride loop take several turns.
//
// Needs no CUDA toolkit: built in every configuration.
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "cuda_sequential_emulation.hpp"
#include <crossgrad/backends/cuda_kernels/embedding_kernels.cuh>

#undef threadIdx
#undef blockIdx
#undef blockDim
#undef gridDim

#include <gtest/gtest.h>

namespace {

using namespace crossgrad::backends::cuda_detail;
constexpr unsigned kBlocks = 2;
constexpr unsigned kBlockThreads = 32;

std::vector<float> values(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// Indices drawn with repeats (more positions than rows), so that rows gather several gradients.
std::vector<std::int32_t> rows(std::size_t positions, std::int64_t n_embeddings, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::int64_t> dist(0, n_embeddings - 1);
  std::vector<std::int32_t> v(positions);
  for (auto& x : v) x = static_cast<std::int32_t>(dist(rng));
  return v;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

struct Case {
  std::int64_t positions, n_embeddings, d_model;
};
const Case kCases[] = {{1, 1, 1}, {6, 3, 5}, {40, 4, 70}, {97, 11, 3}, {12, 50, 64}};

TEST(CudaEmbeddingKernelsEmulation, EachPositionCopiesItsRow) {
  for (const Case& c : kCases) {
    const std::vector<float> w = values(static_cast<std::size_t>(c.n_embeddings * c.d_model), 3);
    const std::vector<std::int32_t> idx = rows(static_cast<std::size_t>(c.positions), c.n_embeddings, 5);
    std::vector<float> y(static_cast<std::size_t>(c.positions * c.d_model), -1.0f);
    emu_seq::launch(kBlocks, kBlockThreads,
                    [&] { embedding_kernel<float, std::int32_t>(w.data(), idx.data(), y.data(), c.positions, c.d_model); });
    for (std::int64_t q = 0; q < c.positions; ++q) {
      for (std::int64_t col = 0; col < c.d_model; ++col) {
        const float want = w[static_cast<std::size_t>(idx[static_cast<std::size_t>(q)] * c.d_model + col)];
        EXPECT_TRUE(same_bits(y[static_cast<std::size_t>(q * c.d_model + col)], want)) << "position " << q;
      }
    }
  }
}

TEST(CudaEmbeddingKernelsEmulation, BackwardSumsEachRowsGradientsInPositionOrder) {
  for (const Case& c : kCases) {
    const std::vector<float> g = values(static_cast<std::size_t>(c.positions * c.d_model), 7);
    const std::vector<std::int32_t> idx = rows(static_cast<std::size_t>(c.positions), c.n_embeddings, 9);
    std::vector<float> dw(static_cast<std::size_t>(c.n_embeddings * c.d_model), -1.0f);
    emu_seq::launch(kBlocks, kBlockThreads, [&] {
      embedding_backward_kernel<float, std::int32_t>(g.data(), idx.data(), dw.data(), c.positions, c.n_embeddings,
                                                     c.d_model);
    });
    for (std::int64_t r = 0; r < c.n_embeddings; ++r) {
      for (std::int64_t col = 0; col < c.d_model; ++col) {
        float want = 0.0f;
        for (std::int64_t q = 0; q < c.positions; ++q) {
          if (idx[static_cast<std::size_t>(q)] == r) want += g[static_cast<std::size_t>(q * c.d_model + col)];
        }
        EXPECT_TRUE(same_bits(dw[static_cast<std::size_t>(r * c.d_model + col)], want)) << "row " << r << " col " << col;
      }
    }
  }
}

}  // namespace
