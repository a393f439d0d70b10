// The scans and layout moves of issue 36 (docs/OPS.md): float_cumsum, float_cumprod, float_cummin,
// float_cummax, float_flip and float_transpose on every backend, plain and tracked, against values worked out here from the spec, and their backward
// rules against derivatives worked out by hand, cumprod's at zeros included (no finite
// differences: a lane's zeros are exactly where they would mislead).
#include "test_support.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

const double kInf = std::numeric_limits<double>::infinity();


// d/dx sum(op(x) * c) for a cotangent tensor c of op's result shape.
std::vector<double> gradient(const DispatchDevice& device, const std::vector<double>& xs, const std::vector<double>& c,
                             DType dtype, Shape shape, DispatchTensor (*op)(const DispatchTensor&)) {
  const DispatchTensor x = tensor_on(device, xs, dtype, shape);
  const DispatchTensor cot = tensor_on(device, c, dtype, shape);
  const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(op(x), cot)));
  const auto got = Dispatch::grad(x, g);
  EXPECT_TRUE(got.has_value()) << "no gradient reached x";
  return got ? values(*got) : std::vector<double>{};
}

template <class B>
class ScanAndFlipOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(ScanAndFlipOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

TYPED_TEST(ScanAndFlipOps, CumsumAlongEachDim) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, dt, {2, 3});
      EXPECT_EQ(values(Dispatch::float_cumsum(x, 1)), (std::vector<double>{1, 3, 6, 4, 9, 15}));
      EXPECT_EQ(values(Dispatch::float_cumsum(x, 0)), (std::vector<double>{1, 2, 3, 5, 7, 9}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::float_cumsum(x, 0)), (Shape{2, 3}));
      // inf + -inf is NaN, and NaN stays to the end of the lane.
      const auto special = values(Dispatch::float_cumsum(tensor_on(device, {1, kInf, -kInf, 2}, dt, {4}), 0));
      EXPECT_EQ(special[0], 1);
      EXPECT_EQ(special[1], kInf);
      EXPECT_TRUE(std::isnan(special[2]) && std::isnan(special[3]));
      // A dim of size 0 anywhere: an empty result of the same shape, no panic.
      EXPECT_EQ(Dispatch::float_shape(Dispatch::float_cumsum(tensor_on(device, {}, dt, {2, 0}), 1)), (Shape{2, 0}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::float_cumsum(tensor_on(device, {}, dt, {0, 3}), 1)), (Shape{0, 3}));
    }
  }
}

TYPED_TEST(ScanAndFlipOps, CumprodCarriesZerosAndTheirSign) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      // 2, 2 * -0.5 = -1, -1 * 0 = -0, -0 * 3 = -0, -0 * -inf = NaN.
      const auto y = values(Dispatch::float_cumprod(tensor_on(device, {2, -0.5, 0, 3, -kInf}, dt, {5}), 0));
      EXPECT_EQ(y[0], 2);
      EXPECT_EQ(y[1], -1);
      EXPECT_TRUE(y[2] == 0 && std::signbit(y[2]));
      EXPECT_TRUE(y[3] == 0 && std::signbit(y[3]));
      EXPECT_TRUE(std::isnan(y[4]));
      const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, dt, {2, 3});
      EXPECT_EQ(values(Dispatch::float_cumprod(x, 1)), (std::vector<double>{1, 2, 6, 4, 20, 120}));
      EXPECT_EQ(values(Dispatch::float_cumprod(x, 0)), (std::vector<double>{1, 2, 3, 4, 10, 18}));
    }
  }
}

TYPED_TEST(ScanAndFlipOps, ScansRejectABadDimAndNonFloats) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = tensor_on(device, {1, 2}, DType::F32, {2});
  EXPECT_PANIC(Dispatch::float_cumsum(x, 1), "dim-out-of-range", "float_cumsum got dim 1 for a tensor of rank 1.");
  EXPECT_PANIC(Dispatch::float_cumprod(x, 3), "dim-out-of-range", "float_cumprod got dim 3 for a tensor of rank 1.");
}

