#pragma once
// PyTorch's ctc_loss as the second opinion on Dispatch::ctc_loss (docs/OPS.md "CTC loss"). ATen's
// backward gives the gradient with respect to the logits of a log_softmax, not with respect to
// log_probs itself, so both sides are judged through log_softmax: the loss of
// log_softmax(logits, classes) and the gradient of sum(loss * weights) with respect to the logits.
// Like torch_reference.hpp, this header includes no ATen.
#include <crossgrad/core/dtype.hpp>
#include <crossgrad/oracle/ctc_reference.hpp>

#include <optional>
#include <string>
#include <vector>

namespace crossgrad::oracle {

struct TorchCtcResult {
  std::optional<std::string> error;      // what ATen raised, if it refused the inputs
  std::vector<double> loss;              // [batch]
  std::vector<double> logits_gradient;   // [time, batch, classes]; NaN rows where ATen's loss is +inf
};

// `labels` gives the shapes, targets, lengths and blank (its log_probs is not read); `logits` is
// [time, batch, classes], computed in `dtype` (F32 or F64); reduction none, zero_infinity false.
TorchCtcResult torch_ctc_loss_of_logits(const CtcCase& labels, const std::vector<double>& logits, DType dtype,
                                        const std::vector<double>& weights);

}  // namespace crossgrad::oracle
