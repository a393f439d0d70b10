// Every op on every available backend against the reference backend, and backward against
// central finite differences in F64.
#include "gen/specs.hpp"
#include "support/prop.hpp"

using namespace crossgrad;
using namespace crossgrad::properties;
namespace og = crossgrad::oracle;

namespace {
const std::vector<og::Op>& elementwise_ops() {
  static const std::vector<og::Op> ops = {og::Op::Add, og::Op::Sub, og::Op::Mul, og::Op::Div, og::Op::Neg, og::Op::Exp,
                                          og::Op::Log, og::Op::Sqrt, og::Op::Tanh, og::Op::Relu, og::Op::Sigmoid,
                                          og::Op::PowfScalar, og::Op::AddScalar, og::Op::MulScalar};
  return ops;
}
}  // namespace

// One op at a time, special values included (±0, ±inf, NaN, subnormals), with broadcasting.
CG_PROP(Numeric, ElementwiseOpsEqualReferenceOnSpecialValues, 400, ()) {
  const auto g = *gen::graph(gen::Values::WithSpecials, elementwise_ops(), 1);
  RC_TAG(std::string(og::op_name(g.ops[0].op)));
  require(og::check_graph_differential(g));
}

CG_PROP(Numeric, GraphsEqualReferenceForwardAndBackward, 500, ()) {
  const auto g = *gen::graph(gen::Values::Finite);
  require(og::check_graph_differential(g));
}

CG_PROP(Numeric, BackwardEqualsFiniteDifferences, 400, ()) {
  const auto g = *gen::graph(gen::Values::Positive, og::all_ops(), 4);
  require(og::check_graph_finite_differences(g));
}

// Each differentiable op alone, so a wrong backward rule is pinned to its op.
CG_PROP(Numeric, EachOpBackwardEqualsFiniteDifferences, 400, ()) {
  const auto g = *gen::graph(gen::Values::Positive, og::all_ops(), 1);
  RC_TAG(std::string(og::op_name(g.ops[0].op)));
  require(og::check_graph_finite_differences(g));
}

CG_PROP(Numeric, MatmulEqualsReferenceAndFiniteDifferences, 200, ()) {
  const auto g = *gen::matmul_graph(gen::Values::Positive);
  require(og::check_graph_differential(g));
  require(og::check_graph_finite_differences(g));
}
