// LibTorch: dtype conversions (float_cast, bool_into_float, int_into_float, float_into_int).
#include "plugin.hpp"

namespace crossgrad::backends {

using libtorch::Call;
using libtorch::op_code;

LibTorchTensor LibTorch::float_cast(const LibTorchTensor& tensor, DType dtype) {
  rules::check_float_dtype(tensor.dtype, "float_cast");
  rules::check_float_dtype(dtype, "float_cast");
  if (dtype == tensor.dtype) return tensor;
  // F64 -> F32 rounds to nearest (overflowing to +-inf), as a static_cast does.
  return libtorch::run(Call{op_code(OpId::float_cast), {&tensor}, {}, {}, libtorch::dtype_code(dtype)},
                       tensor.shape, dtype);
}

LibTorchTensor LibTorch::bool_into_float(const LibTorchTensor& tensor, DType dtype) {
  if (tensor.dtype != DType::Bool) {
    panic(PanicId::UnsupportedDtype,
          {{"dtype", std::string(dtype_name(tensor.dtype))}, {"what", "bool_into_float"}});
  }
  rules::check_float_dtype(dtype, "bool_into_float");
  return libtorch::run(Call{op_code(OpId::bool_into_float), {&tensor}, {}, {}, libtorch::dtype_code(dtype)},
                       tensor.shape, dtype);
}

LibTorchTensor LibTorch::int_into_float(const LibTorchTensor& tensor, DType dtype) {
  if (!is_int(tensor.dtype)) {
    panic(PanicId::UnsupportedDtype,
          {{"dtype", std::string(dtype_name(tensor.dtype))}, {"what", "int_into_float"}});
  }
  rules::check_float_dtype(dtype, "int_into_float");
  return libtorch::run(Call{op_code(OpId::int_into_float), {&tensor}, {}, {}, libtorch::dtype_code(dtype)},
                       tensor.shape, dtype);
}

LibTorchTensor LibTorch::float_into_int(const LibTorchTensor& tensor, DType dtype) {
  rules::check_into_int(tensor.dtype, dtype);
  return libtorch::run(Call{op_code(OpId::float_into_int), {&tensor}, {}, {}, libtorch::dtype_code(dtype)},
                       tensor.shape, dtype);
}

}  // namespace crossgrad::backends
