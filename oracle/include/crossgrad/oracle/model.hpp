#pragma once
// A model of the Gradients API for command sequences: the system (a Gradients and a pool of
// tensors) and a model of the container (node id -> entry) side by side. Each command runs on the
// system, is checked against the oracle, then updates the model; the container must equal the
// model after every command. Shared by the RapidCheck state test and the gradients_api fuzzer.
#include <crossgrad/oracle/checks.hpp>
#include <crossgrad/oracle/snapshot.hpp>

#include <string>
#include <vector>

namespace crossgrad::oracle {

class GradientsSession {
 public:
  struct PoolEntry {
    KindSpec spec;  // node ids filled in from the built tensor
    DispatchTensor tensor;
  };

  // Runs graph's backward (hops as specified) and extends the container; its leaves join the pool,
  // each on its own backend, and every entry must be on its leaf's backend. A no-op success when
  // the graph names a backend not available here (unavailable_here(graph)).
  Failure backward(const GraphSpec& graph);
  // Adds any tensor (malformed ones included) to the pool.
  Failure add_tensor(const DispatchSpec& spec);
  // Commands on pool[index % pool size]; a no-op success on an empty pool.
  Failure grad(std::size_t index);
  Failure grad_remove(std::size_t index);
  Failure grad_replace(std::size_t index, const DispatchSpec& grad);
  Failure backward_of(std::size_t index);  // Dispatch::backward of a pool tensor; merges
  Failure inner(std::size_t index);        // a successful result joins the pool
  Failure from_inner(std::size_t index);   // a successful result joins the pool
  // Burn's tracking calls (docs/OPS.md "Tracking") on a pool tensor and on float_neg of it (an
  // op's result) against expect_tracking's rules; the pool and the container are unchanged.
  Failure tracking(std::size_t index);

  const GradientsSnapshot& model() const { return model_; }
  const Gradients& grads() const { return grads_; }
  const std::vector<PoolEntry>& pool() const { return pool_; }

 private:
  Failure check_model(std::string_view after) const;
  const PoolEntry* pick(std::size_t index) const;

  Gradients grads_;
  GradientsSnapshot model_;
  std::vector<PoolEntry> pool_;
};

}  // namespace crossgrad::oracle
