#pragma once
// One op_args scenario as a call: its operands as the oracle's reference evaluator takes them and
// as Dispatch tensors on the scenario's device, and the Dispatch call itself, expanded from the
// registry by Sig (CROSSGRAD_OPS). Used by op_args_fuzzer and by the PyTorch corpus judge
// (fuzz/torch/op_args_vs_torch.cpp), so both run exactly the same call.
#include <crossgrad/crossgrad.hpp>
#include <crossgrad/oracle/reference_ops.hpp>

#include <optional>
#include <vector>

#include "decode/op_args.hpp"

namespace crossgrad::fuzz::op_args {

struct Call {
  std::vector<oracle::HostArray> reference_operands;  // reference_op's order (reference_ops.hpp)
  oracle::OpArgs args;
  std::vector<DispatchTensor> tensors;  // float operands, or the int/bool receiver
  std::optional<DispatchTensor> indices;
  std::size_t index_operand = 1;  // where `indices` sits among reference_operands (attention's mask: 3)
};

// The engine tensor holding exactly the host values (F32 values are exact floats, ints exact).
DispatchTensor engine_tensor(const oracle::HostArray &h, const DispatchDevice &dev);

// The case's operands on `dev` (only when is_op(c)).
Call build(const OpArgsCase &c, const OpInfo &op, const DispatchDevice &dev);

// `op` through Dispatch with the call's tensors and arguments.
DispatchTensor dispatch(OpId op, const Call &in);

}  // namespace crossgrad::fuzz::op_args
