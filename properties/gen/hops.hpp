#pragma once
// Graphs that span backends (CONTRACT section 7, issue 14): a generated graph rewritten so that
// some steps read their operands through hop steps (oracle::kHopOp, a tracked move to another
// backend; chains of two make round trips), the root sometimes hops too, and leaves sit on
// different backends (GraphSpec::leaf_backends: a binary step whose operands live apart then
// moves its rhs implicitly). Every backend named is an available one (tested_backend_indices), so
// Cuda and any later backend take part wherever they can run, and every ordered pair of them is
// drawn as a hop.
#include "gen/specs.hpp"

#include <crossgrad/oracle/graph.hpp>

#include <rapidcheck.h>

#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace crossgrad::properties::gen {

// Where the hops of one graph go. Chains are hop targets in order (empty: no hop).
struct HopPlan {
  std::vector<std::vector<std::size_t>> lhs_chains;  // per step of the base graph
  std::vector<std::vector<std::size_t>> rhs_chains;  // per step; binary steps only
  std::vector<std::size_t> root_chain;
  std::vector<std::size_t> leaf_backends;  // empty: every leaf on graph.backend
};

// The base graph (normalized, no hops) with the plan's hops inserted: a step whose lhs (rhs) has a
// chain reads the last hop of a chain of hop steps starting at its old operand. Hops keep shapes,
// so every step still applies where it applied before.
inline oracle::GraphSpec with_hops(const oracle::GraphSpec& base, const HopPlan& plan) {
  oracle::GraphSpec out = base;
  out.ops.clear();
  const std::size_t leaves = base.leaf_shapes.size();
  std::vector<std::size_t> where(leaves);  // value index in base -> value index in out
  std::iota(where.begin(), where.end(), std::size_t{0});
  const auto through = [&](std::size_t value, const std::vector<std::size_t>& chain) {
    for (std::size_t target : chain) {
      out.ops.push_back(oracle::OpSpec{oracle::kHopOp, value, target, 1.0, 0, 0});
      value = leaves + out.ops.size() - 1;
    }
    return value;
  };
  for (std::size_t k = 0; k < base.ops.size(); ++k) {
    oracle::OpSpec op = base.ops[k];
    op.lhs = through(where[op.lhs], k < plan.lhs_chains.size() ? plan.lhs_chains[k] : std::vector<std::size_t>{});
    if (oracle::is_binary(op.op)) {
      op.rhs = through(where[op.rhs], k < plan.rhs_chains.size() ? plan.rhs_chains[k] : std::vector<std::size_t>{});
    } else {
      op.rhs = 0;  // read by no unary step
    }
    out.ops.push_back(op);
    where.push_back(leaves + out.ops.size() - 1);
  }
  through(where.back(), plan.root_chain);
  out.leaf_backends = plan.leaf_backends;
  return oracle::normalized(out);
}

// 0 (weight none_weight), 1 (weight 3) or 2 (weight 1, a round trip when it returns) hops.
inline rc::Gen<std::vector<std::size_t>> hop_chain(unsigned none_weight) {
  return rc::gen::weightedOneOf<std::vector<std::size_t>>(
      {{none_weight, rc::gen::just(std::vector<std::size_t>{})},
       {3, rc::gen::container<std::vector<std::size_t>>(1, backend())},
       {1, rc::gen::container<std::vector<std::size_t>>(2, backend())}});
}

// How leaves are spread over backends.
enum class LeafSpread {
  Sometimes,  // half the graphs keep every leaf on graph.backend
  Apart,      // the leaves take the tested backends in turn from a random one (two leaves, two
              // backends, whenever two are available)
};

