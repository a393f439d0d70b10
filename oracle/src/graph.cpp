#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/graph.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/render.hpp>

#include <crossgrad/dispatch/dispatch.hpp>

#include <sstream>

namespace crossgrad::oracle {

std::string_view op_name(Op op) {
  switch (op) {
#define CROSSGRAD_X(name) \
  case Op::name:          \
    return #name;
    CROSSGRAD_ORACLE_OPS(CROSSGRAD_X)
#undef CROSSGRAD_X
  }
  return "?";
}

const std::vector<Op>& all_ops() {
  static const std::vector<Op> ops = {
#define CROSSGRAD_X(name) Op::name,
      CROSSGRAD_ORACLE_OPS(CROSSGRAD_X)
#undef CROSSGRAD_X
  };
  return ops;
}

bool is_binary(Op op) {
  return op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::Div || op == Op::Matmul;
}

std::ostream& operator<<(std::ostream& os, const OpSpec& op) {
  os << op_name(op.op) << "(v" << op.lhs;
  if (is_binary(op.op)) os << ", v" << op.rhs;
  if (op.op == Op::PowfScalar || op.op == Op::AddScalar || op.op == Op::MulScalar) os << ", " << op.scalar;
  if (op.op == Op::SumDim || op.op == Op::MeanDim) os << ", dim " << op.dim;
  if (op.op == Op::SwapDims) os << ", " << op.dim << ", " << op.dim1;
  return os << ")";
}

std::string describe(const GraphSpec& graph) {
  std::ostringstream os;
  os << "Graph{backend#" << graph.backend << " " << render_dtype(graph.dtype) << "; ";
  for (std::size_t i = 0; i < graph.leaf_shapes.size(); ++i) {
    os << "v" << i << "=leaf" << render_shape(graph.leaf_shapes[i]);
    if (i < graph.leaf_values.size() && !graph.leaf_values[i].empty()) {
      os << "{";
      for (std::size_t j = 0; j < graph.leaf_values[i].size(); ++j) os << (j ? ", " : "") << graph.leaf_values[i][j];
      os << "}";
    }
    os << "; ";
  }
  for (std::size_t k = 0; k < graph.ops.size(); ++k) os << "v" << graph.leaf_shapes.size() + k << "=" << graph.ops[k] << "; ";
  os << "}";
  return os.str();
}
std::ostream& operator<<(std::ostream& os, const GraphSpec& graph) { return os << describe(graph); }

std::optional<std::vector<std::size_t>> broadcast_shape(const std::vector<std::size_t>& a,
                                                        const std::vector<std::size_t>& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  std::vector<std::size_t> out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::size_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const std::size_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::optional<std::vector<std::size_t>> result_shape(const OpSpec& op, const std::vector<std::size_t>& lhs,
                                                     const std::vector<std::size_t>& rhs) {
  switch (op.op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div:
      return broadcast_shape(lhs, rhs);
    case Op::Matmul: {
      if (lhs.size() < 2 || rhs.size() < 2) return std::nullopt;
      if (lhs[lhs.size() - 1] != rhs[rhs.size() - 2]) return std::nullopt;
      auto batch = broadcast_shape(std::vector<std::size_t>(lhs.begin(), lhs.end() - 2),
                                   std::vector<std::size_t>(rhs.begin(), rhs.end() - 2));
      if (!batch) return std::nullopt;
      batch->push_back(lhs[lhs.size() - 2]);
      batch->push_back(rhs[rhs.size() - 1]);
      return batch;
    }
    case Op::Neg:
    case Op::Exp:
    case Op::Log:
    case Op::Sqrt:
    case Op::Tanh:
    case Op::Relu:
    case Op::Sigmoid:
    case Op::PowfScalar:
    case Op::AddScalar:
    case Op::MulScalar:
      return lhs;
    case Op::Sum:
    case Op::Mean:
      return std::vector<std::size_t>{1};
    case Op::SumDim:
    case Op::MeanDim: {
      if (op.dim >= lhs.size()) return std::nullopt;
      auto out = lhs;
      out[op.dim] = 1;
      return out;
    }
    case Op::Reshape:
      return std::vector<std::size_t>{element_count(lhs)};
    case Op::SwapDims: {
      if (op.dim >= lhs.size() || op.dim1 >= lhs.size()) return std::nullopt;
      auto out = lhs;
      std::swap(out[op.dim], out[op.dim1]);
      return out;
    }
  }
  return std::nullopt;
}

std::size_t reduction_length(const OpSpec& op, const std::vector<std::size_t>& lhs) {
  if (op.op == Op::Matmul) return lhs.empty() ? 1 : lhs.back();
  if (op.op == Op::Sum || op.op == Op::Mean) return element_count(lhs);
  if (op.op == Op::SumDim || op.op == Op::MeanDim) return op.dim < lhs.size() ? lhs[op.dim] : 1;
  return 1;
}

GraphSpec normalized(GraphSpec graph) {
  if (graph.leaf_shapes.empty()) graph.leaf_shapes.push_back({});
  graph.leaf_values.resize(graph.leaf_shapes.size());
  for (std::size_t i = 0; i < graph.leaf_shapes.size(); ++i) {
    if (graph.leaf_values[i].size() != element_count(graph.leaf_shapes[i])) graph.leaf_values[i].clear();
  }
  std::vector<std::vector<std::size_t>> shapes = graph.leaf_shapes;
  for (OpSpec& op : graph.ops) {
    const std::size_t count = shapes.size();
    op.lhs %= count;
    op.rhs = is_binary(op.op) ? op.rhs % count : 0;
    const std::size_t rank = shapes[op.lhs].size();
    if (op.op == Op::SumDim || op.op == Op::MeanDim || op.op == Op::SwapDims) {
      op.dim = rank ? op.dim % rank : 0;
      op.dim1 = op.op == Op::SwapDims && rank ? op.dim1 % rank : 0;
    } else {
      op.dim = op.dim1 = 0;
    }
    auto shape = result_shape(op, shapes[op.lhs], shapes[op.rhs]);
    if (!shape) {
      op = OpSpec{Op::Neg, op.lhs, 0, 1.0, 0, 0};
      shape = shapes[op.lhs];
    }
    shapes.push_back(*shape);
  }
  return graph;
}

std::vector<std::vector<std::size_t>> value_shapes(const GraphSpec& g) {
  std::vector<std::vector<std::size_t>> shapes = g.leaf_shapes;
  for (const OpSpec& op : g.ops) shapes.push_back(*result_shape(op, shapes[op.lhs], shapes[op.rhs]));
  return shapes;
}

std::vector<bool> used_leaves(const GraphSpec& g) {
  const std::size_t n = g.leaf_shapes.size() + g.ops.size();
  std::vector<bool> live(n, false);
  live[n - 1] = true;
  for (std::size_t k = g.ops.size(); k-- > 0;) {
    if (!live[g.leaf_shapes.size() + k]) continue;
    live[g.ops[k].lhs] = true;
    if (is_binary(g.ops[k].op)) live[g.ops[k].rhs] = true;
  }
  live.resize(g.leaf_shapes.size());
  return live;
}

DispatchTensor apply_op(const OpSpec& op, const DispatchTensor& lhs, const DispatchTensor& rhs) {
  switch (op.op) {
    case Op::Add: return Dispatch::float_add(lhs, rhs);
    case Op::Sub: return Dispatch::float_sub(lhs, rhs);
    case Op::Mul: return Dispatch::float_mul(lhs, rhs);
    case Op::Div: return Dispatch::float_div(lhs, rhs);
    case Op::Matmul: return Dispatch::float_matmul(lhs, rhs);
    case Op::Neg: return Dispatch::float_neg(lhs);
    case Op::Exp: return Dispatch::float_exp(lhs);
    case Op::Log: return Dispatch::float_log(lhs);
    case Op::Sqrt: return Dispatch::float_sqrt(lhs);
    case Op::Tanh: return Dispatch::float_tanh(lhs);
    case Op::Relu: return Dispatch::relu(lhs);
    case Op::Sigmoid: return Dispatch::sigmoid(lhs);
    case Op::PowfScalar: return Dispatch::float_powf_scalar(lhs, op.scalar);
    case Op::AddScalar: return Dispatch::float_add_scalar(lhs, op.scalar);
    case Op::MulScalar: return Dispatch::float_mul_scalar(lhs, op.scalar);
    case Op::Sum: return Dispatch::float_sum(lhs);
    case Op::Mean: return Dispatch::float_mean(lhs);
    case Op::SumDim: return Dispatch::float_sum_dim(lhs, op.dim);
    case Op::MeanDim: return Dispatch::float_mean_dim(lhs, op.dim);
    case Op::Reshape: return Dispatch::float_reshape(lhs, Shape{element_count(Dispatch::float_into_data(lhs).shape().dims())});
    case Op::SwapDims: return Dispatch::float_swap_dims(lhs, op.dim, op.dim1);
  }
  return lhs;
}

GraphRun run_graph(const GraphSpec& graph, std::size_t backend, DType dtype, bool tracked) {
  const GraphSpec g = normalized(graph);
  GraphRun run;
  const DispatchDevice device = dispatch_device(backend, all_backends().at(backend).default_device, tracked);
  for (std::size_t i = 0; i < g.leaf_shapes.size(); ++i) {
    TensorSpec leaf = tensor_on(backend, PrimitiveKind::Float, g.leaf_shapes[i], dtype, g.leaf_values[i]);
    run.leaves.push_back(Dispatch::float_from_data(leaf_data(leaf), device));
    run.values.push_back(run.leaves.back());
  }
  for (const OpSpec& op : g.ops) run.values.push_back(apply_op(op, run.values[op.lhs], run.values[op.rhs]));
  return run;
}

GraphGradients graph_gradients_on(const GraphSpec& graph, std::size_t backend, DType dtype) {
  GraphRun run = run_graph(graph, backend, dtype, true);
  Gradients grads = Dispatch::backward(run.root());
  return {std::move(run), std::move(grads)};
}

GraphGradients graph_gradients(const GraphSpec& graph) { return graph_gradients_on(graph, graph.backend, graph.dtype); }

}  // namespace crossgrad::oracle
