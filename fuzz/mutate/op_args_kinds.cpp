// op_args_fuzzer's mutation kinds (decode/op_args.hpp): the op from the registry, the operands'
// shapes and value codes, and the structured arguments, each within the range its schema stores.
#include <crossgrad/backends/registry.hpp>
#include <crossgrad/core/dtype.hpp>
#include <crossgrad/ops/op_list.hpp>
#include <iterator>

#include "decode/op_args.hpp"
#include "mutate/schema_mutator.hpp"
#include "mutate/scenario_targets.hpp"
#include "mutate/spec_mutations.hpp"
#include "mutate/values.hpp"

namespace crossgrad::fuzz::mutate {
namespace {

using op_args::ArgTensor;
using op_args::OpArgsCase;

bool backend(Rng &rng, OpArgsCase &c) {
  c.backend = other_than(rng, c.backend, kKnownBackendCount);
  return true;
}
bool tracked(Rng &, OpArgsCase &c) {
  c.tracked = !c.tracked;
  return true;
}
bool f64(Rng &, OpArgsCase &c) {
  c.f64 = !c.f64;
  return true;
}
// Another registry op; the operands stay, so the same tensors meet another op.
bool op(Rng &rng, OpArgsCase &c) {
  c.op_code = other_than(rng, c.op_code, kOpCount);
  return true;
}

std::vector<ArgTensor *> tensors(OpArgsCase &c) {
  std::vector<ArgTensor *> t;
  for (ArgTensor &a : c.tensors) t.push_back(&a);
  t.push_back(&c.indices);
  return t;
}

bool shape(Rng &rng, OpArgsCase &c) {
  if (rng.chance(1, 4)) return mutate_shape(rng, c.shape, op_args::kMaxTargetRank, op_args::kDimChoices);
  std::vector<ArgTensor *> t = tensors(c);
  ArgTensor &a = *t[rng.below(t.size())];
  if (!mutate_shape(rng, a.shape, op_args::kMaxRank, op_args::kDimChoices)) return false;
  if (!a.codes.empty()) {
    std::size_t n = 1;
    for (std::size_t d : a.shape) n *= d;
    a.codes.resize(n, 0);
  }
  return true;
}

// A value code: explicit codes from the fill, one code changed, or back to the fill. Float codes
// hold the specials (NaN, inf, subnormals) at the table's end (op_args.cpp); int codes read modulo
// their own count.
bool codes(Rng &rng, OpArgsCase &c) {
  std::vector<ArgTensor *> t = tensors(c);
  ArgTensor &a = *t[rng.below(t.size())];
  std::size_t n = 1;
  for (std::size_t d : a.shape) n *= d;
  if (n == 0) return false;
  if (a.codes.empty()) {
    a.codes.assign(n, 0);
    for (std::uint8_t &x : a.codes) x = static_cast<std::uint8_t>(rng.below(8));
    return true;
  }
  if (rng.chance(1, 8)) {
    a.codes.clear();
    return true;
  }
  std::uint8_t &x = a.codes[rng.below(a.codes.size())];
  x = static_cast<std::uint8_t>(other_than(rng, x, op_args::kFloatCodes));
  return true;
}

bool shape_mode(Rng &rng, OpArgsCase &c) {
  if (c.modes.empty()) return false;
  op_args::ShapeMode &m = c.modes[rng.below(c.modes.size())];
  m = static_cast<op_args::ShapeMode>(
      other_than(rng, static_cast<std::size_t>(m), static_cast<std::size_t>(op_args::ShapeMode::kCount)));
  return true;
}

bool arguments(Rng &rng, OpArgsCase &c) {
  switch (rng.below(7)) {
    case 0:
      c.scalar = other_than(rng, c.scalar, op_args::kFloatCodes);
      return true;
    case 1:
      c.min = other_than(rng, c.min, op_args::kFloatCodes);
      return true;
    case 2:
      c.max = other_than(rng, c.max, op_args::kFloatCodes);
      return true;
    case 3:
      c.dim = other_than(rng, c.dim, op_args::kDimCodes);
      return true;
    case 4:
      c.dim1 = other_than(rng, c.dim1, op_args::kDimCodes);
      return true;
    case 5:
      c.dtype = other_than(rng, c.dtype, all_dtypes().size());
      return true;
    default:
      c.int_dtype = other_than(rng, c.int_dtype, std::size(op_args::kIntDTypes));
      return true;
  }
}

bool axes_or_ranges(Rng &rng, OpArgsCase &c) {
  if (rng.chance(1, 2)) {
    if (c.axes.size() < op_args::kMaxAxes && (c.axes.empty() || rng.chance(1, 2)))
      c.axes.insert(c.axes.begin() + static_cast<std::ptrdiff_t>(rng.below(c.axes.size() + 1)),
                    rng.below(op_args::kAxisCodes));
    else if (rng.chance(1, 2))
      c.axes.erase(c.axes.begin() + static_cast<std::ptrdiff_t>(rng.below(c.axes.size())));
    else
      c.axes[rng.below(c.axes.size())] = rng.below(op_args::kAxisCodes);
    return true;
  }
  if (c.ranges.size() < op_args::kMaxRanges && (c.ranges.empty() || rng.chance(1, 2)))
    c.ranges.emplace_back(rng.below(op_args::kBoundCodes), rng.below(op_args::kBoundCodes));
  else if (rng.chance(1, 2))
    c.ranges.erase(c.ranges.begin() + static_cast<std::ptrdiff_t>(rng.below(c.ranges.size())));
  else
    c.ranges[rng.below(c.ranges.size())] = {rng.below(op_args::kBoundCodes), rng.below(op_args::kBoundCodes)};
  return true;
}

bool piece_insert_remove(Rng &rng, OpArgsCase &c) {  // float_cat's pieces
  if (c.tensors.size() < op_args::kMaxCat && (c.tensors.size() <= 1 || rng.chance(1, 2))) {
    c.tensors.push_back(c.tensors.empty() ? ArgTensor{} : c.tensors.front());
    c.modes.resize(c.tensors.size() - 1);
    c.sizes.resize(c.tensors.size() - 1);
    return true;
  }
  if (c.tensors.empty()) return false;
  c.tensors.pop_back();
  return true;
}

bool cross(Rng &rng, OpArgsCase &child, const OpArgsCase &other) {
  if (rng.chance(1, 2)) {  // the other's op and arguments over these operands
    child.op_code = other.op_code;
    child.scalar = other.scalar, child.min = other.min, child.max = other.max;
    child.dim = other.dim, child.dim1 = other.dim1, child.shape = other.shape, child.dtype = other.dtype;
    child.axes = other.axes, child.ranges = other.ranges;
  } else {  // the other's operands under this op
    child.tensors = other.tensors, child.modes = other.modes, child.sizes = other.sizes;
    child.indices = other.indices, child.int_dtype = other.int_dtype;
  }
  if (rng.chance(1, 2)) child.backend = other.backend, child.tracked = other.tracked;
  return true;
}

// The writer reads tensors[0] for every op but float_cat, and a mode per later tensor.
void prepare(OpArgsCase &c) {
  if (c.tensors.empty()) c.tensors.resize(1);
  if (c.modes.size() + 1 < c.tensors.size()) c.modes.resize(c.tensors.size() - 1);
  if (c.sizes.size() + 1 < c.tensors.size()) c.sizes.resize(c.tensors.size() - 1);
}

}  // namespace

const ScenarioMutator &op_args_mutator() {
  static const SchemaMutator<OpArgsCase> m({{"backend", &backend},
                                            {"tracked", &tracked},
                                            {"f64", &f64},
                                            {"op", &op},
                                            {"shape", &shape},
                                            {"values", &codes},
                                            {"shape_mode", &shape_mode},
                                            {"arguments", &arguments},
                                            {"axes_or_ranges", &axes_or_ranges},
                                            {"piece_insert_remove", &piece_insert_remove}},
                                           &cross, &prepare);
  return m;
}

}  // namespace crossgrad::fuzz::mutate
