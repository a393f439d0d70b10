#pragma once
// The argument rules of ctc_loss and ctc_loss_backward (docs/OPS.md "CTC loss"): shapes first, from
// the tensors' metadata alone, then the values of the int operands, read to the host once. The
// composition (dispatch/ctc_loss_api.cpp) builds its index and mask tensors from the plan, so no
// unchecked label ever reaches a gather.
#include <crossgrad/core/shape.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace crossgrad::rules {

struct CtcPlan {
  std::size_t time = 0, batch = 0, classes = 0, max_target = 0;
  std::vector<std::int64_t> input_lengths;   // [batch], each in 0..=time
  std::vector<std::int64_t> target_lengths;  // [batch], each in 0..=max_target
  // The extended label sequence l' of each sample, [batch, 2 * max_target + 1]: blank, label 0,
  // blank, label 1, ..., blank; the blank again past 2 * target_length + 1, where targets may hold
  // anything (the padding is never read, as in PyTorch).
  std::vector<std::int64_t> extended;
  std::size_t extended_length() const { return 2 * max_target + 1; }
};

// log_probs [time, batch, classes], targets [batch, max_target], input_lengths and target_lengths
// [batch] (ctc-shape, naming all four shapes), then blank below classes (ctc-blank).
void check_ctc_shapes(std::string_view op, const Shape& log_probs, const Shape& targets, const Shape& input_lengths,
                      const Shape& target_lengths, std::size_t blank);
// After check_ctc_shapes, from the int operands' values in row-major order: every input length in
// 0..=time and then every target length in 0..=max_target (ctc-length, the first bad sample), then
// every label a sample reads (positions below its target length) in 0..classes and not the blank
// (ctc-target-label, the first in row-major order).
CtcPlan plan_ctc_loss(std::string_view op, const Shape& log_probs, const Shape& targets_shape, std::size_t blank,
                      std::span<const std::int64_t> targets,
                      std::span<const std::int64_t> input_lengths, std::span<const std::int64_t> target_lengths);

}  // namespace crossgrad::rules
