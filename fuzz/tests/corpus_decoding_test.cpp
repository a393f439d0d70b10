// Every committed corpus file means the same scenario on every machine (Note [Backend bytes name
// registry indices]): each file of every target is decoded under the registry as it is here and
// under registry views with other backends available (every backend with two devices; Cuda not
// built), and the decoded scenarios — and the backends and devices they name — must be identical.
// Only whether the scenario can run differs: under the everything-available view every file is
// applicable.
#include <gtest/gtest.h>

#include <algorithm>
#include <crossgrad/backends/registry.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "decode/op_args.hpp"
#include "decode/remote_protocol.hpp"
#include "decode/scenarios.hpp"
#include "decode/tensor_data.hpp"
#include "harness/target.hpp"

namespace crossgrad::fuzz {
namespace {

namespace fs = std::filesystem;
using oracle::BackendRef;
using oracle::ScopedAvailabilityView;

std::vector<std::uint8_t> read(const fs::path &f) {
  std::ifstream in(f, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<fs::path> corpus_files(const std::string &target) {
  std::vector<fs::path> files;
  const fs::path dir = fs::path(CROSSGRAD_CORPUS_DIR) / target;
  if (!fs::is_directory(dir)) return files;
  for (const auto &e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename().string().rfind('.', 0) != 0) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A decoding under the current view.
template <class S>
struct DecodedView {
  S scenario;
  std::vector<BackendUse> uses;
  bool applicable = false;
};

// Two scenarios are the same when the writer writes the same bytes for them and they read the same
// (operator== alone would call a scenario holding NaN different from itself).
template <class S>
bool same_scenario(const S &a, const S &b) {
  auto schema_of = [](auto &io, auto &x) { schema(io, x); };
  return encode_with(a, schema_of) == encode_with(b, schema_of) && describe(a) == describe(b);
}
template <class S>
DecodedView<S> decode_here(const std::vector<std::uint8_t> &bytes) {
  const Decoded<S> d = decode_noting_uses<S>(Bytes(bytes), [](auto &io, auto &x) { schema(io, x); });
  Outcome scratch;
  return {d.scenario, d.uses, !skip_unless_applicable(d.uses, scratch)};
}

// The registry here with Cuda not built (a CPU-only build of this machine).
std::vector<BackendRef> cuda_not_built() {
  std::vector<BackendRef> view = oracle::all_backends();
  for (BackendRef &ref : view) {
    if (ref.name != "Cuda") continue;
    ref.built = false;
    ref.available = false;
    ref.unavailable_reason = "not built with CUDA";
    ref.device_count = 0;
  }
  return view;
}

// For one target's files: the decodings under each view agree apart from applicability.
// Returns the number of files checked.
template <class S>
std::size_t check_target(const std::string &target) {
  std::size_t checked = 0;
  for (const fs::path &f : corpus_files(target)) {
    const std::vector<std::uint8_t> bytes = read(f);
    const DecodedView<S> here = decode_here<S>(bytes);
    DecodedView<S> everything, cpu_only;
    {
      ScopedAvailabilityView view(ScopedAvailabilityView::everything_available());
      everything = decode_here<S>(bytes);
    }
    {
      ScopedAvailabilityView view(cuda_not_built());
      cpu_only = decode_here<S>(bytes);
    }
    EXPECT_TRUE(same_scenario(everything.scenario, here.scenario)) << f << " decodes differently when every backend is available";
    EXPECT_EQ(everything.uses, here.uses) << f << " names other backends when every backend is available";
    EXPECT_TRUE(same_scenario(cpu_only.scenario, here.scenario)) << f << " decodes differently without Cuda built";
    EXPECT_EQ(cpu_only.uses, here.uses) << f << " names other backends without Cuda built";
    EXPECT_TRUE(everything.applicable) << f << " is not applicable even where every backend is available";
    // The mutator encodes a decoded input in place (Note [The mutator does not copy scenarios]):
    // the writer must leave a decoded scenario as it found it.
    S written = here.scenario;
    (void)encode_in_place(written, [](auto &io, auto &x) { schema(io, x); });
    EXPECT_EQ(describe(written), describe(here.scenario)) << f << ": writing the decoded scenario changed it";
    ++checked;
  }
  return checked;
}

const std::map<std::string, std::function<std::size_t(const std::string &)>> &checkers() {
  static const std::map<std::string, std::function<std::size_t(const std::string &)>> table{
      {"grad_replace_fuzzer", check_target<GradReplaceCase>},
      {"ops_differential_fuzzer", check_target<OpsCase>},
      {"gradients_api_fuzzer", check_target<CommandSequence>},
      {"tensor_data_fuzzer", check_target<TensorDataScenario>},
      {"op_args_fuzzer", check_target<op_args::OpArgsCase>},
      {"remote_protocol_fuzzer", check_target<remote_protocol::ProtocolCase>},
  };
  return table;
}

TEST(CorpusDecoding, EveryFileDecodesTheSameUnderEveryAvailabilityView) {
  std::size_t total = 0;
  for (const Target &t : all_targets()) {
    const auto it = checkers().find(std::string(t.name));
    ASSERT_NE(it, checkers().end()) << "no scenario type for target " << t.name << ": add it to checkers()";
    const std::size_t n = it->second(std::string(t.name));
    EXPECT_GT(n, 0u) << "corpus/" << t.name << " is empty";
    total += n;
  }
  std::printf("decoded %zu corpus files under three registry views\n", total);
}

// A backend byte names a registry index whatever is available: the same byte is Cuda in a view
// without Cuda and in one with it, and is reported not applicable only where Cuda cannot run.
TEST(CorpusDecoding, BackendByteIsTheRegistryIndex) {
  const std::vector<std::uint8_t> cuda_probe = {0, 0, 0, 1, 0, 2, 0, 0};  // FromBytes, dtype #0, rank 0, one probe on backend byte 2
  const auto here = decode_here<TensorDataScenario>(cuda_probe);
  ASSERT_EQ(here.scenario.probes.size(), 1u);
  EXPECT_EQ(here.scenario.probes[0].backend, 2u);
  EXPECT_EQ(kKnownBackends[2].name, "Cuda");
  {
    ScopedAvailabilityView view(ScopedAvailabilityView::everything_available());
    const auto everything = decode_here<TensorDataScenario>(cuda_probe);
    EXPECT_TRUE(same_scenario(everything.scenario, here.scenario));
    EXPECT_TRUE(everything.applicable);
  }
  {
    ScopedAvailabilityView view(cuda_not_built());
    const auto cpu_only = decode_here<TensorDataScenario>(cuda_probe);
    EXPECT_TRUE(same_scenario(cpu_only.scenario, here.scenario));
    EXPECT_FALSE(cpu_only.applicable);
  }
}

template <class S>
bool uses_backend(const DecodedView<S> &d, std::size_t backend) {
  return std::find(d.uses.begin(), d.uses.end(), BackendUse{backend, 0}) != d.uses.end();
}

// Every backend a graph names through a hop target or a leaf backend is a backend use (issue 14),
// in each scenario with graphs: a scenario whose graph hops to Cuda, or has a leaf on Cuda, is
// decoded the same everywhere and is not applicable where Cuda cannot run (never remapped).
template <class S>
void expect_names_cuda(const S &s, const std::string &what) {
  const std::size_t cuda = 2;
  ASSERT_EQ(kKnownBackends[cuda].name, "Cuda");
  const std::vector<std::uint8_t> bytes = encode_with(s, [](auto &io, auto &x) { schema(io, x); });
  const auto here = decode_here<S>(bytes);
  // (The reader fills in what the writer does not write, such as a tensor's backend name, so the
  // decoding is compared with `s` through the bytes it writes.)
  EXPECT_EQ(encode_with(here.scenario, [](auto &io, auto &x) { schema(io, x); }), bytes) << what;
  EXPECT_TRUE(uses_backend(here, cuda)) << what << ": Cuda is not counted as a backend use";
  {
    ScopedAvailabilityView view(ScopedAvailabilityView::everything_available());
    EXPECT_TRUE(decode_here<S>(bytes).applicable) << what;
  }
  {
    ScopedAvailabilityView view(cuda_not_built());
    const auto cpu_only = decode_here<S>(bytes);
    EXPECT_TRUE(same_scenario(cpu_only.scenario, here.scenario)) << what;
    EXPECT_EQ(cpu_only.uses, here.uses) << what;
    EXPECT_FALSE(cpu_only.applicable) << what << ": applicable without Cuda";
  }
}

oracle::GraphSpec two_leaf_graph(std::vector<oracle::OpSpec> ops) {
  oracle::GraphSpec g;
  g.leaf_shapes = {{2}, {2}};
  g.leaf_values = {{}, {}};
  g.ops = std::move(ops);
  return g;
}

TEST(CorpusDecoding, HopTargetsAndLeafBackendsAreBackendUses) {
  const oracle::OpSpec hop_to_cuda{oracle::kHopOp, 0, 2, 1.0, 0, 0};
  const oracle::OpSpec add{oracle::Op::float_add, 0, 1, 1.0, 0, 0};
  OpsCase hop;
  hop.graph = two_leaf_graph({hop_to_cuda});
  expect_names_cuda(hop, "ops_differential, hop to Cuda");
  OpsCase leaves;
  leaves.graph = two_leaf_graph({add});
  leaves.graph.leaf_backends = {1, 2};
  expect_names_cuda(leaves, "ops_differential, leaf on Cuda");
  CommandSequence seq;
  seq.commands.resize(3);
  seq.commands[0].kind = CommandKind::Backward;
  seq.commands[0].graph = two_leaf_graph({add});
  seq.commands[2].kind = CommandKind::Backward;
  seq.commands[2].graph = two_leaf_graph({add});
  seq.commands[2].graph.leaf_backends = {0, 2};
  expect_names_cuda(seq, "gradients_api, second graph with a leaf on Cuda");
  seq.commands[2].graph = two_leaf_graph({hop_to_cuda});
  expect_names_cuda(seq, "gradients_api, second graph hops to Cuda");
  GradReplaceCase replace;
  replace.scenario.graphs = {two_leaf_graph({add}), two_leaf_graph({add})};
  replace.scenario.graphs[1].leaf_backends = {2, 0};
  expect_names_cuda(replace, "grad_replace, second state graph with a leaf on Cuda");
}

// Leaf backends are a trailing section (Note [Trailing sections]): a file ending before it (every
// file written before hops) reads no leaf backends, and the writer writes nothing for a scenario
// without them, so its bytes are those of before the section.
TEST(CorpusDecoding, LeafBackendsAreATrailingSection) {
  OpsCase c;
  c.graph = two_leaf_graph({oracle::OpSpec{oracle::Op::float_add, 0, 1, 1.0, 0, 0}});
  auto schema_of = [](auto &io, auto &x) { schema(io, x); };
  const std::vector<std::uint8_t> old_bytes = encode_with(c, schema_of);
  ByteReader r{Bytes(old_bytes)};
  OpsCase back;
  schema(r, back);
  EXPECT_TRUE(back.graph.leaf_backends.empty());
  EXPECT_EQ(r.consumed(), old_bytes.size()) << "the writer wrote a byte the reader did not read";
  std::vector<std::uint8_t> with_flag = old_bytes;
  with_flag.push_back(1);  // flag set, leaf backends 0 0 (the exhausted reader's zeros)
  EXPECT_EQ(decode_with<OpsCase>(Bytes(with_flag), schema_of).graph.leaf_backends, (std::vector<std::size_t>{0, 0}));
  c.graph.leaf_backends = {0, 0};
  EXPECT_EQ(encode_with(c, schema_of), with_flag) << "trailing zeros of the section are not dropped";
}

// The registry lists every backend the engine knows, in CONTRACT order, whatever the build.
TEST(RegistryIndices, KnownBackendsDoNotDependOnTheBuild) {
  const std::vector<BackendInfo> all = registered_backends();
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[0].name, "NdArray");
  EXPECT_EQ(all[1].name, "Flex");
  EXPECT_EQ(all[2].name, "Cuda");
  EXPECT_EQ(all[3].name, "Remote");
  EXPECT_EQ(all[4].name, "LibTorch");
  for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].index, i);
  EXPECT_EQ(all[2].built, static_cast<bool>(CROSSGRAD_WITH_CUDA));
  if (!all[2].built) {
    EXPECT_FALSE(all[2].available);
    EXPECT_EQ(all[2].unavailable_reason, "not built with CUDA");
  }
  EXPECT_EQ(all[3].built, static_cast<bool>(CROSSGRAD_WITH_REMOTE));
  if (!all[3].built) {
    EXPECT_FALSE(all[3].available);
    EXPECT_EQ(all[3].unavailable_reason, "not built with gRPC");
  }
  EXPECT_EQ(all[4].built, static_cast<bool>(CROSSGRAD_WITH_LIBTORCH));
  if (!all[4].built) {
    EXPECT_FALSE(all[4].available);
    EXPECT_EQ(all[4].unavailable_reason, "not built with LibTorch");
  }
  for (const BackendInfo &b : all) {
    EXPECT_EQ(b.available, b.unavailable_reason.empty()) << b.name;
    EXPECT_EQ(b.available, b.device_count > 0) << b.name;
  }
  EXPECT_EQ(oracle::all_backends().size(), all.size());
}

}  // namespace
}  // namespace crossgrad::fuzz
