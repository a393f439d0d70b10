// grad / grad_remove / backward / inner / from_inner on every kind structure, and round trips.
#include "gen/scenarios.hpp"
#include "support/prop.hpp"

using namespace crossgrad;
using namespace crossgrad::properties;
namespace og = crossgrad::oracle;

namespace {
og::ReceiverOp receiver_op(int i) { return static_cast<og::ReceiverOp>(i); }
}  // namespace

CG_PROP(AutodiffApi, ReceiverOpsEqualOracle, 500, ()) {
  const auto op = receiver_op(*rc::gen::inRange(0, 4));
  const auto graphs = *gen::graphs();
  auto tensor = *gen::dispatch(gen::kind_mix());
  Gradients grads = og::build_gradients(graphs);
  if (!grads.empty() && tensor.kind.leaf.primitive == PrimitiveKind::Autodiff && *rc::gen::arbitrary<bool>()) {
    tensor.kind.leaf.node_id = grads.node_ids()[*rc::gen::inRange<std::size_t>(0, grads.size())].value;
  }
  RC_TAG(std::string(og::receiver_op_name(op)));
  require(og::check_receiver(op, tensor, grads));
}

CG_PROP(AutodiffApi, FromInnerEqualsOracle, 500, ()) {
  require(og::check_from_inner(*gen::dispatch(gen::kind_mix())));
}

CG_PROP(AutodiffApi, InnerOfFromInnerKeepsData, 300, ()) {
  require(og::check_inner_from_inner(*rc::gen::mapcat(gen::backend(), [](std::size_t b) { return gen::float_tensor(b); })));
}

CG_PROP(AutodiffApi, ToDeviceRoundTripsBitIdentically, 300, ()) {
  const auto t = *rc::gen::mapcat(gen::backend(), [](std::size_t b) { return gen::float_tensor(b); });
  require(og::check_to_device_roundtrip(t, *gen::backend()));
}

CG_PROP(AutodiffApi, BackwardMakesOneEntryPerUsedLeaf, 300, ()) {
  require(og::check_backward_entries(*gen::graph(gen::Values::Finite)));
}

// check_graph_differential_and_entries (the fuzz target's pair) reuses the differential check's
// run on graph.backend for a graph on one backend; its verdicts must be those of the two apart.
CG_PROP(AutodiffApi, DifferentialAndEntriesTogetherGiveTheVerdictsOfEach, 200, ()) {
  const og::GraphSpec g = *rc::gen::oneOf(gen::graph(gen::Values::Finite), gen::hop_graph(gen::Values::Finite));
  const og::GraphVerdicts both = og::check_graph_differential_and_entries(g);
  const og::Failure differential = og::check_graph_differential(g);
  RC_ASSERT(both.differential == differential);
  if (!differential) RC_ASSERT(both.entries == og::check_backward_entries(g));
}