TYPED_TEST(ScanAndFlipOps, FlipReversesTheNamedDims) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, dt, {2, 3});
      EXPECT_EQ(values(Dispatch::float_flip(x, {1})), (std::vector<double>{3, 2, 1, 6, 5, 4}));
      EXPECT_EQ(values(Dispatch::float_flip(x, {0})), (std::vector<double>{4, 5, 6, 1, 2, 3}));
      EXPECT_EQ(values(Dispatch::float_flip(x, {1, 0})), (std::vector<double>{6, 5, 4, 3, 2, 1}));
      EXPECT_EQ(values(Dispatch::float_flip(x, {})), (std::vector<double>{1, 2, 3, 4, 5, 6}));
      // Bits move unchanged: -0 stays -0.
      const auto z = values(Dispatch::float_flip(tensor_on(device, {-0.0, 1}, dt, {2}), {0}));
      EXPECT_TRUE(z[1] == 0 && std::signbit(z[1]));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::float_flip(tensor_on(device, {}, dt, {0, 3}), {0, 1})), (Shape{0, 3}));
      EXPECT_EQ(values(Dispatch::float_flip(tensor_on(device, {7}, dt, {}), {})), (std::vector<double>{7}));
    }
  }
  const DispatchTensor x = tensor_on(plain_device<TypeParam>(), {1, 2, 3, 4, 5, 6}, DType::F32, {2, 3});
  EXPECT_PANIC(Dispatch::float_flip(x, {0, 0}), "flip-invalid", "float_flip needs distinct dims below the rank 2, got [0, 0].");
  EXPECT_PANIC(Dispatch::float_flip(x, {2}), "flip-invalid", "float_flip needs distinct dims below the rank 2, got [2].");
}

TYPED_TEST(ScanAndFlipOps, CumsumAndFlipGradients) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    // dx_k = sum_{r >= k} c_r.
    EXPECT_EQ(gradient(device, {5, -1, 2}, {1, 2, 4}, dt, {3}, [](const DispatchTensor& x) { return Dispatch::float_cumsum(x, 0); }),
              (std::vector<double>{7, 6, 4}));
    // Along dim 0 of [2, 2]: column-wise.
    EXPECT_EQ(gradient(device, {1, 2, 3, 4}, {1, 10, 100, 1000}, dt, {2, 2},
                       [](const DispatchTensor& x) { return Dispatch::float_cumsum(x, 0); }),
              (std::vector<double>{101, 1010, 100, 1000}));
    // Each element is read at its mirror: the cotangent flipped back.
    EXPECT_EQ(gradient(device, {1, 2, 3}, {10, 20, 30}, dt, {3}, [](const DispatchTensor& x) { return Dispatch::float_flip(x, {0}); }),
              (std::vector<double>{30, 20, 10}));
  }
}

TYPED_TEST(ScanAndFlipOps, CumprodGradientIsExactAtZeros) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  const auto cumprod0 = [](const DispatchTensor& x) { return Dispatch::float_cumprod(x, 0); };
  for (const DType dt : kDtypes) {
    // No zero: y = [2, 6, 24], dx_k = sum_{r >= k} prod_{j <= r, j != k} x_j = [1+3+12, 2+8, 6].
    EXPECT_EQ(gradient(device, {2, 3, 4}, {1, 1, 1}, dt, {3}, cumprod0), (std::vector<double>{16, 10, 6}));
    // Zeros at 1 and 3: before the first zero only r = 0 survives (1); at it 2 + 2*3 = 8 (r = 3, 4
    // hold the second zero); after it every product holds a zero.
    EXPECT_EQ(gradient(device, {2, 0, 3, 0, 5}, {1, 1, 1, 1, 1}, dt, {5}, cumprod0), (std::vector<double>{1, 8, 0, 0, 0}));
    // A zero first: x_0's products omit it (1, x_1, x_1 x_2) = 1 + 4 + 12; the rest hold it.
    EXPECT_EQ(gradient(device, {0, 4, 3}, {1, 1, 1}, dt, {3}, cumprod0), (std::vector<double>{17, 0, 0}));
    // Non-uniform cotangent, along dim 1 of [2, 2] with a zero in the second row:
    // row [3, 5]: dx0 = c0 + c1 * 5, dx1 = c1 * 3; row [0, 7]: dx0 = c0 + c1 * 7, dx1 = c1 * 0.
    EXPECT_EQ(gradient(device, {3, 5, 0, 7}, {1, 2, 3, 4}, dt, {2, 2},
                       [](const DispatchTensor& x) { return Dispatch::float_cumprod(x, 1); }),
              (std::vector<double>{11, 6, 31, 0}));
  }
}

TYPED_TEST(ScanAndFlipOps, TransposeSwapsTheLastTwoDims) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, dt, {2, 2, 3});
      const DispatchTensor t = Dispatch::float_transpose(x);
      EXPECT_EQ(Dispatch::float_shape(t), (Shape{2, 3, 2}));
      EXPECT_EQ(values(t), (std::vector<double>{1, 4, 2, 5, 3, 6, 7, 10, 8, 11, 9, 12}));
      // Rank 1 and 0: copied unchanged (PyTorch's t()).
      EXPECT_EQ(values(Dispatch::float_transpose(tensor_on(device, {1, 2, 3}, dt, {3}))), (std::vector<double>{1, 2, 3}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::float_transpose(tensor_on(device, {5}, dt, {}))), (Shape{}));
    }
  }
  // The gradient is transposed back: c [3, 2] against x [2, 3].
  EXPECT_EQ(gradient(autodiff_device<TypeParam>(), {1, 2, 3, 4, 5, 6}, {10, 40, 20, 50, 30, 60}, DType::F64, {2, 3},
                     [](const DispatchTensor& x) { return Dispatch::float_reshape(Dispatch::float_transpose(x), {2, 3}); }),
            (std::vector<double>{10, 20, 30, 40, 50, 60}));
}

