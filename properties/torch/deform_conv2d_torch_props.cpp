// Dispatch::deform_conv2d against PyTorch (oracle/torch_deform_conv2d.hpp: ATen's grid_sampler_2d,
// mask, grouped matmul and bias, with ATen's autograd) on the engine's CPU and GPU backends and the
// LibTorch one: the output, and the gradient of sum(out * w) with respect to all five operands (x,
// offset, weight, and mask and bias when the case has them). At exit, the counts.
#include "gen/backends.hpp"
#include "gen/deform_conv2d_cases.hpp"
#include "support/op_call.hpp"
#include "support/prop.hpp"

#include <crossgrad/crossgrad.hpp>
#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/torch_deform_conv2d.hpp>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

using namespace crossgrad;
using namespace crossgrad::properties;
namespace og = crossgrad::oracle;

namespace {

struct Counts {
  long cases = 0, refused = 0, with_mask = 0, with_bias = 0, outputs = 0, gradient_elements = 0;
};
Counts& counts() {
  static Counts c;
  return c;
}

std::vector<og::BackendRef> judged_backends() {
  std::vector<og::BackendRef> out;
  for (const og::BackendRef& b : og::all_backends()) {
    if (b.available && (b.name == "NdArray" || b.name == "Flex" || b.name == "Cuda" || b.name == "LibTorch")) out.push_back(b);
  }
  return out;
}

std::string describe(const og::DeformConv2dCase& c, DType dtype, const std::string& backend) {
  return "batch " + std::to_string(c.batch) + " in " + std::to_string(c.channels_in) + " " + std::to_string(c.height) + "x" +
         std::to_string(c.width) + " out " + std::to_string(c.channels_out) + " kernel " + std::to_string(c.kernel_h) + "x" +
         std::to_string(c.kernel_w) + " stride " + std::to_string(c.stride_h) + "," + std::to_string(c.stride_w) + " padding " +
         std::to_string(c.padding_h) + "," + std::to_string(c.padding_w) + " dilation " + std::to_string(c.dilation_h) + "," +
         std::to_string(c.dilation_w) + " groups " + std::to_string(c.weight_groups) + " offset_groups " +
         std::to_string(c.offset_groups) + (c.mask ? " mask" : "") + (c.bias ? " bias" : "") +
         (dtype == DType::F64 ? " F64 " : " F32 ") + backend;
}

// Every element within rel of PyTorch's, relative to max(1, |PyTorch's|); `seen` counts them.
void expect_close(const std::vector<double>& ours, const std::vector<double>& theirs, double rel, const std::string& what,
                  const std::string& operand, long& seen) {
  RC_ASSERT(ours.size() == theirs.size());
  for (std::size_t i = 0; i < ours.size(); ++i) {
    ++seen;
    if (!(std::fabs(ours[i] - theirs[i]) <= rel * std::fmax(1.0, std::fabs(theirs[i])))) {
      RC_FAIL(what + "\n  " + operand + "[" + std::to_string(i) + "]: crossgrad " + std::to_string(ours[i]) + ", PyTorch " +
              std::to_string(theirs[i]));
    }
  }
}

class CountReport : public ::testing::Environment {
 public:
  void TearDown() override {
    const Counts& c = counts();
    std::printf("deform_conv2d vs PyTorch: %ld cases compared (%ld refused by ATen, not compared; %ld with a mask, %ld with "
                "a bias), %ld output elements, %ld gradient elements\n",
                c.cases, c.refused, c.with_mask, c.with_bias, c.outputs, c.gradient_elements);
  }
};
const auto* const kReport = ::testing::AddGlobalTestEnvironment(new CountReport);

}  // namespace

TEST(TorchDifferential, DeformConv2dEqualsPyTorch) {
  const std::vector<og::BackendRef> backends = judged_backends();
  ASSERT_FALSE(backends.empty());
  check_property(
      [&] {
        const og::DeformConv2dCase c = *gen::deform_conv2d_case();
        const DType dtype = *rc::gen::element(DType::F32, DType::F64);
        const og::BackendRef& backend = backends[*rc::gen::inRange<std::size_t>(0, backends.size())];
        const std::size_t taps = c.offset_groups * c.kernel_h * c.kernel_w, oh = c.out_h(), ow = c.out_w();
        const std::vector<double> w = gen::deform_values(c.batch * c.channels_out * oh * ow, -1, 1);
        const std::string what = describe(c, dtype, backend.name);

        const og::TorchDeformConv2dResult theirs = og::torch_deform_conv2d(c, dtype, w);
        if (theirs.error) {
          ++counts().refused;
          RC_DISCARD("ATen refused: " + *theirs.error);
        }
        const auto up = [&](const std::vector<double>& v, std::vector<std::size_t> shape) {
          return upload(og::HostArray{std::move(shape), dtype, v}, backend.index, true);
        };
        const DispatchTensor x = up(c.x, {c.batch, c.channels_in, c.height, c.width});
        const DispatchTensor offset = up(c.offset, {c.batch, 2 * taps, oh, ow});
        const DispatchTensor weight = up(c.weight, {c.channels_out, c.channels_in / c.weight_groups, c.kernel_h, c.kernel_w});
        std::optional<DispatchTensor> mask, bias;
        if (c.mask) mask = up(*c.mask, {c.batch, taps, oh, ow});
        if (c.bias) bias = up(*c.bias, {c.channels_out});
        const DeformConv2dOptions options{{c.stride_h, c.stride_w}, {c.padding_h, c.padding_w}, {c.dilation_h, c.dilation_w},
                                          c.weight_groups, c.offset_groups};
        const DispatchTensor out = Dispatch::deform_conv2d(x, offset, weight, mask, bias, options);
        const Gradients grads = Dispatch::backward(
            Dispatch::float_sum(Dispatch::float_mul(out, up(w, {c.batch, c.channels_out, oh, ow}))));
        const auto grad_of = [&](const DispatchTensor& operand) {
          const std::optional<DispatchTensor> g = Dispatch::grad(operand, grads);
          RC_ASSERT(g.has_value());
          return Dispatch::float_into_data(*g).to_f64();
        };
        const double rel = dtype == DType::F64 ? 1e-10 : 1e-4;
        ++counts().cases;
        counts().with_mask += c.mask ? 1 : 0;
        counts().with_bias += c.bias ? 1 : 0;
        long& g = counts().gradient_elements;
        expect_close(Dispatch::float_into_data(out).to_f64(), theirs.out, rel, what, "out", counts().outputs);
        expect_close(grad_of(x), theirs.x_grad, rel, what, "d/dx", g);
        expect_close(grad_of(offset), theirs.offset_grad, rel, what, "d/doffset", g);
        expect_close(grad_of(weight), theirs.weight_grad, rel, what, "d/dweight", g);
        if (mask) expect_close(grad_of(*mask), theirs.mask_grad, rel, what, "d/dmask", g);
        if (bias) expect_close(grad_of(*bias), theirs.bias_grad, rel, what, "d/dbias", g);
      },
      300);
}
