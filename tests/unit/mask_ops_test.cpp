// The masked selections of issue 36 (docs/OPS.md "Layout and indexing"): float_mask_where,
// float_mask_fill and float_mask_select on every backend, plain and tracked, against values worked out here from the spec
// (broadcasting of every operand, bits copied, the fill rounded to the dtype), their argument panics
// in the documented order, and their gradients, which select and never multiply by the mask.
#include "test_support.hpp"

#include <cmath>
#include <limits>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

const double kInf = std::numeric_limits<double>::infinity();

DispatchTensor mask_on(const DispatchDevice& device, std::vector<bool> v, Shape shape) {
  return Dispatch::bool_from_data(TensorData::from_bool(std::move(v), shape), device);
}

template <class B>
class MaskOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(MaskOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

TYPED_TEST(MaskOps, MaskWhereTakesTheValueWhereTheMaskIsTrue) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, dt, {2, 3});
      const DispatchTensor v = tensor_on(device, {10, 20, 30, 40, 50, 60}, dt, {2, 3});
      const DispatchTensor m = mask_on(device, {true, false, true, false, true, false}, {2, 3});
      EXPECT_EQ(values(Dispatch::float_mask_where(x, m, v)), (std::vector<double>{10, 2, 30, 4, 50, 6}));
      // Every operand broadcasts: a row mask, a column of values, a row of x.
      const DispatchTensor row_mask = mask_on(device, {false, true, true}, {3});
      const DispatchTensor column = tensor_on(device, {-1, -2}, dt, {2, 1});
      EXPECT_EQ(values(Dispatch::float_mask_where(x, row_mask, column)), (std::vector<double>{1, -1, -1, 4, -2, -2}));
      const DispatchTensor y = Dispatch::float_mask_where(tensor_on(device, {7, 8, 9}, dt, {3}), m, column);
      EXPECT_EQ(Dispatch::float_shape(y), (Shape{2, 3}));
      EXPECT_EQ(values(y), (std::vector<double>{-1, 8, -1, 7, -2, 9}));
      // Bits are copied: NaN and -0 on either side.
      const auto z = values(Dispatch::float_mask_where(tensor_on(device, {-0.0, NAN}, dt, {2}), mask_on(device, {false, true}, {2}),
                                                       tensor_on(device, {1, -0.0}, dt, {2})));
      EXPECT_TRUE(z[0] == 0 && std::signbit(z[0]));
      EXPECT_TRUE(z[1] == 0 && std::signbit(z[1]));
      const DispatchTensor empty = tensor_on(device, {}, dt, {0, 3});
      EXPECT_EQ(Dispatch::float_shape(Dispatch::float_mask_where(empty, row_mask, tensor_on(device, {1}, dt, {1}))), (Shape{0, 3}));
    }
  }
}

TYPED_TEST(MaskOps, MaskFillRoundsTheFillToTheDtype) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    const DispatchTensor m = mask_on(device, {true, false, false, true}, {2, 2});
    const DispatchTensor x32 = tensor_on(device, {1, 2, 3, 4}, DType::F32, {2, 2});
    EXPECT_EQ(values(Dispatch::float_mask_fill(x32, m, 0.1)),
              (std::vector<double>{static_cast<double>(0.1f), 2, 3, static_cast<double>(0.1f)}));
    const DispatchTensor x64 = tensor_on(device, {1, 2, 3, 4}, DType::F64, {2, 2});
    EXPECT_EQ(values(Dispatch::float_mask_fill(x64, m, 0.1)), (std::vector<double>{0.1, 2, 3, 0.1}));
    const auto n = values(Dispatch::float_mask_fill(x64, m, NAN));
    EXPECT_TRUE(std::isnan(n[0]) && n[1] == 2 && std::isnan(n[3]));
    EXPECT_EQ(values(Dispatch::float_mask_fill(x64, m, -kInf))[3], -kInf);
    // The tensor broadcasts to the mask's shape.
    EXPECT_EQ(values(Dispatch::float_mask_fill(tensor_on(device, {5, 6}, DType::F64, {2}), m, -1)),
              (std::vector<double>{-1, 6, 5, -1}));
  }
}

TYPED_TEST(MaskOps, ArgumentPanicsInTheDocumentedOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, DType::F32, {2, 3});
  const DispatchTensor m = mask_on(device, {true, false, true, false, true, false}, {2, 3});
  const DispatchTensor int_mask = Dispatch::int_from_data(TensorData::from_i64({1, 0, 1, 0, 1, 0}, {2, 3}), device);
  // Through Dispatch a mask that is not a Bool tensor is a kind mismatch; called on a backend
  // directly, a mask of another dtype is unsupported-dtype (MaskOnABackend below).
  for (const auto& run : {std::function<void()>([&] { (void)Dispatch::float_mask_where(x, int_mask, x); }),
                          std::function<void()>([&] { (void)Dispatch::float_mask_fill(x, int_mask, 1); }),
                          std::function<void()>([&] { (void)Dispatch::float_mask_fill(x, x, 1); })}) {
    const auto caught = panic_of(run);
    ASSERT_TRUE(caught.has_value());
    EXPECT_EQ(caught->id, "op-kind-mismatch");
  }
  // The value's dtype before the shapes.
  EXPECT_PANIC(Dispatch::float_mask_where(x, mask_on(device, {true, false}, {1, 2}), tensor_on(device, {1}, DType::F64, {1})),
               "dtype-mismatch", "float_mask_where needs operands of one dtype, got F32 and F64.");
  EXPECT_PANIC(Dispatch::float_mask_where(x, mask_on(device, {true, false}, {2}), x), "broadcast-mismatch",
               "float_mask_where cannot broadcast shapes [2, 3] and [2].");
  EXPECT_PANIC(Dispatch::float_mask_where(x, m, tensor_on(device, {1, 2}, DType::F32, {2})), "broadcast-mismatch",
               "float_mask_where cannot broadcast shapes [2, 3] and [2].");
  EXPECT_PANIC(Dispatch::float_mask_fill(x, mask_on(device, {true, false, true, false}, {4}), 1), "broadcast-mismatch",
               "float_mask_fill cannot broadcast shapes [2, 3] and [4].");
}

