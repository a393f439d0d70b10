// The generators reach what their comments promise: sampled outside any property (fixed seeds, so
// the verdict is the same on every run), each promised variant must appear.
#include <gtest/gtest.h>

#include <set>
#include <string>

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
