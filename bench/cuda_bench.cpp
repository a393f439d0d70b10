// CUDA benchmarks, timed on the device with CUDA events on the Cuda backend's own stream (manual
// time): the tiled SGEMM against cuBLAS FP32 (no TF32), and element-wise kernels against a
// device-to-device cudaMemcpy of the same bytes. Registered at start-up when a device is present;
// without one (or in a build without CUDA) this file registers nothing.
//
//   matmul/Cuda/<n>            Cuda::float_matmul, [n, n] x [n, n], F32          GFLOP/s
//   matmul/cuBLAS/<n>          cublasSgemm, same shapes, CUBLAS_DEFAULT_MATH      GFLOP/s
//   add/Cuda/<n>, mul_scalar/Cuda/<n>, exp/Cuda/<n>   element-wise over n floats   GB/s moved
//   copy/cudaMemcpyD2D/<n>     cudaMemcpyAsync device to device of n floats     GB/s moved
//
// Targets (issue 6): matmul/Cuda >= 0.5x matmul/cuBLAS at 4096; element-wise GB/s >= 0.7x copy.
//
// Needs the CUDA runtime and cuBLAS headers and libraries on crossgrad_bench: with
//   if(CROSSGRAD_WITH_CUDA) target_link_libraries(crossgrad_bench PRIVATE CUDA::cudart_static CUDA::cublas) endif()
// in bench/CMakeLists.txt. Until then __has_include keeps this file empty.
#include <crossgrad/config.hpp>

#if CROSSGRAD_WITH_CUDA && __has_include(<cublas_v2.h>) && __has_include(<cuda_runtime_api.h>)

#include "bench_common.hpp"

#include <crossgrad/backends/cuda.hpp>
#include <crossgrad/backends/cuda_hooks.hpp>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace crossgrad::bench {
namespace {

using backends::Cuda;
namespace hooks = backends::cuda_detail;

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "cuda_bench: %s: %s\n", what, cudaGetErrorString(e));
    std::abort();
  }
}
void cublas_ok(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cuda_bench: %s: cuBLAS status %d\n", what, static_cast<int>(s));
    std::abort();
  }
}

