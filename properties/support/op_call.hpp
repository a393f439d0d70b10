#pragma once
// Any registry op called through Dispatch by its OpId, with host operands and structured
// arguments in the oracle's form (og::HostArray, og::OpArgs): the one place the properties spell
// out how each Sig takes its arguments, expanded from CROSSGRAD_OPS (a new op needs no edit here).
#include <crossgrad/crossgrad.hpp>
#include <crossgrad/oracle/reference_ops.hpp>

#include <cstddef>
#include <vector>

namespace crossgrad::properties {

// `h` on `backend`'s default device, tracked (an autodiff device) or plain.
DispatchTensor upload(const oracle::HostArray& h, std::size_t backend, bool tracked);

// The registry op `op` on operands `t` (by Sig: Binary {lhs, rhs}; Select, Gather and GatherNd
// {tensor, indices}; Embedding {weights, indices}; Linear and LayerNorm {x, weight} or {x, weight, bias};
// Attention {query, key, value, [mask], [bias]};
// EmbeddingBackward and MaxPool2dBackward {x, indices,
// grad}; SelectAssign, Scatter, ScatterUpdate and ScatterNd {tensor, indices, values};
// MaskWhere {tensor, mask, value}; MaskFill {tensor, mask}; Cat the list; others {tensor}) and arguments `a`.
DispatchTensor call_op(OpId op, const std::vector<DispatchTensor>& t, const oracle::OpArgs& a);

// A float result's values as doubles, or a Bool / Int result's as 0/1 and integers.
std::vector<double> values_of(OpKind kind, const DispatchTensor& t);

}  // namespace crossgrad::properties
