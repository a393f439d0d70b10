// The per-element indexing ops of issue 36 (docs/OPS.md "Layout and indexing"): float_gather,
// float_scatter_add and float_select_add on every backend, plain and tracked, against values
// worked out here from the spec (duplicates, the order they add in, empty index dims), their
// argument panics in the documented order, and their backward rules against gradients worked out
// by hand.
#include "test_support.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

DispatchTensor index_on(const DispatchDevice& device, std::vector<std::int64_t> v, Shape shape,
                        DType dtype = DType::I64) {
  if (dtype == DType::I32) {
    return Dispatch::int_from_data(TensorData::from_i32(std::vector<std::int32_t>(v.begin(), v.end()), shape), device);
  }
  return Dispatch::int_from_data(TensorData::from_i64(std::move(v), shape), device);
}

template <class B>
class GatherScatterOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(GatherScatterOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

TYPED_TEST(GatherScatterOps, GatherReadsEachElementsOwnIndex) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      for (const DType it : {DType::I64, DType::I32}) {
        const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, dt, {2, 3});
        // Along dim 1: row 0 reads columns 2, 0, 2; row 1 reads 1, 1, 0, 2 (k = 4 > 3 is allowed).
        const DispatchTensor y1 = Dispatch::float_gather(x, 1, index_on(device, {2, 0, 2, 0, 1, 1, 0, 2}, {2, 4}, it));
        EXPECT_EQ(Dispatch::float_shape(y1), (Shape{2, 4}));
        EXPECT_EQ(values(y1), (std::vector<double>{3, 1, 3, 1, 5, 5, 4, 6}));
        // Along dim 0: one row of indices, one per column.
        const DispatchTensor y0 = Dispatch::float_gather(x, 0, index_on(device, {1, 0, 1}, {1, 3}, it));
        EXPECT_EQ(values(y0), (std::vector<double>{4, 2, 6}));
        // No index along dim: an empty result of the indices' shape.
        EXPECT_EQ(Dispatch::float_shape(Dispatch::float_gather(x, 1, index_on(device, {}, {2, 0}, it))), (Shape{2, 0}));
      }
      // Bits move unchanged: -0 and NaN are copied.
      const auto z = values(Dispatch::float_gather(tensor_on(device, {-0.0, NAN}, dt, {2}), 0,
                                                   index_on(device, {1, 0}, {2})));
      EXPECT_TRUE(std::isnan(z[0]));
      EXPECT_TRUE(z[1] == 0 && std::signbit(z[1]));
    }
  }
}

TYPED_TEST(GatherScatterOps, ScatterAddAddsDuplicatesInRowMajorOrder) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, DType::F64, {2, 3});
    const DispatchTensor v = tensor_on(device, {10, 20, 30, 40, 50, 60}, DType::F64, {2, 3});
    // Row 0 sends 10 and 30 to column 2, 20 to column 0; row 1 sends all three to column 1.
    const DispatchTensor y = Dispatch::float_scatter_add(x, 1, index_on(device, {2, 0, 2, 1, 1, 1}, {2, 3}), v);
    EXPECT_EQ(values(y), (std::vector<double>{21, 2, 43, 4, 155, 6}));
    // Along dim 0 with one row of indices: [1, 0, 1] puts v's row into rows 1, 0, 1 column by column.
    const DispatchTensor v1 = tensor_on(device, {7, 8, 9}, DType::F64, {1, 3});
    EXPECT_EQ(values(Dispatch::float_scatter_add(x, 0, index_on(device, {1, 0, 1}, {1, 3}), v1)),
              (std::vector<double>{1, 10, 3, 11, 5, 15}));
    // No index: the receiver unchanged.
    EXPECT_EQ(values(Dispatch::float_scatter_add(x, 1, index_on(device, {}, {2, 0}), tensor_on(device, {}, DType::F64, {2, 0}))),
              (std::vector<double>{1, 2, 3, 4, 5, 6}));
  }
  // In F32 the order of the additions shows in the bits: 1 + 2^25 rounds to 2^25, so
  // ((1 + 2^25) + 3) - 2^25 is 4 in index order and anything else otherwise.
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = tensor_on(device, {1, 0}, DType::F32, {1, 2});
  const DispatchTensor v = tensor_on(device, {0x1p25, 3, -0x1p25}, DType::F32, {1, 3});
  const std::vector<double> y = values(Dispatch::float_scatter_add(x, 1, index_on(device, {0, 0, 0}, {1, 3}), v));
  float want = 1.0f;
  for (const float add : {0x1p25f, 3.0f, -0x1p25f}) want += add;
  EXPECT_EQ(y[0], static_cast<double>(want));
  EXPECT_EQ(y[1], 0);
}

