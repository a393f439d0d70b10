#pragma once
// Note [PyTorch is the second opinion]
// Every other check judges the engine with code written in this repository: NdArray's loops and
// the oracle's formulas come from the same hands as the kernels they judge. torch_reference
// computes a registry op with ATen (PyTorch 1.13's CPU kernels) and its gradients with PyTorch's
// own autograd (torch::autograd::grad), from the same host operands and arguments the oracle's
// reference evaluator takes. The mapping is one exhaustive switch over OpId (-Werror=switch-enum:
// a new op without an ATen counterpart fails the build). Where crossgrad deliberately differs from
// PyTorch, the difference is a row of docs/OPS.md's "Documented differences from PyTorch" and a
// predicate in pytorch_differences.hpp; nothing else may differ.
//
// This header includes no ATen: only torch_reference.cpp does (Note [ATen stays in its own
// translation units], cmake/CrossgradLibTorch.cmake).
#include <crossgrad/oracle/reference_ops.hpp>

#include <optional>
#include <string>
#include <vector>

namespace crossgrad::oracle {

struct TorchResult {
  std::optional<std::string> error;  // what ATen raised (a c10::Error), if it refused the inputs
  HostArray value;                   // Float: the receiver's dtype; Int: I64; Bool: 0/1
  // Per operand, in the operands' order: the gradient of sum(result * cotangent) with respect to
  // it, for the float operands of an op with a backward rule (empty otherwise).
  std::vector<std::optional<HostArray>> gradients;
};

// `op` on `operands` with `args` (the oracle's reference_op conventions, reference_ops.hpp). With
// `cotangent` (the result's shape and dtype), also the gradients. `non_contiguous`: ATen receives
// every float operand of rank >= 2 as a transposed-back view, not a contiguous tensor.
TorchResult torch_reference(OpId op, const std::vector<HostArray>& operands, const OpArgs& args,
                            const HostArray* cotangent, bool non_contiguous);

// ATen's thread count, for reports (1: the check pins it so results do not depend on the machine).
int torch_threads();

}  // namespace crossgrad::oracle
