#pragma once
// Flex's im2col and col2im (Note [Backend im2col kernels]): the convolutions' gathered matrix and
// its scatter back, walked over the volumes directly instead of through an index tensor, a padded
// copy and select / select_add. Included before the composites are instantiated
// (flex/composites.cpp), so composite_conv.hpp's gathered and scattered use them.
#include "../composite_conv.hpp"

#include <crossgrad/backends/flex.hpp>

namespace crossgrad::backends::composite {

template <>
struct Im2colKernels<Flex> {
  static constexpr bool kPresent = true;
  // t [batch, channels, spatial...]: [batch, groups, K, L], as gathered's select.
  static FlexTensor gather(const FlexTensor& t, const Im2col& g, std::size_t groups, const Size3& pad);
  // cols [batch, channels * kernel cells * L]: [batch, channels, spatial...], as scattered's select_add.
  static FlexTensor scatter(const FlexTensor& cols, const Im2col& g, std::size_t batch, const Size3& pad);
};

}  // namespace crossgrad::backends::composite