// `base` (normalized graphs) with hops; at least one hop step when the plan would have none.
inline rc::Gen<oracle::GraphSpec> spanning(rc::Gen<oracle::GraphSpec> base, LeafSpread spread = LeafSpread::Sometimes) {
  return rc::gen::mapcat(std::move(base), [spread](const oracle::GraphSpec& g) {
    const std::size_t steps = g.ops.size(), leaves = g.leaf_shapes.size();
    const std::vector<std::size_t> tested = tested_backend_indices();
    rc::Gen<std::vector<std::size_t>> leaf_backends =
        spread == LeafSpread::Apart
            ? rc::gen::map(rc::gen::inRange<std::size_t>(0, tested.size()),
                           [leaves, tested](std::size_t start) {
                             std::vector<std::size_t> out;
                             for (std::size_t i = 0; i < leaves; ++i) out.push_back(tested[(start + i) % tested.size()]);
                             return out;
                           })
            : rc::gen::weightedOneOf<std::vector<std::size_t>>(
                  {{1, rc::gen::just(std::vector<std::size_t>{})}, {1, rc::gen::container<std::vector<std::size_t>>(leaves, backend())}});
    return rc::gen::map(rc::gen::tuple(rc::gen::container<std::vector<std::vector<std::size_t>>>(steps, hop_chain(3)),
                                       rc::gen::container<std::vector<std::vector<std::size_t>>>(steps, hop_chain(6)), hop_chain(4),
                                       std::move(leaf_backends), backend()),
                        [g](const auto& t) {
                          HopPlan plan;
                          std::tie(plan.lhs_chains, plan.rhs_chains, plan.root_chain, plan.leaf_backends, std::ignore) = t;
                          oracle::GraphSpec out = with_hops(g, plan);
                          if (out.ops.size() == g.ops.size()) {  // no hop drawn: the root hops
                            plan.root_chain = {std::get<4>(t)};
                            out = with_hops(g, plan);
                          }
                          return out;
                        });
  });
}

// Graphs of `graph(mode, ops, max_ops)` with hops.
inline rc::Gen<oracle::GraphSpec> hop_graph(Values mode, const std::vector<oracle::Op>& ops = oracle::all_ops(), std::size_t max_ops = 5,
                                            LeafSpread spread = LeafSpread::Sometimes) {
  return spanning(graph(mode, ops, max_ops), spread);
}

// The root plus the sum of every leaf it does not use (root + sum(v) broadcasts: sum has shape
// [1]), so backward gives every leaf an entry. A step whose shapes do not fit stays as normalized
// makes it (a neg), so a leaf may still be unused now and then.
inline oracle::GraphSpec using_every_leaf(const oracle::GraphSpec& normalized_graph) {
  oracle::GraphSpec g = normalized_graph;
  const std::vector<bool> used = oracle::used_leaves(g);
  for (std::size_t i = 0; i < used.size(); ++i) {
    if (used[i]) continue;
    const std::size_t root = g.leaf_shapes.size() + g.ops.size() - 1;
    g.ops.push_back(oracle::OpSpec{oracle::Op::float_sum, i, 0, 1.0, 0, 0});
    g.ops.push_back(oracle::OpSpec{oracle::Op::float_add, root, root + 1, 1.0, 0, 0});
  }
  return oracle::normalized(g);
}

// The backend moves a graph makes, as ordered (from, to) pairs of registry indices: its hop steps
// and the implicit moves of a binary step's rhs (value_backends).
inline std::set<std::pair<std::size_t, std::size_t>> hop_pairs(const oracle::GraphSpec& normalized_graph) {
  const std::vector<std::size_t> where = oracle::value_backends(normalized_graph);
  const std::size_t leaves = normalized_graph.leaf_shapes.size();
  std::set<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t k = 0; k < normalized_graph.ops.size(); ++k) {
    const oracle::OpSpec& op = normalized_graph.ops[k];
    if (oracle::is_hop(op.op)) {
      out.emplace(where[op.lhs], where[leaves + k]);
    } else if (oracle::is_binary(op.op) && where[op.rhs] != where[op.lhs]) {
      out.emplace(where[op.rhs], where[op.lhs]);
    }
  }
  return out;
}

inline std::string pair_name(const std::pair<std::size_t, std::size_t>& p) {
  return oracle::all_backends().at(p.first).name + "->" + oracle::all_backends().at(p.second).name;
}

}  // namespace crossgrad::properties::gen
