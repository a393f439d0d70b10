// Dispatch's bodies for part 3 of the op registry (op_list.hpp says why it has parts).
#include "dispatch/ops_api_bodies.hpp"

namespace crossgrad {
using namespace dispatch_detail;
CROSSGRAD_OPS_PART_3(CROSSGRAD_DISPATCH_DEF)
}  // namespace crossgrad
