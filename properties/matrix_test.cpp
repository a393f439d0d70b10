// The exhaustive matrix: every (backend x primitive kind x autodiff depth 0..2) for the tensor and
// for the gradient, over the available backends, checked against the oracle. "Every cross-backend
// pair" is checked literally here, not by sampling.
#include "gen/kind_cells.hpp"

#include <crossgrad/oracle/checks.hpp>
#include <crossgrad/oracle/registry.hpp>

#include <gtest/gtest.h>

#include <tuple>

using namespace crossgrad;
namespace og = crossgrad::oracle;

namespace {

using Cell = properties::gen::KindCell;
using properties::gen::kind_cells;

std::string cell_name(const Cell& c) {
  return og::all_backends()[c.backend].name + std::string(primitive_kind_name(c.primitive)) + "D" + std::to_string(c.depth);
}

og::DispatchSpec spec(const Cell& c, std::vector<std::size_t> shape) { return properties::gen::kind_cell_spec(c, std::move(shape)); }

class GradReplaceMatrix : public ::testing::TestWithParam<std::tuple<Cell, Cell>> {};

TEST_P(GradReplaceMatrix, MatchesOracle) {
  const auto& [tc, gc] = GetParam();
  const og::DispatchSpec tensor = spec(tc, {2, 3});
  const og::DispatchSpec grad = spec(gc, {3});
  // On an empty container, and on one holding the tensor's own entry.
  Gradients empty;
  if (auto f = og::check_grad_replace(tensor, grad, empty)) FAIL() << *f;
  og::GradReplaceScenario s{{og::GraphSpec{tc.backend, DType::F32, {{2, 3}}, {{}}, {{og::Op::float_exp, 0}}}}, tensor, grad, 0};
  if (auto f = og::check_grad_replace(s)) FAIL() << *f;
  if (auto f = og::check_cross_backend_message(tensor, grad)) FAIL() << *f;
  if (auto f = og::check_checkpointing_irrelevant(s)) FAIL() << *f;
}

INSTANTIATE_TEST_SUITE_P(AllPairs, GradReplaceMatrix, ::testing::Combine(::testing::ValuesIn(kind_cells()), ::testing::ValuesIn(kind_cells())),
                         [](const auto& info) {
                           return cell_name(std::get<0>(info.param)) + "_" + cell_name(std::get<1>(info.param));
                         });

// The receiver checks of grad / grad_remove / backward / inner and from_inner, per cell.
class ReceiverMatrix : public ::testing::TestWithParam<Cell> {};

TEST_P(ReceiverMatrix, MatchesOracle) {
  const og::DispatchSpec tensor = spec(GetParam(), {2, 2});
  for (og::ReceiverOp op : {og::ReceiverOp::Grad, og::ReceiverOp::GradRemove, og::ReceiverOp::Backward, og::ReceiverOp::Inner}) {
    Gradients grads;
    if (auto f = og::check_receiver(op, tensor, grads)) ADD_FAILURE() << *f;
  }
  if (auto f = og::check_from_inner(tensor)) ADD_FAILURE() << *f;
}

INSTANTIATE_TEST_SUITE_P(AllCells, ReceiverMatrix, ::testing::ValuesIn(kind_cells()),
                         [](const auto& info) { return cell_name(info.param); });

}  // namespace
