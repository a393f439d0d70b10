// Autodiff<Remote> (when it is built).
#include "autodiff/definitions.hpp"

namespace crossgrad {
CROSSGRAD_REMOTE_ENTRY(CROSSGRAD_INSTANTIATE_AUTODIFF)
}  // namespace crossgrad
