#pragma once
// Small computation graphs as plain values: leaves plus a list of ops over earlier values. Used to
// produce Gradients with several entries, for differential checks against the reference backend
// and for finite differences.
#include <crossgrad/oracle/spec.hpp>

#include <crossgrad/autodiff/gradients.hpp>
#include <crossgrad/dispatch/kind.hpp>

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace crossgrad::oracle {

#define CROSSGRAD_ORACLE_OPS(X)                                                            \
  X(Add) X(Sub) X(Mul) X(Div) X(Matmul)                                                    \
  X(Neg) X(Exp) X(Log) X(Sqrt) X(Tanh) X(Relu) X(Sigmoid)                                  \
  X(PowfScalar) X(AddScalar) X(MulScalar)                                                  \
  X(Sum) X(Mean) X(SumDim) X(MeanDim) X(Reshape) X(SwapDims)

enum class Op {
#define CROSSGRAD_X(name) name,
  CROSSGRAD_ORACLE_OPS(CROSSGRAD_X)
#undef CROSSGRAD_X
};
std::string_view op_name(Op op);
const std::vector<Op>& all_ops();
bool is_binary(Op op);

// One step: operands index the values so far (leaves first, then earlier steps), taken modulo
// their count. `scalar` for the *Scalar ops, `dim`/`dim1` for SumDim/MeanDim/SwapDims (modulo
// rank), Reshape flattens to [n].
struct OpSpec {
  Op op = Op::Neg;
  std::size_t lhs = 0;
  std::size_t rhs = 0;
  double scalar = 1.0;
  std::size_t dim = 0;
  std::size_t dim1 = 0;
  friend bool operator==(const OpSpec&, const OpSpec&) = default;
};

// Leaves are float values on one backend; `backend` and `dtype` (F32/F64) apply to all.
struct GraphSpec {
  std::size_t backend = 0;
  DType dtype = DType::F32;
  std::vector<std::vector<std::size_t>> leaf_shapes;
  std::vector<std::vector<double>> leaf_values;  // empty entry: deterministic fill
  std::vector<OpSpec> ops;
  friend bool operator==(const GraphSpec&, const GraphSpec&) = default;
};
std::string describe(const GraphSpec& graph);
std::ostream& operator<<(std::ostream& os, const GraphSpec& graph);
std::ostream& operator<<(std::ostream& os, const OpSpec& op);

// Shape rules of CONTRACT section 6 (NumPy broadcasting, 2-D / batched matmul, keep-dim
// reductions); nullopt when the op does not apply to these shapes.
std::optional<std::vector<std::size_t>> broadcast_shape(const std::vector<std::size_t>& a,
                                                        const std::vector<std::size_t>& b);
std::optional<std::vector<std::size_t>> result_shape(const OpSpec& op, const std::vector<std::size_t>& lhs,
                                                     const std::vector<std::size_t>& rhs);
// Operands resolved (modulo), dims resolved, any step whose shapes do not fit turned into Neg of
// its lhs; at least one leaf. Every run_* function normalises first.
GraphSpec normalized(GraphSpec graph);
std::vector<std::vector<std::size_t>> value_shapes(const GraphSpec& normalized_graph);
// Leaves the last value depends on.
std::vector<bool> used_leaves(const GraphSpec& normalized_graph);

// One step through Dispatch on already-built operands (rhs ignored by unary ops).
DispatchTensor apply_op(const OpSpec& op, const DispatchTensor& lhs, const DispatchTensor& rhs);
// Elements summed per output element (matmul: k; sum: all; others: 1).
std::size_t reduction_length(const OpSpec& op, const std::vector<std::size_t>& lhs);

struct GraphRun {
  std::vector<DispatchTensor> leaves;
  std::vector<DispatchTensor> values;  // leaves, then one per op
  const DispatchTensor& root() const { return values.back(); }
};
// Builds the leaves on `backend` (tracked: on Autodiff(device)) with `dtype` and runs the ops
// through Dispatch. Panics propagate.
GraphRun run_graph(const GraphSpec& graph, std::size_t backend, DType dtype, bool tracked);
// backward of the root on graph.backend; also returns the run (leaves hold the node ids).
struct GraphGradients {
  GraphRun run;
  Gradients grads;
};
GraphGradients graph_gradients(const GraphSpec& graph);
GraphGradients graph_gradients_on(const GraphSpec& graph, std::size_t backend, DType dtype);

}  // namespace crossgrad::oracle
