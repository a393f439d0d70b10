// Dispatch::ctc_loss against PyTorch's ctc_loss (ATen, reduction none, zero_infinity false) on the
// engine's CPU and GPU backends, through log_softmax on both sides (oracle/torch_ctc_loss.hpp says
// why): the loss of every sample, and the gradient of sum(loss * w) with respect to the logits for
// every sample with an alignment (ATen's gradient of a +inf sample is NaN; crossgrad's is 0, which
// CtcLoss.UnreachableTargetIsInfiniteWithZeroGradient pins). A sample with an empty input is judged
// against the definition instead: PyTorch 1.13 reads step 0 of it anyway (docs/OPS.md "CTC loss").
// At exit, the counts.
#include "gen/backends.hpp"
#include "gen/ctc_cases.hpp"
#include "support/op_call.hpp"
#include "support/prop.hpp"

#include <crossgrad/crossgrad.hpp>
#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/torch_ctc_loss.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

using namespace crossgrad;
using namespace crossgrad::properties;
namespace og = crossgrad::oracle;

namespace {

struct Counts {
  long cases = 0, refused = 0, samples = 0, unreachable = 0, empty_inputs = 0, gradient_elements = 0;
};
Counts& counts() {
  static Counts c;
  return c;
}

std::vector<og::BackendRef> judged_backends() {
  std::vector<og::BackendRef> out;
  for (const og::BackendRef& b : og::all_backends()) {
    if (b.available && (b.name == "NdArray" || b.name == "Flex" || b.name == "Cuda")) out.push_back(b);
  }
  return out;
}

std::string describe(const og::CtcCase& c, const std::vector<double>& z, DType dtype, const std::string& backend) {
  std::string s = "T " + std::to_string(c.time) + " N " + std::to_string(c.batch) + " C " + std::to_string(c.classes) + " S " +
                  std::to_string(c.max_target) + " blank " + std::to_string(c.blank) + (dtype == DType::F64 ? " F64 " : " F32 ") +
                  backend + "\n  targets";
  for (std::int64_t v : c.targets) s += " " + std::to_string(v);
  s += "\n  input_lengths";
  for (std::int64_t v : c.input_lengths) s += " " + std::to_string(v);
  s += "\n  target_lengths";
  for (std::int64_t v : c.target_lengths) s += " " + std::to_string(v);
  s += "\n  logits";
  for (double v : z) s += " " + std::to_string(v);
  return s;
}

bool close(double ours, double theirs, double rel) {
  if (std::isinf(theirs) || std::isinf(ours)) return ours == theirs;
  return std::fabs(ours - theirs) <= rel * std::fmax(1.0, std::fabs(theirs));
}

// Every gradient element of sample n equal to `value`.
bool close_rows(const std::vector<double>& grad, const og::CtcCase& c, std::size_t n, double value) {
  for (std::size_t t = 0; t < c.time; ++t) {
    for (std::size_t k = 0; k < c.classes; ++k) {
      if (grad[(t * c.batch + n) * c.classes + k] != value) return false;
    }
  }
  return true;
}

class CountReport : public ::testing::Environment {
 public:
  void TearDown() override {
    const Counts& c = counts();
    std::printf("ctc_loss vs PyTorch: %ld cases compared (%ld refused by ATen, not compared), %ld samples (%ld without an "
                "alignment: loss only; %ld with an empty input: against the definition), %ld gradient elements\n",
                c.cases, c.refused, c.samples, c.unreachable, c.empty_inputs, c.gradient_elements);
  }
};
const auto* const kReport = ::testing::AddGlobalTestEnvironment(new CountReport);

}  // namespace

