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
  s.graphs = {og::GraphSpec{b, DType::F32, {{2}}, {{-8, -8}}, {og::OpSpec{og::Op::Mul, 0, 0}}}};
  s.tensor = {og::KindSpec{1, og::tensor_on(b, PrimitiveKind::Autodiff, {}, DType::F32, {-8})}, std::nullopt};
  s.grad = {og::KindSpec{0, og::tensor_on(b, PrimitiveKind::Int, {}, DType::I64, {0})}, std::nullopt};
  s.target_entry = 0;
  if (auto failure = og::check_grad_replace(s)) FAIL() << *failure;
}