TYPED_TEST(GatherScatterOps, SelectAddIsSelectAssignUnderItsOwnName) {
  for (const DType dt : kDtypes) {
    const DispatchDevice device = plain_device<TypeParam>();
    const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, dt, {2, 3});
    const DispatchTensor idx = index_on(device, {2, 0, 2}, {3});
    const DispatchTensor v = tensor_on(device, {1, 2, 4, 8, 16, 32}, dt, {2, 3});
    EXPECT_EQ(values(Dispatch::float_select_add(x, 1, idx, v)), values(Dispatch::float_select_assign(x, 1, idx, v)));
    EXPECT_EQ(values(Dispatch::float_select_add(x, 1, idx, v)), (std::vector<double>{3, 2, 8, 20, 5, 46}));
  }
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, DType::F32, {2, 3});
  EXPECT_PANIC(Dispatch::float_select_add(x, 1, index_on(device, {3}, {1}), tensor_on(device, {1, 2}, DType::F32, {2, 1})),
               "index-out-of-range", "float_select_add got index 3 for dim 1 of size 3.");
  EXPECT_PANIC(Dispatch::float_select_add(x, 1, index_on(device, {0}, {1}), tensor_on(device, {1, 2}, DType::F32, {1, 2})),
               "assign-shape-mismatch", "float_select_add needs values of shape [2, 1], got [1, 2].");
}

TYPED_TEST(GatherScatterOps, ArgumentPanicsInTheDocumentedOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, DType::F32, {2, 3});
  const DispatchTensor v = tensor_on(device, {1, 2, 3, 4, 5, 6}, DType::F32, {2, 3});
  EXPECT_PANIC(Dispatch::float_gather(x, 2, index_on(device, {0}, {1, 1})), "dim-out-of-range",
               "float_gather got dim 2 for a tensor of rank 2.");
  // A rank other than the tensor's, or another size outside dim.
  EXPECT_PANIC(Dispatch::float_gather(x, 1, index_on(device, {0, 1}, {2})), "gather-index-shape",
               "float_gather needs indices of shape [2, 3] outside dim 1, got [2].");
  EXPECT_PANIC(Dispatch::float_gather(x, 1, index_on(device, {0, 0, 0}, {3, 1})), "gather-index-shape",
               "float_gather needs indices of shape [2, 3] outside dim 1, got [3, 1].");
  EXPECT_PANIC(Dispatch::float_scatter_add(x, 0, index_on(device, {0, 0}, {1, 2}), v), "gather-index-shape",
               "float_scatter_add needs indices of shape [2, 3] outside dim 0, got [1, 2].");
  // The shape before the dtype, the dtype before the values.
  const DispatchTensor i8 = Dispatch::int_from_data(TensorData::from_i8({0, 9}, {2, 1}), device);
  EXPECT_PANIC(Dispatch::float_gather(x, 1, i8), "unsupported-dtype", "DType I8 is not supported by float_gather indices.");
  // The first bad index in row-major order, negative ones included, before any write.
  EXPECT_PANIC(Dispatch::float_gather(x, 1, index_on(device, {0, 3, 1, -1}, {2, 2})), "index-out-of-range",
               "float_gather got index 3 for dim 1 of size 3.");
  EXPECT_PANIC(Dispatch::float_scatter_add(x, 1, index_on(device, {0, 1, -2, 7, 0, 0}, {2, 3}), v), "index-out-of-range",
               "float_scatter_add got index -2 for dim 1 of size 3.");
  // Then the values: the indices' shape, a float dtype, the tensor's dtype.
  EXPECT_PANIC(Dispatch::float_scatter_add(x, 1, index_on(device, {0, 1, 2, 0}, {2, 2}), v), "assign-shape-mismatch",
               "float_scatter_add needs values of shape [2, 2], got [2, 3].");
  EXPECT_PANIC(Dispatch::float_scatter_add(x, 1, index_on(device, {0, 1, 2, 0, 1, 2}, {2, 3}),
                                           tensor_on(device, {1, 2, 3, 4, 5, 6}, DType::F64, {2, 3})),
               "dtype-mismatch", "float_scatter_add needs operands of one dtype, got F32 and F64.");
}

TYPED_TEST(GatherScatterOps, GatherGradientScattersBackAndAddsDuplicates) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, dt, {2, 3});
    const DispatchTensor c = tensor_on(device, {1, 2, 4, 8, 16, 32, 64, 128}, dt, {2, 4});
    const DispatchTensor y = Dispatch::float_gather(x, 1, index_on(device, {2, 0, 2, 0, 1, 1, 0, 2}, {2, 4}));
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(y, c)));
    // Row 0: column 0 <- 2 + 8, column 2 <- 1 + 4; row 1: column 0 <- 64, 1 <- 16 + 32, 2 <- 128.
    EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{10, 0, 5, 64, 48, 128}));
  }
}

TYPED_TEST(GatherScatterOps, ScatterAddGradientPassesToTheTensorAndGathersForTheValues) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, dt, {2, 3});
    const DispatchTensor v = tensor_on(device, {1, 1, 1, 1}, dt, {2, 2});
    const DispatchTensor c = tensor_on(device, {1, 2, 4, 8, 16, 32}, dt, {2, 3});
    const DispatchTensor y = Dispatch::float_scatter_add(x, 1, index_on(device, {2, 2, 0, 1}, {2, 2}), v);
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(y, c)));
    EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{1, 2, 4, 8, 16, 32}));
    // Each value's gradient is the cotangent where it was added.
    EXPECT_EQ(values(*Dispatch::grad(v, g)), (std::vector<double>{4, 4, 8, 16}));
  }
}

}  // namespace
}  // namespace crossgrad
