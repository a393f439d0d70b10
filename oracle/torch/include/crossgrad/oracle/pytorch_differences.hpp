#pragma once
// The documented differences between crossgrad and PyTorch (Note [PyTorch is the second opinion]):
// each is one row of docs/OPS.md's "Documented differences from PyTorch" table, keyed by its id,
// and one predicate here that recognises an element where it applies. The differential check
// excuses a disagreement only through a predicate, and a test keeps the ids here and the table's
// rows the same set, so a difference can be neither undocumented nor documented and unchecked.
#include <crossgrad/oracle/reference_ops.hpp>

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace crossgrad::oracle {

// One disagreeing element.
struct Disagreement {
  OpId op;
  const std::vector<HostArray>& operands;
  const OpArgs& args;
  // -1: the op's value; k >= 0: the gradient of operand k; kRefused: PyTorch raised instead of
  // computing the op (element, cotangent and values unused).
  int output = -1;
  std::size_t element = 0;
  double cotangent = 0;  // the cotangent at `element` (element-wise ops; 0 for values)
  double crossgrad = 0;
  double torch = 0;
};

inline constexpr int kRefused = -2;

struct PyTorchDifference {
  std::string_view id;
  bool (*applies)(const Disagreement&);
};

std::span<const PyTorchDifference> pytorch_differences();

// The id of the first difference that explains `d`, or empty.
std::string_view documented_difference(const Disagreement& d);

}  // namespace crossgrad::oracle
