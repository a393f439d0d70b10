// Dispatch::deform_conv2d on every backend (docs/OPS.md "Deformable convolution"): values against
// the oracle's loops from torchvision's definition (oracle/deform_conv2d_reference.hpp), zero offsets
// against conv2d, all five gradients against central differences of the engine's own output, the
// backward entry point against a backward pass, and the argument faults as catalog panics.
#include "test_support.hpp"

#include <crossgrad/oracle/deform_conv2d_reference.hpp>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

using Case = oracle::DeformConv2dCase;

std::vector<double> draw(std::mt19937_64& rng, std::size_t n, double lo, double hi) {
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = d(rng);
  return v;
}

// Offsets whose fractional part stays in [0.1, 0.9]: no sampling position is an integer, so the
// output is smooth in every operand where the finite differences probe it.
std::vector<double> smooth_offsets(std::mt19937_64& rng, std::size_t n) {
  std::vector<double> v = draw(rng, n, 0.1, 0.9);
  std::uniform_int_distribution<int> whole(-2, 1);
  for (double& x : v) x += whole(rng);
  return v;
}

Case random_case(std::mt19937_64& rng, bool small) {
  const auto pick = [&](std::size_t lo, std::size_t hi) { return std::uniform_int_distribution<std::size_t>(lo, hi)(rng); };
  Case c;
  c.batch = small ? 1 : pick(1, 2);
  c.offset_groups = small ? 1 : pick(1, 2);
  c.weight_groups = small ? 1 : pick(1, 2);
  c.channels_in = c.offset_groups * c.weight_groups * (small ? 2 : pick(1, 2));
  c.channels_out = c.weight_groups * (small ? 2 : pick(1, 2));
  c.kernel_h = small ? 2 : pick(1, 3);
  c.kernel_w = small ? 2 : pick(1, 3);
  c.stride_h = small ? 1 : pick(1, 2);
  c.stride_w = small ? 1 : pick(1, 2);
  c.padding_h = small ? 0 : pick(0, 1);
  c.padding_w = small ? 0 : pick(0, 1);
  c.dilation_h = small ? 1 : pick(1, 2);
  c.dilation_w = small ? 1 : pick(1, 2);
  c.height = small ? 3 : pick(c.dilation_h * (c.kernel_h - 1) + 1, 5);
  c.width = small ? 3 : pick(c.dilation_w * (c.kernel_w - 1) + 1, 5);
  const std::size_t cells = c.out_h() * c.out_w(), taps = c.offset_groups * c.kernel_h * c.kernel_w;
  c.x = draw(rng, c.batch * c.channels_in * c.height * c.width, -2, 2);
  c.offset = smooth_offsets(rng, c.batch * 2 * taps * cells);
  c.weight = draw(rng, c.channels_out * c.channels_in / c.weight_groups * c.kernel_h * c.kernel_w, -1, 1);
  if (small || pick(0, 1) == 1) c.mask = draw(rng, c.batch * taps * cells, 0, 1);
  if (small || pick(0, 1) == 1) c.bias = draw(rng, c.channels_out, -1, 1);
  return c;
}

DeformConv2dOptions options_of(const Case& c) {
  return {{c.stride_h, c.stride_w}, {c.padding_h, c.padding_w}, {c.dilation_h, c.dilation_w}, c.weight_groups, c.offset_groups};
}

struct Operands {
  DispatchTensor x, offset, weight;
  std::optional<DispatchTensor> mask, bias;
};

Operands upload(const Case& c, const DispatchDevice& d, DType dtype) {
  const std::size_t taps = c.offset_groups * c.kernel_h * c.kernel_w;
  Operands o{tensor_on(d, c.x, dtype, Shape{c.batch, c.channels_in, c.height, c.width}),
             tensor_on(d, c.offset, dtype, Shape{c.batch, 2 * taps, c.out_h(), c.out_w()}),
             tensor_on(d, c.weight, dtype, Shape{c.channels_out, c.channels_in / c.weight_groups, c.kernel_h, c.kernel_w}),
             std::nullopt, std::nullopt};
  if (c.mask) o.mask = tensor_on(d, *c.mask, dtype, Shape{c.batch, taps, c.out_h(), c.out_w()});
  if (c.bias) o.bias = tensor_on(d, *c.bias, dtype, Shape{c.channels_out});
  return o;
}

