#pragma once
// One call of a registry op with random operands and structured arguments, in the oracle's form
// (og::HostArray, og::OpArgs), for the properties that judge every op: the engine against the
// oracle's reference evaluator (reference_ops_props.cpp) and against PyTorch (torch/). Shapes
// are small (0-size dims where the op allows them), values carry specials (NaN, +-inf, +-0,
// subnormals, values near the dtype's range, ties), F32 or F64, any available backend, plain or
// tracked, and about one case in five has one invalid argument.
#include <crossgrad/crossgrad.hpp>
#include <crossgrad/oracle/reference_ops.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace crossgrad::properties::gen {

struct OpCase {
  OpId op = OpId::float_neg;
  std::size_t backend = 0;
  bool tracked = false;
  DType dtype = DType::F32;
  std::vector<oracle::HostArray> operands;
  oracle::OpArgs args;
};

// Draws a case of `op`; call inside a RapidCheck property.
OpCase op_case(OpId op);

// For failure messages: every value with 17 digits.
std::string show(double v);
std::string show(const oracle::HostArray& h);
std::string show(const std::vector<std::size_t>& d);
// The op, backend, operands and the arguments its Sig reads.
std::string describe(const OpCase& c);

}  // namespace crossgrad::properties::gen
