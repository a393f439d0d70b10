// Dispatch's bodies for part 1 of the op registry (op_list.hpp says why it has parts).
#include "dispatch/ops_api_bodies.hpp"

namespace crossgrad {
using namespace dispatch_detail;
CROSSGRAD_OPS_PART_1(CROSSGRAD_DISPATCH_DEF)
}  // namespace crossgrad
