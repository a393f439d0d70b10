#pragma once
// The engine side of the ATen plugin (Note [The LibTorch plugin's ABI]): loading it, the tensor
// handle, and one call helper. Internal to this folder.
#include <crossgrad/backends/libtorch.hpp>
#include <crossgrad/core/panic.hpp>
#include <crossgrad/core/shape_rules.hpp>

#include "aten_abi.h"

#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <vector>

namespace crossgrad::backends {

class LibTorchHandle {
 public:
  LibTorchHandle(const cg_aten_api* api, cg_aten_tensor* tensor) : api_(api), tensor_(tensor) {}
  LibTorchHandle(const LibTorchHandle&) = delete;
  LibTorchHandle& operator=(const LibTorchHandle&) = delete;
  ~LibTorchHandle() { api_->release(tensor_); }
  cg_aten_tensor* get() const { return tensor_; }

 private:
  const cg_aten_api* api_;
  cg_aten_tensor* tensor_;
};

namespace libtorch {

// The loaded plugin's table. The first call loads it (and sets ATen's thread count to Flex's);
// a plugin that is missing or does not load panics device-unavailable naming the path and why.
const cg_aten_api& api();

int32_t dtype_code(DType dtype);

// One plugin call whose result has `shape` and `dtype` (the shared rules computed them; the
// plugin's result must agree, or the engine has a bug: the unreachable panic).
struct Call {
  int32_t op;
  std::vector<const LibTorchTensor*> inputs;
  std::vector<double> scalars;
  std::vector<int64_t> ints;
  int32_t dtype = -1;
};
LibTorchTensor run(const Call& call, Shape shape, DType dtype);
inline int32_t op_code(OpId op) { return static_cast<int32_t>(op); }

// A tensor holding a copy of `bytes` (row-major, `dtype`, `shape`).
LibTorchTensor from_bytes(const void* bytes, std::size_t nbytes, Shape shape, DType dtype, std::string_view what);

// The host copy of a tensor (index values, quantization).
TensorData to_host(const LibTorchTensor& tensor);

// An ATen failure after the contract checks passed: an engine bug. The plugin's text goes to
// stderr, then the catalog's unreachable panic.
[[noreturn]] void plugin_failed(std::string_view what, const char* message);

}  // namespace libtorch
}  // namespace crossgrad::backends