// Times `enqueue` (which enqueues work on `stream`) with events around it; one iteration each.
template <class Enqueue>
void timed_loop(benchmark::State& state, cudaStream_t stream, Enqueue enqueue) {
  cudaEvent_t start = nullptr, stop = nullptr;
  cuda_ok(cudaEventCreate(&start), "cudaEventCreate");
  cuda_ok(cudaEventCreate(&stop), "cudaEventCreate");
  enqueue();  // warm-up: first-launch costs, allocator cache
  cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  for (auto _ : state) {
    cuda_ok(cudaEventRecord(start, stream), "cudaEventRecord");
    enqueue();
    cuda_ok(cudaEventRecord(stop, stream), "cudaEventRecord");
    cuda_ok(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    cuda_ok(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    state.SetIterationTime(static_cast<double>(ms) * 1e-3);
  }
  cuda_ok(cudaEventDestroy(start), "cudaEventDestroy");
  cuda_ok(cudaEventDestroy(stop), "cudaEventDestroy");
}

Cuda::Tensor random_cuda(Shape shape, unsigned seed) {
  const std::size_t n = shape.num_elements();
  return Cuda::from_data(TensorData::from_f32(random_values(n, seed), std::move(shape)), Device::cuda(0));
}

void register_cuda_benchmarks() {
  for (std::size_t n : {std::size_t{1024}, std::size_t{2048}, std::size_t{4096}}) {
    const double flops = 2.0 * double(n) * double(n) * double(n);
    benchmark::RegisterBenchmark(("matmul/Cuda/" + std::to_string(n)).c_str(), [n, flops](benchmark::State& state) {
      const auto a = random_cuda(Shape{n, n}, 1);
      const auto b = random_cuda(Shape{n, n}, 2);
      const cudaStream_t stream = hooks::activate(0);
      // The result is dropped right away: its block goes back to the cache and the next
      // iteration's result reuses it, so the loop times the kernel, not cudaMalloc.
      timed_loop(state, stream, [&] { benchmark::DoNotOptimize(Cuda::float_matmul(a, b)); });
      set_flops(state, flops);
    })->UseManualTime()->Unit(benchmark::kMillisecond);

    benchmark::RegisterBenchmark(("matmul/cuBLAS/" + std::to_string(n)).c_str(), [n, flops](benchmark::State& state) {
      const cudaStream_t stream = hooks::activate(0);
      float *a = nullptr, *b = nullptr, *c = nullptr;
      const std::size_t bytes = n * n * sizeof(float);
      cuda_ok(cudaMalloc(reinterpret_cast<void**>(&a), bytes), "cudaMalloc");
      cuda_ok(cudaMalloc(reinterpret_cast<void**>(&b), bytes), "cudaMalloc");
      cuda_ok(cudaMalloc(reinterpret_cast<void**>(&c), bytes), "cudaMalloc");
      const std::vector<float> ha = random_values(n * n, 1), hb = random_values(n * n, 2);
      cuda_ok(cudaMemcpy(a, ha.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
      cuda_ok(cudaMemcpy(b, hb.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
      cublasHandle_t handle = nullptr;
      cublas_ok(cublasCreate(&handle), "cublasCreate");
      cublas_ok(cublasSetStream(handle, stream), "cublasSetStream");
      // Plain FP32: no TF32 tensor-core rounding (gpu-check also sets NVIDIA_TF32_OVERRIDE=0).
      cublas_ok(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
      const float one = 1.0f, zero = 0.0f;
      const int dim = static_cast<int>(n);
      // Row-major C = A B is column-major C^T = B^T A^T.
      timed_loop(state, stream, [&] {
        cublas_ok(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, dim, dim, dim, &one, b, dim, a, dim, &zero, c, dim),
                  "cublasSgemm");
      });
      set_flops(state, flops);
      cublas_ok(cublasDestroy(handle), "cublasDestroy");
      cuda_ok(cudaFree(a), "cudaFree");
      cuda_ok(cudaFree(b), "cudaFree");
      cuda_ok(cudaFree(c), "cudaFree");
    })->UseManualTime()->Unit(benchmark::kMillisecond);
  }

  for (std::size_t n : {std::size_t{16} << 20, std::size_t{64} << 20}) {
    const double bytes = double(n) * sizeof(float);
    benchmark::RegisterBenchmark(("add/Cuda/" + size_label(n)).c_str(), [n, bytes](benchmark::State& state) {
      const auto a = random_cuda(Shape{n}, 1);
      const auto b = random_cuda(Shape{n}, 2);
      timed_loop(state, hooks::activate(0), [&] { benchmark::DoNotOptimize(Cuda::float_add(a, b)); });
      set_bytes(state, 3 * bytes);  // two reads, one write
    })->UseManualTime()->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("mul_scalar/Cuda/" + size_label(n)).c_str(), [n, bytes](benchmark::State& state) {
      const auto a = random_cuda(Shape{n}, 1);
      timed_loop(state, hooks::activate(0), [&] { benchmark::DoNotOptimize(Cuda::float_mul_scalar(a, 1.5)); });
      set_bytes(state, 2 * bytes);  // one read, one write: the same traffic as the copy
    })->UseManualTime()->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("exp/Cuda/" + size_label(n)).c_str(), [n, bytes](benchmark::State& state) {
      const auto a = random_cuda(Shape{n}, 1);
      timed_loop(state, hooks::activate(0), [&] { benchmark::DoNotOptimize(Cuda::float_exp(a)); });
      set_bytes(state, 2 * bytes);
    })->UseManualTime()->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("copy/cudaMemcpyD2D/" + size_label(n)).c_str(), [n, bytes](benchmark::State& state) {
      const cudaStream_t stream = hooks::activate(0);
      void *src = nullptr, *dst = nullptr;
      cuda_ok(cudaMalloc(&src, n * sizeof(float)), "cudaMalloc");
      cuda_ok(cudaMalloc(&dst, n * sizeof(float)), "cudaMalloc");
      cuda_ok(cudaMemset(src, 0, n * sizeof(float)), "cudaMemset");
      timed_loop(state, stream, [&] {
        cuda_ok(cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
      });
      set_bytes(state, 2 * bytes);  // one read, one write
      cuda_ok(cudaFree(src), "cudaFree");
      cuda_ok(cudaFree(dst), "cudaFree");
    })->UseManualTime()->Unit(benchmark::kMicrosecond);
  }
}

// main.cpp registers the other families explicitly; this file registers itself at start-up so
// that it needs no edit there. Nothing is registered without a device.
[[maybe_unused]] const bool registered = [] {
  if (Cuda::is_available()) register_cuda_benchmarks();
  return true;
}();

}  // namespace
}  // namespace crossgrad::bench

#endif
