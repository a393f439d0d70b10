// The ATen plugin's table (Note [The LibTorch plugin's ABI]): data in and out, handles, errors.
// Every entry catches everything, so no C++ exception crosses the C ABI.
#include "plugin_internal.hpp"

#include <ATen/Parallel.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace crossgrad::aten_plugin {

at::ScalarType scalar_type(int32_t dtype) {
  switch (dtype) {
    case CG_ATEN_F64: return at::kDouble;
    case CG_ATEN_F32: return at::kFloat;
    case CG_ATEN_I64: return at::kLong;
    case CG_ATEN_I32: return at::kInt;
    case CG_ATEN_I8: return at::kChar;
    case CG_ATEN_U8: return at::kByte;
    case CG_ATEN_BOOL: return at::kBool;
    // QInt8 values are stored as plain int8 (the scale lives engine-side, like every backend's).
    case CG_ATEN_QINT8: return at::kChar;
    default: throw std::invalid_argument("unknown dtype code " + std::to_string(dtype));
  }
}

int32_t dtype_code(at::ScalarType type) {
  switch (type) {
    case at::kDouble: return CG_ATEN_F64;
    case at::kFloat: return CG_ATEN_F32;
    case at::kLong: return CG_ATEN_I64;
    case at::kInt: return CG_ATEN_I32;
    case at::kChar: return CG_ATEN_I8;
    case at::kByte: return CG_ATEN_U8;
    case at::kBool: return CG_ATEN_BOOL;
    default: return -1;
  }
}

namespace {

int32_t fail(const char* what, char* message, std::size_t size) {
  if (message != nullptr && size > 0) std::snprintf(message, size, "%s", what);
  return CG_ATEN_FAILED;
}

// Runs f, mapping any exception to CG_ATEN_FAILED with its text.
template <class F>
int32_t guarded(char* message, std::size_t size, F&& f) {
  try {
    f();
    return CG_ATEN_OK;
  } catch (const c10::Error& e) {
    return fail(e.what_without_backtrace(), message, size);
  } catch (const std::exception& e) {
    return fail(e.what(), message, size);
  } catch (...) {
    return fail("unknown exception", message, size);
  }
}

int32_t from_bytes(int32_t dtype, const int64_t* shape, size_t rank, const void* bytes, size_t nbytes,
                   cg_aten_tensor** out, char* message, size_t message_size) {
  return guarded(message, message_size, [&] {
    const std::vector<int64_t> dims(shape, shape + rank);
    at::Tensor t = at::empty(dims, at::TensorOptions().dtype(scalar_type(dtype)));
    if (static_cast<std::size_t>(t.nbytes()) != nbytes) throw std::invalid_argument("byte count does not match the shape");
    if (nbytes > 0) std::memcpy(t.data_ptr(), bytes, nbytes);
    *out = new cg_aten_tensor{std::move(t)};
  });
}

int32_t to_bytes(const cg_aten_tensor* tensor, void* bytes, size_t nbytes, char* message, size_t message_size) {
  return guarded(message, message_size, [&] {
    const at::Tensor t = tensor->value.contiguous();
    if (static_cast<std::size_t>(t.nbytes()) != nbytes) throw std::invalid_argument("byte count does not match the tensor");
    if (nbytes > 0) std::memcpy(bytes, t.data_ptr(), nbytes);
  });
}

int32_t call(const cg_aten_call* c, cg_aten_tensor** out, char* message, size_t message_size) {
  return guarded(message, message_size, [&] {
    // Results are stored contiguous, so to_bytes and every op see row-major data.
    at::Tensor result = run(*c).contiguous();
    *out = new cg_aten_tensor{std::move(result)};
  });
}

int32_t describe(const cg_aten_tensor* tensor, int64_t* dims, size_t capacity, size_t* rank, int32_t* dtype) {
  const at::Tensor& t = tensor->value;
  *rank = static_cast<std::size_t>(t.dim());
  for (std::size_t d = 0; d < *rank && d < capacity; ++d) dims[d] = t.size(static_cast<int64_t>(d));
  *dtype = dtype_code(t.scalar_type());
  return CG_ATEN_OK;
}

void release(cg_aten_tensor* tensor) { delete tensor; }

void set_num_threads(int32_t threads) {
  try {
    if (threads >= 1) at::set_num_threads(threads);
  } catch (...) {
    // A thread count ATen refuses leaves its own default: only speed depends on it.
  }
}

constexpr cg_aten_api kApi = {CG_ATEN_ABI_VERSION, from_bytes, to_bytes, call, describe, release, set_num_threads};

}  // namespace
}  // namespace crossgrad::aten_plugin

extern "C" __attribute__((visibility("default"))) const cg_aten_api* crossgrad_aten_plugin(uint32_t abi_version) {
  return abi_version == CG_ATEN_ABI_VERSION ? &crossgrad::aten_plugin::kApi : nullptr;
}
