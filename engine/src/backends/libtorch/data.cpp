// LibTorch: moving data in and out, metadata, full, moves, quantization.
#include "plugin.hpp"

#include <crossgrad/backends/host_common.hpp>
#include <crossgrad/core/host_buffer.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>

namespace crossgrad::backends {

using host::require_host_device;
using host::require_storable_dtype;
using libtorch::Call;

LibTorchTensor LibTorch::from_data(const TensorData& data, const Device& device) {
  require_host_device(device, LibTorch::name);
  require_storable_dtype(data.dtype(), LibTorch::name);
  return libtorch::from_bytes(data.bytes().data(), data.bytes().size(), data.shape(), data.dtype(), "from_data");
}

TensorData LibTorch::into_data(const LibTorchTensor& tensor) {
  std::vector<std::byte> bytes(checked_tensor_bytes(tensor.shape, tensor.dtype));
  if (tensor.handle == nullptr) return TensorData::from_bytes(bytes, tensor.shape, tensor.dtype);  // no element
  const cg_aten_api& table = libtorch::api();
  char message[1024] = {};
  if (table.to_bytes(tensor.handle->get(), bytes.data(), bytes.size(), message, sizeof message) != CG_ATEN_OK) {
    libtorch::plugin_failed("into_data", message);
  }
  return TensorData::from_bytes(bytes, tensor.shape, tensor.dtype);
}

Shape LibTorch::shape(const LibTorchTensor& tensor) { return tensor.shape; }
DType LibTorch::dtype(const LibTorchTensor& tensor) { return tensor.dtype; }
Device LibTorch::device(const LibTorchTensor& tensor) { return tensor.device(); }

// ATen's CPU ops have finished when they return.
void LibTorch::synchronize(const Device&) {}

LibTorchTensor LibTorch::float_full(const Shape& shape, double value, DType dtype, const Device& device) {
  rules::check_float_dtype(dtype, "float_full");
  require_host_device(device, LibTorch::name);
  Call c{CG_ATEN_OP_FULL, {}, {value}, {}, libtorch::dtype_code(dtype)};
  for (std::size_t d : shape.dims()) c.ints.push_back(static_cast<int64_t>(d));
  return libtorch::run(c, shape, dtype);
}

LibTorchTensor LibTorch::float_to_device(const LibTorchTensor& tensor, const Device& device) {
  rules::check_float_dtype(tensor.dtype, "float_to_device");
  require_host_device(device, LibTorch::name);
  // One device, and tensors are never written in place: the same tensor.
  return tensor;
}

LibTorch::Quantized LibTorch::quantize(const LibTorchTensor& tensor) {
  rules::check_float_dtype(tensor.dtype, "quantize");
  // The scheme's shared host definition (backends/quantized.hpp), on the host copy: ATen's
  // quantize_per_tensor rounds half to even and takes its scale as given.
  const TensorData host = libtorch::to_host(tensor);
  const std::size_t n = tensor.shape.num_elements();
  std::vector<std::int8_t> q(n);
  float scale = 1.0f;
  host::with_float_type(tensor.dtype, [&]<class T>(T) {
    const std::vector<T> values = [&] {
      if constexpr (std::is_same_v<T, float>) return host.to_f32();
      else return host.to_f64();
    }();
    const std::span<const T> view(values.data(), n);
    scale = quantization_scale(view);  // panics quantize-non-finite before anything is made
    for (std::size_t i = 0; i < n; ++i) q[i] = quantize_one(static_cast<double>(values[i]), scale);
  });
  // QInt8 is not storable through from_data (a plain primitive), so the values go in as bytes.
  return Quantized{libtorch::from_bytes(q.data(), q.size(), tensor.shape, DType::QInt8, "quantize"), scale};
}

LibTorchTensor LibTorch::dequantize(const Quantized& tensor) {
  if (tensor.values.dtype != DType::QInt8) {
    panic(PanicId::UnsupportedDtype,
          {{"dtype", std::string(dtype_name(tensor.values.dtype))}, {"what", "dequantize"}});
  }
  Call c{CG_ATEN_OP_DEQUANTIZE, {&tensor.values}, {static_cast<double>(tensor.scale)}, {}, -1};
  return libtorch::run(c, tensor.values.shape, DType::F32);
}

}  // namespace crossgrad::backends