TYPED_TEST(MaskOps, GradientsSelectAndSumBackOverBroadcastDims) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, dt, {2, 3});
    const DispatchTensor row = tensor_on(device, {7, 8, 9}, dt, {3});
    const DispatchTensor m = mask_on(device, {true, false, true, false, true, false}, {2, 3});
    // A cotangent of inf where the value was taken: x's gradient there is +0, not 0 * inf.
    const DispatchTensor c = tensor_on(device, {kInf, 2, 4, 8, -kInf, 32}, dt, {2, 3});
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(Dispatch::float_mask_where(x, m, row), c)));
    const auto gx = values(*Dispatch::grad(x, g));
    EXPECT_EQ(gx, (std::vector<double>{0, 2, 0, 8, 0, 32}));
    for (double e : {gx[0], gx[2], gx[4]}) EXPECT_FALSE(std::signbit(e));
    // The row was taken at (0, 0), (0, 2), (1, 1): summed over the broadcast dim.
    EXPECT_EQ(values(*Dispatch::grad(row, g)), (std::vector<double>{kInf, -kInf, 4}));
    const DispatchTensor c2 = tensor_on(device, {1, 2, 4, 8, 16, 32}, dt, {2, 3});
    const Gradients g2 = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(Dispatch::float_mask_fill(row, m, NAN), c2)));
    EXPECT_EQ(values(*Dispatch::grad(row, g2)), (std::vector<double>{8, 2, 32}));
  }
}

template <class B>
void expect_backend_rejects_a_non_bool_mask() {
  const typename B::Tensor x = B::from_data(TensorData::from_f32({1, 2}, {2}), B::default_device());
  const typename B::Tensor mask = B::from_data(TensorData::from_u8({1, 0}, {2}), B::default_device());
  EXPECT_PANIC(B::float_mask_where(x, mask, x), "unsupported-dtype", "DType U8 is not supported by float_mask_where masks.");
  EXPECT_PANIC(B::float_mask_fill(x, mask, 1), "unsupported-dtype", "DType U8 is not supported by float_mask_fill masks.");
}

TYPED_TEST(MaskOps, MaskSelectPicksTheTrueElementsInRowMajorOrder) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor x = tensor_on(device, {1, -0.0, NAN, 4, 5, 6}, dt, {2, 3});
      const DispatchTensor y = Dispatch::float_mask_select(x, mask_on(device, {false, true, true, true, false, true}, {2, 3}));
      EXPECT_EQ(Dispatch::float_shape(y), (Shape{4}));
      const std::vector<double> v = values(y);
      EXPECT_TRUE(v[0] == 0 && std::signbit(v[0]));
      EXPECT_TRUE(std::isnan(v[1]));
      EXPECT_EQ(v[2], 4);
      EXPECT_EQ(v[3], 6);
      // No true element: an empty [0]; a rank-0 tensor picks its one element or nothing.
      EXPECT_EQ(Dispatch::float_shape(Dispatch::float_mask_select(x, mask_on(device, std::vector<bool>(6, false), {2, 3}))),
                (Shape{0}));
      EXPECT_EQ(values(Dispatch::float_mask_select(tensor_on(device, {7}, dt, Shape{}), mask_on(device, {true}, Shape{}))),
                (std::vector<double>{7}));
    }
  }
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, DType::F32, {2, 3});
  // Never broadcast: a mask of x's last dim is the wrong shape.
  EXPECT_PANIC(Dispatch::float_mask_select(x, mask_on(device, {true, false, true}, {3})), "mask-select-shape",
               "float_mask_select needs a mask of the tensor's shape [2, 3], got [3].");
}

TYPED_TEST(MaskOps, MaskSelectGradientGoesBackToEachPickedPlace) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, DType::F64, {2, 3});
  const DispatchTensor c = tensor_on(device, {10, 20, 30}, DType::F64, {3});
  const DispatchTensor y = Dispatch::float_mask_select(x, mask_on(device, {true, false, false, true, false, true}, {2, 3}));
  const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(y, c)));
  const std::vector<double> gx = values(*Dispatch::grad(x, g));
  EXPECT_EQ(gx, (std::vector<double>{10, 0, 0, 20, 0, 30}));
  EXPECT_FALSE(std::signbit(gx[1]));
}

TEST(MaskOnABackend, ANonBoolMaskIsUnsupported) {
  expect_backend_rejects_a_non_bool_mask<backends::NdArray>();
  expect_backend_rejects_a_non_bool_mask<backends::Flex>();
}

}  // namespace
}  // namespace crossgrad
