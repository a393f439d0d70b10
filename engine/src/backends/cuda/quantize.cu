// Cuda backend: per-tensor symmetric int8 quantization (backends/quantized.hpp).
//
// The scale and the non-finite check go through the shared host reference, so they are the same
// as every other backend's bit for bit: the device finds max|x| (exact: a max never rounds) and the
// first non-finite element, and the host passes just that one value to quantization_scale, which
// applies the one rule of backends/quantization.cpp: it panics quantize-non-finite (that value,
// formatted as everywhere else) or quantize-scale-overflow (max|x| > 127 * FLT_MAX), else returns
// max|x| / 127 in F32 (1 when 0, rounded up when subnormal). The per-element step is
// quantize_one's formula in double, on the device.
#include "map_kernels.cuh"

#include <cstdint>
#include <limits>
#include <span>

namespace crossgrad::backends {

using namespace cuda_detail;  // this backend's internals (cuda_common.cuh, kernels.cuh)
namespace {

constexpr unsigned kMaxPartials = 1024;
template <class T>
struct QuantizeOp {
  float scale;
  // quantize_one: round half away from zero of value / scale in double, clamped to [-127, 127].
  __device__ std::int8_t operator()(T x) const {
    const double q = round(static_cast<double>(x) / static_cast<double>(scale));
    return static_cast<std::int8_t>(fmax(-127.0, fmin(127.0, q)));
  }
};

struct DequantizeOp {
  float scale;
  __device__ float operator()(std::int8_t q) const { return static_cast<float>(q) * scale; }
};

// max|x| of the finite elements, after panicking quantize-non-finite on the first other one.
template <class T>
float device_scale(const CudaTensor& tensor) {
  const std::size_t n = tensor.shape.num_elements();
  if (n == 0) return quantization_scale(std::span<const T>());
  const int device = tensor.dev.index;
  const std::size_t wanted = (n + kThreads * 16 - 1) / (kThreads * 16);
  const unsigned blocks = static_cast<unsigned>(wanted < kMaxPartials ? wanted : kMaxPartials);
  // One scratch block: [first indices: blocks + 1][max values: blocks + 1] (8-byte aligned).
  const std::size_t slots = static_cast<std::size_t>(blocks) + 1;
  const auto scratch = cuda_detail::allocate(device, slots * (sizeof(std::uint64_t) + sizeof(T)));
  auto* firsts = static_cast<std::uint64_t*>(scratch->data());
  auto* maxes = reinterpret_cast<T*>(firsts + slots);
  const cudaStream_t stream = activate(device);
  stats_partial_kernel<T><<<blocks, kThreads, 0, stream>>>(data_of<T>(tensor), n, maxes, firsts);
  check_launch("quantize_stats_kernel");
  stats_final_kernel<T><<<1, kThreads, 0, stream>>>(maxes, firsts, blocks, maxes + blocks, firsts + blocks);
  check_launch("quantize_stats_kernel");
  T max_abs = T(0);
  std::uint64_t first_bad = kNone;
  check(cudaMemcpyAsync(&max_abs, maxes + blocks, sizeof(T), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
  check(cudaMemcpyAsync(&first_bad, firsts + blocks, sizeof(first_bad), cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  if (first_bad != kNone) {
    T bad = T(0);
    check(cudaMemcpyAsync(&bad, data_of<T>(tensor) + first_bad, sizeof(T), cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    (void)quantization_scale(std::span<const T>(&bad, 1));  // panics quantize-non-finite
  }
  return quantization_scale(std::span<const T>(&max_abs, 1));  // may panic quantize-scale-overflow
}

}  // namespace

Cuda::Quantized Cuda::quantize(const CudaTensor& tensor) {
  rules::check_float_dtype(tensor.dtype, "quantize");
  // The scale first: a non-finite value panics before anything is allocated for the result.
  const float scale = with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    return device_scale<T>(tensor);
  });
  Quantized out{make_tensor(tensor.shape, DType::QInt8, tensor.dev), scale};
  with_float_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    cuda_detail::launch_map(data_of<T>(tensor), data_of<std::int8_t>(out.values), tensor.shape.num_elements(),
                            tensor.dev.index, QuantizeOp<T>{scale}, "quantize_kernel");
  });
  return out;
}

CudaTensor Cuda::dequantize(const Quantized& tensor) {
  if (tensor.values.dtype != DType::QInt8) {
    panic(PanicId::UnsupportedDtype,
          {{"dtype", std::string(dtype_name(tensor.values.dtype))}, {"what", "dequantize"}});
  }
  CudaTensor out = make_tensor(tensor.values.shape, DType::F32, tensor.values.dev);
  cuda_detail::launch_map(data_of<std::int8_t>(tensor.values), data_of<float>(out), out.shape.num_elements(),
                          tensor.values.dev.index, DequantizeOp{tensor.scale}, "dequantize_kernel");
  return out;
}

}  // namespace crossgrad::backends
