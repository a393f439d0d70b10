// float_cross (docs/OPS.md "Element-wise and scalar ops") on every backend, plain and tracked:
// values worked out here from the definition, broadcasting of the other dims, its argument panics
// in the documented order, and its gradients (b x g and g x a) worked out by hand.
#include "test_support.hpp"

#include <cmath>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class CrossProduct : public OnEachBackend<B> {};
TYPED_TEST_SUITE(CrossProduct, AllBackendTypes, BackendTestName);

TYPED_TEST(CrossProduct, ComponentsAlongTheDimAndBroadcastElsewhere) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : {DType::F32, DType::F64}) {
      // x cross y = z, y cross x = -z; rows along dim 1.
      const DispatchTensor a = tensor_on(device, {1, 0, 0, 1, 2, 3}, dt, {2, 3});
      const DispatchTensor b = tensor_on(device, {0, 1, 0, 4, 5, 6}, dt, {2, 3});
      EXPECT_EQ(values(Dispatch::float_cross(a, b, 1)), (std::vector<double>{0, 0, 1, -3, 6, -3}));
      EXPECT_EQ(values(Dispatch::float_cross(b, a, 1)), (std::vector<double>{0, 0, -1, 3, -6, 3}));
      // Columns along dim 0, and a [1, 3] operand broadcast over both rows.
      const DispatchTensor cols = tensor_on(device, {1, 4, 2, 5, 3, 6}, dt, {3, 2});
      const DispatchTensor ex = tensor_on(device, {1, 0, 0}, dt, {3, 1});
      EXPECT_EQ(values(Dispatch::float_cross(cols, ex, 0)), (std::vector<double>{0, 0, 3, 6, -2, -5}));
      const DispatchTensor row = tensor_on(device, {0, 0, 1}, dt, {1, 3});
      EXPECT_EQ(values(Dispatch::float_cross(a, row, 1)), (std::vector<double>{0, -1, 0, 2, -1, 0}));
      // inf * 0 in one product is NaN.
      EXPECT_TRUE(std::isnan(values(Dispatch::float_cross(tensor_on(device, {INFINITY, 0, 0}, dt, {3}),
                                                           tensor_on(device, {0, 0, 1}, dt, {3}), 0))[2]));
    }
  }
}

TYPED_TEST(CrossProduct, ArgumentPanicsInTheDocumentedOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor a = tensor_on(device, {1, 2, 3, 4, 5, 6}, DType::F32, {2, 3});
  EXPECT_PANIC(Dispatch::float_cross(a, tensor_on(device, {1, 2, 3, 4, 5, 6}, DType::F64, {2, 3}), 1), "dtype-mismatch",
               "float_cross needs operands of one dtype, got F32 and F64.");
  EXPECT_PANIC(Dispatch::float_cross(a, a, 2), "dim-out-of-range", "float_cross got dim 2 for a tensor of rank 2.");
  EXPECT_PANIC(Dispatch::float_cross(a, a, 0), "cross-dim",
               "float_cross needs operands of one rank with 3 elements along dim 0, got [2, 3] and [2, 3].");
  EXPECT_PANIC(Dispatch::float_cross(a, tensor_on(device, {1, 2, 3}, DType::F32, {3}), 1), "cross-dim",
               "float_cross needs operands of one rank with 3 elements along dim 1, got [2, 3] and [3].");
  EXPECT_PANIC(Dispatch::float_cross(a, tensor_on(device, std::vector<double>(9, 1), DType::F32, {3, 3}), 1),
               "broadcast-mismatch", "float_cross cannot broadcast shapes [2, 3] and [3, 3].");
}

TYPED_TEST(CrossProduct, GradientsAreCrossProductsWithTheCotangent) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : {DType::F32, DType::F64}) {
    const DispatchTensor a = tensor_on(device, {1, 2, 3}, dt, {3});
    const DispatchTensor b = tensor_on(device, {4, 5, 6}, dt, {3});
    const DispatchTensor g = tensor_on(device, {1, 0, 2}, dt, {3});
    const Gradients grads = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(Dispatch::float_cross(a, b, 0), g)));
    // b x g = (5*2 - 6*0, 6*1 - 4*2, 4*0 - 5*1); g x a = (0*3 - 2*2, 2*1 - 1*3, 1*2 - 0*1).
    EXPECT_EQ(values(*Dispatch::grad(a, grads)), (std::vector<double>{10, -2, -5}));
    EXPECT_EQ(values(*Dispatch::grad(b, grads)), (std::vector<double>{-4, -1, 2}));
    // A broadcast operand's gradient sums over the rows it served.
    const DispatchTensor rows = tensor_on(device, {1, 0, 0, 0, 1, 0}, dt, {2, 3});
    const DispatchTensor z = tensor_on(device, {0, 0, 1}, dt, {1, 3});
    const Gradients gz = Dispatch::backward(Dispatch::float_sum(Dispatch::float_cross(rows, z, 1)));
    // Each row r: d/dz sum(r x z) = 1-vector x r summed: (1,1,1) x (1,0,0) + (1,1,1) x (0,1,0) = (0,1,-1) + (-1,0,1).
    EXPECT_EQ(values(*Dispatch::grad(z, gz)), (std::vector<double>{-1, 1, 0}));
  }
}

}  // namespace
}  // namespace crossgrad
