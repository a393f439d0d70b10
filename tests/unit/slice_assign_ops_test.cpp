// float_slice_assign (docs/OPS.md "Layout and indexing") on every backend, plain and tracked:
// blocks at the start, middle and end of each dim, whole-dim and empty blocks, its panics in their
// order, and gradients worked out by hand (the block's to the values, +0 there to the tensor).
#include "test_support.hpp"

#include <cmath>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class SliceAssignOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(SliceAssignOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

TYPED_TEST(SliceAssignOps, TheBlockTakesTheValues) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      // [3, 4] holding 0..11.
      const DispatchTensor x = tensor_on(device, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, dt, {3, 4});
      const DispatchTensor v = tensor_on(device, {-1, -2, -3, -4}, dt, {2, 2});
      EXPECT_EQ(values(Dispatch::float_slice_assign(x, {{1, 3}, {1, 3}}, v)),
                (std::vector<double>{0, 1, 2, 3, 4, -1, -2, 7, 8, -3, -4, 11}));
      // One range: the other dims whole; a block at the start.
      const DispatchTensor row = tensor_on(device, {-5, -6, -7, -8}, dt, {1, 4});
      EXPECT_EQ(values(Dispatch::float_slice_assign(x, {{0, 1}}, row)),
                (std::vector<double>{-5, -6, -7, -8, 4, 5, 6, 7, 8, 9, 10, 11}));
      // A block at the end of dim 1, every row.
      const DispatchTensor col = tensor_on(device, {-1, -2, -3}, dt, {3, 1});
      EXPECT_EQ(values(Dispatch::float_slice_assign(x, {{0, 3}, {3, 4}}, col)),
                (std::vector<double>{0, 1, 2, -1, 4, 5, 6, -2, 8, 9, 10, -3}));
      // The whole tensor, and an empty block (x unchanged).
      const DispatchTensor all = tensor_on(device, std::vector<double>(12, 0.5), dt, {3, 4});
      EXPECT_EQ(values(Dispatch::float_slice_assign(x, {}, all)), std::vector<double>(12, 0.5));
      const DispatchTensor none = tensor_on(device, {}, dt, {0, 4});
      EXPECT_EQ(values(Dispatch::float_slice_assign(x, {{2, 2}}, none)), values(x));
      // Bits copied: -0 and NaN stay what they were.
      const DispatchTensor specials = tensor_on(device, {-0.0, NAN}, dt, {1, 2});
      const std::vector<double> got = values(Dispatch::float_slice_assign(x, {{0, 1}, {0, 2}}, specials));
      EXPECT_TRUE(got[0] == 0 && std::signbit(got[0]));
      EXPECT_TRUE(std::isnan(got[1]));
    }
  }
}

TYPED_TEST(SliceAssignOps, BadArgumentsPanicInOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = tensor_on(device, std::vector<double>(6, 1), DType::F32, {2, 3});
  const DispatchTensor v = tensor_on(device, {1, 2}, DType::F32, {1, 2});
  EXPECT_PANIC(Dispatch::float_slice_assign(x, {{0, 1}, {1, 4}}, v), "slice-out-of-range",
               "float_slice_assign got range 1..4 for dim 1 of size 3.");
  EXPECT_PANIC(Dispatch::float_slice_assign(x, {{0, 1}, {0, 1}, {0, 1}}, v), "dim-out-of-range",
               "float_slice_assign got dim 2 for a tensor of rank 2.");
  EXPECT_PANIC(Dispatch::float_slice_assign(x, {{0, 1}, {0, 3}}, v), "assign-shape-mismatch",
               "float_slice_assign needs values of shape [1, 3], got [1, 2].");
  const DispatchTensor v64 = tensor_on(device, {1, 2}, DType::F64, {1, 2});
  EXPECT_PANIC(Dispatch::float_slice_assign(x, {{0, 1}, {1, 3}}, v64), "dtype-mismatch",
               "float_slice_assign needs operands of one dtype, got F32 and F64.");
  // float_slice keeps its own name in the shared range rule.
  EXPECT_PANIC(Dispatch::float_slice(x, {{2, 1}}), "slice-out-of-range", "float_slice got range 2..1 for dim 0 of size 2.");
}

TYPED_TEST(SliceAssignOps, GradientsSplitAtTheBlock) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, dt, {2, 3});
    const DispatchTensor v = tensor_on(device, {7, 8}, dt, {1, 2});
    const DispatchTensor c = tensor_on(device, {1, 10, 100, 1000, 10000, 100000}, dt, {2, 3});
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(Dispatch::float_slice_assign(x, {{1, 2}, {0, 2}}, v), c)));
    const std::vector<double> gx = values(*Dispatch::grad(x, g));
    EXPECT_EQ(gx, (std::vector<double>{1, 10, 100, 0, 0, 100000}));
    EXPECT_FALSE(std::signbit(gx[3]));
    EXPECT_EQ(values(*Dispatch::grad(v, g)), (std::vector<double>{1000, 10000}));
  }
}

}  // namespace
}  // namespace crossgrad
