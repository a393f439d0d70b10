#include "targets/targets.hpp"

#include <array>

namespace crossgrad::fuzz {

std::span<const Target> all_targets() {
  static const std::array<const Target *, 4> table{&kGradReplaceTarget, &kOpsDifferentialTarget, &kGradientsApiTarget,
                                                   &kTensorDataTarget};
  static const std::array<Target, 4> targets{*table[0], *table[1], *table[2], *table[3]};
  return targets;
}

}  // namespace crossgrad::fuzz
