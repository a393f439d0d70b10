// Dispatch's bodies for part 0 of the op registry (op_list.hpp says why it has parts).
#include "dispatch/ops_api_bodies.hpp"

namespace crossgrad {
using namespace dispatch_detail;
CROSSGRAD_OPS_PART_0(CROSSGRAD_DISPATCH_DEF)
}  // namespace crossgrad
