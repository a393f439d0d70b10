#pragma once
// Finite differences only judge where the objective is smooth enough to see the gradient; each
// finite-difference property counts the cases it judged and fails when fewer than its stated
// share were, so a generator or a tolerance drifting into "nothing judged" cannot pass silently.
// Shared by numeric_props and cross_backend_props.
#include "support/prop.hpp"

#include <crossgrad/oracle/checks.hpp>
#include <crossgrad/oracle/graph.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace crossgrad::properties {

// Judged cases and elements of one finite-difference property.
struct JudgedShare {
  std::size_t cases = 0;
  std::size_t judged_cases = 0;  // at least one element compared with backward
  std::size_t points = 0;
  std::size_t judged_points = 0;
};

// Runs the oracle's finite-difference check, tags the case as judged or not (RapidCheck prints
// the distribution) and counts it.
// The root is weighted by a random cotangent (oracle::with_cotangent): with the seed of ones alone,
// a backward rule that misplaces cat's slices or drops softmax's sum term goes unseen.
inline void judge(const oracle::GraphSpec& graph, JudgedShare& share) {
  const std::vector<double> weights = *rc::gen::container<std::vector<double>>(
      *rc::gen::inRange<std::size_t>(1, 8), rc::gen::elementOf(std::vector<double>{-1.75, -1.25, -0.5, 0.75, 1.5, 2.25}));
  const oracle::GraphSpec g = oracle::with_cotangent(oracle::normalized(graph), weights);
  const oracle::FdVerdict v = oracle::judge_graph_finite_differences(g);
  ++share.cases;
  share.judged_cases += v.judged > 0 ? 1 : 0;
  share.points += v.sampled;
  share.judged_points += v.judged;
  RC_TAG(v.judged > 0 ? std::string("judged") : "not judged: " + v.not_judged);
  require(v.failure);
}

// Fails the current test when fewer than `min_share` of the cases were judged; prints the shares.
inline void expect_judged_share(const JudgedShare& s, double min_share) {
  const double case_share = s.cases ? static_cast<double>(s.judged_cases) / static_cast<double>(s.cases) : 0.0;
  const double point_share = s.points ? static_cast<double>(s.judged_points) / static_cast<double>(s.points) : 0.0;
  std::printf("finite differences judged %zu of %zu cases (%.1f%%, required %.0f%%), %zu of %zu sampled elements (%.1f%%)\n",
              s.judged_cases, s.cases, 100 * case_share, 100 * min_share, s.judged_points, s.points, 100 * point_share);
  EXPECT_GE(case_share, min_share) << "too few finite-difference cases were judged: the check proves little";
}

}  // namespace crossgrad::properties
