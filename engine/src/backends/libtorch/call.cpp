// One plugin call, its result checked against the shape and dtype the shared rules gave, and the
// dtype codes of the ABI.
#include "plugin.hpp"

#include <crossgrad/core/host_buffer.hpp>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

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

// Note [Empty LibTorch tensors stay in the engine]
// A tensor without elements has no handle (LibTorchTensor::handle is null): crossgrad allows a shape
// like [2^40, 2^40, 0], which ATen cannot even describe (its size arithmetic overflows), and such a
// tensor has no data to keep. An op whose result is empty never reaches the plugin; the few whose
// result is not empty although an operand is (sums, means and products, any and all, matmul with
// k = 0, cat, select_assign / select_add / scatter_add / scatter with no index) are computed without that
// operand.
namespace {

bool is_empty(const LibTorchTensor* t) { return t->handle == nullptr; }

// The value NdArray's loop gives a sum (0) or a mean (0 / 0, computed at run time so that the NaN
// has the bits the hardware gives, as NdArray's does) of no elements.
double empty_reduction(OpId op) {
  volatile double zero = 0.0;
  const bool mean = op == OpId::float_mean || op == OpId::float_mean_dim;
  return mean ? zero / zero : zero;
}

LibTorchTensor filled(const Shape& shape, double value, DType dtype) {
  return LibTorch::float_full(shape, value, dtype, Device::cpu());
}

// A non-empty result with an empty operand (Note [Empty LibTorch tensors stay in the engine]).
LibTorchTensor run_with_empty_operand(const Call& call, const Shape& shape, DType dtype) {
  const OpId op = static_cast<OpId>(call.op);
  if (op == OpId::float_sum || op == OpId::float_mean || op == OpId::float_sum_dim || op == OpId::float_mean_dim) {
    // Every output element reduces nothing.
    return filled(shape, empty_reduction(op), dtype);
  }
  if (op == OpId::float_prod || op == OpId::float_prod_dim) return filled(shape, 1.0, dtype);  // empty products
  // No position (or no gradient) sends anything to the table's rows.
  if (op == OpId::embedding_backward) return filled(shape, 0.0, dtype);
  if (op == OpId::float_any || op == OpId::float_any_dim || op == OpId::float_all || op == OpId::float_all_dim) {
    // any of nothing is false, all of nothing is true, in Bool bytes.
    const bool all = op == OpId::float_all || op == OpId::float_all_dim;
    const std::vector<std::uint8_t> bytes(shape.num_elements(), all ? 1 : 0);
    return from_bytes(bytes.data(), bytes.size(), shape, dtype, op_info(op).name);
  }
  if (op == OpId::int_sum || op == OpId::int_sum_dim || op == OpId::int_prod || op == OpId::int_prod_dim ||
      op == OpId::int_any || op == OpId::int_all || op == OpId::bool_any || op == OpId::bool_all || op == OpId::int_any_dim ||
      op == OpId::int_all_dim || op == OpId::bool_any_dim || op == OpId::bool_all_dim || op == OpId::int_matmul) {
    // Empty int sums are 0 (int_matmul's k = 0 dot products too), products 1, any false, all
    // true: little-endian elements of the result's dtype (int or Bool bytes).
    const bool one = op == OpId::int_prod || op == OpId::int_prod_dim || op == OpId::int_all || op == OpId::bool_all ||
                     op == OpId::int_all_dim || op == OpId::bool_all_dim;
    const std::size_t size = dtype_size(dtype);
    std::vector<std::uint8_t> bytes(shape.num_elements() * size, 0);
    if (one) {
      for (std::size_t i = 0; i < bytes.size(); i += size) bytes[i] = 1;
    }
    return from_bytes(bytes.data(), bytes.size(), shape, dtype, op_info(op).name);
  }
  if (op == OpId::float_matmul) {
    // k = 0: every output element is an empty dot product, exactly 0.
    return filled(shape, 0.0, dtype);
  }
  if (op == OpId::float_cat || op == OpId::int_cat || op == OpId::bool_cat) {
    // Empty pieces add nothing; the result is not empty, so one piece is not.
    Call rest = call;
    rest.inputs.clear();
    for (const LibTorchTensor* t : call.inputs) {
      if (!is_empty(t)) rest.inputs.push_back(t);
    }
    return run(rest, shape, dtype);
  }
  if ((op == OpId::float_select_assign || op == OpId::float_select_add || op == OpId::float_scatter_add || op == OpId::float_scatter ||
       op == OpId::float_slice_assign || op == OpId::int_slice_assign || op == OpId::bool_slice_assign ||
       op == OpId::int_select_assign || op == OpId::int_select_add || op == OpId::int_scatter_add || op == OpId::int_scatter ||
       op == OpId::bool_select_or || op == OpId::bool_scatter_or) &&
      !is_empty(call.inputs[0])) {
    // No index (no block): nothing is added or replaced, the result is the receiver (tensors are
    // never written in place).
    return *call.inputs[0];
  }
  plugin_failed("op " + std::to_string(call.op), "an empty operand of a non-empty result");
}

}  // namespace

LibTorchTensor run(const Call& call, Shape shape, DType dtype) {
  // tensor-too-large before ATen tries, as HostTensor::empty raises it on the host backends.
  checked_tensor_bytes(shape, dtype);
  if (shape.num_elements() == 0) return LibTorchTensor{std::move(shape), dtype, nullptr};
  for (const LibTorchTensor* t : call.inputs) {
    if (is_empty(t)) return run_with_empty_operand(call, shape, dtype);
  }
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

LibTorchTensor from_bytes(const void* bytes, std::size_t nbytes, Shape shape, DType dtype, std::string_view what) {
  checked_tensor_bytes(shape, dtype);
  if (shape.num_elements() == 0) return LibTorchTensor{std::move(shape), dtype, nullptr};
  const cg_aten_api& table = api();
  std::vector<int64_t> dims;
  for (std::size_t d : shape.dims()) dims.push_back(static_cast<int64_t>(d));
  cg_aten_tensor* out = nullptr;
  char message[1024] = {};
  if (table.from_bytes(dtype_code(dtype), dims.data(), dims.size(), bytes, nbytes, &out, message, sizeof message) !=
      CG_ATEN_OK) {
    plugin_failed(what, message);
  }
  return LibTorchTensor{std::move(shape), dtype, std::make_shared<LibTorchHandle>(&table, out)};
}

TensorData to_host(const LibTorchTensor& tensor) { return LibTorch::into_data(tensor); }

}  // namespace crossgrad::backends::libtorch
