#pragma once
// Internal to the Cuda backend (engine/src/backends/cuda): device management, the caching
// allocator, error checking, launch helpers and index math shared by the op families. Nothing here
// is engine API; only the .cu files of this folder include it.
//
// Note [Cuda stream ordering]
// Every device has one stream (created on first use) and every kernel, memset and copy of that
// device goes on it. Blocks freed to the caching allocator are therefore safe to hand out again at
// once: any later use of the block is enqueued after every earlier use on the same stream. The only
// work that touches two devices is float_to_device, which synchronises before returning, so no
// block is ever read by another device's stream after it has been freed. into_data synchronises the
// stream before it hands host bytes back.
#include <crossgrad/backends/cuda.hpp>
#include <crossgrad/core/host_buffer.hpp>
#include <crossgrad/core/panic.hpp>
#include <crossgrad/core/shape_rules.hpp>

#include <cuda_runtime.h>

#include "cuda_hooks.hpp"
#include "kernel_support.cuh"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace crossgrad::backends {

// Device memory from the caching allocator. Immutable once written by the op that created it
// (tensors share buffers: reshape, same-dtype cast and same-device to_device return the input's
// buffer). Destruction returns the block to the cache without any CUDA call.
class CudaBuffer {
 public:
  CudaBuffer(void* ptr, std::size_t bytes, std::size_t capacity, int device)
      : ptr_(ptr), bytes_(bytes), capacity_(capacity), device_(device) {}
  ~CudaBuffer();
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;

  void* data() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }      // what the tensor needs
  std::size_t capacity() const { return capacity_; }  // what the block holds (rounded up)
  int device() const { return device_; }

 private:
  void* ptr_;
  std::size_t bytes_;
  std::size_t capacity_;
  int device_;
};

namespace cuda_detail {

// ---- errors ---------------------------------------------------------------------------------

// panic(cuda-error) with cudaGetErrorString's text and the error's name (the conversion is
// cuda_testing::raise_cuda_error). `call` names the runtime call or kernel.
[[noreturn]] void fail(cudaError_t error, const char* call);

// Every checked call goes through injected() (cuda_hooks.hpp), the fault-injection switch.
inline void check(cudaError_t error, const char* call) {
  error = injected(error);
  if (error != cudaSuccess) fail(error, call);
}

// After a kernel launch: a bad configuration or a sticky error from earlier work.
void check_launch(const char* kernel);

// ---- devices --------------------------------------------------------------------------------

// Panics device-unavailable unless `device` is a Cuda device with an index below the count.
void require_device(const Device& device);

// activate(device) (cuda_hooks.hpp) makes a device current and returns its stream.

// Multiprocessor count of a device (cached).
int sm_count(int device);

// ---- memory ---------------------------------------------------------------------------------

// `bytes` of device memory on `device` from the cache (bytes may be 0: no allocation).
std::shared_ptr<CudaBuffer> allocate(int device, std::size_t bytes);

// Uninitialised result tensor (panics tensor-too-large, like the CPU backends).
CudaTensor make_tensor(Shape shape, DType dtype, const Device& device);

template <class T>
T* data_of(const CudaTensor& tensor) {
  return tensor.buffer ? static_cast<T*>(tensor.buffer->data()) : nullptr;
}

// `tensor` itself when it is on `device`, else a copy moved there (float_to_device semantics).
CudaTensor on_device(const CudaTensor& tensor, const Device& device);

// ---- dtype dispatch -------------------------------------------------------------------------

// Calls fn(T{}) with T = float for F32, double otherwise (callers check the dtype first).
template <class Fn>
decltype(auto) with_float_type(DType dtype, Fn&& fn) {
  if (dtype == DType::F32) return fn(float{});
  return fn(double{});
}

// Calls fn(T{}) with T the C++ type of the dtype's elements (uint8_t for Bool: bytes 0 / 1), for
// the ops whose kinds share a kernel that reads the values (scans, sorting, the index updates).
// Callers check the dtype against the op's kind first.
template <class Fn>
decltype(auto) with_element_type(DType dtype, Fn&& fn) {
  if (dtype == DType::Bool) return fn(std::uint8_t{});
  if (dtype == DType::F32) return fn(float{});
  if (dtype == DType::F64) return fn(double{});
  if (dtype == DType::I64) return fn(std::int64_t{});
  if (dtype == DType::I32) return fn(std::int32_t{});
  if (dtype == DType::I8) return fn(std::int8_t{});
  if (dtype == DType::U8) return fn(std::uint8_t{});
  panic(PanicId::Unreachable);
}

// Calls fn(U{}) with U the unsigned integer of the dtype's element size (uint8_t, uint32_t or
// uint64_t): the layout ops of every kind move elements as bits (Note [One layout kernel for every
// kind], kind_members.hpp), so three instantiations serve all seven dtypes.
template <class Fn>
decltype(auto) with_element_bits(DType dtype, Fn&& fn) {
  const std::size_t size = dtype_size(dtype);
  if (size == 8) return fn(std::uint64_t{});
  if (size == 4) return fn(std::uint32_t{});
  return fn(std::uint8_t{});
}

// ---- launch helpers -------------------------------------------------------------------------

// Blocks for a grid-stride loop over `work` items: enough to fill the device a few times over,
// never 0 (callers return before launching when there is no work).
inline unsigned grid_for(std::size_t work, int device, int threads = kThreads) {
  const std::size_t wanted = (work + threads - 1) / threads;
  const std::size_t cap = static_cast<std::size_t>(sm_count(device)) * 32;
  const std::size_t blocks = wanted < cap ? wanted : cap;
  return static_cast<unsigned>(blocks == 0 ? 1 : blocks);
}

// ---- strided index math ---------------------------------------------------------------------

template <class Index, int N>
Strided<Index, N> to_strided(const Collapsed& c) {
  Strided<Index, N> s;
  // Unreachable for any tensor under kMaxTensorBytes (see kMaxDims).
  if (!fill_strided(c, s)) fail(cudaErrorInvalidValue, "collapse_dims");
  return s;
}

}  // namespace cuda_detail
}  // namespace crossgrad::backends