DispatchTensor run(const Operands& o, const Case& c) {
  return Dispatch::deform_conv2d(o.x, o.offset, o.weight, o.mask, o.bias, options_of(c));
}

std::string describe(const Case& c) {
  return "batch " + std::to_string(c.batch) + " in " + std::to_string(c.channels_in) + " " + std::to_string(c.height) + "x" +
         std::to_string(c.width) + " out " + std::to_string(c.channels_out) + " kernel " + std::to_string(c.kernel_h) + "x" +
         std::to_string(c.kernel_w) + " stride " + std::to_string(c.stride_h) + "," + std::to_string(c.stride_w) + " padding " +
         std::to_string(c.padding_h) + "," + std::to_string(c.padding_w) + " dilation " + std::to_string(c.dilation_h) + "," +
         std::to_string(c.dilation_w) + " groups " + std::to_string(c.weight_groups) + " offset_groups " +
         std::to_string(c.offset_groups) + (c.mask ? " mask" : "") + (c.bias ? " bias" : "");
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want, double tolerance, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tolerance * std::fmax(1.0, std::fabs(want[i]))) << what << " element " << i;
  }
}

template <class B>
class DeformConv2d : public OnEachBackend<B> {};
TYPED_TEST_SUITE(DeformConv2d, AllBackendTypes, BackendTestName);

TYPED_TEST(DeformConv2d, EqualsTheDefinition) {
  std::mt19937_64 rng(20261207);
  for (int i = 0; i < 10; ++i) {
    Case c = random_case(rng, false);
    // Some taps far outside the image, and one position per case exactly on a cell (no fraction).
    if (i % 3 == 2) c.offset[0] = 7.5;
    c.offset[c.offset.size() / 2] = 1.0;
    SCOPED_TRACE(describe(c));
    const std::vector<double> want = oracle::deform_conv2d_reference(c);
    for (const DType dtype : {DType::F64, DType::F32}) {
      for (const DispatchDevice& d : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
        expect_close(values(run(upload(c, d, dtype), c)), want, dtype == DType::F64 ? 1e-12 : 1e-5,
                     dtype == DType::F64 ? "F64" : "F32");
      }
    }
  }
}

// With every offset 0 and no mask, every tap reads its own cell: conv2d (0 in the padding).
TYPED_TEST(DeformConv2d, ZeroOffsetsAreConv2d) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 4; ++i) {
    Case c = random_case(rng, false);
    std::fill(c.offset.begin(), c.offset.end(), 0.0);
    c.mask.reset();
    SCOPED_TRACE(describe(c));
    const Operands o = upload(c, plain_device<TypeParam>(), DType::F64);
    const DispatchTensor conv =
        Dispatch::conv2d(o.x, o.weight, o.bias, Conv2dOptions{{c.stride_h, c.stride_w}, {c.padding_h, c.padding_w},
                                                              {c.dilation_h, c.dilation_w}, c.weight_groups});
    expect_close(values(run(o, c)), values(conv), 1e-12, "against conv2d");
  }
}

