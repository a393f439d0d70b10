#pragma once
// Mutations of the oracle's spec types (oracle/spec.hpp, graph.hpp, op_probe.hpp), the parts every
// scenario target is built from. Every choice comes from a list the engine or the oracle owns —
// backends from the registry (crossgrad::kKnownBackends, preferring those available here), graph
// ops from oracle::all_ops() plus the hop, probe ops from the op registry, dtypes from
// oracle::dtypes_for / all_dtypes() — never from a list written here, so a new op, backend or
// dtype is mutated into scenarios without touching this file.
//
// A scenario is seen as its Parts: the graphs, dispatch specs and probes it holds (pointers into
// the scenario). Each aspect function picks one holder at random and changes it; it returns false
// when the scenario has nothing of that aspect (the caller then tries another kind). Changes may
// leave a spec outside what the schema stores (an index past its range): encoding and decoding
// again (scenario_mutator.cpp) brings it back, as the decoder would.
#include <crossgrad/oracle/graph.hpp>
#include <crossgrad/oracle/op_probe.hpp>
#include <crossgrad/oracle/spec.hpp>
#include <cstddef>
#include <vector>

#include "mutate/rng.hpp"

namespace crossgrad::fuzz::mutate {

struct GraphRef {
  oracle::GraphSpec *graph;
  std::size_t max_leaves;
  std::size_t max_ops;
};

struct Parts {
  std::vector<GraphRef> graphs;
  std::vector<oracle::DispatchSpec *> specs;
  std::vector<oracle::OpProbe *> probes;
};

// Choices from the registries.
std::size_t random_backend(Rng &rng);  // 7 in 8 available here, else any known backend
oracle::Op random_graph_op(Rng &rng);  // all_ops() and the hop
oracle::Op random_registry_op(Rng &rng);
oracle::DispatchSpec random_dispatch_spec(Rng &rng);  // mostly well-formed, sometimes any depth
oracle::GraphSpec random_graph(Rng &rng, std::size_t max_leaves, std::size_t max_ops);
oracle::OpProbe random_probe(Rng &rng);

// The aspects (each: one holder of Parts, chosen at random).
bool change_backend(Rng &rng, Parts &p);     // a spec's, a graph's, a leaf's or a probe target's
bool change_primitive(Rng &rng, Parts &p);   // a spec's primitive kind (Float, Int, Bool, ...)
bool change_depth(Rng &rng, Parts &p);       // a spec's autodiff depth 0..2
bool change_dtype(Rng &rng, Parts &p);       // a spec's dtype, a graph's F32/F64, a probe's cast
bool change_shape(Rng &rng, Parts &p);       // a spec's, a leaf's (new, same, swapped), a reshape's
bool change_values(Rng &rng, Parts &p);      // a spec's or a leaf's data, an op's scalar
bool change_checkpointing(Rng &rng, Parts &p);
bool insert_op(Rng &rng, Parts &p);
bool remove_op(Rng &rng, Parts &p);
bool replace_op(Rng &rng, Parts &p);         // another op code, operands kept
bool change_op_operands(Rng &rng, Parts &p); // lhs / rhs indices, dim / dim1
bool insert_or_remove_leaf(Rng &rng, Parts &p);
bool change_probe(Rng &rng, Parts &p);       // a probe's kind, op, dims or target flags

}  // namespace crossgrad::fuzz::mutate
