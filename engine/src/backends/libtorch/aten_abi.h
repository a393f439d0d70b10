/* The C ABI between the engine's LibTorch backend and its ATen plugin (libcrossgrad_aten.so).
 *
 * Note [The LibTorch plugin's ABI]
 * Loading libtorch_cpu costs ~0.6 s of CPU per process and an ATen-including translation unit ~10 s
 * to compile (cmake/CrossgradLibTorch.cmake), so the engine never links torch: it dlopens the plugin
 * on the first LibTorch op and talks to it through this table. Only plain data crosses: dtype codes,
 * shapes as int64 arrays, doubles, int64 arguments, op codes and opaque tensor handles that the
 * engine releases with release(). The plugin catches every exception (c10::Error included) and
 * returns CG_ATEN_FAILED with the text in `message`; the engine turns that into a catalog panic.
 * The engine checks every contract rule before calling (the same shared rules as the other
 * backends), so a failure here is an engine bug, never an answer to bad input.
 * Bump CG_ATEN_ABI_VERSION whenever anything below changes; the plugin refuses other versions.
 */
#ifndef CROSSGRAD_ATEN_ABI_H
#define CROSSGRAD_ATEN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CG_ATEN_ABI_VERSION 1u
#define CG_ATEN_ENTRY "crossgrad_aten_plugin"

/* Status codes. */
#define CG_ATEN_OK 0
#define CG_ATEN_FAILED 1

/* Dtype codes (crossgrad's DType of the same name). */
enum cg_aten_dtype {
  CG_ATEN_F64 = 0,
  CG_ATEN_F32 = 1,
  CG_ATEN_I64 = 2,
  CG_ATEN_I32 = 3,
  CG_ATEN_I8 = 4,
  CG_ATEN_U8 = 5,
  CG_ATEN_BOOL = 6,
  CG_ATEN_QINT8 = 7
};

/* Op codes: a registry op is its OpId value (ops/op_list.hpp, only ever appended); the rest are the
 * backend members outside the registry, numbered from 1000. */
#define CG_ATEN_OP_FULL 1000        /* ints: shape; scalars: value; dtype: F32/F64 */
#define CG_ATEN_OP_DEQUANTIZE 1001  /* inputs: QInt8 values; scalars: scale */

typedef struct cg_aten_tensor cg_aten_tensor;

typedef struct cg_aten_call {
  int32_t op;
  cg_aten_tensor* const* inputs; /* receiver first, then the other tensor operands */
  size_t input_count;
  const double* scalars;
  size_t scalar_count;
  const int64_t* ints; /* dims, axes, shapes, ranges as (start, end) pairs */
  size_t int_count;
  int32_t dtype; /* the target dtype of casts and conversions, else -1 */
} cg_aten_call;

typedef struct cg_aten_api {
  uint32_t abi_version;
  /* A tensor of `dtype` and `shape` holding a copy of `nbytes` row-major bytes. */
  int32_t (*from_bytes)(int32_t dtype, const int64_t* shape, size_t rank, const void* bytes, size_t nbytes,
                        cg_aten_tensor** out, char* message, size_t message_size);
  /* Copies the tensor's row-major bytes into `bytes` (exactly `nbytes` of them). */
  int32_t (*to_bytes)(const cg_aten_tensor* tensor, void* bytes, size_t nbytes, char* message, size_t message_size);
  /* Runs one op; on success *out is a new handle. */
  int32_t (*call)(const cg_aten_call* call, cg_aten_tensor** out, char* message, size_t message_size);
  /* The tensor's rank and dims (up to `capacity` of them) and dtype code. */
  int32_t (*describe)(const cg_aten_tensor* tensor, int64_t* dims, size_t capacity, size_t* rank, int32_t* dtype);
  void (*release)(cg_aten_tensor* tensor);
  /* ATen's intra-op thread count. */
  void (*set_num_threads)(int32_t threads);
} cg_aten_api;

/* The one exported symbol: the table for `abi_version`, or NULL when the plugin speaks another. */
typedef const cg_aten_api* (*cg_aten_entry_fn)(uint32_t abi_version);

#ifdef __cplusplus
}
#endif

#endif
