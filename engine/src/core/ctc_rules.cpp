#include <crossgrad/core/ctc_rules.hpp>
#include <crossgrad/core/panic.hpp>

#include <string>

namespace crossgrad::rules {

void check_ctc_shapes(std::string_view op, const Shape& log_probs, const Shape& targets, const Shape& input_lengths,
                      const Shape& target_lengths, std::size_t blank) {
  const bool ranks = log_probs.rank() == 3 && targets.rank() == 2 && input_lengths.rank() == 1 && target_lengths.rank() == 1;
  if (!ranks || targets[0] != log_probs[1] || input_lengths[0] != log_probs[1] || target_lengths[0] != log_probs[1]) {
    panic(PanicId::CtcShape, {{"op", std::string(op)},
                              {"log_probs", log_probs.to_string()},
                              {"targets", targets.to_string()},
                              {"input_lengths", input_lengths.to_string()},
                              {"target_lengths", target_lengths.to_string()}});
  }
  if (blank >= log_probs[2]) {
    panic(PanicId::CtcBlank, {{"op", std::string(op)}, {"classes", std::to_string(log_probs[2])}, {"blank", std::to_string(blank)}});
  }
}

namespace {
void check_lengths(std::string_view op, std::string_view name, std::span<const std::int64_t> lengths, std::size_t max) {
  for (std::size_t n = 0; n < lengths.size(); ++n) {
    if (lengths[n] >= 0 && static_cast<std::uint64_t>(lengths[n]) <= max) continue;
    panic(PanicId::CtcLength, {{"op", std::string(op)},
                               {"lengths", std::string(name)},
                               {"sample", std::to_string(n)},
                               {"max", std::to_string(max)},
                               {"value", std::to_string(lengths[n])}});
  }
}
}  // namespace

CtcPlan plan_ctc_loss(std::string_view op, const Shape& log_probs, const Shape& targets_shape, std::size_t blank,
                      std::span<const std::int64_t> targets,
                      std::span<const std::int64_t> input_lengths, std::span<const std::int64_t> target_lengths) {
  CtcPlan p;
  p.time = log_probs[0];
  p.batch = log_probs[1];
  p.classes = log_probs[2];
  p.max_target = targets_shape[1];
  check_lengths(op, "input_lengths", input_lengths, p.time);
  check_lengths(op, "target_lengths", target_lengths, p.max_target);
  const std::size_t width = p.extended_length();
  p.extended.assign(p.batch * width, static_cast<std::int64_t>(blank));
  for (std::size_t n = 0; n < p.batch; ++n) {
    for (std::size_t j = 0; j < static_cast<std::size_t>(target_lengths[n]); ++j) {
      const std::int64_t label = targets[n * p.max_target + j];
      if (label < 0 || static_cast<std::uint64_t>(label) >= p.classes || static_cast<std::uint64_t>(label) == blank) {
        panic(PanicId::CtcTargetLabel, {{"op", std::string(op)},
                                        {"classes", std::to_string(p.classes)},
                                        {"blank", std::to_string(blank)},
                                        {"label", std::to_string(label)},
                                        {"sample", std::to_string(n)},
                                        {"position", std::to_string(j)}});
      }
      p.extended[n * width + 2 * j + 1] = label;
    }
  }
  p.input_lengths.assign(input_lengths.begin(), input_lengths.end());
  p.target_lengths.assign(target_lengths.begin(), target_lengths.end());
  return p;
}

}  // namespace crossgrad::rules
