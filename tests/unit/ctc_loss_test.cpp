// Dispatch::ctc_loss on every backend (docs/OPS.md "CTC loss"): the loss and its gradient against
// the oracle's alpha and alpha-beta recursions from the definition (oracle/ctc_reference.hpp), the
// gradient against central differences of the engine's own loss, the backward entry point against
// a backward pass, and every argument fault as its catalog panic with the exact message.
#include "test_support.hpp"

#include <crossgrad/oracle/ctc_reference.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

constexpr double kInf = std::numeric_limits<double>::infinity();

// A case whose log_probs are a log-softmax over classes of random logits (or all equal: every
// alignment equally likely, ties in every log_add).
oracle::CtcCase random_case(std::mt19937_64& rng, bool uniform, std::size_t max_time = 7, std::size_t max_classes = 5) {
  std::uniform_int_distribution<std::size_t> pick_time(1, max_time), pick_batch(1, 3), pick_classes(2, max_classes),
      pick_target(0, 3);
  oracle::CtcCase c;
  c.time = pick_time(rng);
  c.batch = pick_batch(rng);
  c.classes = pick_classes(rng);
  c.max_target = pick_target(rng);
  c.blank = std::uniform_int_distribution<std::size_t>(0, c.classes - 1)(rng);
  std::normal_distribution<double> logit(0.0, 2.0);
  c.log_probs.resize(c.time * c.batch * c.classes);
  for (std::size_t row = 0; row < c.time * c.batch; ++row) {
    double total = 0;
    std::vector<double> z(c.classes);
    for (double& v : z) v = uniform ? 0.0 : logit(rng);
    for (double v : z) total += std::exp(v);
    for (std::size_t k = 0; k < c.classes; ++k) c.log_probs[row * c.classes + k] = z[k] - std::log(total);
  }
  // Labels other than the blank; few classes make repeats (no skip between them) common.
  std::uniform_int_distribution<std::int64_t> label(0, static_cast<std::int64_t>(c.classes) - 2);
  c.targets.resize(c.batch * c.max_target);
  for (std::int64_t& v : c.targets) {
    v = label(rng);
    if (v >= static_cast<std::int64_t>(c.blank)) ++v;
  }
  for (std::size_t n = 0; n < c.batch; ++n) {
    c.input_lengths.push_back(std::uniform_int_distribution<std::int64_t>(0, static_cast<std::int64_t>(c.time))(rng));
    c.target_lengths.push_back(std::uniform_int_distribution<std::int64_t>(0, static_cast<std::int64_t>(c.max_target))(rng));
  }
  return c;
}

struct Operands {
  DispatchTensor log_probs, targets, input_lengths, target_lengths;
};

Operands upload(const oracle::CtcCase& c, const DispatchDevice& device, DType dtype) {
  return {tensor_on(device, c.log_probs, dtype, Shape{c.time, c.batch, c.classes}),
          Dispatch::int_from_data(TensorData::from_i64(c.targets, Shape{c.batch, c.max_target}), device),
          Dispatch::int_from_data(TensorData::from_i64(c.input_lengths, Shape{c.batch}), device),
          Dispatch::int_from_data(TensorData::from_i64(c.target_lengths, Shape{c.batch}), device)};
}

DispatchTensor loss_of(const Operands& o, std::size_t blank) {
  return Dispatch::ctc_loss(o.log_probs, o.targets, o.input_lengths, o.target_lengths, blank);
}

std::string describe(const oracle::CtcCase& c) {
  std::string s = "T " + std::to_string(c.time) + " N " + std::to_string(c.batch) + " C " + std::to_string(c.classes) +
                  " blank " + std::to_string(c.blank) + " targets";
  for (std::int64_t v : c.targets) s += " " + std::to_string(v);
  s += " input_lengths";
  for (std::int64_t v : c.input_lengths) s += " " + std::to_string(v);
  s += " target_lengths";
  for (std::int64_t v : c.target_lengths) s += " " + std::to_string(v);
  return s;
}

// |a - b| within rel * max(1, |b|); both +inf passes, a NaN never does.
void expect_close(const std::vector<double>& got, const std::vector<double>& want, double rel, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << what << " at " << i;
      continue;
    }
    EXPECT_LE(std::fabs(got[i] - want[i]), rel * std::fmax(1.0, std::fabs(want[i]))) << what << " at " << i << ": " << got[i]
                                                                                       << " vs " << want[i];
  }
}