TYPED_TEST(ScanAndFlipOps, RunningExtremesTakeTiesAndNansFromTheLaterElement) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor x = tensor_on(device, {3, 1, 4, 1, 5, 2}, dt, {2, 3});
      EXPECT_EQ(values(Dispatch::float_cummax(x, 1)), (std::vector<double>{3, 3, 4, 1, 5, 5}));
      EXPECT_EQ(values(Dispatch::float_cummin(x, 1)), (std::vector<double>{3, 1, 1, 1, 1, 1}));
      EXPECT_EQ(values(Dispatch::float_cummax(x, 0)), (std::vector<double>{3, 1, 4, 3, 5, 4}));
      // A tie takes the later element: +0 then -0 gives -0 for both extremes.
      const auto zmax = values(Dispatch::float_cummax(tensor_on(device, {0.0, -0.0, -1}, dt, {3}), 0));
      const auto zmin = values(Dispatch::float_cummin(tensor_on(device, {-0.0, 0.0, 1}, dt, {3}), 0));
      EXPECT_TRUE(zmax[1] == 0 && std::signbit(zmax[1]) && zmax[2] == 0 && std::signbit(zmax[2]));
      EXPECT_TRUE(zmin[1] == 0 && !std::signbit(zmin[1]) && zmin[2] == 0 && !std::signbit(zmin[2]));
      // A NaN sticks; inf is an ordinary extreme.
      const auto n = values(Dispatch::float_cummax(tensor_on(device, {1, NAN, kInf, 2}, dt, {4}), 0));
      EXPECT_EQ(n[0], 1);
      EXPECT_TRUE(std::isnan(n[1]) && std::isnan(n[2]) && std::isnan(n[3]));
      EXPECT_EQ(values(Dispatch::float_cummin(tensor_on(device, {2, -kInf, 1}, dt, {3}), 0)),
                (std::vector<double>{2, -kInf, -kInf}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::float_cummin(tensor_on(device, {}, dt, {2, 0}), 1)), (Shape{2, 0}));
    }
  }
  const DispatchTensor x = tensor_on(plain_device<TypeParam>(), {1, 2}, DType::F32, {2});
  EXPECT_PANIC(Dispatch::float_cummin(x, 1), "dim-out-of-range", "float_cummin got dim 1 for a tensor of rank 1.");
  EXPECT_PANIC(Dispatch::float_cummax(x, 2), "dim-out-of-range", "float_cummax got dim 2 for a tensor of rank 1.");
}

// Each g_r goes to the element y_r was copied from, ties to the later one, NaNs to the last NaN.
TYPED_TEST(ScanAndFlipOps, RunningExtremeGradientsGoToTheirSources) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  const auto cummax = [](const DispatchTensor& x) { return Dispatch::float_cummax(x, 0); };
  const auto cummin = [](const DispatchTensor& x) { return Dispatch::float_cummin(x, 0); };
  for (const DType dt : kDtypes) {
    // y = [3, 3, 4, 4, 4]: sources 0, 0, 2, 3 (the tie 4 = 4 moves it), 3.
    EXPECT_EQ(gradient(device, {3, 1, 4, 4, 2}, {1, 2, 4, 8, 16}, dt, {5}, cummax), (std::vector<double>{3, 0, 4, 24, 0}));
    // y = [3, 1, 1, 1, 1]: sources 0, 1, 1, 3 (tie), 3.
    EXPECT_EQ(gradient(device, {3, 1, 4, 1, 2}, {1, 2, 4, 8, 16}, dt, {5}, cummin), (std::vector<double>{1, 6, 0, 24, 0}));
    // NaN at 1 and 3: sources 0, 1, 1, 3, 3.
    const auto g = gradient(device, {1, NAN, 5, NAN, 7}, {1, 2, 4, 8, 16}, dt, {5}, cummax);
    EXPECT_EQ(g, (std::vector<double>{1, 6, 0, 24, 0}));
    // Along dim 1 of a [2, 3].
    const auto rows = gradient(device, {1, 3, 2, 6, 5, 7}, {1, 1, 1, 1, 1, 1}, dt, {2, 3},
                               [](const DispatchTensor& x) { return Dispatch::float_cummax(x, 1); });
    EXPECT_EQ(rows, (std::vector<double>{1, 2, 0, 2, 0, 1}));
  }
}

}  // namespace
}  // namespace crossgrad
