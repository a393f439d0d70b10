// The exhaustive matrix: every (backend x primitive kind x autodiff depth 0..2) for the tensor and
// for the gradient, over the available backends, checked against the oracle. "Every cross-backend
// pair" is checked literally here, not by sampling; so is "a gradient from another backend of the
// same graph" (SpanningGraphMatrix) for every ordered pair of backends.
#include "gen/kind_cells.hpp"
#include "support/spanning_replace.hpp"

#include <crossgrad/dispatch/dispatch.hpp>
#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/checks.hpp>
#include <crossgrad/oracle/graph.hpp>
#include <crossgrad/oracle/registry.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <tuple>
#include <utility>

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
  og::GradReplaceScenario s{{og::GraphSpec{tc.backend, DType::F32, {{2, 3}}, {{}}, {{og::Op::float_exp, 0}}, {}}}, tensor, grad, 0};
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

// "A gradient from another backend of the same graph", for every ordered pair (A, B) of tested
// backends: one graph with leaf v0 [2, 3] on A and v1 [3] on B, v2 = v0 * v1 (v1 moves to A
// implicitly), v3 = to_backend(v2 -> B) (a hop back), so one backward gives v0 an entry on A and
// v1 one on B. grad_replace(v0, grads, v1's gradient) and (v1, grads, v0's gradient): the exact
// cross-backend message with nothing touched when A != B, a replace when A == B; then each leaf's
// own gradient back (success), also through the oracle's full check (spec-built gradient, container
// still usable after a panic).
class SpanningGraphMatrix : public ::testing::TestWithParam<std::tuple<std::size_t, std::size_t>> {};

TEST_P(SpanningGraphMatrix, GradientFromAnotherBackendOfTheSameGraph) {
  const auto& [a, b] = GetParam();
  og::GraphSpec g{a, DType::F32, {{2, 3}, {3}}, {{0.5, -1, 1.5, 2, -2.5, 3}, {0.25, -0.75, 1.25}},
                  {og::OpSpec{og::Op::float_mul, 0, 1}, og::OpSpec{og::kHopOp, 2, b}}, {a, b}};
  g = og::normalized(g);
  og::GraphGradients gg = og::graph_gradients(g);
  const std::optional<DispatchTensor> g0 = Dispatch::grad(gg.run.leaves[0], gg.grads);
  const std::optional<DispatchTensor> g1 = Dispatch::grad(gg.run.leaves[1], gg.grads);
  ASSERT_TRUE(g0 && g1) << "backward of a spanning graph missed a leaf\n  graph: " << g;
  EXPECT_EQ(og::backend_of(g0->kind), a);
  EXPECT_EQ(og::backend_of(g1->kind), b);
  if (auto f = properties::check_replace_with_gradient_of(g, gg, 0, 1, *g1)) FAIL() << *f;
  if (auto f = properties::check_replace_with_gradient_of(g, gg, 1, 0, *g0)) FAIL() << *f;
  if (auto f = properties::check_replace_with_gradient_of(g, gg, 0, 0, *g0)) FAIL() << *f;
  if (auto f = properties::check_replace_with_gradient_of(g, gg, 1, 1, *g1)) FAIL() << *f;
  // The oracle's full check on the same container (it removes x's entry after a successful
  // replace): tensor = leaf x (its node), gradient = a plain float tensor of the other leaf's
  // backend holding that leaf's gradient as backward made it.
  const std::vector<double> backward_made[] = {Dispatch::float_into_data(*g0).to_f64(), Dispatch::float_into_data(*g1).to_f64()};
  for (const auto& [x, y] : {std::pair<std::size_t, std::size_t>{0, 1}, {1, 0}}) {
    og::DispatchSpec tensor{properties::spanning_leaf_kind(g, gg.run, x), std::nullopt};
    og::KindSpec grad_kind = properties::spanning_gradient_kind(g, y);
    grad_kind.leaf.values = backward_made[y];
    if (auto f = og::check_grad_replace(tensor, og::DispatchSpec{grad_kind, std::nullopt}, gg.grads)) FAIL() << *f << "\n  graph: " << g;
  }
}

INSTANTIATE_TEST_SUITE_P(AllOrderedBackendPairs, SpanningGraphMatrix,
                         ::testing::Combine(::testing::ValuesIn(properties::gen::tested_backend_indices()),
                                            ::testing::ValuesIn(properties::gen::tested_backend_indices())),
                         [](const auto& info) {
                           return og::all_backends()[std::get<0>(info.param)].name + "_" + og::all_backends()[std::get<1>(info.param)].name;
                         });

}  // namespace
