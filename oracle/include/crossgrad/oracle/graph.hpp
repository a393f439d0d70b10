#pragma once
// Small computation graphs as plain values: leaves plus a list of ops over earlier values. Used to
// produce Gradients with several entries, for differential checks against the reference backend
// and for finite differences.
#include <crossgrad/oracle/spec.hpp>

#include <crossgrad/autodiff/gradients.hpp>
#include <crossgrad/dispatch/kind.hpp>
#include <crossgrad/ops/op_list.hpp>

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace crossgrad::oracle {

// The oracle's ops are the engine's registry ops (Note [The op registry]): Op is OpId, so a new
// registry op is an Op here too and every per-op table of the oracle (result shapes, bounds,
// probes, reference formulas) that switches over it fails to compile until it says what the new
// op means. What an op *does* stays written here independently of the engine.
using Op = ::crossgrad::OpId;
// False for a reserved code (past the registry's last op), which only a stored input can hold.
bool is_op_code(Op op);
std::string_view op_name(Op op);
// The ops a graph step can be: float -> float ops with a backward rule (not float_cast: a graph
// has one dtype), in registry order.
const std::vector<Op>& all_ops();
bool is_graph_op(Op op);
// Graph steps that read a second value (rhs): binary ops, float_cat (lhs, rhs), float_select_assign,
// float_select_add and float_scatter_add (values = rhs).
bool is_binary(Op op);
// Stored op codes (fuzz inputs): the code is the OpId value; codes past the registry's last op are
// reserved for ops appended later (Note [The op registry]) and decode as not an op.
// 64 until issue 36's comparisons took the registry past 63 ops, 128 until issue 37's int ops took
// it past 127, 256 until issue 38's convolutions took it past 251: 512 since, two bytes (low byte
// first, io.hpp), so a stored code below 256 reads as the byte it was followed by a zero. The hop
// moved from 63 to 127 to 255 to 511; each growth re-encoded every stored input (see the commits:
// decoded under the old width, written under the new one, matched by fuzz/scripts/corpus-meaning).
inline constexpr std::size_t kOpCodeSpace = 512;
static_assert(::crossgrad::kOpCount <= kOpCodeSpace, "grow kOpCodeSpace (and re-encode stored inputs)");

// A hop (CONTRACT section 7): a graph step that moves value `lhs` to backend `rhs` (a registry
// index, modulo all_backends().size(), the backends the engine knows) through
// Dispatch::float_to_device, keeping the autodiff graph. Same shape, dtype and data bit for bit.
// It is the last reserved code, given a meaning by the oracle only: not a registry op (the
// registry appends from kOpCount upward), not in all_ops(), but a graph step (is_graph_op). Every
// per-op table tests is_hop before its switch over Op. op_name(kHopOp) == "to_backend".
inline constexpr Op kHopOp = static_cast<Op>(kOpCodeSpace - 1);
static_assert(::crossgrad::kOpCount < kOpCodeSpace, "the hop code must stay reserved");
bool is_hop(Op op);

// One step: operands index the values so far (leaves first, then earlier steps), taken modulo
// their count. `scalar` for the *_scalar ops; `dim` (modulo rank) for the dim ops; Reshape
// flattens to [n]. The ops with structured arguments take them from these fields, by the oracle's
// own conventions (args_of in graph.cpp): clamp to [|scalar| / 2, 2 |scalar|] (both bounds within
// reach of the positive values finite differences use); cat lhs and rhs along
// dim; slice dim from dim1 % (size + 1) to the end; slice_assign rhs into the last rhs[dim]
// elements of dim; select indices {j, 0, j} with j = dim1 % size;
// select_assign / select_add rhs as values at indices (dim1 + i) % size; gather and scatter_add
// one index per element (args_of in graph.cpp); scatter as scatter_add, Assign for an even dim1
// and Add for an odd one; gather_nd 3 rows of min(rank, 1 + dim1 % 2) coordinates; scatter_nd
// rhs [m] + lhs[k..] as values at m rows (pairs of rows on one block), Assign or Add as scatter's;
// permute rotates the dims by dim1;
// flip reverses the dims whose bit is set in dim1 (dim1 % 2^rank); hard_sigmoid takes alpha =
// scalar and beta = 1/2; repeat_dim repeats dim 1 + dim1 % 3 times; unfold takes windows of
// 1 + dim1 % 3 every 1 + (dim1 % 6) / 3 along dim; mask_where / mask_fill / mask_select take a
// mask true at every third element from dim1 % 3;
// expand prepends a dim of 2 and widens a size-1 dim `dim` to 3; avg_pool2d takes kernel_size
// {1 + dim1 % 3, 1 + dim1 / 3 % 3}, stride {1 + dim1 / 9 % 2, 1 + dim1 / 18 % 2}, half the kernel as
// padding when dim1 / 36 is odd, count_include_pad when dim1 / 72 is even and ceil_mode when
// dim1 / 144 is odd; adaptive_avg_pool2d pools to {1 + dim1 % 3, 1 + dim1 / 3 % 3}; max_pool2d takes
// avg_pool2d's kernel_size, stride and padding rule (half the kernel), dilation {1 + dim1 / 72 % 2,
// 1 + dim1 / 144 % 2} and ceil_mode when dim1 / 288 is odd; embedding reads a rank-2 lhs (the
// table) at indices [2, 3], position p at row (dim1 + p / 2) % rows.
// layer_norm normalises lhs over its last dim with rhs as the weight, no bias and epsilon 1/16;
// batch_norm takes rhs [channels] as weight, bias, mean and variance, epsilon 1/16;
// attention takes lhs as the query and rhs as both key and value, no mask or bias, causal when
// dim1 % 2, softcap 2 when dim1 / 2 % 2 and scale 1/2 when dim1 / 4 % 2.
struct OpSpec {
  Op op = Op::float_neg;
  std::size_t lhs = 0;
  std::size_t rhs = 0;
  double scalar = 1.0;
  std::size_t dim = 0;
  std::size_t dim1 = 0;
  friend bool operator==(const OpSpec&, const OpSpec&) = default;
};

// Leaves are float values; `dtype` (F32/F64) applies to all, `backend` to every leaf without
// its own entry in leaf_backends. Where each value lives: value_backends.
struct GraphSpec {
  std::size_t backend = 0;
  DType dtype = DType::F32;
  std::vector<std::vector<std::size_t>> leaf_shapes;
  std::vector<std::vector<double>> leaf_values;  // empty entry: deterministic fill
  std::vector<OpSpec> ops;
  // Empty: every leaf on `backend`; else one registry index per leaf. Kept last so that aggregate
  // initialisations written before it stay valid.
  std::vector<std::size_t> leaf_backends;
  friend bool operator==(const GraphSpec&, const GraphSpec&) = default;
};
std::string describe(const GraphSpec& graph);
// float_clamp's bounds for a step (the convention at OpSpec).
double clamp_min(const OpSpec& op);
double clamp_max(const OpSpec& op);
std::ostream& operator<<(std::ostream& os, const GraphSpec& graph);
std::ostream& operator<<(std::ostream& os, const OpSpec& op);

// Shape rules of CONTRACT section 6 (NumPy broadcasting, 2-D / batched matmul, keep-dim
// reductions); nullopt when the op does not apply to these shapes.
std::optional<std::vector<std::size_t>> broadcast_shape(const std::vector<std::size_t>& a,
                                                        const std::vector<std::size_t>& b);
std::optional<std::vector<std::size_t>> result_shape(const OpSpec& op, const std::vector<std::size_t>& lhs,
                                                     const std::vector<std::size_t>& rhs);
// The input a fold4d step with this dim1 folds: unfold4d's result [batch, channels k_h k_w, blocks]
// over [batch, channels, output_size] under the step's kernel and options; nullopt when the kernel
// does not fit its output size.
std::optional<std::vector<std::size_t>> fold4d_graph_input(std::size_t dim1, std::size_t batch, std::size_t channels);
// The arguments of a layer_norm and an attention step (the conventions above), for the bounds.
double graph_layer_norm_epsilon();
AttentionOptions graph_attention_options(std::size_t dim1);
// Operands resolved (modulo), dims resolved, any step whose shapes do not fit turned into Neg of
// its lhs; at least one leaf; hop targets and leaf_backends (resized to the leaf count, padded
// with `backend`) modulo all_backends().size(). Every run_* function normalises first.
GraphSpec normalized(GraphSpec graph);
// A graph that normalized() made, so the run_* overloads taking one do not normalise (copy every
// leaf's shape and values) again: a check runs one graph several times (per backend, tracked and
// not, once per finite-difference evaluation), and those copies were the largest source of
// allocations in the fuzz targets' oracle work. Reads as the GraphSpec it holds.
class NormalizedGraph {
 public:
  explicit NormalizedGraph(GraphSpec graph) : graph_(normalized(std::move(graph))) {}
  const GraphSpec& spec() const { return graph_; }
  operator const GraphSpec&() const { return graph_; }  // NOLINT: reads as the spec it holds

 private:
  GraphSpec graph_;
};
std::vector<std::vector<std::size_t>> value_shapes(const GraphSpec& normalized_graph);
// The backend each value lives on as specified: leaf i on leaf_backends[i] (or `backend`), a hop
// on its target, every other step on its lhs's backend (a binary step whose rhs lives elsewhere
// first moves rhs to lhs's backend: an implicit hop).
std::vector<std::size_t> value_backends(const GraphSpec& normalized_graph);
// Any hop step, or any leaf off `backend`.
bool has_hops(const GraphSpec& graph);
// Every backend the graph names (`backend`, leaf_backends, hop targets), sorted, no duplicates.
std::vector<std::size_t> named_backends(const GraphSpec& normalized_graph);
// Why the graph cannot run here as specified (Hops::Follow): the first backend it names that is
// not available ("Cuda: not built with CUDA"); nothing when every one is. Checks treat such a
// graph's hops as not applicable here.
std::optional<std::string> unavailable_here(const GraphSpec& normalized_graph);
// The graph whose root is root * w, with w a new leaf of the root's shape holding `weights`
// (cycled to the root's size), on `backend` (the mul's rhs hops implicitly when the root lives
// elsewhere). backward seeds the root with ones, so a graph's own gradient is
// the vector-Jacobian product with the cotangent 1: blind to whatever a backward rule gets wrong
// under a uniform cotangent (which slice of it goes where in cat, softmax's sum term: sum(softmax)
// is constant). A random cotangent w sees those. Takes a normalized graph; the result is one.
GraphSpec with_cotangent(const GraphSpec& normalized_graph, const std::vector<double>& weights);
// Per value (leaves, then one per op): whether the last value depends on it (a hop uses its lhs).
std::vector<bool> read_by_root(const GraphSpec& normalized_graph);
// Leaves the last value depends on: read_by_root's leaf entries.
std::vector<bool> used_leaves(const GraphSpec& normalized_graph);

// One step through Dispatch on already-built operands (rhs ignored by unary ops).
DispatchTensor apply_op(const OpSpec& op, const DispatchTensor& lhs, const DispatchTensor& rhs);
// Elements summed per output element (matmul: k; sum: all; others: 1).
std::size_t reduction_length(const OpSpec& op, const std::vector<std::size_t>& lhs);

// How a run treats hops. Ignore: the graph without hops, every value on the run's backend (a hop
// step passes its lhs through unchanged, leaf_backends ignored). Follow: as specified
// (value_backends), the run's backend taking graph.backend's role for leaves without their own.
enum class Hops { Follow, Ignore };

struct GraphRun {
  std::vector<DispatchTensor> leaves;
  std::vector<DispatchTensor> values;  // leaves, then one per op
  std::vector<std::size_t> backends;   // per value: the backend it was built on
  const DispatchTensor& root() const { return values.back(); }
};
// Builds the leaves (tracked: on Autodiff(device)) with `dtype` and runs the ops through
// Dispatch. Panics propagate.
GraphRun run_graph(const GraphSpec& graph, std::size_t backend, DType dtype, bool tracked, Hops hops = Hops::Ignore);
// The same without normalising again; leaf_values, when given, replaces the graph's own leaf values
// (an entry per leaf; a missing one, or one whose size is not its leaf's element count, means the
// deterministic fill, as normalized() would have it).
GraphRun run_graph(const NormalizedGraph& graph, std::size_t backend, DType dtype, bool tracked, Hops hops = Hops::Ignore,
                   const std::vector<std::vector<double>>* leaf_values = nullptr);
// The root of the graph with leaf `leaf` holding `leaf_values` instead, where `base` is
// run_graph(graph, backend, dtype, untracked, Hops::Ignore, ...) at the other values: only the ops
// that depend on that leaf and that the root reads run again; every other value is base's. The
// kernels are deterministic, so the root equals a full run's bit for bit; finite differences move
// one element at a time and need nothing else (Note [Finite differences rerun what a step reaches]
// in numeric.cpp).
DispatchTensor rerun_root(const NormalizedGraph& graph, const GraphRun& base, std::size_t backend, DType dtype,
                          std::size_t leaf, const std::vector<double>& leaf_values);
// What a step of one leaf makes rerun_root recompute: the ops that depend on the leaf and that the
// root reads, in graph order. It depends on the graph and the leaf only, so finite differences
// build it once per leaf rather than once per evaluation.
struct RerunPlan {
  std::size_t leaf = 0;
  std::vector<std::size_t> ops;  // indices into graph.ops
  bool root_changes = false;     // whether the root depends on the leaf at all
};
RerunPlan rerun_plan(const NormalizedGraph& graph, std::size_t leaf);
// rerun_root with the plan of its leaf built beforehand (plan = rerun_plan(graph, leaf)).
DispatchTensor rerun_root(const NormalizedGraph& graph, const GraphRun& base, std::size_t backend, DType dtype,
                          const RerunPlan& plan, const std::vector<double>& leaf_values);
// backward of the root; also returns the run (leaves hold the node ids). graph_gradients: Follow
// on graph.backend (a spanning graph's backward).
struct GraphGradients {
  GraphRun run;
  Gradients grads;
};
GraphGradients graph_gradients(const GraphSpec& graph);
GraphGradients graph_gradients(const NormalizedGraph& graph);
GraphGradients graph_gradients_on(const GraphSpec& graph, std::size_t backend, DType dtype, Hops hops = Hops::Ignore);
GraphGradients graph_gradients_on(const NormalizedGraph& graph, std::size_t backend, DType dtype, Hops hops = Hops::Ignore);

}  // namespace crossgrad::oracle
