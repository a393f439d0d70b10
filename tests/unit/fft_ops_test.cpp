// rfft and irfft (docs/OPS.md "Module ops") on every backend, plain and tracked, against values
// worked out here from the definitions (re[k] = sum x[t] cos(2 pi k t / n), im[k] = -sum x[t]
// sin(...); the inverse with bins 0 and n / 2 once and the others twice, over n), the bundle's
// layout (the real parts, then the imaginary parts along dim 0), truncation and zero padding by n,
// the gradients through Autodiff<B> (Burn's rules), and the argument panics.
#include "test_support.hpp"

#include <optional>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class FftOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(FftOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

TYPED_TEST(FftOps, RfftGivesTheBinsThenTheirImaginaryParts) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor x = tensor_on(device, {1, 2, 3, 4}, dt, {4});
      // re = [10, 1 - 3, 1 - 2 + 3 - 4], im = [0, -(2 - 4), 0].
      const DispatchTensor y = Dispatch::rfft(x, 0, std::nullopt);
      EXPECT_EQ(Dispatch::float_shape(y), (Shape{6}));
      EXPECT_EQ(values(y), (std::vector<double>{10, -2, -2, 0, 2, 0}));
      // n 2 keeps the first two samples; n 8 pads four zeros (5 bins).
      EXPECT_EQ(values(Dispatch::rfft(x, 0, 2)), (std::vector<double>{3, -1, 0, 0}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::rfft(x, 0, 8)), (Shape{10}));
      // Rows along dim 1, the parts stacked along dim 0.
      EXPECT_EQ(values(Dispatch::rfft(tensor_on(device, {1, 2, 3, 4}, dt, {2, 2}), 1, std::nullopt)),
                (std::vector<double>{3, -1, 7, -1, 0, 0, 0, 0}));
      // A length-1 signal is its own bin; an empty row gives empty bins.
      EXPECT_EQ(values(Dispatch::rfft(tensor_on(device, {5}, dt, {1}), 0, std::nullopt)), (std::vector<double>{5, 0}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::rfft(tensor_on(device, {}, dt, {0, 4}), 1, std::nullopt)), (Shape{0, 3}));
    }
  }
}

TYPED_TEST(FftOps, IrfftGivesTheSignalBack) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor re = tensor_on(device, {10, -2, -2}, dt, {3}), im = tensor_on(device, {0, 2, 0}, dt, {3});
      EXPECT_EQ(values(Dispatch::irfft(re, im, 0, std::nullopt)), (std::vector<double>{1, 2, 3, 4}));
      // The imaginary parts of bins 0 and n / 2 are not read.
      EXPECT_EQ(values(Dispatch::irfft(re, tensor_on(device, {7, 2, -7}, dt, {3}), 0, std::nullopt)),
                (std::vector<double>{1, 2, 3, 4}));
      // n 2 reads bins 0 and 1 only: (10 + (-1)^t (-2)) / 2.
      EXPECT_EQ(values(Dispatch::irfft(re, im, 0, 2)), (std::vector<double>{4, 6}));
    }
  }
}

TYPED_TEST(FftOps, GradientsFollowBurnsRules) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    // d/dx[t] of the sum of every bin: sum_k cos(pi k t / 2) - sum_k sin(pi k t / 2).
    const DispatchTensor x = tensor_on(device, {1, 2, 3, 4}, dt, {4});
    Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::rfft(x, 0, std::nullopt)));
    EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{3, -1, 1, 1}));
    // Truncated to 2 samples: the others get no gradient.
    g = Dispatch::backward(Dispatch::float_sum(Dispatch::rfft(x, 0, 2)));
    EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{2, 0, 0, 0}));
    // irfft against the cotangent [1, 2, 3, 4]: re[0] 10 / 4, re[1] (1 - 3) / 2, re[2] (1 - 2 + 3 - 4) / 4,
    // im[1] -(2 - 4) / 2; bins 0 and n / 2 of the imaginary part are not read.
    const DispatchTensor re = tensor_on(device, {10, -2, -2}, dt, {3}), im = tensor_on(device, {0, 2, 0}, dt, {3});
    const DispatchTensor c = tensor_on(device, {1, 2, 3, 4}, dt, {4});
    g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(Dispatch::irfft(re, im, 0, std::nullopt), c)));
    EXPECT_EQ(values(*Dispatch::grad(re, g)), (std::vector<double>{2.5, -1, -0.5}));
    EXPECT_EQ(values(*Dispatch::grad(im, g)), (std::vector<double>{0, 1, 0}));
  }
}

TYPED_TEST(FftOps, BadArgumentsPanic) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor three = tensor_on(device, {1, 2, 3}, DType::F32, {3});
  EXPECT_PANIC(Dispatch::rfft(three, 0, std::nullopt), "fft-size",
               "rfft needs a transform size that is a power of two along dim 0, got 3.");
  EXPECT_PANIC(Dispatch::rfft(three, 0, 0), "fft-size", "rfft needs a transform size that is a power of two along dim 0, got 0.");
  EXPECT_PANIC(Dispatch::rfft(three, 1, 4), "dim-out-of-range", "rfft got dim 1 for a tensor of rank 1.");
  EXPECT_PANIC(Dispatch::irfft(three, tensor_on(device, {1, 2}, DType::F32, {2}), 0, std::nullopt), "fft-spectrum-shape",
               "irfft needs the real and imaginary parts of one shape, got [3] and [2].");
  const DispatchTensor four = tensor_on(device, {1, 2, 3, 4}, DType::F32, {4});
  EXPECT_PANIC(Dispatch::irfft(four, four, 0, std::nullopt), "fft-size",
               "irfft needs a transform size that is a power of two along dim 0, got 6.");
  EXPECT_PANIC(Dispatch::irfft(four, tensor_on(device, {1, 2, 3, 4}, DType::F64, {4}), 0, 4), "dtype-mismatch",
               "irfft needs operands of one dtype, got F32 and F64.");
}

}  // namespace
}  // namespace crossgrad
