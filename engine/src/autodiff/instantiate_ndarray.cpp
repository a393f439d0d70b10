// Autodiff<NdArray>.
#include "autodiff/definitions.hpp"

namespace crossgrad {
CROSSGRAD_INSTANTIATE_AUTODIFF(NdArray)
}  // namespace crossgrad
