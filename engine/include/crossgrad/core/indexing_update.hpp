#pragma once
// Burn's IndexingUpdateOp: how float_scatter and float_scatter_nd combine a value with the element
// it lands on. One definition of each update for every backend's host loops and device kernels
// (Cuda's kernels include this header), so a target hit several times gives the same bits
// everywhere: updates apply in the row-major order of the indices (docs/OPS.md, "Scatter").
#include <crossgrad/core/host_device.hpp>

#include <cstdint>
#include <string_view>
#include <type_traits>

namespace crossgrad {

// X(name): Burn's variant names, in Burn's order (the value is the code in stored inputs and on
// the Remote wire).
#define CROSSGRAD_INDEXING_UPDATES(X) X(Assign) X(Add) X(Mul) X(Min) X(Max)

enum class IndexingUpdateOp : std::uint8_t {
#define CROSSGRAD_X(name) name,
  CROSSGRAD_INDEXING_UPDATES(CROSSGRAD_X)
#undef CROSSGRAD_X
};

inline constexpr IndexingUpdateOp kIndexingUpdateOps[] = {
#define CROSSGRAD_X(name) IndexingUpdateOp::name,
    CROSSGRAD_INDEXING_UPDATES(CROSSGRAD_X)
#undef CROSSGRAD_X
};

// "Assign", "Add", ... (Burn's Debug rendering, used in messages).
constexpr std::string_view indexing_update_name(IndexingUpdateOp op) {
  switch (op) {
#define CROSSGRAD_X(name) \
  case IndexingUpdateOp::name: return #name;
    CROSSGRAD_INDEXING_UPDATES(CROSSGRAD_X)
#undef CROSSGRAD_X
  }
  return "?";
}

// The element after `value` lands on `current`. Min and Max follow PyTorch's scatter_reduce: a
// NaN value always wins, a NaN current stays, and a tie (+0 against -0) keeps the current element.
template <class T>
CROSSGRAD_HOST_DEVICE constexpr T apply_update(IndexingUpdateOp op, T current, T value) {
  switch (op) {
    case IndexingUpdateOp::Assign: return value;
    case IndexingUpdateOp::Add: return current + value;
    case IndexingUpdateOp::Mul: return current * value;
    case IndexingUpdateOp::Min: return (value != value || value < current) ? value : current;
    case IndexingUpdateOp::Max: return (value != value || value > current) ? value : current;
  }
  return current;
}

// f(std::integral_constant<IndexingUpdateOp, op>{}): a loop that calls apply_update with the
// constant's value has no branch on the update left in it.
template <class F>
constexpr decltype(auto) with_update(IndexingUpdateOp op, F&& f) {
  switch (op) {
#define CROSSGRAD_X(name) \
  case IndexingUpdateOp::name: return f(std::integral_constant<IndexingUpdateOp, IndexingUpdateOp::name>{});
    CROSSGRAD_INDEXING_UPDATES(CROSSGRAD_X)
#undef CROSSGRAD_X
  }
  return f(std::integral_constant<IndexingUpdateOp, IndexingUpdateOp::Assign>{});
}

}  // namespace crossgrad
