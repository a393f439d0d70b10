#pragma once
// Numeric references: per-op, per-dtype error bounds against the reference backend, value
// comparison with NaN/inf/±0 rules, and central finite differences in F64.
#include <crossgrad/oracle/graph.hpp>

#include <crossgrad/core/tensor_data.hpp>

#include <optional>
#include <string>
#include <vector>

namespace crossgrad::oracle {

// |actual - reference| <= abs + rel * |reference|; `exact` means equal values (±0 equal, any
// NaN equals any NaN, infinities by sign).
struct Bound {
  double abs = 0;
  double rel = 0;
  bool exact = true;
};
double epsilon_of(DType dtype);
// reduction_length: elements summed per output (matmul: k); magnitude: the largest |input|
// (matmul: product of the operands' largest magnitudes).
Bound bound_for(Op op, DType dtype, std::size_t reduction_length, double magnitude);
// A graph: the bound of its loosest op, scaled by its depth.
Bound bound_for_graph(const GraphSpec& normalized_graph, DType dtype);

std::optional<std::string> compare_values(const TensorData& reference, const TensorData& actual,
                                          const Bound& bound, std::string_view what);

// f(leaf values) = sum of the root's elements, computed in F64 on the reference backend.
double graph_objective_f64(const GraphSpec& normalized_graph, const std::vector<std::vector<double>>& leaves);
// Central differences (f(x+h) - f(x-h)) / 2h per leaf element, h = step * max(1, |x|). An entry
// is nullopt where f is not smooth enough there to judge (non-finite values, the h and h/2
// estimates disagree, or the one-sided slopes at h/2 disagree: a kink such as relu's within reach).
std::vector<std::vector<std::optional<double>>> finite_differences(const GraphSpec& normalized_graph,
                                                                   double step = 1e-5);

}  // namespace crossgrad::oracle
