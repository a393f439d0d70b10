// Counterexamples turned into permanent tests: paste the shrunk spec RapidCheck printed, rebuilt
// with oracle::tensor_on, and call the same oracle check the property called.
#include <crossgrad/oracle/checks.hpp>
#include <crossgrad/oracle/registry.hpp>

#include <gtest/gtest.h>

using namespace crossgrad;
namespace og = crossgrad::oracle;

// From GradReplace.PanicLeavesGradientsUntouched (planted bug: the receiver's entry was removed
// before the should-be-float check): a tracked tensor aimed at a live entry, an Int gradient.
TEST(Regression, ShouldBeFloatPanicKeepsTheLiveEntry) {
  const std::size_t b = og::reference_backend();
  og::GradReplaceScenario s;
  s.graphs = {og::GraphSpec{b, DType::F32, {{2}}, {{-8, -8}}, {og::OpSpec{og::Op::float_mul, 0, 0}}, {}}};
  s.tensor = {og::KindSpec{1, og::tensor_on(b, PrimitiveKind::Autodiff, {}, DType::F32, {-8})}, std::nullopt};
  s.grad = {og::KindSpec{0, og::tensor_on(b, PrimitiveKind::Int, {}, DType::I64, {0})}, std::nullopt};
  s.target_entry = 0;
  if (auto failure = og::check_grad_replace(s)) FAIL() << *failure;
}

// From Numeric.BackwardEqualsFiniteDifferences (a 13k-case run, no bug planted): log(x / x) is
// constant, every finite difference and the error estimate are exactly 0, while backward leaves a
// cancellation residual (4.4e-16); the tolerance was 0. Now the oracle's kFdFloor allows it.
TEST(Regression, ConstantObjectiveWithABackwardResidualIsNotAFailure) {
  const std::size_t flex = [] {
    for (const og::BackendRef& b : og::all_backends()) {
      if (b.name == "Flex") return b.index;
    }
    return og::reference_backend();
  }();
  const og::GraphSpec g{flex, DType::F32, {{2}}, {{0.4, 0.3}},
                        {og::OpSpec{og::Op::float_div, 0, 0}, og::OpSpec{og::Op::float_log, 1, 0}}, {}};
  const og::FdVerdict v = og::judge_graph_finite_differences(g);
  EXPECT_FALSE(v.failure) << *v.failure;
}
