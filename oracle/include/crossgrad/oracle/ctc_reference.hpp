#pragma once
// ctc_loss from its definition (Graves et al., ICML 2006), for the checks of Dispatch::ctc_loss
// (docs/OPS.md "CTC loss"): for each sample, the sum over every alignment of its target with its
// input of the product of the emitted probabilities, by the alpha (forward) recursion, and the
// gradient by the alpha-beta product, both in log space in long double. Nothing here calls the
// engine: plain loops over host arrays, valid inputs only (the engine's checks are judged by their
// exact messages elsewhere).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace crossgrad::oracle {

struct CtcCase {
  std::size_t time = 0, batch = 0, classes = 0, max_target = 0;
  std::vector<double> log_probs;           // [time, batch, classes], row-major
  std::vector<std::int64_t> targets;       // [batch, max_target]
  std::vector<std::int64_t> input_lengths; // [batch]
  std::vector<std::int64_t> target_lengths;
  std::size_t blank = 0;
};

struct CtcReference {
  std::vector<double> loss;      // [batch]: -log P(target | input); +inf without an alignment
  // d loss[n] / d log_probs[t, n, c], summed over n: [time, batch, classes]. 0 at t >= the input
  // length and for a sample without an alignment.
  std::vector<double> gradient;
};

CtcReference ctc_reference(const CtcCase& c);

// The catalog panic ctc_loss raises for these operands (docs/OPS.md "CTC loss", its checks in their
// order: the four shapes, the blank, the input lengths, the target lengths, the labels read), or
// nothing when it takes them. Shapes as given; values row-major.
struct CtcOperands {
  std::vector<std::size_t> log_probs_shape, targets_shape, input_lengths_shape, target_lengths_shape;
  std::vector<std::int64_t> targets, input_lengths, target_lengths;
  std::size_t blank = 0;
};
std::optional<std::string> ctc_loss_panic(const CtcOperands& o);

}  // namespace crossgrad::oracle
