#pragma once
// Cuda: real CUDA kernels (engine/src/backends/cuda/*.cu). This header is plain C++ so that every
// layer above can name the backend without CUDA headers. Present only when built with CUDA.
#include <crossgrad/backends/backend_ops.hpp>
#include <crossgrad/backends/quantized.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace crossgrad::backends {

class CudaBuffer;  // device memory from the caching allocator; defined in the .cu sources

struct CudaTensor {
  Shape shape;
  DType dtype = DType::F32;
  Device dev = Device::cuda(0);
  std::shared_ptr<CudaBuffer> buffer;
  Device device() const { return dev; }
};

struct Cuda {
  static constexpr std::string_view name = "Cuda";
  using Tensor = CudaTensor;
  using Quantized = QuantizedTensor<CudaTensor>;
  static Device default_device() { return Device::cuda(0); }
  // False without a usable device; unavailable_reason() then says why, in one line.
  static bool is_available();
  static std::string unavailable_reason();
  static int device_count();
  CROSSGRAD_DECLARE_BACKEND_OPS(Tensor, Quantized)
};

}  // namespace crossgrad::backends
