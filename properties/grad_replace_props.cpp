// grad_replace (CONTRACT section 5): outcome, message, replace semantics, panic safety,
// checkpointing. Each property runs kGradReplaceCases cases by default.
#include "gen/scenarios.hpp"
#include "support/prop.hpp"

#include <crossgrad/core/panic.hpp>
#include <crossgrad/oracle/build.hpp>

using namespace crossgrad;
using namespace crossgrad::properties;
namespace og = crossgrad::oracle;

namespace {
const char* shape_class(const og::KindSpec& k) {
  if (og::is_well_formed(k)) return k.autodiff_depth ? "tracked" : "plain";
  return "malformed";
}
}  // namespace

CG_PROP(GradReplace, OutcomeEqualsOracle, kGradReplaceCases, ()) {
  const auto s = *gen::scenario();
  RC_CLASSIFY(gen::panics(s.tensor, s.grad), "panics");
  RC_TAG(shape_class(s.tensor.kind));
  require(og::check_grad_replace(s));
}

CG_PROP(GradReplace, CrossBackendMessageAndPattern, kGradReplaceCases, ()) {
  const auto tensor = *gen::dispatch(rc::gen::weightedOneOf<og::KindSpec>(
      {{6, rc::gen::mapcat(gen::backend(), [](std::size_t b) { return gen::tracked_kind_on(b); })}, {4, gen::any_kind()}}));
  // Another backend's kind, or a gradient that is itself Autodiff(..).
  const auto grad = *gen::dispatch(gen::any_kind());
  const auto t_node = std::optional<std::uint64_t>(1);
  RC_PRE(og::expect_grad_replace(tensor.kind, t_node, grad.kind, t_node).panic_id == std::optional<std::string>("cross-backend"));
  RC_CLASSIFY(grad.kind.autodiff_depth > 0, "grad is Autodiff(..)");
  require(og::check_cross_backend_message(tensor, grad));
}

CG_PROP(GradReplace, SameBackendReplaceIsExact, kGradReplaceCases, ()) {
  const auto s = *gen::valid_scenario();
  RC_CLASSIFY(s.target_entry.has_value() && !s.graphs.empty(), "replaces a live entry");
  require(og::check_grad_replace(s));
}

CG_PROP(GradReplace, ReplacesNeverAccumulates, kGradReplaceCases, ()) {
  const auto s = *gen::valid_scenario();
  const auto second = *gen::dispatch(gen::plain_float_kind_on(s.tensor.kind.leaf.backend));
  require(og::check_replace_twice(s, second));
}

CG_PROP(GradReplace, PanicLeavesGradientsUntouched, kGradReplaceCases, ()) {
  auto s = *gen::scenario();
  RC_PRE(gen::panics(s.tensor, s.grad));
  if (!s.target_entry) s.target_entry = 0;  // aim at a live entry: a panic must not touch it
  require(og::check_grad_replace(s));
}

CG_PROP(GradReplace, CheckpointingNeverMatters, kGradReplaceCases, ()) {
  const auto s = *rc::gen::weightedOneOf<og::GradReplaceScenario>({{6, gen::valid_scenario()}, {4, gen::scenario()}});
  require(og::check_checkpointing_irrelevant(s));
}

// The catalog's pattern is the seed's (the oracle holds the seed's text).
TEST(GradReplace, CatalogPatternIsTheSeeds) {
  EXPECT_EQ(panic_pattern(PanicId::CrossBackend), og::text::cross_backend_pattern);
}
