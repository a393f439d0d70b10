// crossgrad::debug (CONTRACT section 3) against the oracle's independent rendering.
#include "gen/specs.hpp"
#include "support/prop.hpp"

#include <crossgrad/dispatch/debug.hpp>

using namespace crossgrad;
using namespace crossgrad::properties;
namespace og = crossgrad::oracle;

CG_PROP(Debug, RenderingFollowsGrammarWithoutValues, 500, ()) {
  const auto kind = *gen::any_kind();
  RC_TAG(std::string(primitive_kind_name(kind.leaf.primitive)));
  require(og::check_debug_rendering(kind, [](const DispatchTensorKind& k) { return debug(k); }));
}
