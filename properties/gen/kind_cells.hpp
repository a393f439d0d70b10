#pragma once
// The exhaustive kind grid: every tested backend x every primitive kind x autodiff depth 0..2, the
// cells of the matrix test and of the malformed-kind sweep, and the primitive list the generators
// draw from.
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/spec.hpp>

#include <vector>

#include "gen/backends.hpp"

namespace crossgrad::properties::gen {

inline const std::vector<PrimitiveKind>& all_primitives() {
  static const std::vector<PrimitiveKind> v{PrimitiveKind::Float, PrimitiveKind::Int, PrimitiveKind::Bool,
                                            PrimitiveKind::Quantized, PrimitiveKind::Autodiff};
  return v;
}

// Depths 0 (a plain primitive), 1 (the well-formed autodiff depth) and 2 (Autodiff(Autodiff(..))).
inline constexpr std::size_t kMaxAutodiffDepth = 2;

struct KindCell {
  std::size_t backend;
  PrimitiveKind primitive;
  std::size_t depth;
};

inline std::vector<KindCell> kind_cells() {
  std::vector<KindCell> out;
  for (std::size_t b : tested_backend_indices()) {
    for (PrimitiveKind p : all_primitives()) {
      for (std::size_t d = 0; d <= kMaxAutodiffDepth; ++d) out.push_back({b, p, d});
    }
  }
  return out;
}

// The cell as a tensor of `shape` in its primitive's first dtype; empty `values`: the oracle's
// deterministic fill.
inline oracle::DispatchSpec kind_cell_spec(const KindCell& c, std::vector<std::size_t> shape,
                                           std::vector<double> values = {}) {
  return {oracle::KindSpec{c.depth, oracle::tensor_on(c.backend, c.primitive, std::move(shape),
                                                      oracle::dtypes_for(c.primitive).front(), std::move(values))},
          std::nullopt};
}

}  // namespace crossgrad::properties::gen
