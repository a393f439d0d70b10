// ops_differential_fuzzer: bytes -> a small op DAG run on every available
// backend, forward and backward, compared with the reference backend within the
// oracle's per-op bounds (F64 graphs optionally against finite differences),
// plus single-op probes of the documented op panics.
#include <crossgrad/dispatch/dispatch.hpp>
#include <crossgrad/oracle/op_probe.hpp>

#include "decode/scenarios.hpp"
#include "targets/panic_ids.hpp"
#include "targets/targets.hpp"

namespace crossgrad::fuzz {
namespace {

Decoded<OpsCase> decode(Bytes bytes) {
  return decode_noting_uses<OpsCase>(bytes, [](auto &io, auto &x) { schema(io, x); });
}

void run(Bytes bytes, Outcome &out) {
  const Decoded<OpsCase> decoded = decode(bytes);
  if (skip_unless_applicable(decoded.uses, out)) return;
  const OpsCase &c = decoded.scenario;
  // Both checks; a graph on one backend shares one backward run between them.
  const oracle::GraphVerdicts graph = oracle::check_graph_differential_and_entries(c.graph);
  require(graph.differential, "differential");
  require(graph.entries, "backward entries");
  out.note([] { return std::string("graph: forward and backward agree with the reference on every backend"); });
  if (c.finite_differences && c.graph.dtype == DType::F64) {
    // On a bounded sample of elements drawn from the scenario (oracle::FdBudget), so a graph of
    // the decoder's maximum sizes fits the fuzzer's time limit under ASan.
    const oracle::FdVerdict fd = oracle::judge_graph_finite_differences(c.graph);
    require(fd.failure, "finite differences");
    out.note([&] {
      return "graph: backward agrees with finite differences on " + std::to_string(fd.judged) + " of " +
             std::to_string(fd.sampled) + " sampled elements" +
             (fd.judged == 0 ? " (not judged: " + fd.not_judged + ")" : std::string());
    });
  }
  for (const oracle::OpProbe &p : c.probes) {
    std::optional<std::string> reached;
    require(oracle::check_op_probe(p, &reached), "probe");
    note_expected(out, reached, "probe");
    out.note([&] { return "probe " + oracle::describe(p) + " -> " + (reached ? "panic " + *reached : std::string("ok")); });
  }
}

std::string describe_bytes(Bytes bytes) { return describe(decode(bytes).scenario); }

}  // namespace

const Target kOpsDifferentialTarget{"ops_differential_fuzzer", &describe_bytes, &run};

}  // namespace crossgrad::fuzz