// d root / d x; zeros where root does not depend on x (every input length 0), as no gradient.
std::vector<double> gradient(const DispatchTensor& x, const DispatchTensor& root) {
  const auto g = Dispatch::grad(x, Dispatch::backward(root));
  return g ? values(*g) : std::vector<double>(Dispatch::float_shape(x).num_elements(), 0.0);
}

template <class B>
class CtcLoss : public OnEachBackend<B> {};
TYPED_TEST_SUITE(CtcLoss, AllBackendTypes, BackendTestName);

TYPED_TEST(CtcLoss, LossAndGradientEqualTheDefinition) {
  std::mt19937_64 rng(20261207);
  for (int i = 0; i < 12; ++i) {
    const oracle::CtcCase c = random_case(rng, i % 4 == 3);
    const oracle::CtcReference want = oracle::ctc_reference(c);
    for (const DType dtype : {DType::F64, DType::F32}) {
      SCOPED_TRACE(describe(c) + (dtype == DType::F32 ? " F32" : " F64"));
      const double rel = dtype == DType::F64 ? 1e-9 : 2e-4;
      expect_close(values(loss_of(upload(c, plain_device<TypeParam>(), dtype), c.blank)), want.loss, rel, "plain loss");
      const Operands o = upload(c, autodiff_device<TypeParam>(), dtype);
      const DispatchTensor loss = loss_of(o, c.blank);
      expect_close(values(loss), want.loss, rel, "tracked loss");
      expect_close(gradient(o.log_probs, Dispatch::float_sum(loss)), want.gradient, rel, "gradient");
    }
  }
}

// The gradient of sum(loss * w) against central differences of the engine's own F64 loss.
TYPED_TEST(CtcLoss, GradientMatchesFiniteDifferences) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2; ++i) {
    oracle::CtcCase c = random_case(rng, false, 4, 3);  // small: two losses per element (Remote: one call per op)
    SCOPED_TRACE(describe(c));
    std::vector<double> w(c.batch);
    for (std::size_t n = 0; n < c.batch; ++n) w[n] = 0.5 + static_cast<double>(n);
    const auto weighted = [&](const std::vector<double>& lp) {
      oracle::CtcCase shifted = c;
      shifted.log_probs = lp;
      const std::vector<double> loss = values(loss_of(upload(shifted, plain_device<TypeParam>(), DType::F64), c.blank));
      double total = 0;
      for (std::size_t n = 0; n < c.batch; ++n) total += std::isinf(loss[n]) ? 0.0 : loss[n] * w[n];
      return total;
    };
    const Operands o = upload(c, autodiff_device<TypeParam>(), DType::F64);
    const DispatchTensor weights = tensor_on(autodiff_device<TypeParam>(), w, DType::F64, Shape{c.batch});
    const std::vector<double> g = gradient(o.log_probs, Dispatch::float_sum(Dispatch::float_mul(loss_of(o, c.blank), weights)));
    const double h = 1e-6;
    for (std::size_t j = 0; j < c.log_probs.size(); ++j) {
      std::vector<double> up = c.log_probs, down = c.log_probs;
      up[j] += h;
      down[j] -= h;
      const double fd = (weighted(up) - weighted(down)) / (2 * h);
      EXPECT_NEAR(g[j], fd, 1e-6 * std::fmax(1.0, std::fabs(fd))) << "log_probs element " << j;
    }
  }
}

// Hand-worked: T 2, one class besides the blank 0, target [1]. Alignments of "1" over 2 steps:
// (1, 1), (0, 1), (1, 0): P = a1 b1 + a0 b1 + a1 b0 with y_t = (a, b) per step.
TYPED_TEST(CtcLoss, TwoStepsByHand) {
  const double a0 = 0.25, a1 = 0.75, b0 = 0.5, b1 = 0.5;
  const oracle::CtcCase c{2, 1, 2, 1, {std::log(a0), std::log(a1), std::log(b0), std::log(b1)}, {1}, {2}, {1}, 0};
  const double p = a1 * b1 + a0 * b1 + a1 * b0;
  const Operands o = upload(c, autodiff_device<TypeParam>(), DType::F64);
  const DispatchTensor loss = loss_of(o, 0);
  EXPECT_NEAR(values(loss)[0], -std::log(p), 1e-15);
  // d(-log P)/d log y = -(y / P) dP/dy.
  const std::vector<double> g = gradient(o.log_probs, Dispatch::float_sum(loss));
  const std::vector<double> want{-a0 * b1 / p, -a1 * (b1 + b0) / p, -b0 * a1 / p, -b1 * (a1 + a0) / p};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(g[i], want[i], 1e-15) << i;
}

