// Autodiff<Flex>.
#include "autodiff/definitions.hpp"

namespace crossgrad {
CROSSGRAD_INSTANTIATE_AUTODIFF(Flex)
}  // namespace crossgrad
