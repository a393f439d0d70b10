#include <crossgrad/oracle/torch_ctc_loss.hpp>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/autograd.h>

#include <cstdint>

namespace crossgrad::oracle {

TorchCtcResult torch_ctc_loss_of_logits(const CtcCase& labels, const std::vector<double>& logits, DType dtype,
                                        const std::vector<double>& weights) {
  static const bool pinned = [] {  // one thread, as torch_reference: the same answer on every machine
    at::set_num_threads(1);
    return true;
  }();
  (void)pinned;
  const at::ScalarType type = dtype == DType::F64 ? at::kDouble : at::kFloat;
  std::vector<double> z = logits;
  std::vector<double> w = weights;
  std::vector<std::int64_t> targets = labels.targets;
  const std::int64_t T = static_cast<std::int64_t>(labels.time), N = static_cast<std::int64_t>(labels.batch),
                     C = static_cast<std::int64_t>(labels.classes), S = static_cast<std::int64_t>(labels.max_target);
  TorchCtcResult r;
  try {
    at::Tensor x = at::from_blob(z.data(), {T, N, C}, at::kDouble).clone().to(type).set_requires_grad(true);
    const at::Tensor t = at::from_blob(targets.data(), {N, S}, at::kLong).clone();
    const at::Tensor loss = at::ctc_loss(at::log_softmax(x, 2), t, labels.input_lengths, labels.target_lengths,
                                         static_cast<std::int64_t>(labels.blank), at::Reduction::None, false);
    const at::Tensor wt = at::from_blob(w.data(), {N}, at::kDouble).clone().to(type);
    const auto grads = torch::autograd::grad({(loss * wt).sum()}, {x});
    const at::Tensor l = loss.detach().to(at::kDouble).contiguous();
    const at::Tensor g = grads[0].detach().to(at::kDouble).contiguous();
    r.loss.assign(l.data_ptr<double>(), l.data_ptr<double>() + l.numel());
    r.logits_gradient.assign(g.data_ptr<double>(), g.data_ptr<double>() + g.numel());
  } catch (const c10::Error& e) {
    r.error = e.what_without_backtrace();
  }
  return r;
}

}  // namespace crossgrad::oracle
