// ops_differential_fuzzer: bytes -> a small op DAG run on every available
// backend, forward and backward, compared with the reference backend within the
// oracle's per-op bounds (F64 graphs optionally against finite differences),
// plus single-op probes of the documented op panics.
#include <cmath>
#include <crossgrad/dispatch/dispatch.hpp>
#include <crossgrad/oracle/op_probe.hpp>

#include "decode/scenarios.hpp"
#include "targets/panic_ids.hpp"
#include "targets/targets.hpp"

namespace crossgrad::fuzz {
namespace {

OpsCase decode(Bytes bytes) {
  return decode_with<OpsCase>(bytes, [](auto &io, auto &x) { schema(io, x); });
}

// Finite differences judge a gradient only where the objective is smooth: a graph whose forward
// values (reference backend, F64) include inf or NaN, or that applies relu to an exact 0 (its
// kink: backward says 0, central differences 0.5), is skipped. The oracle's finite_differences
// does not filter these itself (reported to its owner).
bool smooth_here(const oracle::GraphSpec& graph) {
  const oracle::GraphSpec g = oracle::normalized(graph);
  const oracle::GraphRun run = oracle::run_graph(g, oracle::reference_backend(), DType::F64, false);
  std::vector<std::vector<double>> values;
  for (const DispatchTensor& v : run.values) {
    values.push_back(Dispatch::float_into_data(v).to_f64());
    for (double x : values.back()) {
      if (!std::isfinite(x)) return false;
    }
  }
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    if (g.ops[i].op != oracle::Op::Relu || g.ops[i].lhs >= values.size()) continue;
    for (double x : values[g.ops[i].lhs]) {
      if (x == 0.0) return false;
    }
  }
  return true;
}

void run(Bytes bytes, Outcome &out) {
  const OpsCase c = decode(bytes);
  require(oracle::check_graph_differential(c.graph), "differential");
  require(oracle::check_backward_entries(c.graph), "backward entries");
  out.log.push_back("graph: forward and backward agree with the reference on every backend");
  if (c.finite_differences && c.graph.dtype == DType::F64 && smooth_here(c.graph)) {
    require(oracle::check_graph_finite_differences(c.graph), "finite differences");
    out.log.push_back("graph: backward agrees with finite differences");
  }
  for (const oracle::OpProbe &p : c.probes) {
    std::optional<std::string> reached;
    require(oracle::check_op_probe(p, &reached), "probe");
    note_expected(out, reached, "probe");
    out.log.push_back("probe " + oracle::describe(p) + " -> " + (reached ? "panic " + *reached : std::string("ok")));
  }
}

std::string describe_bytes(Bytes bytes) { return describe(decode(bytes)); }

}  // namespace

const Target kOpsDifferentialTarget{"ops_differential_fuzzer", &describe_bytes, &run};

}  // namespace crossgrad::fuzz