TEST(TorchDifferential, CtcLossEqualsPyTorch) {
  const std::vector<og::BackendRef> backends = judged_backends();
  ASSERT_FALSE(backends.empty());
  check_property(
      [&] {
        const og::CtcCase c = *gen::ctc_labels();
        const std::vector<double> z = *gen::ctc_logits(c.time * c.batch * c.classes);
        const DType dtype = *rc::gen::element(DType::F32, DType::F64);
        const og::BackendRef& backend = backends[*rc::gen::inRange<std::size_t>(0, backends.size())];
        std::vector<double> w(c.batch);
        for (std::size_t n = 0; n < c.batch; ++n) w[n] = 1.0 + 0.25 * static_cast<double>(n);
        const std::string what = describe(c, z, dtype, backend.name);

        const og::TorchCtcResult theirs = og::torch_ctc_loss_of_logits(c, z, dtype, w);
        if (theirs.error) {
          ++counts().refused;
          if (std::getenv("CTC_SHOW_REFUSALS")) std::fprintf(stderr, "%s\n  refused: %s\n", what.c_str(), theirs.error->c_str());
          RC_DISCARD("ATen refused: " + *theirs.error);
        }
        const DispatchDevice tracked = og::dispatch_device(backend.index, backend.default_device, true);
        const DispatchTensor x = upload(og::HostArray{{c.time, c.batch, c.classes}, dtype, z}, backend.index, true);
        const auto ints = [&](const std::vector<std::int64_t>& v, Shape s) {
          return Dispatch::int_from_data(TensorData::from_i64(v, std::move(s)), tracked);
        };
        const DispatchTensor loss = Dispatch::ctc_loss(Dispatch::log_softmax(x, 2), ints(c.targets, Shape{c.batch, c.max_target}),
                                                       ints(c.input_lengths, Shape{c.batch}), ints(c.target_lengths, Shape{c.batch}),
                                                       c.blank);
        const DispatchTensor weights = upload(og::HostArray{{c.batch}, dtype, w}, backend.index, true);
        const auto g = Dispatch::grad(x, Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(loss, weights))));
        const std::vector<double> ours_loss = Dispatch::float_into_data(loss).to_f64();
        const std::vector<double> ours_grad =
            g ? Dispatch::float_into_data(*g).to_f64() : std::vector<double>(c.time * c.batch * c.classes, 0.0);
        const double rel = dtype == DType::F64 ? 1e-10 : 1e-4;
        ++counts().cases;
        for (std::size_t n = 0; n < c.batch; ++n) {
          ++counts().samples;
          if (c.input_lengths[n] == 0) {
            ++counts().empty_inputs;
            const double want = c.target_lengths[n] == 0 ? 0.0 : std::numeric_limits<double>::infinity();
            if (ours_loss[n] != want || !close_rows(ours_grad, c, n, 0.0)) {
              RC_FAIL(what + "\n  loss[" + std::to_string(n) + "] of an empty input: crossgrad " + std::to_string(ours_loss[n]) +
                      ", the definition " + std::to_string(want) + ", with a zero gradient");
            }
            continue;
          }
          if (!close(ours_loss[n], theirs.loss[n], rel)) {
            RC_FAIL(what + "\n  loss[" + std::to_string(n) + "]: crossgrad " + std::to_string(ours_loss[n]) + ", PyTorch " +
                    std::to_string(theirs.loss[n]));
          }
          if (std::isinf(theirs.loss[n])) {
            ++counts().unreachable;
            continue;
          }
          for (std::size_t t = 0; t < c.time; ++t) {
            for (std::size_t k = 0; k < c.classes; ++k) {
              const std::size_t i = (t * c.batch + n) * c.classes + k;
              ++counts().gradient_elements;
              if (!close(ours_grad[i], theirs.logits_gradient[i], rel)) {
                RC_FAIL(what + "\n  d/dlogits[" + std::to_string(t) + ", " + std::to_string(n) + ", " + std::to_string(k) +
                        "]: crossgrad " + std::to_string(ours_grad[i]) + ", PyTorch " + std::to_string(theirs.logits_gradient[i]));
              }
            }
          }
        }
      },
      400);
}
