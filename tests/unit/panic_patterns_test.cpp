// Every catalog entry's template and messagePattern pinned by literal examples written by hand:
// messages the pattern must accept and near misses it must refuse (a wrong word, a missing
// period, an escaped '.' replaced by another character, an extra suffix under the anchored match
// the harness uses). The catalog is taken from the engine's compiled API (generated from
// engine/panics.json at configure time); this file never reads panics.json, so a pattern loosened
// to `.*` or a template edited there fails here. A catalog id without examples fails the suite.
#include <crossgrad/core/panic.hpp>

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <string>
#include <vector>

namespace crossgrad {
namespace {

struct Examples {
  std::string template_text;        // the exact template, placeholders and all
  std::vector<std::string> match;   // full messages the pattern must accept
  std::vector<std::string> refuse;  // near misses it must refuse
};

const std::string kFlexF32 = "Flex(Float(FlexTensor { shape: [2], dtype: F32, device: Cpu }))";
const std::string kNdF32 = "NdArray(Float(NdArrayTensor { shape: [2], dtype: F32, device: Cpu }))";
const std::string kTracked =
    "Flex(Autodiff(AutodiffTensor { primitive: FlexTensor { shape: [2, 3], dtype: F32, device: Cpu }, node: NodeId(7) }))";

std::map<std::string, Examples> examples() {
  std::map<std::string, Examples> e;
  e["cross-backend"] = {
      "The provided tensors are not on the same backend. Got backends {t:?} and {g:?}.",
      {"The provided tensors are not on the same backend. Got backends " + kTracked + " and " + kNdF32 + ".",
       "The provided tensors are not on the same backend. Got backends " + kNdF32 + " and Autodiff(" + kTracked + ")."},
      {"The provided tensors are not on the same backend. Got backends " + kTracked + " and " + kNdF32,
       "The provided tensors are not on the same backend! Got backends " + kTracked + " and " + kNdF32 + ".",
       "The provided tensors are not on the same backend. Got backends " + kTracked + " and " + kNdF32 + "!",
       "The provided tensors are on the same backend. Got backends " + kTracked + " and " + kNdF32 + ".",
       "The provided tensors are not on the same backend. Got backend " + kTracked + " and " + kNdF32 + ".",
       "The provided tensors are not on the same backend. Got backends  and .",
       "The provided tensors are not on the same backend. Got backends " + kTracked + " or " + kNdF32 + "."}};
  e["autodiff-wraps-autodiff"] = {"Autodiff should not wrap an autodiff tensor.",
                                  {"Autodiff should not wrap an autodiff tensor."},
                                  {"Autodiff should not wrap an autodiff tensor", "Autodiff should not wrap an autodiff tensor!",
                                   "Autodiff should not wrap a autodiff tensor.", "autodiff should not wrap an autodiff tensor.",
                                   "Autodiff should not wrap an autodiff tensor. ", "panicked: Autodiff should not wrap an autodiff tensor."}};
  e["requires-autodiff"] = {"Requires autodiff tensor.",
                            {"Requires autodiff tensor."},
                            {"Requires autodiff tensor", "Requires autodiff tensor!", "Requires autodiff tensors.",
                             "Requires an autodiff tensor.", "Requires autodiff tensor.\n"}};
  e["should-be-float"] = {"Should be float, got {got}",
                          {"Should be float, got int", "Should be float, got bool", "Should be float, got quantized",
                           "Should be float, got autodiff"},
                          {"Should be float, got float", "Should be float, got int.", "Should be float got int",
                           "Should be float, got Int", "Should be float, got ", "Should be float, got intbool",
                           "Should be a float, got int"}};
  e["unreachable"] = {"internal error: entered unreachable code",
                      {"internal error: entered unreachable code"},
                      {"internal error: entered unreachable code.", "internal error: entered unreachable code: oops",
                       "Internal error: entered unreachable code", "internal error: reached unreachable code",
                       "internal error entered unreachable code"}};
  e["data-length-mismatch"] = {"Tensor data has {actual} values but shape {shape} needs {expected}.",
                               {"Tensor data has 3 values but shape [2, 2] needs 4.", "Tensor data has 0 values but shape [] needs 1.",
                                "Tensor data has 12 values but shape [0, 5] needs 0."},
                               {"Tensor data has 3 values but shape [2, 2] needs 4", "Tensor data has 3 values but shape [2, 2] needs 4!",
                                "Tensor data has three values but shape [2, 2] needs 4.", "Tensor data has -3 values but shape [2, 2] needs 4.",
                                "Tensor data has 3 values but shape (2, 2) needs 4.", "Tensor data has 3 values but shape [2, x] needs 4.",
                                "Tensor data has 3 elements but shape [2, 2] needs 4.", "Tensor data has 3 values but shape [2, 2] needs ."}};
  e["shape-overflow"] = {"Shape {shape} has more elements than fit in memory.",
                         {"Shape [1099511627776, 1099511627776] has more elements than fit in memory.",
                          "Shape [4294967296, 4294967296, 2] has more elements than fit in memory."},
                         {"Shape [1099511627776, 1099511627776] has more elements than fit in memory",
                          "Shape [1099511627776, 1099511627776] has more elements than fit in memory!",
                          "Shape 1099511627776 has more elements than fit in memory.",
                          "Shape [1099511627776, -1] has more elements than fit in memory.",
                          "Shape [1099511627776, 1099511627776] has more values than fit in memory."}};
  e["tensor-too-large"] = {
      "A tensor of shape {shape} and dtype {dtype} needs {bytes} bytes, over the limit of {limit} bytes.",
      {"A tensor of shape [200000, 200000] and dtype F64 needs 320000000000 bytes, over the limit of 17179869184 bytes.",
       "A tensor of shape [] and dtype QInt8 needs 1 bytes, over the limit of 0 bytes."},
      {"A tensor of shape [200000, 200000] and dtype F64 needs 320000000000 bytes, over the limit of 17179869184 bytes",
       "A tensor of shape [200000, 200000] and dtype F64 needs 320000000000 bytes, over the limit of 17179869184 bytes!",
       "A tensor of shape 200000 and dtype F64 needs 320000000000 bytes, over the limit of 17179869184 bytes.",
       "A tensor of shape [200000, 200000] and dtype F 64 needs 320000000000 bytes, over the limit of 17179869184 bytes.",
       "A tensor of shape [200000, 200000] and dtype F64 needs 320000000000, over the limit of 17179869184 bytes.",
       "A tensor of shape [200000, 200000] and dtype F64 needs 320000000000 bytes over the limit of 17179869184 bytes."}};
  e["unsupported-dtype"] = {"DType {dtype} is not supported by {what}.",
                            {"DType F16 is not supported by TensorData.", "DType QInt8 is not supported by dequantize.",
                             "DType BF16 is not supported by float_cast on Flex."},
                            {"DType F16 is not supported by TensorData", "DType F16 is not supported by TensorData!",
                             "Dtype F16 is not supported by TensorData.", "DType  is not supported by TensorData.",
                             "DType F16 is not supported by .", "DType F 16 is not supported by TensorData.",
                             "DType F16 is supported by TensorData."}};
  e["data-kind-mismatch"] = {"{op} needs {expected} data, got dtype {dtype}.",
                             {"float_from_data needs float data, got dtype I64.", "int_from_data needs int data, got dtype F32.",
                              "bool_from_data needs bool data, got dtype U8."},
                             {"float_from_data needs float data, got dtype I64", "float_from_data needs float data, got dtype I64!",
                              "float_from_data needs complex data, got dtype I64.", "float from data needs float data, got dtype I64.",
                              "float_from_data needs float data, got I64.", "float_from_data needs Float data, got dtype I64."}};
  e["invalid-bool-value"] = {"Bool data must hold 0 or 1, got byte {value} at index {index}.",
                             {"Bool data must hold 0 or 1, got byte 7 at index 1.", "Bool data must hold 0 or 1, got byte 255 at index 0."},
                             {"Bool data must hold 0 or 1, got byte 7 at index 1", "Bool data must hold 0 or 1, got byte 7 at index 1!",
                              "Bool data must hold 0 or 1, got byte -7 at index 1.", "Bool data must hold 0 or 2, got byte 7 at index 1.",
                              "Bool data must hold 0 or 1, got byte seven at index 1.", "Bool data must hold 0 or 1, got byte 7 at index ."}};
  e["dtype-mismatch"] = {"{op} needs operands of one dtype, got {lhs} and {rhs}.",
                         {"float_add needs operands of one dtype, got F32 and F64.", "float_matmul needs operands of one dtype, got F64 and F32."},
                         {"float_add needs operands of one dtype, got F32 and F64", "float_add needs operands of one dtype, got F32 and F64!",
                          "float_add needs operands of one dtype, got F32, F64.", "float_add needs operands of one shape, got F32 and F64.",
                          "float add needs operands of one dtype, got F32 and F64.", "float_add needs operands of one dtype, got F32 and ."}};
  e["broadcast-mismatch"] = {"{op} cannot broadcast shapes {lhs} and {rhs}.",
                             {"float_mul cannot broadcast shapes [2, 3] and [4, 3].", "float_matmul cannot broadcast shapes [2] and [3]."},
                             {"float_mul cannot broadcast shapes [2, 3] and [4, 3]", "float_mul cannot broadcast shapes [2, 3] and [4, 3]!",
                              "float_mul cannot broadcast shapes [2, 3] and 4, 3.", "float_mul cannot broadcast shape [2, 3] and [4, 3].",
                              "float_mul can broadcast shapes [2, 3] and [4, 3].", "float_mul cannot broadcast shapes [2, a] and [4, 3]."}};
  e["matmul-rank"] = {"{op} needs tensors of rank 2 or more, got shapes {lhs} and {rhs}.",
                      {"float_matmul needs tensors of rank 2 or more, got shapes [3] and [3, 2].",
                       "int_matmul needs tensors of rank 2 or more, got shapes [] and []."},
                      {"float_matmul needs tensors of rank 2 or more, got shapes [3] and [3, 2]",
                       "float_matmul needs tensors of rank 2 or more, got shapes [3] and [3, 2]!",
                       "float mul needs tensors of rank 2 or more, got shapes [3] and [3, 2].",
                       "float_matmul needs tensors of rank 3 or more, got shapes [3] and [3, 2].",
                       "float_matmul needs tensors of rank 2 or more, got shapes 3 and [3, 2]."}};
  e["matmul-inner-dim"] = {"{op} needs the inner dims to agree, got shapes {lhs} and {rhs}.",
                           {"int_matmul needs the inner dims to agree, got shapes [2, 3] and [2, 3].",
                            "float_matmul needs the inner dims to agree, got shapes [4, 2, 3] and [1, 4, 3]."},
                           {"float_matmul needs the inner dims to agree, got shapes [2, 3] and [2, 3]",
                            "float_matmul needs the inner dims to agree, got shapes [2, 3] and [2, 3]!",
                            "float_matmul needs the outer dims to agree, got shapes [2, 3] and [2, 3].",
                            "float add needs the inner dims to agree, got shapes [2, 3] and [2, 3].",
                            "float_matmul needs the inner dims to agree, got shapes [2, 3] and (2, 3)."}};
  e["dim-out-of-range"] = {"{op} got dim {dim} for a tensor of rank {rank}.",
                           {"float_sum_dim got dim 2 for a tensor of rank 2.", "float_swap_dims got dim 5 for a tensor of rank 0."},
                           {"float_sum_dim got dim 2 for a tensor of rank 2", "float_sum_dim got dim 2 for a tensor of rank 2!",
                            "float_sum_dim got dim -1 for a tensor of rank 2.", "float_sum_dim got dim two for a tensor of rank 2.",
                            "float_sum_dim got axis 2 for a tensor of rank 2.", "float sum_dim got dim 2 for a tensor of rank 2."}};
  e["reshape-mismatch"] = {"{op} cannot turn shape {from} into {to}: element counts differ.",
                           {"float_reshape cannot turn shape [2, 3] into [4]: element counts differ.",
                            "int_reshape cannot turn shape [2] into [3]: element counts differ.",
                            "float_reshape cannot turn shape [] into [0]: element counts differ."},
                           {"float_reshape cannot turn shape [2, 3] into [4]: element counts differ",
                            "float_reshape cannot turn shape [2, 3] into [4]: element counts differ!",
                            "float_reshape cannot turn shape [2, 3] into [4], element counts differ.",
                            "float_reshape cannot turn shape [2, 3] into 4: element counts differ.",
                            "float_reshape cannot turn shape [2, 3] into [4]: element counts agree.",
                            "float reshape cannot turn shape [2, 3] into [4]: element counts differ."}};
  e["op-backend-mismatch"] = {"{op} needs operands on one backend, got {lhs:?} and {rhs:?}.",
                              {"float_add needs operands on one backend, got " + kFlexF32 + " and " + kNdF32 + ".",
                               "float_matmul needs operands on one backend, got " + kTracked + " and " + kFlexF32 + "."},
                              {"float_add needs operands on one backend, got " + kFlexF32 + " and " + kNdF32,
                               "float_add needs operands on one backend, got " + kFlexF32 + " and " + kNdF32 + "!",
                               "float_add needs operands on one device, got " + kFlexF32 + " and " + kNdF32 + ".",
                               "float_add needs operands on one backend, got  and .",
                               "float add needs operands on one backend, got " + kFlexF32 + " and " + kNdF32 + "."}};
  e["op-kind-mismatch"] = {"{op} needs a tensor of kind {expected}, got {kind:?}.",
                           {"float_exp needs a tensor of kind Float, got NdArray(Int(NdArrayTensor { shape: [1], dtype: I32, device: Cpu })).",
                            "dequantize needs a tensor of kind Quantized, got " + kFlexF32 + "."},
                           {"float_exp needs a tensor of kind Float, got NdArray(Int(NdArrayTensor { shape: [1], dtype: I32, device: Cpu }))",
                            "float_exp needs a tensor of kind Float, got NdArray(Int(NdArrayTensor { shape: [1], dtype: I32, device: Cpu }))!",
                            "float_exp needs a tensor of kind Complex, got " + kNdF32 + ".",
                            "float_exp needs a tensor of kind float, got " + kNdF32 + ".",
                            "float_exp needs a tensor of kind Autodiff, got " + kNdF32 + ".",
                            "float_exp needs a tensor of kind Float, got ."}};
  e["device-unavailable"] = {"Device {device} of backend {backend} is not available: {reason}.",
                             {"Device Cuda(3) of backend NdArray is not available: NdArray runs on the CPU only.",
                              "Device Cuda(0) of backend Cuda is not available: no CUDA device was found."},
                             {"Device Cuda(3) of backend NdArray is not available: NdArray runs on the CPU only",
                              "Device Cuda(3) of backend NdArray is not available: NdArray runs on the CPU only!",
                              "Device Cuda (3) of backend NdArray is not available: NdArray runs on the CPU only.",
                              "Device Cuda(3) of backend Nd Array is not available: NdArray runs on the CPU only.",
                              "Device Cuda(3) of backend NdArray is available: NdArray runs on the CPU only.",
                              "Device Cuda(3) of backend NdArray is not available: ."}};
  e["device-kind-mismatch"] = {
      "{op} needs a device of the tensor's kind, got {tensor} tensor and device {device}.",
      {"float_to_device needs a device of the tensor's kind, got a plain tensor and device Autodiff(Flex(Cpu)).",
       "float_to_device needs a device of the tensor's kind, got an autodiff tensor and device NdArray(Cpu).",
       "int_to_device needs a device of the tensor's kind, got an autodiff tensor and device Flex(Cpu).",
       "bool_to_device needs a device of the tensor's kind, got a plain tensor and device Autodiff(NdArray(Cpu))."},
      {"float to_device needs a device of the tensor's kind, got a plain tensor and device Autodiff(Flex(Cpu)).",
       " needs a device of the tensor's kind, got a plain tensor and device Autodiff(Flex(Cpu)).",
       "float_to_device needs a device of the tensor's kind, got a plain tensor and device Autodiff(Flex(Cpu))",
       "float_to_device needs a device of the tensor's kind, got a plain tensor and device Autodiff(Flex(Cpu))!",
       "float_to_device needs a device of the tensor's kind, got a autodiff tensor and device NdArray(Cpu).",
       "float_to_device needs a device of the tensor's kind, got an plain tensor and device NdArray(Cpu).",
       "float_to_device needs a device of the tensor's kind, got a quantized tensor and device NdArray(Cpu).",
       "float_to_device needs a device of the tensor's kind, got a plain tensor and device ."}};
  e["quantize-non-finite"] = {"quantize needs finite values, got {value}.",
                              {"quantize needs finite values, got inf.", "quantize needs finite values, got -inf.",
                               "quantize needs finite values, got nan."},
                              {"quantize needs finite values, got inf", "quantize needs finite values, got inf!",
                               "quantize needs finite value, got inf.", "quantize needs finite values, got .",
                               "dequantize needs finite values, got inf.", "quantize needs finite values got inf."}};
  e["quantize-scale-overflow"] = {
      "quantize needs values of magnitude at most 127 * f32::MAX (about 4.32e40) so that its F32 scale is finite, got max |x| = {value}.",
      {"quantize needs values of magnitude at most 127 * f32::MAX (about 4.32e40) so that its F32 scale is finite, got max |x| = 1e+41.",
       "quantize needs values of magnitude at most 127 * f32::MAX (about 4.32e40) so that its F32 scale is finite, got max |x| = "
       "4.321585802309317e+40.",
       "quantize needs values of magnitude at most 127 * f32::MAX (about 4.32e40) so that its F32 scale is finite, got max |x| = "
       "1.7976931348623157e+308."},
      {"quantize needs values of magnitude at most 127 * f32::MAX (about 4.32e40) so that its F32 scale is finite, got max |x| = 1e+41",
       "quantize needs values of magnitude at most 127 * f32::MAX (about 4.32e40) so that its F32 scale is finite, got max |x| = 1e41.",
       "quantize needs values of magnitude at most 127 * f32::MAX (about 4.32e40) so that its F32 scale is finite, got max |x| = 1e-41.",
       "quantize needs values of magnitude at most 127 * f32::MAX (about 4.32e40) so that its F32 scale is finite, got max |x| = inf.",
       "quantize needs values of magnitude at most 127 * f32::MAX (about 4.32e40) so that its F32 scale is finite, got max |x| = 12e+41.",
       "quantize needs values of magnitude at most 127 x f32::MAX (about 4.32e40) so that its F32 scale is finite, got max |x| = 1e+41.",
       "quantize needs values of magnitude at most 127 * f32::MAX (about 4.32e40) so that its F32 scale is finite, got max x = 1e+41."}};
  e["duplicate-node-id"] = {
      "backward found two distinct nodes with id NodeId({id}) in one graph: each node of a graph needs its own id.",
      {"backward found two distinct nodes with id NodeId(7) in one graph: each node of a graph needs its own id.",
       "backward found two distinct nodes with id NodeId(18446744073709551615) in one graph: each node of a graph needs its own id."},
      {"backward found two distinct nodes with id NodeId(7) in one graph: each node of a graph needs its own id",
       "backward found two distinct nodes with id NodeId(7) in one graph: each node of a graph needs its own id!",
       "backward found two distinct nodes with id NodeId(-7) in one graph: each node of a graph needs its own id.",
       "backward found two distinct nodes with id NodeId() in one graph: each node of a graph needs its own id.",
       "backward found two distinct nodes with id NodeId 7 in one graph: each node of a graph needs its own id.",
       "backward found two nodes with id NodeId(7) in one graph: each node of a graph needs its own id."}};
  e["backward-gradient-mismatch"] = {
      "internal error: the backward rule of {op} returned for its input {input} a gradient of {got}, but that input is "
      "{expected}: a gradient must have its input's shape, dtype, device and backend.",
      {"internal error: the backward rule of float_exp returned for its input 0 a gradient of Flex[[2], F32, Cpu], but that "
       "input is Flex[[4], F32, Cpu]: a gradient must have its input's shape, dtype, device and backend.",
       "internal error: the backward rule of float_to_device returned for its input 0 a gradient of Cuda[[2, 3], F64, Cuda(1)], "
       "but that input is NdArray[[2, 3], F64, Cpu]: a gradient must have its input's shape, dtype, device and backend."},
      {"internal error: the backward rule of float_exp returned for its input 0 a gradient of Flex[[2], F32, Cpu], but that "
       "input is Flex[[4], F32, Cpu]: a gradient must have its input's shape, dtype, device and backend",
       "internal error: the backward rule of float exp returned for its input 0 a gradient of Flex[[2], F32, Cpu], but that "
       "input is Flex[[4], F32, Cpu]: a gradient must have its input's shape, dtype, device and backend.",
       "internal error: the backward rule of float_exp returned for its input x a gradient of Flex[[2], F32, Cpu], but that "
       "input is Flex[[4], F32, Cpu]: a gradient must have its input's shape, dtype, device and backend.",
       "the backward rule of float_exp returned for its input 0 a gradient of Flex[[2], F32, Cpu], but that "
       "input is Flex[[4], F32, Cpu]: a gradient must have its input's shape, dtype, device and backend.",
       "internal error: the backward rule of float_exp returned for its input 0 a gradient of Flex[[2], F32, Cpu], but that "
       "input is Flex[[4], F32, Cpu]: a gradient must have its input's shape, dtype and device."}};
  e["cuda-error"] = {"CUDA error in {call}: {error}.",
                     {"CUDA error in cudaMalloc: out of memory.", "CUDA error in cudaMemcpy: an illegal memory access was encountered."},
                     {"CUDA error in cudaMalloc: out of memory", "CUDA error in cudaMalloc: out of memory!",
                      "CUDA error in cuda Malloc: out of memory.", "CUDA error: out of memory.", "CUDA error in cudaMalloc: .",
                      "cuda error in cudaMalloc: out of memory."}};
  e["clamp-bounds"] = {"{op} needs min <= max, got min {min} and max {max}.",
                       {"float_clamp needs min <= max, got min 2 and max 1.", "int_clamp needs min <= max, got min nan and max 1.",
                        "float_clamp needs min <= max, got min -0.5 and max -inf.",
                        "float_clamp needs min <= max, got min 0.10000000000000001 and max 0.01."},
                       {"float_clamp needs min <= max, got min 2 and max 1", "float_clamp needs min <= max, got min 2 and max 1!",
                        "float_clamp needs min < max, got min 2 and max 1.", "float_clamp needs min <= max, got min  and max 1.",
                        "float_clamp needs min <= max, got min 2 3 and max 1.", "float clamp needs min <= max, got min 2 and max 1.",
                        "float_clamp needs min <= max, got max 1 and min 2."}};
  e["empty-reduction"] = {"{op} over dim {dim} of size 0 has no result.",
                          {"float_max_dim over dim 1 of size 0 has no result.", "float_argmax over dim 0 of size 0 has no result."},
                          {"float_max_dim over dim 1 of size 0 has no result", "float_max_dim over dim 1 of size 0 has no result!",
                           "float_max_dim over dim 1 of size 1 has no result.", "float_max_dim over dim -1 of size 0 has no result.",
                           "float max_dim over dim 1 of size 0 has no result.", "float_max_dim over dim one of size 0 has no result.",
                           "float_max_dim over axis 1 of size 0 has no result."}};
  e["cat-empty"] = {"{op} needs at least one tensor.",
                    {"float_cat needs at least one tensor.", "bool_cat needs at least one tensor."},
                    {"float_cat needs at least one tensor", "float_cat needs at least one tensor!", "float_cat needs at least two tensors.",
                     "float cat needs at least one tensor.", "float_cat needs at least one tensor. ", "float_cat needs at least one tensors."}};
  e["cat-mismatch"] = {"{op} needs shapes that differ only in dim {dim}, got {lhs} and {rhs}.",
                       {"float_cat needs shapes that differ only in dim 0, got [2, 3] and [2, 4].",
                        "int_cat needs shapes that differ only in dim 1, got [2, 3] and [1, 3].",
                        "float_cat needs shapes that differ only in dim 0, got [2] and [2, 1].",
                        "float_cat needs shapes that differ only in dim 2, got [] and [0, 0, 0]."},
                       {"float_cat needs shapes that differ only in dim 0, got [2, 3] and [2, 4]",
                        "float_cat needs shapes that differ only in dim 0, got [2, 3] and [2, 4]!",
                        "float_cat needs shapes that differ only in dim x, got [2, 3] and [2, 4].",
                        "float_cat needs shapes that differ only in dim 0, got [2, 3] and 2, 4.",
                        "float_cat needs shapes that differ in dim 0, got [2, 3] and [2, 4].",
                        "float_cat needs shapes that differ only in dim 0, got [2, 3], [2, 4].",
                        "float_cat needs shapes that differ only in dim -1, got [2, 3] and [2, 4]."}};
  e["slice-out-of-range"] = {"{op} got range {start}..{end} for dim {dim} of size {size}.",
                             {"float_slice got range 1..4 for dim 0 of size 3.", "float_slice got range 3..2 for dim 1 of size 5.",
                              "float_slice_assign got range 0..9 for dim 2 of size 8."},
                             {"float_slice got range 1..4 for dim 0 of size 3", "float_slice got range 1..4 for dim 0 of size 3!",
                              "float_slice got range 1...4 for dim 0 of size 3.", "float_slice got range 1.x4 for dim 0 of size 3.",
                              "float_slice got range 1-4 for dim 0 of size 3.", "float_slice got range -1..4 for dim 0 of size 3.",
                              "float_slice got range 1..4 for axis 0 of size 3.", "float slice got range 1..4 for dim 0 of size 3."}};
  e["select-index-rank"] = {"{op} needs a 1-D index tensor, got shape {shape}.",
                            {"float_select needs a 1-D index tensor, got shape [2, 2].",
                             "float_select_assign needs a 1-D index tensor, got shape []."},
                            {"float_select needs a 1-D index tensor, got shape [2, 2]", "float_select needs a 1-D index tensor, got shape [2, 2]!",
                             "float_select needs a 2-D index tensor, got shape [2, 2].", "float_select needs a 1D index tensor, got shape [2, 2].",
                             "float_select needs a 1-D index tensor, got shape 2, 2.", "float select needs a 1-D index tensor, got shape [2, 2].",
                             "float_select needs a 1-D index tensor, got shape [2, -2]."}};
  e["index-out-of-range"] = {"{op} got index {index} for dim {dim} of size {size}.",
                             {"float_select got index 3 for dim 0 of size 3.", "float_select_assign got index -1 for dim 1 of size 2.",
                              "float_select got index 9223372036854775807 for dim 0 of size 0."},
                             {"float_select got index 3 for dim 0 of size 3", "float_select got index 3 for dim 0 of size 3!",
                              "float_select got index --1 for dim 0 of size 3.", "float_select got index 3.5 for dim 0 of size 3.",
                              "float_select got index 3 for dim -1 of size 3.", "float_select got indices 3 for dim 0 of size 3.",
                              "float_select got index 3 for axis 0 of size 3.", "float_select got index 3 for dim 0 of size -3."}};
  e["assign-shape-mismatch"] = {"{op} needs values of shape {expected}, got {got}.",
                                {"float_select_assign needs values of shape [2, 2], got [2, 3].",
                                 "float_select_assign needs values of shape [], got [1]."},
                                {"float_select_assign needs values of shape [2, 2], got [2, 3]",
                                 "float_select_assign needs values of shape [2, 2], got [2, 3]!",
                                 "float_select_assign needs values of shape [2, 2], got 2, 3.",
                                 "float_select_assign needs values of size [2, 2], got [2, 3].",
                                 "float_select_assign needs values of shape [2, 2] got [2, 3].",
                                 "float select_assign needs values of shape [2, 2], got [2, 3]."}};
  e["permute-invalid"] = {"{op} needs each of the {rank} dims exactly once, got {axes}.",
                          {"float_permute needs each of the 2 dims exactly once, got [0, 0].",
                           "bool_permute needs each of the 1 dims exactly once, got [].",
                           "float_permute needs each of the 2 dims exactly once, got [1].",
                           "float_permute needs each of the 0 dims exactly once, got [0]."},
                          {"float_permute needs each of the 2 dims exactly once, got [0, 0]",
                           "float_permute needs each of the 2 dims exactly once, got [0, 0]!",
                           "float_permute needs each of the 2 dims exactly twice, got [0, 0].",
                           "float_permute needs each of the two dims exactly once, got [0, 0].",
                           "float_permute needs each of the 2 dims exactly once, got (0, 0).",
                           "float_permute needs each of the 2 dims exactly once, got [0, -1].",
                           "float permute needs each of the 2 dims exactly once, got [0, 0]."}};
  e["flip-invalid"] = {"{op} needs distinct dims below the rank {rank}, got {axes}.",
                       {"float_flip needs distinct dims below the rank 2, got [1, 1].",
                        "int_flip needs distinct dims below the rank 1, got [1].",
                        "float_flip needs distinct dims below the rank 2, got [2].",
                        "float_flip needs distinct dims below the rank 0, got [0, 0, 0]."},
                       {"float_flip needs distinct dims below the rank 2, got [1, 1]",
                        "float_flip needs distinct dims below the rank two, got [1, 1].",
                        "float_flip needs distinct dims below the rank 2, got (1, 1).",
                        "float_flip needs distinct dims below the rank 2, got [1, -1].",
                        "float_flip needs distinct dims below the rank -2, got [1, 1].",
                        "float_flip needs unique dims below the rank 2, got [1, 1].",
                        "float flip needs distinct dims below the rank 2, got [1, 1]."}};
  e["gather-index-shape"] = {"{op} needs indices of shape {expected} outside dim {dim}, got {got}.",
                             {"float_gather needs indices of shape [3, 2] outside dim 0, got [4, 3].",
                              "float_scatter_add needs indices of shape [2, 0, 5] outside dim 2, got [2, 1].",
                              "float_gather needs indices of shape [] outside dim 0, got [1]."},
                             {"float_gather needs indices of shape [3, 2] outside dim 0, got [4, 3]",
                              "float_gather needs indices of shape [3, 2] outside dim x, got [4, 3].",
                              "float_gather needs indices of shape (3, 2) outside dim 0, got [4, 3].",
                              "float_gather needs indices of shape [3, 2] outside dim 0, got [4, -3].",
                              "float gather needs indices of shape [3, 2] outside dim 0, got [4, 3]."}};
  e["gather-nd-index-shape"] = {"{op} needs indices whose last dim is at most the tensor's rank {rank}, got indices of shape {got}.",
                                {"float_gather_nd needs indices whose last dim is at most the tensor's rank 2, got indices of shape [1, 3].",
                                 "float_scatter_nd needs indices whose last dim is at most the tensor's rank 0, got indices of shape []."},
                                {"float_gather_nd needs indices whose last dim is at most the tensor's rank 2, got indices of shape [1, 3]",
                                 "float_gather_nd needs indices whose last dim is at most the tensor's rank -2, got indices of shape [1, 3].",
                                 "float_gather_nd needs indices whose last dim is at most the tensor's rank 2, got indices of shape (1, 3).",
                                 "float gather_nd needs indices whose last dim is at most the tensor's rank 2, got indices of shape [1, 3]."}};
  e["module-input-rank"] = {"{op} needs a {rank}-D {operand} {layout}, got shape {shape}.",
                            {"avg_pool2d needs a 4-D input [batch, channels, height, width], got shape [2, 3].",
                             "adaptive_avg_pool2d_backward needs a 4-D gradient [batch, channels, height, width], got shape [].",
                             "embedding needs a 2-D weight [n_embeddings, d_model], got shape [3].",
                             "embedding_backward needs a 2-D index [batch, seq_length], got shape [2, 1, 1]."},
                            {"avg_pool2d needs a 4-D input [batch, channels, height, width], got shape [2, 3]",
                             "avg_pool2d needs a four-D input [batch, channels, height, width], got shape [2, 3].",
                             "avg_pool2d needs a 4-D tensor [batch, channels, height, width], got shape [2, 3].",
                             "avg_pool2d needs a 4-D input (batch, channels, height, width), got shape [2, 3].",
                             "avg pool2d needs a 4-D input [batch, channels, height, width], got shape [2, 3]."}};
  e["module-input-scalar"] = {"{op} needs its {operand} to have at least 1 dim {layout}, got shape {shape}.",
                              {"linear needs its input to have at least 1 dim [..., d_input], got shape [].",
                               "linear_bias_backward needs its gradient to have at least 1 dim [..., d_output], got shape []."},
                              {"linear needs its input to have at least 1 dim [..., d_input], got shape [2].",
                               "linear needs its weight to have at least 1 dim [..., d_input], got shape [].",
                               "linear needs its input to have at least 1 dim [..., D_input], got shape [].",
                               "linear needs its input to have at least one dim [..., d_input], got shape [].",
                               "linear needs its input to have at least 1 dim [..., d_input], got shape []"}};
  e["module-dim-mismatch"] = {
      "{op} needs the {lhs} {lhs_shape} and the {rhs} {rhs_shape} to agree: dim {lhs_dim} of the {lhs} is {lhs_size}, dim "
      "{rhs_dim} of the {rhs} is {rhs_size}.",
      {"linear needs the input [2, 3] and the weight [4, 2] to agree: dim 1 of the input is 3, dim 0 of the weight is 4.",
       "linear needs the bias [3] and the weight [3, 2] to agree: dim 0 of the bias is 3, dim 1 of the weight is 2.",
       "linear_x_backward needs the gradient [2, 3] and the weight [3, 2] to agree: dim 1 of the gradient is 3, dim 1 of the "
       "weight is 2."},
      {"linear needs the input [2, 3] and the weight [4, 2] to agree: dim 1 of the input is 3, dim 0 of the weight is 4",
       "linear needs the input [2, 3] and the index [4, 2] to agree: dim 1 of the input is 3, dim 0 of the index is 4.",
       "linear needs the input (2, 3) and the weight [4, 2] to agree: dim 1 of the input is 3, dim 0 of the weight is 4.",
       "linear needs the input [2, 3] and the weight [4, 2] to agree: dim one of the input is 3, dim 0 of the weight is 4.",
       "linear needs the input [2, 3] and the weight [4, 2] to agree: dim 1 of the input is -3, dim 0 of the weight is 4."}};
  e["conv-groups"] = {
      "{op} needs groups of at least 1 dividing the input channels {channels_in} and the output channels {channels_out}, got "
      "groups {groups}.",
      {"conv2d needs groups of at least 1 dividing the input channels 2 and the output channels 3, got groups 2.",
       "conv2d_x_backward needs groups of at least 1 dividing the input channels 4 and the output channels 4, got groups 0."},
      {"conv2d needs groups of at least 1 dividing the input channels 2 and the output channels 3, got groups 2",
       "conv2d needs groups of at least 1 dividing the input channels two and the output channels 3, got groups 2.",
       "conv2d needs groups of at least 1 dividing the input channels 2 and the output channels 3, got groups -2.",
       "conv2d needs groups of at least one dividing the input channels 2 and the output channels 3, got groups 2.",
       "conv 2d needs groups of at least 1 dividing the input channels 2 and the output channels 3, got groups 2."}};
  e["conv-channels"] = {
      "{op} needs the weight's dim 1 to be the input channels {channels_in} / groups {groups} = {expected}, got weight shape "
      "{weight}.",
      {"conv2d needs the weight's dim 1 to be the input channels 1 / groups 1 = 1, got weight shape [1, 2, 2, 2].",
       "conv2d_weight_backward needs the weight's dim 1 to be the input channels 6 / groups 3 = 2, got weight shape [3, 3, 1, 1]."},
      {"conv2d needs the weight's dim 1 to be the input channels 1 / groups 1 = 1, got weight shape [1, 2, 2, 2]",
       "conv2d needs the weight's dim 1 to be the input channels 1 / groups 1 = 1, got weight shape (1, 2, 2, 2).",
       "conv2d needs the weight's dim 0 to be the input channels 1 / groups 1 = 1, got weight shape [1, 2, 2, 2].",
       "conv2d needs the weight's dim 1 to be the input channels 1 / groups 1 = one, got weight shape [1, 2, 2, 2].",
       "conv2d needs the bias's dim 1 to be the input channels 1 / groups 1 = 1, got weight shape [1, 2, 2, 2]."}};
  e["conv-transpose-weight"] = {
      "{op} needs the weight's dim 0 to be the input channels {channels_in}, got weight shape {weight}.",
      {"conv_transpose2d needs the weight's dim 0 to be the input channels 3, got weight shape [2, 4, 3, 3].",
       "conv_transpose2d_x_backward needs the weight's dim 0 to be the input channels 0, got weight shape [1, 1, 1, 1]."},
      {"conv_transpose2d needs the weight's dim 0 to be the input channels 3, got weight shape [2, 4, 3, 3]",
       "conv_transpose2d needs the weight's dim 1 to be the input channels 3, got weight shape [2, 4, 3, 3].",
       "conv_transpose2d needs the weight's dim 0 to be the input channels three, got weight shape [2, 4, 3, 3].",
       "conv_transpose2d needs the weight's dim 0 to be the input channels 3, got weight shape (2, 4, 3, 3).",
       "conv transpose2d needs the weight's dim 0 to be the input channels 3, got weight shape [2, 4, 3, 3]."}};
  e["conv-bias-channels"] = {
      "{op} needs a bias of the output channels {channels_out} = weight dim 1 ({per_group}) * groups ({groups}), got bias shape "
      "{bias}.",
      {"conv_transpose2d needs a bias of the output channels 2 = weight dim 1 (1) * groups (2), got bias shape [1].",
       "conv_transpose2d needs a bias of the output channels 0 = weight dim 1 (0) * groups (1), got bias shape [3]."},
      {"conv_transpose2d needs a bias of the output channels 2 = weight dim 1 (1) * groups (2), got bias shape [1]",
       "conv_transpose2d needs a bias of the output channels 2 = weight dim 1 1 * groups (2), got bias shape [1].",
       "conv_transpose2d needs a bias of the output channels 2 = weight dim 0 (1) * groups (2), got bias shape [1].",
       "conv_transpose2d needs a bias of the output channels -2 = weight dim 1 (1) * groups (2), got bias shape [1].",
       "conv_transpose2d needs a bias of the output channels 2 = weight dim 1 (1) * groups (2), got bias shape (1)."}};
  e["conv-padding-out"] = {
      "{op} needs padding_out smaller than stride or dilation in every dim, got padding_out {padding_out}, stride {stride}, "
      "dilation {dilation}.",
      {"conv_transpose2d needs padding_out smaller than stride or dilation in every dim, got padding_out [2, 0], stride [2, 2], "
       "dilation [1, 1].",
       "conv_transpose2d_weight_backward needs padding_out smaller than stride or dilation in every dim, got padding_out [0, 1], "
       "stride [1, 1], dilation [1, 1]."},
      {"conv_transpose2d needs padding_out smaller than stride or dilation in every dim, got padding_out [2, 0], stride [2, 2], "
       "dilation [1, 1]",
       "conv_transpose2d needs padding_out smaller than stride and dilation in every dim, got padding_out [2, 0], stride [2, 2], "
       "dilation [1, 1].",
       "conv_transpose2d needs padding_out smaller than stride or dilation in every dim, got padding_out [-2, 0], stride [2, 2], "
       "dilation [1, 1].",
       "conv_transpose2d needs padding_out smaller than stride or dilation in every dim, got padding_out [2, 0], stride (2, 2), "
       "dilation [1, 1].",
       "conv_transpose2d needs padding smaller than stride or dilation in every dim, got padding_out [2, 0], stride [2, 2], "
       "dilation [1, 1]."}};
  e["conv-transpose-size"] = {
      "{op} needs an input of at least 1 cell and an output of 1 to 2^64 - 1 cells in each dim, got input {input} and output "
      "(input - 1) * stride + dilation * (kernel - 1) + 1 + padding_out - 2 * padding = {size}.",
      {"conv_transpose2d needs an input of at least 1 cell and an output of 1 to 2^64 - 1 cells in each dim, got input [1, 1] and "
       "output (input - 1) * stride + dilation * (kernel - 1) + 1 + padding_out - 2 * padding = [-1, 1].",
       "conv_transpose2d needs an input of at least 1 cell and an output of 1 to 2^64 - 1 cells in each dim, got input [0, 2] and "
       "output (input - 1) * stride + dilation * (kernel - 1) + 1 + padding_out - 2 * padding = [1, 3].",
       "conv_transpose2d_x_backward needs an input of at least 1 cell and an output of 1 to 2^64 - 1 cells in each dim, got input "
       "[3, 3] and output (input - 1) * stride + dilation * (kernel - 1) + 1 + padding_out - 2 * padding = [2^127 or more, "
       "36893488147419103230]."},
      {"conv_transpose2d needs an input of at least 1 cell and an output of 1 to 2^64 - 1 cells in each dim, got input [1, 1] and "
       "output (input - 1) * stride + dilation * (kernel - 1) + 1 + padding_out - 2 * padding = [-1, 1]",
       "conv_transpose2d needs an input of at least 1 cell and an output of 1 to 2^64 - 1 cells in each dim, got input [-1, 1] and "
       "output (input - 1) * stride + dilation * (kernel - 1) + 1 + padding_out - 2 * padding = [-1, 1].",
       "conv_transpose2d needs an input of at least 1 cell and an output of 1 to 2^64 - 1 cells in each dim, got input [1, 1] and "
       "output (input - 1) * stride + dilation * (kernel - 1) + 1 + padding_out - 2 * padding = [-1, a].",
       "conv_transpose2d needs an input of at least 1 cell and an output of 1 to 2^64 - 1 cells in each dim, got input [1, 1] and "
       "output (input - 1) * stride + dilation * (kernel - 1) + 1 + padding - 2 * padding = [-1, 1].",
       "conv_transpose2d needs an input of at least 1 cell and an output of 1 to 2^63 - 1 cells in each dim, got input [1, 1] and "
       "output (input - 1) * stride + dilation * (kernel - 1) + 1 + padding_out - 2 * padding = [-1, 1]."}};
  e["module-option-zero"] = {"{op} needs {option} of at least 1 in every dim, got {value}.",
                             {"avg_pool2d needs kernel_size of at least 1 in every dim, got [0, 3].",
                              "adaptive_avg_pool2d needs output_size of at least 1 in every dim, got [2, 0].",
                              "max_pool2d needs dilation of at least 1 in every dim, got [1, 0]."},
                             {"avg_pool2d needs kernel_size of at least 1 in every dim, got [0, 3]",
                              "avg_pool2d needs padding of at least 1 in every dim, got [0, 3].",
                              "avg_pool2d needs kernel_size of at least 1 in every dim, got (0, 3).",
                              "avg_pool2d needs kernel size of at least 1 in every dim, got [0, 3]."}};
  e["pool-padding"] = {"{op} needs padding of at most half the kernel size, got padding {padding} for kernel_size {kernel}.",
                       {"avg_pool2d needs padding of at most half the kernel size, got padding [2, 0] for kernel_size [2, 2]."},
                       {"avg_pool2d needs padding of at most half the kernel size, got padding [2, 0] for kernel_size [2, 2]",
                        "avg_pool2d needs padding of at most half the kernel, got padding [2, 0] for kernel_size [2, 2].",
                        "avg_pool2d needs padding of at most half the kernel size, got padding 2 for kernel_size [2, 2].",
                        "avg_pool2d needs padding of at most half the kernel size, got padding [2, 0] for kernel [2, 2]."}};
  e["pool-kernel-too-large"] = {"{op} needs kernel_size of at most the padded input's size {padded}, got {kernel}.",
                                {"avg_pool2d needs kernel_size of at most the padded input's size [4, 2], got [3, 3]."},
                                {"avg_pool2d needs kernel_size of at most the padded input's size [4, 2], got [3, 3]",
                                 "avg_pool2d needs kernel_size of at most the input's size [4, 2], got [3, 3].",
                                 "avg_pool2d needs kernel_size of at most the padded input's size [4, -2], got [3, 3].",
                                 "avg_pool2d needs kernel_size of at most the padded input's size [4, 2], got 3."}};
  e["pool-empty-input"] = {"{op} needs an input with at least 1 element in each pooled dim, got shape {shape}.",
                           {"adaptive_avg_pool2d needs an input with at least 1 element in each pooled dim, got shape [1, 1, 0, 4]."},
                           {"adaptive_avg_pool2d needs an input with at least 1 element in each pooled dim, got shape [1, 1, 0, 4]",
                            "adaptive_avg_pool2d needs an input with at least one element in each pooled dim, got shape [1, 1, 0, 4].",
                            "adaptive_avg_pool2d needs an input with at least 1 element in each pooled dim, got [1, 1, 0, 4]."}};
  e["pool-grad-shape"] = {"{op} needs a gradient of the output's shape {expected}, got {got}.",
                          {"avg_pool2d_backward needs a gradient of the output's shape [1, 1, 2, 2], got [1, 1, 3, 3].",
                           "adaptive_avg_pool2d_backward needs a gradient of the output's shape [2, 3, 1, 1], got [1, 3, 1, 1]."},
                          {"avg_pool2d_backward needs a gradient of the output's shape [1, 1, 2, 2], got [1, 1, 3, 3]",
                           "avg_pool2d_backward needs a gradient of the outputs shape [1, 1, 2, 2], got [1, 1, 3, 3].",
                           "avg_pool2d_backward needs a gradient of the output's shape (1, 1, 2, 2), got [1, 1, 3, 3].",
                           "avg pool2d_backward needs a gradient of the output's shape [1, 1, 2, 2], got [1, 1, 3, 3]."}};
  e["not-differentiable"] = {"Can't differentiate {op}.",
                             {"Can't differentiate avg_pool2d_backward.", "Can't differentiate adaptive_avg_pool2d_backward."},
                             {"Can't differentiate avg_pool2d_backward", "Cannot differentiate avg_pool2d_backward.",
                              "Can't differentiate avg pool 2d backward.", "can't differentiate avg_pool2d_backward."}};
  e["pool-indices-shape"] = {"{op} needs indices of the gradient's shape {expected}, got {got}.",
                             {"max_pool2d_with_indices_backward needs indices of the gradient's shape [1, 1, 2, 2], got [1, 1, 2, 1]."},
                             {"max_pool2d_with_indices_backward needs indices of the gradient's shape [1, 1, 2, 2], got [1, 1, 2, 1]",
                              "max_pool2d_with_indices_backward needs indices of the gradients shape [1, 1, 2, 2], got [1, 1, 2, 1].",
                              "max_pool2d_with_indices_backward needs indices of the gradient's shape (1, 1, 2, 2), got [1, 1, 2, 1]."}};
  e["pool-empty-window"] = {"{op} has a window with no input cell along dim {dim}: kernel_size {kernel}, dilation {dilation} and padding {padding} step over its {size} cells.",
                            {"max_pool2d has a window with no input cell along dim 2: kernel_size [2, 1], dilation [2, 1] and padding [1, 0] step over its 1 cells."},
                            {"max_pool2d has a window with no input cell along dim 2: kernel_size [2, 1], dilation [2, 1] and padding [1, 0] step over its 1 cells",
                             "max_pool2d has a window with no input cell along dim x: kernel_size [2, 1], dilation [2, 1] and padding [1, 0] step over its 1 cells.",
                             "max_pool2d has a window without input cells along dim 2: kernel_size [2, 1], dilation [2, 1] and padding [1, 0] step over its 1 cells."}};
  e["fold-channels"] = {"{op} needs the input's dim 1 to be a multiple of the kernel's {cells} cells (kernel_size {kernel}), got shape {shape}.",
                        {"fold4d needs the input's dim 1 to be a multiple of the kernel's 4 cells (kernel_size [2, 2]), got shape [1, 5, 9]."},
                        {"fold4d needs the input's dim 1 to be a multiple of the kernel's 4 cells (kernel_size [2, 2]), got shape [1, 5, 9]",
                         "fold4d needs the input's dim 1 to be a multiple of the kernel's four cells (kernel_size [2, 2]), got shape [1, 5, 9].",
                         "fold4d needs the input's dim 1 to be a multiple of the kernel's 4 cells (kernel_size (2, 2)), got shape [1, 5, 9]."}};
  e["fold-blocks"] = {"{op} needs the input's dim 2 to be the number of blocks on the padded output, {rows} * {cols} = {blocks}, got shape {shape}.",
                      {"fold4d needs the input's dim 2 to be the number of blocks on the padded output, 3 * 3 = 9, got shape [1, 4, 8].",
                       "fold4d needs the input's dim 2 to be the number of blocks on the padded output, 2^64 or more * 1 = 2^64 or more, got "
                       "shape [1, 1, 1]."},
                      {"fold4d needs the input's dim 2 to be the number of blocks on the padded output, 3 * 3 = 9, got shape [1, 4, 8]",
                       "fold4d needs the input's dim 2 to be the number of blocks on the padded output, 3 x 3 = 9, got shape [1, 4, 8].",
                       "fold4d needs the input's dim 2 to be the number of blocks on the padded output, 2^63 * 1 = 2^63, got shape [1, 1, 1]."}};
  e["interpolate-mode"] = {"{op} needs mode nearest (0), nearest_exact (1), bilinear (2) or bicubic (3), got {mode}.",
                           {"interpolate needs mode nearest (0), nearest_exact (1), bilinear (2) or bicubic (3), got 4.",
                            "interpolate_backward needs mode nearest (0), nearest_exact (1), bilinear (2) or bicubic (3), got 255."},
                           {"interpolate needs mode nearest (0), nearest_exact (1), bilinear (2) or bicubic (3), got 4",
                            "interpolate needs mode nearest (0), nearest_exact (1), bilinear (2) or bicubic (3), got -1.",
                            "interpolate needs mode nearest, nearest_exact, bilinear or bicubic, got 4."}};
  e["module-input-min-rank"] = {"{op} needs an input of rank at least {rank} {layout}, got shape {shape}.",
                                {"batch_norm needs an input of rank at least 2 [batch, channels, ...], got shape [4].",
                                 "batch_norm needs an input of rank at least 2 [batch, channels, ...], got shape []."},
                                {"batch_norm needs an input of rank at least 2 [batch, channels, ...], got shape [4]",
                                 "batch_norm needs an input of rank at least two [batch, channels, ...], got shape [4].",
                                 "batch_norm needs a weight of rank at least 2 [batch, channels, ...], got shape [4].",
                                 "batch_norm needs an input of rank at least 2 (batch, channels, ...), got shape [4]."}};
  e["attention-operand-shape"] = {
      "{op} needs a {operand} of the scores' shape [batch, heads, seq_q, seq_k] = {expected}, got {got}.",
      {"attention needs a mask of the scores' shape [batch, heads, seq_q, seq_k] = [1, 2, 3, 4], got [1, 2, 3].",
       "attention needs a bias of the scores' shape [batch, heads, seq_q, seq_k] = [0, 1, 2, 2], got [0, 1, 2, 3]."},
      {"attention needs a mask of the scores' shape [batch, heads, seq_q, seq_k] = [1, 2, 3, 4], got [1, 2, 3]",
       "attention needs a value of the scores' shape [batch, heads, seq_q, seq_k] = [1, 2, 3, 4], got [1, 2, 3].",
       "attention needs a mask of the scores' shape (batch, heads, seq_q, seq_k) = [1, 2, 3, 4], got [1, 2, 3].",
       "attention needs a mask of the scores' shape [batch, heads, seq_q, seq_k] = [1, 2, 3, 4], got (1, 2, 3)."}};
  e["attention-softcap"] = {"{op} needs a positive softcap, got {softcap}.",
                            {"attention needs a positive softcap, got 0.", "attention needs a positive softcap, got -1.5.",
                             "attention needs a positive softcap, got nan."},
                            {"attention needs a positive softcap, got 0", "attention needs a positive softcap, got .",
                             "attention needs a positive soft cap, got 0."}};
  e["fft-size"] = {"{op} needs a transform size that is a power of two along dim {dim}, got {size}.",
                   {"rfft needs a transform size that is a power of two along dim 0, got 3.",
                    "irfft needs a transform size that is a power of two along dim 2, got 18446744073709551615."},
                   {"rfft needs a transform size that is a power of two along dim 0, got 3",
                    "rfft needs a transform size that is a power of two along dim x, got 3.",
                    "rfft needs a transform size that is a power of two along dim 0, got -3."}};
  e["ctc-shape"] = {"{op} needs log_probs [time, batch, classes], targets [batch, max_target_length], input_lengths [batch] and "
                    "target_lengths [batch], got {log_probs}, {targets}, {input_lengths} and {target_lengths}.",
                    {"ctc_loss needs log_probs [time, batch, classes], targets [batch, max_target_length], input_lengths [batch] and "
                     "target_lengths [batch], got [4, 2, 5], [3, 1], [2] and [2].",
                     "ctc_loss_backward needs log_probs [time, batch, classes], targets [batch, max_target_length], input_lengths "
                     "[batch] and target_lengths [batch], got [], [], [] and [0]."},
                    {"ctc_loss needs log_probs [time, batch, classes], targets [batch, max_target_length], input_lengths [batch] and "
                     "target_lengths [batch], got [4, 2, 5], [3, 1], [2], [2].",
                     "ctc_loss needs log_probs [T, N, C], targets [batch, max_target_length], input_lengths [batch] and "
                     "target_lengths [batch], got [4, 2, 5], [3, 1], [2] and [2].",
                     "ctc_loss needs log_probs [time, batch, classes], targets [batch, max_target_length], input_lengths [batch] and "
                     "target_lengths [batch], got [4, 2, 5], [3, 1], [2] and (2)."}};
  e["ctc-blank"] = {"{op} needs blank below the number of classes {classes}, got blank {blank}.",
                    {"ctc_loss needs blank below the number of classes 5, got blank 5.",
                     "ctc_loss_backward needs blank below the number of classes 0, got blank 18446744073709551615."},
                    {"ctc_loss needs blank below the number of classes 5, got blank -1.",
                     "ctc_loss needs a blank below the number of classes 5, got blank 5.",
                     "ctc_loss needs blank below the number of classes 5, got 5."}};
  e["ctc-length"] = {"{op} needs {lengths}[{sample}] in 0..={max}, got {value}.",
                     {"ctc_loss needs input_lengths[1] in 0..=4, got 5.", "ctc_loss_backward needs target_lengths[0] in 0..=0, got -3."},
                     {"ctc_loss needs lengths[1] in 0..=4, got 5.", "ctc_loss needs input_lengths[1] in 0..4, got 5.",
                      "ctc_loss needs input_lengths[-1] in 0..=4, got 5.", "ctc_loss needs input_lengths[1] in 0..=4, got 5"}};
  e["ctc-target-label"] = {"{op} needs target labels in 0..{classes} other than the blank {blank}, got {label} at targets[{sample}, {position}].",
                           {"ctc_loss needs target labels in 0..5 other than the blank 0, got 0 at targets[1, 1].",
                            "ctc_loss_backward needs target labels in 0..3 other than the blank 2, got -9 at targets[0, 12]."},
                           {"ctc_loss needs target labels in 0..5 other than the blank 0, got 0 at targets[1].",
                            "ctc_loss needs target labels in 0..5 other than the blank -1, got 0 at targets[1, 1].",
                            "ctc_loss needs target labels in 0..=5 other than the blank 0, got 0 at targets[1, 1]."}};
  e["deform-offset-groups"] = {"{op} needs offset_groups of at least 1 dividing the input channels {channels_in}, got offset_groups {groups}.",
                               {"deform_conv2d needs offset_groups of at least 1 dividing the input channels 4, got offset_groups 3.",
                                "deform_conv2d_backward needs offset_groups of at least 1 dividing the input channels 0, got offset_groups 0."},
                               {"deform_conv2d needs offset_groups of at least 1 dividing the input channels 4, got groups 3.",
                                "deform_conv2d needs offset_groups of at least 1 dividing the input channels -4, got offset_groups 3.",
                                "deform_conv2d needs offset_groups of at least 1 dividing the input channels 4, got offset_groups 3"}};
  e["deform-operand-shape"] = {"{op} needs {operand} of shape {expected}, got {got}.",
                               {"deform_conv2d needs an offset of shape [1, 18, 2, 2], got [1, 8, 2, 2].",
                                "deform_conv2d_backward needs a mask of shape [0, 9, 1, 1], got []."},
                               {"deform_conv2d needs a bias of shape [1, 18, 2, 2], got [1, 8, 2, 2].",
                                "deform_conv2d needs an offset of shape (1, 18, 2, 2), got [1, 8, 2, 2].",
                                "deform_conv2d needs offset of shape [1, 18, 2, 2], got [1, 8, 2, 2]."}};
  e["fft-spectrum-shape"] = {"{op} needs the real and imaginary parts of one shape, got {real} and {imaginary}.",
                             {"irfft needs the real and imaginary parts of one shape, got [2, 3] and [3, 2].",
                              "irfft needs the real and imaginary parts of one shape, got [] and [1]."},
                             {"irfft needs the real and imaginary parts of one shape, got [2, 3] and [3, 2]",
                              "irfft needs the real and imaginary parts of one shape, got (2, 3) and [3, 2].",
                              "irfft needs the real and imaginary part of one shape, got [2, 3] and [3, 2]."}};
  e["mask-select-shape"] = {"{op} needs a mask of the tensor's shape {expected}, got {got}.",
                            {"float_mask_select needs a mask of the tensor's shape [2, 3], got [3].",
                             "float_mask_select needs a mask of the tensor's shape [], got [1]."},
                            {"float_mask_select needs a mask of the tensor's shape [2, 3], got [3]",
                             "float_mask_select needs a mask of the tensor's shape (2, 3), got [3].",
                             "float_mask_select needs a mask of the tensors shape [2, 3], got [3].",
                             "float mask_select needs a mask of the tensor's shape [2, 3], got [3]."}};
  e["scatter-update-gradient"] = {"not implemented: {op} with {update} update is not implemented",
                                  {"not implemented: float_scatter with Mul update is not implemented",
                                   "not implemented: float_scatter_nd with Max update is not implemented"},
                                  {"not implemented: float_scatter with Add update is not implemented",
                                   "not implemented: float_scatter with Mul update is not implemented.",
                                   "float_scatter with Mul update is not implemented",
                                   "not implemented: float scatter with Min update is not implemented"}};
  e["int-division-by-zero"] = {"{op} divides by zero.",
                               {"int_div divides by zero.", "int_remainder_scalar divides by zero."},
                               {"int_div divides by zero", "int_div divides by 0.", "int div divides by zero.",
                                "int_div divides by zero.."}};
  e["unfold-step"] = {"{op} needs a step of at least 1, got 0.",
                      {"float_unfold needs a step of at least 1, got 0.", "int_unfold needs a step of at least 1, got 0.",
                       "int_arange_step needs a step of at least 1, got 0."},
                      {"float_unfold needs a step of at least 1, got 0", "float_unfold needs a step of at least 1, got 1.",
                       "float_unfold needs a step of at least 0, got 0.", "float unfold needs a step of at least 1, got 0."}};
  e["cross-dim"] = {"float_cross needs operands of one rank with 3 elements along dim {dim}, got {lhs} and {rhs}.",
                    {"float_cross needs operands of one rank with 3 elements along dim 1, got [2, 3] and [2, 4].",
                     "float_cross needs operands of one rank with 3 elements along dim 0, got [3] and [1, 3]."},
                    {"float_cross needs operands of one rank with 3 elements along dim 1, got [2, 3] and [2, 4]",
                     "float_cross needs operands of one rank with 3 elements along dim -1, got [2, 3] and [2, 4].",
                     "float_cross needs operands of one rank with 2 elements along dim 1, got [2, 3] and [2, 4].",
                     "float_cross needs operands of one rank with 3 elements along dim 1, got [2, 3], [2, 4]."}};
  e["topk-k"] = {"{op} needs k of at most {size}, the size of dim {dim}, got {k}.",
                 {"float_topk needs k of at most 3, the size of dim 1, got 4.",
                  "float_argtopk needs k of at most 0, the size of dim 0, got 1."},
                 {"float_topk needs k of at most 3, the size of dim 1, got 4",
                  "float_topk needs k of at most -3, the size of dim 1, got 4.",
                  "float_topk needs k of at most 3, the size of dim 1, got k.",
                  "float_topk needs a k of at most 3, the size of dim 1, got 4.",
                  "float topk needs k of at most 3, the size of dim 1, got 4."}};
  e["random-distribution"] = {"{op} cannot sample {distribution}.",
                              {"float_random cannot sample Uniform(1, 0).", "float_random cannot sample Bernoulli(nan).",
                               "float_random cannot sample Normal(0, -1)."},
                              {"float_random cannot sample Uniform(1, 0)", "float_random cannot sample Gamma(1, 0).",
                               "float_random can sample Uniform(1, 0).", "float random cannot sample Uniform(1, 0)."}};
  e["require-grad-non-leaf"] = {"Can't convert a non leaf tensor into a tracked tensor.",
                                {"Can't convert a non leaf tensor into a tracked tensor."},
                                {"Can't convert a non leaf tensor into a tracked tensor", "Can't convert a leaf tensor into a tracked tensor.",
                                 "Cannot convert a non leaf tensor into a tracked tensor."}};
  e["expand-mismatch"] = {"{op} cannot expand shape {from} to {to}.",
                          {"float_expand cannot expand shape [2, 3] to [4, 3].", "float_expand cannot expand shape [2, 3] to [3].",
                           "bool_expand cannot expand shape [2] to [3]."},
                          {"float_expand cannot expand shape [2, 3] to [4, 3]", "float_expand cannot expand shape [2, 3] to [4, 3]!",
                           "float_expand can expand shape [2, 3] to [4, 3].", "float_expand cannot expand shape 2, 3 to [4, 3].",
                           "float_expand cannot expand shape [2, 3] into [4, 3].", "float expand cannot expand shape [2, 3] to [4, 3].",
                           "float_expand cannot expand shape [2, 3] to [4, x]."}};
  e["remote-unavailable"] = {
      "Remote server {endpoint} is unavailable: {call} failed with {status} ({detail}).",
      {"Remote server 127.0.0.1:40123 is unavailable: float_add failed with UNAVAILABLE (failed to connect to all addresses).",
       "Remote server localhost:1 is unavailable: from_data failed with DEADLINE_EXCEEDED (Deadline Exceeded).",
       "Remote server [::1]:7 is unavailable: OpenSession failed with CANCELLED (x)."},
      {"Remote server 127.0.0.1:40123 is unavailable: float_add failed with UNAVAILABLE (failed to connect)",
       "Remote server 127.0.0.1:40123 is unavailable: float_add failed with UNAVAILABLE (failed to connect)!",
       "Remote server 127.0.0.1:40123 is unavailable: float_add failed with NOT_FOUND (gone).",
       "Remote server 127.0.0.1:40123 is available: float_add failed with UNAVAILABLE (failed to connect).",
       "Remote server 127.0.0.1:40123 is unavailable: float_add failed with UNAVAILABLE failed to connect.",
       "Remote server 127.0.0.1 40123 is unavailable: float_add failed with UNAVAILABLE (failed to connect)."}};
  e["remote-refused"] = {
      "Remote server {endpoint} refused {call}: {status} ({detail}).",
      {"Remote server 127.0.0.1:40123 refused OpenSession: UNAUTHENTICATED (missing or wrong token).",
       "Remote server 127.0.0.1:40123 refused from_data: UNAUTHENTICATED (x)."},
      {"Remote server 127.0.0.1:40123 refused OpenSession: UNAUTHENTICATED (missing or wrong token)",
       "Remote server 127.0.0.1:40123 refused OpenSession: UNAVAILABLE (missing or wrong token).",
       "Remote server 127.0.0.1:40123 refused OpenSession UNAUTHENTICATED (missing or wrong token).",
       "Remote server 127.0.0.1:40123 accepted OpenSession: UNAUTHENTICATED (missing or wrong token).",
       "Remote server 127.0.0.1:40123 refused OpenSession: UNAUTHENTICATED (missing or wrong token)!"}};
  e["remote-session-lost"] = {
      "Remote tensor of session {session} on {endpoint} is lost: the server no longer knows that session.",
      {"Remote tensor of session 12345678901234567890 on 127.0.0.1:40123 is lost: the server no longer knows that session.",
       "Remote tensor of session 1 on localhost:50051 is lost: the server no longer knows that session."},
      {"Remote tensor of session 1 on localhost:50051 is lost: the server no longer knows that session",
       "Remote tensor of session 1 on localhost:50051 is lost: the server no longer knows that session!",
       "Remote tensor of session x1 on localhost:50051 is lost: the server no longer knows that session.",
       "Remote tensor of session 1 on localhost:50051 is lost: the server still knows that session.",
       "Remote tensor of session  on localhost:50051 is lost: the server no longer knows that session.",
       "Remote tensors of session 1 on localhost:50051 is lost: the server no longer knows that session."}};
  e["remote-rejected"] = {
      "Remote server {endpoint} rejected {call}: {status} ({detail}).",
      {"Remote server 127.0.0.1:40123 rejected from_data: RESOURCE_EXHAUSTED (session holds 100000 tensors, the limit of --max-tensors).",
       "Remote server 127.0.0.1:40123 rejected float_add: INVALID_ARGUMENT (float_add needs 2 operands, got 1)."},
      {"Remote server 127.0.0.1:40123 rejected from_data: RESOURCE_EXHAUSTED (too many tensors)",
       "Remote server 127.0.0.1:40123 rejected from_data: RESOURCE_EXHAUSTED (too many tensors)!",
       "Remote server 127.0.0.1:40123 rejected from_data: resource_exhausted (too many tensors).",
       "Remote server 127.0.0.1:40123 accepted from_data: RESOURCE_EXHAUSTED (too many tensors).",
       "Remote server 127.0.0.1:40123 rejected from_data RESOURCE_EXHAUSTED (too many tensors)."}};
  return e;
}

// The template as a regex of its own: literal text escaped, each {placeholder} any non-empty text.
// A matching example must be the template with its placeholders filled, so a template and its
// examples cannot drift apart either.
std::regex template_regex(const std::string& tmpl) {
  std::string out;
  for (std::size_t i = 0; i < tmpl.size(); ++i) {
    const char c = tmpl[i];
    if (c == '{') {
      const std::size_t close = tmpl.find('}', i);
      if (close != std::string::npos) {
        out += "(.+)";
        i = close;
        continue;
      }
    }
    if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return std::regex(out);
}

TEST(PanicPatterns, EveryEntryIsPinnedByExamples) {
  const auto table = examples();
  for (PanicId id : all_panic_ids()) {
    const std::string name(panic_id_name(id));
    SCOPED_TRACE(name);
    const auto it = table.find(name);
    if (it == table.end()) {
      ADD_FAILURE() << "catalog entry without pattern examples in tests/unit/panic_patterns_test.cpp: " << name;
      continue;
    }
    const Examples& ex = it->second;
    EXPECT_EQ(std::string(panic_template(id)), ex.template_text) << "the template changed";
    ASSERT_FALSE(ex.match.empty()) << "no matching example for " << name;
    ASSERT_FALSE(ex.refuse.empty()) << "no near miss for " << name;
    const std::regex pattern(std::string(panic_pattern(id)));
    const std::regex from_template = template_regex(ex.template_text);
    for (const std::string& m : ex.match) {
      EXPECT_TRUE(std::regex_match(m, pattern)) << "pattern " << panic_pattern(id) << " refuses\n  " << m;
      EXPECT_TRUE(std::regex_match(m, from_template)) << "example is not the template filled in:\n  " << m;
    }
    for (const std::string& m : ex.refuse) {
      EXPECT_FALSE(std::regex_match(m, pattern)) << "pattern " << panic_pattern(id) << " accepts the near miss\n  " << m;
    }
  }
  EXPECT_EQ(table.size(), all_panic_ids().size()) << "examples name an id that is not in the catalog";
}

// The anchored match is what the harness uses; an unanchored search must still find the whole
// message inside a panic report (the seed's use), and must find nothing in a near miss that only
// differs inside the message.
TEST(PanicPatterns, PatternsAlsoFindMessagesInsideReports) {
  const auto table = examples();
  for (PanicId id : all_panic_ids()) {
    const auto it = table.find(std::string(panic_id_name(id)));
    if (it == table.end()) continue;  // reported by EveryEntryIsPinnedByExamples
    const std::regex pattern(std::string(panic_pattern(id)));
    for (const std::string& m : it->second.match) {
      const std::string report = "thread 'main' panicked at src/lib.rs:1:1:\n" + m + "\nnote: backtrace";
      std::smatch found;
      EXPECT_TRUE(std::regex_search(report, found, pattern)) << panic_id_name(id) << ": not found in\n  " << report;
    }
  }
}

}  // namespace
}  // namespace crossgrad
