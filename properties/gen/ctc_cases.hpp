#pragma once
// CTC loss cases (docs/OPS.md "CTC loss"): shapes, labels and lengths that ctc_loss accepts, with
// the edges that matter to the recursion: empty inputs and targets, repeated labels (no skip
// between them), targets too long for their input (+inf), a single class (only the blank), any
// blank; and logits with ties, wide ranges and saturated softmaxes. Shrinks toward small cases.
#include <crossgrad/oracle/ctc_reference.hpp>

#include <rapidcheck.h>

#include <cstdint>
#include <vector>

namespace crossgrad::properties::gen {

// Everything but log_probs (left empty), at least one step and one sample (the empty ones are unit
// tests: CtcLoss.EmptyInputs); the full range at every RapidCheck size.
inline rc::Gen<oracle::CtcCase> ctc_labels() {
  return rc::gen::resize(100, rc::gen::exec([] {
    oracle::CtcCase c;
    c.time = *rc::gen::inRange<std::size_t>(1, 9);
    c.batch = *rc::gen::inRange<std::size_t>(1, 4);
    c.classes = *rc::gen::inRange<std::size_t>(1, 6);
    c.max_target = *rc::gen::inRange<std::size_t>(0, 5);
    c.blank = *rc::gen::inRange<std::size_t>(0, c.classes);
    const bool labels = c.classes > 1;
    for (std::size_t i = 0; i < c.batch * c.max_target; ++i) {
      // A label other than the blank; with only the blank, padding that is never read.
      std::int64_t v = labels ? *rc::gen::inRange<std::int64_t>(0, static_cast<std::int64_t>(c.classes) - 1) : 0;
      if (labels && v >= static_cast<std::int64_t>(c.blank)) ++v;
      c.targets.push_back(v);
    }
    for (std::size_t n = 0; n < c.batch; ++n) {
      c.input_lengths.push_back(*rc::gen::inRange<std::int64_t>(0, static_cast<std::int64_t>(c.time) + 1));
      c.target_lengths.push_back(labels ? *rc::gen::inRange<std::int64_t>(0, static_cast<std::int64_t>(c.max_target) + 1) : 0);
    }
    return c;
  }));
}

// n logits: mostly ordinary, some equal to their neighbour (ties), some far out (a softmax that
// puts all its mass on one class).
inline rc::Gen<std::vector<double>> ctc_logits(std::size_t n) {
  return rc::gen::resize(100, rc::gen::exec([n] {
    std::vector<double> z(n);
    for (std::size_t i = 0; i < n; ++i) {
      const int kind = *rc::gen::inRange(0, 10);
      if (kind == 0 && i > 0) {
        z[i] = z[i - 1];
      } else if (kind == 1) {
        z[i] = *rc::gen::inRange(-40, 41);
      } else {
        z[i] = *rc::gen::inRange(-3000, 3001) / 1000.0;
      }
    }
    return z;
  }));
}

}  // namespace crossgrad::properties::gen
