#pragma once
// Burn's IndexingUpdateOp: how float_scatter and float_scatter_nd combine a value with the element
// it lands on. One definition of each update for every backend's host loops and device kernels
// (Cuda's kernels include this header), so a target hit several times gives the same bits
// everywhere: updates apply in the row-major order of the indices (docs/OPS.md, "Scatter").
#include <crossgrad/core/host_device.hpp>
#include <crossgrad/core/int_arithmetic.hpp>

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
// Ints (int_scatter ...): Add and Mul wrap (core/int_arithmetic.hpp). Bool elements (0 / 1 bytes)
// combine by Max, which is their or (bool_scatter_or, bool_select_or).
template <class T>
CROSSGRAD_HOST_DEVICE constexpr T apply_update(IndexingUpdateOp op, T current, T value) {
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case IndexingUpdateOp::Assign: return value;
      case IndexingUpdateOp::Add: return wrapping_add<T>(current, value);
      case IndexingUpdateOp::Mul: return wrapping_mul<T>(current, value);
      case IndexingUpdateOp::Min: return value < current ? value : current;
      case IndexingUpdateOp::Max: return value > current ? value : current;
    }
  } else {
    switch (op) {
      case IndexingUpdateOp::Assign: return value;
      case IndexingUpdateOp::Add: return current + value;
      case IndexingUpdateOp::Mul: return current * value;
      case IndexingUpdateOp::Min: return (value != value || value < current) ? value : current;
      case IndexingUpdateOp::Max: return (value != value || value > current) ? value : current;
    }
  }
  return current;
}

// The "add" of the update ops of each kind: select_add / scatter_add sum floats and wrap ints;
// the bool forms (select_or, scatter_or) or their bytes.
constexpr IndexingUpdateOp add_of_kind(bool is_bool) { return is_bool ? IndexingUpdateOp::Max : IndexingUpdateOp::Add; }

// mask_fill's scalar as an element: a float rounded to the dtype, an int converted as every int
// scalar (int_scalar: toward zero, saturated to i64, modulo 2^width), a Bool true when nonzero
// (NaN included).
template <class T>
CROSSGRAD_HOST_DEVICE constexpr T fill_element(double value, bool is_bool) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(value);
  } else {
    return is_bool ? static_cast<T>(value != 0.0 ? 1 : 0) : int_scalar<T>(value);
  }
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
