#pragma once
// Note [Every gradient fits its leaf]
// After every backward the oracle runs on a graph (graph_gradients_on, which the properties, the
// corpus replay and the graph fuzz targets all go through), each leaf's gradient must be a float
// tensor of exactly the leaf's shape and dtype, on the leaf's device of the leaf's backend (not
// autodiff, no other kind). The expectation comes from the graph spec and the run's own choice of
// backend per leaf, never from the engine; a misfit is thrown as GradientMisfit, which the checks'
// outcome_of reports as an unexpected exception and the fuzz targets as a crash. The engine checks
// what each backward rule returns (Note [Backward checks what rules return]); this check does not
// rely on it.
#include <crossgrad/oracle/checks.hpp>
#include <crossgrad/oracle/graph.hpp>

#include <stdexcept>
#include <string>

namespace crossgrad::oracle {

class GradientMisfit : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// The first leaf of `run` whose gradient in `grads` does not fit it, described; nothing when every
// gradient present fits (a leaf the root does not depend on has none, and that is not checked here).
Failure gradient_misfit(const GraphSpec& normalized_graph, const GraphRun& run, const Gradients& grads, DType dtype);

}  // namespace crossgrad::oracle
