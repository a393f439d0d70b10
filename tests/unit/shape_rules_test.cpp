// core/shape_rules.hpp: the shape checks every backend calls before it computes.
#include "test_support.hpp"

#include <crossgrad/core/shape_rules.hpp>

namespace crossgrad {
namespace {

// broadcast_shapes panics shape-overflow itself for a result whose element count overflows
// (its contract in core/shape_rules.hpp), even when no tensor of that shape is ever allocated.
TEST(ShapeRules, BroadcastResultThatOverflowsPanics) {
  const std::size_t big = std::size_t{1} << 40;
  EXPECT_PANIC(rules::broadcast_shapes(Shape{big, 1}, Shape{1, big}, "float_add"), "shape-overflow",
               "Shape [1099511627776, 1099511627776] has more elements than fit in memory.");
}

}  // namespace
}  // namespace crossgrad