// A repeated label needs a blank between its two copies: "1 1" takes 3 steps. With 2 the sample
// has no alignment (+inf, zero gradient) and its neighbour in the batch is untouched.
TYPED_TEST(CtcLoss, UnreachableTargetIsInfiniteWithZeroGradient) {
  const oracle::CtcCase c{2, 2, 2, 2, std::vector<double>(8, std::log(0.5)), {1, 1, 1, 0}, {2, 2}, {2, 1}, 0};
  const Operands o = upload(c, autodiff_device<TypeParam>(), DType::F32);
  const DispatchTensor loss = loss_of(o, 0);
  const std::vector<double> l = values(loss);
  EXPECT_EQ(l[0], kInf);
  EXPECT_NEAR(l[1], -std::log(3 * 0.25), 1e-6);
  const std::vector<double> g =
      gradient(o.log_probs, Dispatch::float_sum(Dispatch::float_mask_fill(loss, Dispatch::float_is_inf(loss), 0.0)));
  for (std::size_t t = 0; t < 2; ++t) {
    for (std::size_t k = 0; k < 2; ++k) EXPECT_EQ(g[(t * 2 + 0) * 2 + k], 0.0) << "sample 0, t " << t << ", class " << k;
  }
  EXPECT_NE(g[(0 * 2 + 1) * 2 + 1], 0.0);
}

// An empty input: probability 1 for the empty target (loss 0), 0 for any other (+inf), as PyTorch.
TYPED_TEST(CtcLoss, EmptyInputs) {
  const oracle::CtcCase c{0, 2, 3, 1, {}, {2, 1}, {0, 0}, {0, 1}, 0};
  const std::vector<double> l = values(loss_of(upload(c, plain_device<TypeParam>(), DType::F64), 0));
  EXPECT_EQ(l, (std::vector<double>{0.0, kInf}));
  const oracle::CtcCase none{3, 0, 3, 2, {}, {}, {}, {}, 1};
  EXPECT_EQ(Dispatch::float_shape(loss_of(upload(none, plain_device<TypeParam>(), DType::F32), 1)), Shape{0});
}

TYPED_TEST(CtcLoss, BackwardEntryGivesTheBackwardPassesBits) {
  EXPECT_FALSE(Dispatch::has_ctc_loss_backward());
  std::mt19937_64 rng(11);
  oracle::CtcCase c = random_case(rng, false);
  c.input_lengths[0] = static_cast<std::int64_t>(c.time);  // so the loss depends on log_probs
  SCOPED_TRACE(describe(c));
  std::vector<double> w(c.batch);
  for (std::size_t n = 0; n < c.batch; ++n) w[n] = 1.5 - static_cast<double>(n);
  const Operands tracked = upload(c, autodiff_device<TypeParam>(), DType::F32);
  const DispatchTensor wt = tensor_on(autodiff_device<TypeParam>(), w, DType::F32, Shape{c.batch});
  const auto by_backward =
      Dispatch::grad(tracked.log_probs, Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(loss_of(tracked, c.blank), wt))));
  ASSERT_TRUE(by_backward.has_value());
  const Operands plain = upload(c, plain_device<TypeParam>(), DType::F32);
  const DispatchTensor wp = tensor_on(plain_device<TypeParam>(), w, DType::F32, Shape{c.batch});
  const DispatchTensor by_entry = Dispatch::ctc_loss_backward(plain.log_probs, plain.targets, plain.input_lengths,
                                                              plain.target_lengths, wp, c.blank);
  EXPECT_EQ(Dispatch::float_into_data(by_entry), Dispatch::float_into_data(*by_backward));
  EXPECT_PANIC(Dispatch::ctc_loss_backward(tracked.log_probs, tracked.targets, tracked.input_lengths, tracked.target_lengths, wt,
                                           c.blank),
               "not-differentiable", "Can't differentiate ctc_loss_backward.");
  EXPECT_PANIC(Dispatch::ctc_loss_backward(plain.log_probs, plain.targets, plain.input_lengths, plain.target_lengths,
                                           tensor_on(plain_device<TypeParam>(), {1, 2, 3, 4}, DType::F32, Shape{4}), c.blank),
               "pool-grad-shape",
               "ctc_loss_backward needs a gradient of the output's shape [" + std::to_string(c.batch) + "], got [4].");
  EXPECT_PANIC(Dispatch::ctc_loss_backward(plain.log_probs, plain.targets, plain.input_lengths, plain.target_lengths,
                                           tensor_on(plain_device<TypeParam>(), w, DType::F64, Shape{c.batch}), c.blank),
               "dtype-mismatch", "ctc_loss_backward needs operands of one dtype, got F32 and F64.");
}

