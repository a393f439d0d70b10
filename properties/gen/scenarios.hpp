#pragma once
// grad_replace scenarios (oracle::GradReplaceScenario): the Gradients of zero to three graphs, some
// spanning backends, a tensor (mostly tracked, often aimed at a live entry) and a gradient.
#include "gen/hops.hpp"
#include "gen/specs.hpp"

#include <crossgrad/oracle/checks.hpp>
#include <crossgrad/oracle/expect.hpp>

#include <rapidcheck.h>

#include <optional>
#include <vector>

namespace crossgrad::properties::gen {

// Zero to three graphs on any backends, one in four spanning backends (hops, some leaves on other
// backends): a Gradients with several entries, maybe of several backends, also from one graph.
inline rc::Gen<std::vector<oracle::GraphSpec>> graphs() {
  auto one = rc::gen::weightedOneOf<oracle::GraphSpec>(
      {{3, graph(Values::WithSpecials, oracle::all_ops(), 3)}, {1, hop_graph(Values::WithSpecials, oracle::all_ops(), 3)}});
  return rc::gen::map(rc::gen::resize(30, rc::gen::container<std::vector<oracle::GraphSpec>>(std::move(one))),
                      [](std::vector<oracle::GraphSpec> v) {
                        if (v.size() > 3) v.resize(3);
                        return v;
                      });
}

inline rc::Gen<std::optional<std::size_t>> target_entry(unsigned none_weight = 3) {
  return rc::gen::weightedOneOf<std::optional<std::size_t>>(
      {{7, rc::gen::map(rc::gen::inRange<std::size_t>(0, 16), [](std::size_t i) { return std::optional<std::size_t>(i); })},
       {none_weight, rc::gen::just(std::optional<std::size_t>())}});
}

// Any (tensor, grad, gradients): tensors mostly tracked, gradients often on the tensor's backend.
inline rc::Gen<oracle::GradReplaceScenario> scenario() {
  return rc::gen::mapcat(dispatch(kind_mix()), [](oracle::DispatchSpec t) {
    const std::size_t b = t.kind.leaf.backend;
    auto grad = dispatch(rc::gen::weightedOneOf<oracle::KindSpec>({{5, plain_float_kind_on(b)}, {5, kind_mix()}}));
    return rc::gen::map(rc::gen::tuple(graphs(), grad, target_entry()), [t](const auto& p) {
      return oracle::GradReplaceScenario{std::get<0>(p), t, std::get<1>(p), std::get<2>(p)};
    });
  });
}

// A valid same-backend replace, aimed at a live entry when there is one.
inline rc::Gen<oracle::GradReplaceScenario> valid_scenario() {
  return rc::gen::mapcat(backend(), [](std::size_t b) {
    return rc::gen::map(rc::gen::tuple(graphs(), dispatch(tracked_kind_on(b)), dispatch(plain_float_kind_on(b)), target_entry(1)),
                        [](const auto& p) {
                          return oracle::GradReplaceScenario{std::get<0>(p), std::get<1>(p), std::get<2>(p), std::get<3>(p)};
                        });
  });
}

// Does this pair panic (decided from structure alone)?
inline bool panics(const oracle::DispatchSpec& tensor, const oracle::DispatchSpec& grad) {
  return !oracle::expect_grad_replace(tensor.kind, 0, grad.kind, 0).ok();
}

}  // namespace crossgrad::properties::gen