// d sum(out * g) / d operand for all five operands, against central differences of the F64 output.
TYPED_TEST(DeformConv2d, GradientsMatchFiniteDifferences) {
  std::mt19937_64 rng(5);
  const Case c = random_case(rng, true);
  SCOPED_TRACE(describe(c));
  const std::vector<double> g = draw(rng, c.batch * c.channels_out * c.out_h() * c.out_w(), -1, 1);
  const Shape out_shape{c.batch, c.channels_out, c.out_h(), c.out_w()};
  const auto weighted = [&](const Case& shifted) {
    const std::vector<double> out = values(run(upload(shifted, plain_device<TypeParam>(), DType::F64), shifted));
    double total = 0;
    for (std::size_t i = 0; i < out.size(); ++i) total += out[i] * g[i];
    return total;
  };
  const Operands o = upload(c, autodiff_device<TypeParam>(), DType::F64);
  const Gradients grads = Dispatch::backward(
      Dispatch::float_sum(Dispatch::float_mul(run(o, c), tensor_on(autodiff_device<TypeParam>(), g, DType::F64, out_shape))));
  const auto check = [&](const char* name, const DispatchTensor& operand, const std::function<std::vector<double>&(Case&)>& field) {
    SCOPED_TRACE(name);
    const std::vector<double> analytic = values(*Dispatch::grad(operand, grads));
    const double h = 1e-6;
    for (std::size_t j = 0; j < analytic.size(); ++j) {
      Case up = c, down = c;
      field(up)[j] += h;
      field(down)[j] -= h;
      const double fd = (weighted(up) - weighted(down)) / (2 * h);
      EXPECT_NEAR(analytic[j], fd, 1e-6 * std::fmax(1.0, std::fabs(fd))) << "element " << j;
    }
  };
  check("x", o.x, [](Case& k) -> std::vector<double>& { return k.x; });
  check("offset", o.offset, [](Case& k) -> std::vector<double>& { return k.offset; });
  check("weight", o.weight, [](Case& k) -> std::vector<double>& { return k.weight; });
  check("mask", *o.mask, [](Case& k) -> std::vector<double>& { return *k.mask; });
  check("bias", *o.bias, [](Case& k) -> std::vector<double>& { return *k.bias; });
}

TYPED_TEST(DeformConv2d, BackwardEntryGivesTheBackwardPassesBits) {
  std::mt19937_64 rng(9);
  const Case c = random_case(rng, true);
  const Shape out_shape{c.batch, c.channels_out, c.out_h(), c.out_w()};
  const std::vector<double> g = draw(rng, out_shape.num_elements(), -1, 1);
  const Operands tracked = upload(c, autodiff_device<TypeParam>(), DType::F32);
  const DispatchTensor gt = tensor_on(autodiff_device<TypeParam>(), g, DType::F32, out_shape);
  const Gradients grads = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(run(tracked, c), gt)));
  const Operands plain = upload(c, plain_device<TypeParam>(), DType::F32);
  const DispatchTensor gp = tensor_on(plain_device<TypeParam>(), g, DType::F32, out_shape);
  const DeformConv2dBackward b =
      Dispatch::deform_conv2d_backward(plain.x, plain.offset, plain.weight, plain.mask, plain.bias, gp, options_of(c));
  const auto same = [&](const DispatchTensor& entry, const DispatchTensor& leaf) {
    EXPECT_EQ(Dispatch::float_into_data(entry), Dispatch::float_into_data(*Dispatch::grad(leaf, grads)));
  };
  same(b.x_grad, tracked.x);
  same(b.offset_grad, tracked.offset);
  same(b.weight_grad, tracked.weight);
  ASSERT_TRUE(b.mask_grad && b.bias_grad);
  same(*b.mask_grad, *tracked.mask);
  same(*b.bias_grad, *tracked.bias);
  const DeformConv2dBackward without =
      Dispatch::deform_conv2d_backward(plain.x, plain.offset, plain.weight, std::nullopt, std::nullopt, gp, options_of(c));
  EXPECT_FALSE(without.mask_grad || without.bias_grad);
  EXPECT_PANIC(Dispatch::deform_conv2d_backward(tracked.x, tracked.offset, tracked.weight, tracked.mask, tracked.bias, gt,
                                                options_of(c)),
               "not-differentiable", "Can't differentiate deform_conv2d_backward.");
  EXPECT_PANIC(Dispatch::deform_conv2d_backward(plain.x, plain.offset, plain.weight, plain.mask, plain.bias,
                                                tensor_on(plain_device<TypeParam>(), {1, 2}, DType::F32, Shape{2}), options_of(c)),
               "pool-grad-shape",
               "deform_conv2d_backward needs a gradient of the output's shape " + out_shape.to_string() + ", got [2].");
}

