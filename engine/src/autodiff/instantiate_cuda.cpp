// Autodiff<Cuda> (when it is built).
#include "autodiff/definitions.hpp"

namespace crossgrad {
CROSSGRAD_CUDA_ENTRY(CROSSGRAD_INSTANTIATE_AUTODIFF)
}  // namespace crossgrad