TYPED_TEST(CtcLoss, ArgumentFaultsAreCatalogPanics) {
  const DispatchDevice d = plain_device<TypeParam>();
  const auto ints = [&](std::vector<std::int64_t> v, Shape s) { return Dispatch::int_from_data(TensorData::from_i64(std::move(v), s), d); };
  const DispatchTensor lp = tensor_on(d, std::vector<double>(40, -1.0), DType::F32, Shape{4, 2, 5});
  const DispatchTensor targets = ints({1, 2, 0, 3, 4, 4}, Shape{2, 3});
  const DispatchTensor lengths = ints({4, 3}, Shape{2});
  const DispatchTensor target_lengths = ints({2, 3}, Shape{2});
  EXPECT_PANIC(Dispatch::ctc_loss(lp, ints({1, 2, 3}, Shape{3, 1}), lengths, target_lengths, 0), "ctc-shape",
               "ctc_loss needs log_probs [time, batch, classes], targets [batch, max_target_length], input_lengths [batch] and "
               "target_lengths [batch], got [4, 2, 5], [3, 1], [2] and [2].");
  EXPECT_PANIC(Dispatch::ctc_loss(tensor_on(d, std::vector<double>(10, -1.0), DType::F32, Shape{2, 5}), targets, lengths,
                                  target_lengths, 0),
               "ctc-shape",
               "ctc_loss needs log_probs [time, batch, classes], targets [batch, max_target_length], input_lengths [batch] and "
               "target_lengths [batch], got [2, 5], [2, 3], [2] and [2].");
  EXPECT_PANIC(Dispatch::ctc_loss(lp, targets, lengths, target_lengths, 5), "ctc-blank",
               "ctc_loss needs blank below the number of classes 5, got blank 5.");
  EXPECT_PANIC(Dispatch::ctc_loss(lp, targets, ints({4, 5}, Shape{2}), target_lengths, 0), "ctc-length",
               "ctc_loss needs input_lengths[1] in 0..=4, got 5.");
  EXPECT_PANIC(Dispatch::ctc_loss(lp, targets, ints({-1, 5}, Shape{2}), ints({9, 3}, Shape{2}), 0), "ctc-length",
               "ctc_loss needs input_lengths[0] in 0..=4, got -1.");  // input lengths first
  EXPECT_PANIC(Dispatch::ctc_loss(lp, targets, lengths, ints({2, 4}, Shape{2}), 0), "ctc-length",
               "ctc_loss needs target_lengths[1] in 0..=3, got 4.");
  // targets[0, 2] = 0 is padding (target length 2) and never read; targets[1, 2] = 4 is read.
  EXPECT_PANIC(Dispatch::ctc_loss(lp, targets, lengths, target_lengths, 4), "ctc-target-label",
               "ctc_loss needs target labels in 0..5 other than the blank 4, got 4 at targets[1, 1].");
  EXPECT_PANIC(Dispatch::ctc_loss(lp, ints({1, 7, 0, -2, 1, 1}, Shape{2, 3}), lengths, target_lengths, 0), "ctc-target-label",
               "ctc_loss needs target labels in 0..5 other than the blank 0, got 7 at targets[0, 1].");
  EXPECT_PANIC(Dispatch::ctc_loss(lp, ints({1, 2, 0, 3, 0, 4}, Shape{2, 3}), lengths, target_lengths, 0), "ctc-target-label",
               "ctc_loss needs target labels in 0..5 other than the blank 0, got 0 at targets[1, 1].");
  EXPECT_PANIC(Dispatch::ctc_loss(targets, targets, lengths, target_lengths, 0), "op-kind-mismatch",
               "ctc_loss needs a tensor of kind Float, got " + debug(targets.kind) + ".");
  EXPECT_PANIC(Dispatch::ctc_loss(lp, lp, lengths, target_lengths, 0), "op-kind-mismatch",
               "ctc_loss needs a tensor of kind Int, got " + debug(lp.kind) + ".");
  const DispatchTensor on_autodiff = Dispatch::int_from_data(TensorData::from_i64({4, 3}, Shape{2}), autodiff_device<TypeParam>());
  EXPECT_PANIC(Dispatch::ctc_loss(lp, targets, on_autodiff, target_lengths, 0), "op-backend-mismatch",
               "ctc_loss needs operands on one backend, got " + debug(lp.kind) + " and " + debug(on_autodiff.kind) + ".");
}

}  // namespace
}  // namespace crossgrad