TYPED_TEST(DeformConv2d, ArgumentFaultsAreCatalogPanics) {
  const DispatchDevice d = plain_device<TypeParam>();
  const auto zeros = [&](Shape s, DType dtype = DType::F32) { return Dispatch::float_zeros(s, d, dtype); };
  // x [1, 4, 4, 4], weight [2, 4, 3, 3]: out 2 x 2, 9 taps.
  const DispatchTensor x = zeros({1, 4, 4, 4}), weight = zeros({2, 4, 3, 3}), offset = zeros({1, 18, 2, 2});
  const DeformConv2dOptions plain_options;
  EXPECT_EQ(Dispatch::float_shape(Dispatch::deform_conv2d(x, offset, weight, zeros({1, 9, 2, 2}), zeros({2}), plain_options)),
            (Shape{1, 2, 2, 2}));
  EXPECT_PANIC(Dispatch::deform_conv2d(x, zeros({1, 8, 2, 2}), weight, std::nullopt, std::nullopt, plain_options),
               "deform-operand-shape", "deform_conv2d needs an offset of shape [1, 18, 2, 2], got [1, 8, 2, 2].");
  EXPECT_PANIC(Dispatch::deform_conv2d(x, offset, weight, zeros({1, 18, 2, 2}), std::nullopt, plain_options),
               "deform-operand-shape", "deform_conv2d needs a mask of shape [1, 9, 2, 2], got [1, 18, 2, 2].");
  DeformConv2dOptions three_groups;
  three_groups.offset_groups = 3;
  EXPECT_PANIC(Dispatch::deform_conv2d(x, offset, weight, std::nullopt, std::nullopt, three_groups), "deform-offset-groups",
               "deform_conv2d needs offset_groups of at least 1 dividing the input channels 4, got offset_groups 3.");
  DeformConv2dOptions two_groups;
  two_groups.offset_groups = 2;  // then the offset needs 2 * 2 * 9 channels
  EXPECT_PANIC(Dispatch::deform_conv2d(x, offset, weight, std::nullopt, std::nullopt, two_groups), "deform-operand-shape",
               "deform_conv2d needs an offset of shape [1, 36, 2, 2], got [1, 18, 2, 2].");
  DeformConv2dOptions weight_groups;
  weight_groups.weight_groups = 3;
  EXPECT_PANIC(Dispatch::deform_conv2d(x, offset, weight, std::nullopt, std::nullopt, weight_groups), "conv-groups",
               "deform_conv2d needs groups of at least 1 dividing the input channels 4 and the output channels 2, got groups 3.");
  EXPECT_PANIC(Dispatch::deform_conv2d(x, zeros({1, 18, 2, 2}, DType::F64), weight, std::nullopt, std::nullopt, plain_options),
               "dtype-mismatch", "deform_conv2d needs operands of one dtype, got F32 and F64.");
  DeformConv2dOptions no_stride;
  no_stride.stride = {0, 1};
  EXPECT_PANIC(Dispatch::deform_conv2d(x, offset, weight, std::nullopt, std::nullopt, no_stride), "module-option-zero",
               "deform_conv2d needs stride of at least 1 in every dim, got [0, 1].");
  EXPECT_PANIC(Dispatch::deform_conv2d(x, offset, Dispatch::int_zeros({2, 4, 3, 3}, d), std::nullopt, std::nullopt, plain_options),
               "op-kind-mismatch",
               "deform_conv2d needs a tensor of kind Float, got " + debug(Dispatch::int_zeros({2, 4, 3, 3}, d).kind) + ".");
}

}  // namespace
}  // namespace crossgrad
