// Cuda backend: host <-> device transfers (from_data / into_data, for float, int and bool data),
// float_full, float_to_device between CUDA devices, and float_cast.
#include "map_kernels.cuh"

#include <cstring>
#include <vector>

namespace crossgrad::backends {

using namespace cuda_detail;  // this backend's internals (cuda_common.cuh, kernels.cuh)
namespace cuda_detail {

CudaTensor on_device(const CudaTensor& tensor, const Device& device) {
  if (tensor.dev == device) return tensor;  // immutable storage: sharing is a valid copy
  require_device(device);
  CudaTensor out = make_tensor(tensor.shape, tensor.dtype, device);
  const std::size_t bytes = out.buffer->bytes();
  if (bytes == 0) return out;
  const int src = tensor.dev.index;
  const int dst = device.index;
  // The copy runs on the destination's stream after everything already enqueued on the source's
  // stream (the source's producer among it), then the host waits for it: afterwards neither block is
  // touched by the other device's stream (Note [Cuda stream ordering]).
  const cudaStream_t src_stream = activate(src);
  cudaEvent_t ready = nullptr;
  check(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  // Like check(), but destroys the event before panicking.
  auto check_or_drop_event = [&](cudaError_t e, const char* call) {
    e = injected(e);
    if (e == cudaSuccess) return;
    (void)cudaEventDestroy(ready);
    fail(e, call);
  };
  check_or_drop_event(cudaEventRecord(ready, src_stream), "cudaEventRecord");
  const cudaStream_t dst_stream = activate(dst);
  check_or_drop_event(cudaStreamWaitEvent(dst_stream, ready, 0), "cudaStreamWaitEvent");
  check_or_drop_event(cudaMemcpyPeerAsync(out.buffer->data(), dst, tensor.buffer->data(), src, bytes, dst_stream),
                      "cudaMemcpyPeerAsync");
  check_or_drop_event(cudaStreamSynchronize(dst_stream), "cudaStreamSynchronize");
  check(cudaEventDestroy(ready), "cudaEventDestroy");
  return out;
}

}  // namespace cuda_detail


CudaTensor Cuda::from_data(const TensorData& data, const Device& device) {
  cuda_detail::require_device(device);
  // The dtype rule every backend's from_data shares (is_backend_storable, core/dtype.cpp).
  if (!is_backend_storable(data.dtype())) {
    panic(PanicId::UnsupportedDtype,
          {{"dtype", std::string(dtype_name(data.dtype()))}, {"what", "Cuda::from_data"}});
  }
  CudaTensor out = make_tensor(data.shape(), data.dtype(), device);
  const std::span<const std::byte> bytes = data.bytes();
  if (!bytes.empty()) {
    // From pageable memory the runtime stages the bytes before returning, so `data` may go away
    // as soon as this returns; the device copy is ordered before every later use on the stream.
    check(cudaMemcpyAsync(out.buffer->data(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice,
                          activate(device.index)),
          "cudaMemcpyAsync");
  }
  return out;
}

TensorData Cuda::into_data(const CudaTensor& tensor) {
  const std::size_t bytes = tensor.buffer ? tensor.buffer->bytes() : 0;
  std::vector<std::byte> host(bytes);
  if (bytes > 0) {
    const cudaStream_t stream = activate(tensor.dev.index);
    check(cudaMemcpyAsync(host.data(), tensor.buffer->data(), bytes, cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }
  return TensorData::from_bytes(std::span<const std::byte>(host.data(), host.size()), tensor.shape,
                                tensor.dtype);
}

CudaTensor Cuda::float_full(const Shape& shape, double value, DType dtype, const Device& device) {
  rules::check_float_dtype(dtype, "float_full");
  cuda_detail::require_device(device);
  CudaTensor out = make_tensor(shape, dtype, device);
  with_float_type(dtype, [&](auto zero) {
    using T = decltype(zero);
    cuda_detail::launch_fill<T>(data_of<T>(out), out.shape.num_elements(), static_cast<T>(value),
                                device.index);
  });
  return out;
}

CudaTensor Cuda::float_to_device(const CudaTensor& tensor, const Device& device) {
  rules::check_float_dtype(tensor.dtype, "float_to_device");
  cuda_detail::require_device(device);
  return cuda_detail::on_device(tensor, device);
}

namespace {

template <class From, class To>
struct CastOp {
  // F64 -> F32 rounds to nearest (overflowing to +-inf); F32 -> F64 is exact.
  __device__ To operator()(From x) const { return static_cast<To>(x); }
};

}  // namespace

CudaTensor Cuda::float_cast(const CudaTensor& tensor, DType dtype) {
  rules::check_float_dtype(tensor.dtype, "float_cast");
  rules::check_float_dtype(dtype, "float_cast");
  if (dtype == tensor.dtype) return tensor;
  CudaTensor out = make_tensor(tensor.shape, dtype, tensor.dev);
  const std::size_t n = out.shape.num_elements();
  if (tensor.dtype == DType::F32) {
    cuda_detail::launch_map(data_of<float>(tensor), data_of<double>(out), n, tensor.dev.index,
                            CastOp<float, double>{}, "cast_kernel");
  } else {
    cuda_detail::launch_map(data_of<double>(tensor), data_of<float>(out), n, tensor.dev.index,
                            CastOp<double, float>{}, "cast_kernel");
  }
  return out;
}

}  // namespace crossgrad::backends
