// Autodiff<LibTorch> (when it is built).
#include "autodiff/definitions.hpp"

namespace crossgrad {
CROSSGRAD_LIBTORCH_ENTRY(CROSSGRAD_INSTANTIATE_AUTODIFF)
}  // namespace crossgrad
