// One plugin call, its result checked against the shape and dtype the shared rules gave, and the
// dtype codes of the ABI.
#include "plugin.hpp"

#include <crossgrad/core/host_buffer.hpp>

#include <cstdio>
#include <memory>
#include <string>

namespace crossgrad::backends::libtorch {

int32_t dtype_code(DType dtype) {
  switch (dtype) {
    case DType::F64: return CG_ATEN_F64;
    case DType::F32: return CG_ATEN_F32;
    case DType::I64: return CG_ATEN_I64;
    case DType::I32: return CG_ATEN_I32;
    case DType::I8: return CG_ATEN_I8;
    case DType::U8: return CG_ATEN_U8;
    case DType::Bool: return CG_ATEN_BOOL;
    case DType::QInt8: return CG_ATEN_QINT8;
    case DType::F16:
    case DType::BF16: break;
  }
  // from_data's storable-dtype rule runs first, so F16/BF16 never get here.
  panic(PanicId::Unreachable);
}

void plugin_failed(std::string_view what, const char* message) {
  std::fprintf(stderr, "crossgrad: the LibTorch plugin failed in %.*s: %s\n", static_cast<int>(what.size()),
               what.data(), message);
  panic(PanicId::Unreachable);
}

namespace {

// QInt8 values live in the plugin as int8 (code I8): both are one signed byte per element.
bool same_dtype(int32_t got, DType want) {
  return got == dtype_code(want) || (want == DType::QInt8 && got == CG_ATEN_I8);
}

}  // namespace

LibTorchTensor run(const Call& call, Shape shape, DType dtype) {
  // tensor-too-large before ATen tries, as HostTensor::empty raises it on the host backends.
  checked_tensor_bytes(shape, dtype);
  const cg_aten_api& table = api();
  std::vector<cg_aten_tensor*> inputs;
  inputs.reserve(call.inputs.size());
  for (const LibTorchTensor* t : call.inputs) inputs.push_back(t->handle->get());
  const cg_aten_call c{call.op,           inputs.data(),     inputs.size(),   call.scalars.data(),
                       call.scalars.size(), call.ints.data(), call.ints.size(), call.dtype};
  cg_aten_tensor* out = nullptr;
  char message[1024] = {};
  if (table.call(&c, &out, message, sizeof message) != CG_ATEN_OK) {
    plugin_failed("op " + std::to_string(call.op), message);
  }
  auto handle = std::make_shared<LibTorchHandle>(&table, out);
  // The plugin's result must be what the rules said; anything else is an engine bug.
  std::vector<int64_t> dims(shape.rank() + 1);
  std::size_t rank = 0;
  int32_t code = -1;
  table.describe(out, dims.data(), dims.size(), &rank, &code);
  bool same = rank == shape.rank() && same_dtype(code, dtype);
  for (std::size_t d = 0; same && d < rank; ++d) same = static_cast<std::size_t>(dims[d]) == shape[d];
  if (!same) plugin_failed("op " + std::to_string(call.op), "result shape or dtype differs from the rules'");
  return LibTorchTensor{std::move(shape), dtype, std::move(handle)};
}

TensorData to_host(const LibTorchTensor& tensor) { return LibTorch::into_data(tensor); }

}  // namespace crossgrad::backends::libtorch
