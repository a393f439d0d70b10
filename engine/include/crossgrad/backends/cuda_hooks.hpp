#pragma once
// The few Cuda-backend internals that host-only C++ (the CUDA benchmarks, tests) may call. Plain
// C++: only the CUDA runtime API header, no device code. Not engine API: public only so that the
// benchmarks (bench/cuda_bench.cpp) time kernels with CUDA events on the backend's stream without
// including engine/src. Only in CUDA builds (CROSSGRAD_WITH_CUDA), as the definitions are.
#include <cuda_runtime_api.h>

#include <cstddef>

namespace crossgrad::backends::cuda_detail {

// Makes `device` current on this thread and returns the stream every op of that device uses
// (see Note [Cuda stream ordering] in engine/src/backends/cuda/cuda_common.cuh). Panics
// cuda-error.
cudaStream_t activate(int device);

// Waits for all work enqueued on the device's stream. Panics cuda-error.
void synchronize(int device);

// Bytes held by the caching allocator for `device`: blocks in use and blocks cached for reuse.
struct CacheStats {
  std::size_t in_use = 0;
  std::size_t cached = 0;
};
CacheStats cache_stats(int device);

// Frees every cached (unused) block of `device` back to the driver.
void release_cached(int device);

// The result a checked CUDA call reports: `result`, unless the fault-injection switch is armed and
// this is the call it names (Note [Cuda fault injection] in crossgrad/backends/cuda_testing.hpp).
// Every checked call and kernel launch passes its result through here.
cudaError_t injected(cudaError_t result);

}  // namespace crossgrad::backends::cuda_detail
