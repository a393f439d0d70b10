#pragma once
// Inside the ATen plugin only (Note [The LibTorch plugin's ABI]): the handle type and the
// conversions between the ABI's codes and ATen's.
#include "../aten_abi.h"

#include <ATen/ATen.h>

#include <cstdint>

struct cg_aten_tensor {
  at::Tensor value;  // always contiguous, on the CPU
};

namespace crossgrad::aten_plugin {

at::ScalarType scalar_type(int32_t dtype);
int32_t dtype_code(at::ScalarType type);
// Runs one call; throws on failure (the table's wrapper turns that into CG_ATEN_FAILED).
at::Tensor run(const cg_aten_call& call);

}  // namespace crossgrad::aten_plugin
