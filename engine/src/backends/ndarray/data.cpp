// NdArray: moving data in and out, and tensor metadata.
#include "common.hpp"

namespace crossgrad::backends {

using ndarray_detail::require_host_device;
using ndarray_detail::require_storable_dtype;
using ndarray_detail::make_tensor;
using ndarray_detail::with_float_type;

NdArrayTensor NdArray::from_data(const TensorData& data, const Device& device) {
  require_host_device(device, NdArray::name);
  // TensorData is validated on construction; what remains is what this backend stores.
  require_storable_dtype(data.dtype(), NdArray::name);
  return NdArrayTensor{HostTensor::copy_of(data)};
}

TensorData NdArray::into_data(const NdArrayTensor& tensor) { return tensor.to_data(); }

Shape NdArray::shape(const NdArrayTensor& tensor) { return tensor.shape; }

DType NdArray::dtype(const NdArrayTensor& tensor) { return tensor.dtype; }

Device NdArray::device(const NdArrayTensor& tensor) { return tensor.device(); }

NdArrayTensor NdArray::float_full(const Shape& shape, double value, DType dtype,
                                  const Device& device) {
  rules::check_float_dtype(dtype, "float_full");
  require_host_device(device, NdArray::name);
  NdArrayTensor out = make_tensor(shape, dtype);
  with_float_type(dtype, [&]<class T>(T) {
    const T v = static_cast<T>(value);
    T* o = out.mutable_data<T>();
    const std::size_t n = out.num_elements();
    for (std::size_t i = 0; i < n; ++i) o[i] = v;
  });
  return out;
}

// Every NdArray op has finished when it returns.
void NdArray::synchronize(const Device&) {}

}  // namespace crossgrad::backends
