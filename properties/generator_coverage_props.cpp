// The generators reach what their comments promise: sampled outside any property (fixed seeds, so
// the verdict is the same on every run), each promised variant must appear.
#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>
#include <string>

#include "gen/hops.hpp"
#include "gen/specs.hpp"

using namespace crossgrad;
using namespace crossgrad::properties;

namespace {
// "lhs/rhs" batch layout of a matmul graph's two leaves, for batch size > 1: "b/b", "1/b", "b/-",
// "b/1"; "" for unbatched or batch-of-one graphs (where layouts cannot be told apart).
std::string batch_layout(const oracle::GraphSpec& g) {
  const auto& lhs = g.leaf_shapes.at(0);
  const auto& rhs = g.leaf_shapes.at(1);
  if (lhs.size() < 3) return "";
  const auto side = [](const std::vector<std::size_t>& s) -> std::string {
    if (s.size() < 3) return "-";
    return s[0] == 1 ? "1" : "b";
  };
  const std::size_t batch = std::max(lhs[0], rhs.size() >= 3 ? rhs[0] : 1);
  if (batch < 2) return "";
  return side(lhs) + "/" + side(rhs);
}
}  // namespace

TEST(Generators, MatmulGraphCoversEveryBatchBroadcastLayout) {
  if (gen::tested_backend_indices().empty()) GTEST_SKIP() << "no backend available";
  const auto gen = gen::matmul_graph(gen::Values::Finite);
  std::set<std::string> seen;
  for (std::uint64_t seed = 1; seed <= 600; ++seed) {
    const std::string layout = batch_layout(gen(rc::Random(seed), rc::kNominalSize).value());
    if (!layout.empty()) seen.insert(layout);
  }
  for (const char* want : {"b/b", "1/b", "b/-", "b/1"}) {
    EXPECT_TRUE(seen.count(want)) << "matmul_graph never generated batch layout " << want;
  }
}

// gen::hop_graph moves values between every ordered pair of tested backends (a hop to the same
// backend included), makes round trips, and puts leaves of one graph on different backends.
TEST(Generators, HopGraphsCoverEveryOrderedPairOfBackends) {
  const std::vector<std::size_t> tested = gen::tested_backend_indices();
  if (tested.empty()) GTEST_SKIP() << "no backend available";
  const auto gen = gen::hop_graph(gen::Values::WithSpecials);
  std::set<std::pair<std::size_t, std::size_t>> pairs;
  bool round_trip = false, leaves_apart = false;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const oracle::GraphSpec g = gen(rc::Random(seed), rc::kNominalSize).value();
    EXPECT_TRUE(oracle::has_hops(g)) << g;
    const auto p = gen::hop_pairs(g);
    pairs.insert(p.begin(), p.end());
    const std::vector<std::size_t> where = oracle::value_backends(g);
    for (std::size_t k = 0; k + 1 < g.ops.size(); ++k) {
      const oracle::OpSpec& a = g.ops[k];
      const oracle::OpSpec& b = g.ops[k + 1];
      const std::size_t va = g.leaf_shapes.size() + k;
      round_trip |= oracle::is_hop(a.op) && oracle::is_hop(b.op) && b.lhs == va && where[a.lhs] != where[va] &&
                    where[va + 1] == where[a.lhs];
    }
    leaves_apart |= std::set<std::size_t>(where.begin(), where.begin() + static_cast<std::ptrdiff_t>(g.leaf_shapes.size())).size() > 1;
  }
  for (std::size_t from : tested) {
    for (std::size_t to : tested) {
      EXPECT_TRUE(pairs.count({from, to})) << "hop_graph never moved a value " << gen::pair_name({from, to});
    }
  }
  if (tested.size() > 1) {
    EXPECT_TRUE(round_trip) << "hop_graph never made a round trip between two backends";
    EXPECT_TRUE(leaves_apart) << "hop_graph never put two leaves on different backends";
  }
}
