// unfold4d (docs/OPS.md "Module ops") on every backend, plain and tracked, against blocks worked out
// here from the definition (row (c, i, j) of block (oy, ox) the cell (oy stride + i dilation -
// padding, ox stride + j dilation - padding) of plane c, padding cells 0), its gradient through
// Autodiff<B> (each block cell's cotangent back to the cell it copied; padding cells drop theirs),
// and the argument panics in the documented order.
#include "test_support.hpp"

#include <limits>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class Unfold4dOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(Unfold4dOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

// 1..9 in a [1, 1, 3, 3] plane.
DispatchTensor nine(const DispatchDevice& device, DType dt) { return tensor_on(device, {1, 2, 3, 4, 5, 6, 7, 8, 9}, dt, {1, 1, 3, 3}); }
UnfoldOptions options(std::size_t stride = 1, std::size_t padding = 0, std::size_t dilation = 1) {
  return UnfoldOptions{{stride, stride}, {padding, padding}, {dilation, dilation}};
}

TYPED_TEST(Unfold4dOps, EachBlockCopiesItsCells) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      const DispatchTensor x = nine(device, dt);
      const DispatchTensor blocks = Dispatch::unfold4d(x, Size2{2, 2}, options());
      EXPECT_EQ(Dispatch::float_shape(blocks), (Shape{1, 4, 4}));
      EXPECT_EQ(values(blocks), (std::vector<double>{1, 2, 4, 5, 2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9}));
      // Stride 2 over the plane padded by 1: blocks start at (-1, -1), (-1, 1), (1, -1), (1, 1).
      EXPECT_EQ(values(Dispatch::unfold4d(x, Size2{2, 2}, options(2, 1))),
                (std::vector<double>{0, 0, 0, 5, 0, 0, 4, 6, 0, 2, 0, 8, 1, 3, 7, 9}));
      // Dilation 2: one block of the corners.
      EXPECT_EQ(values(Dispatch::unfold4d(x, Size2{2, 2}, options(1, 0, 2))), (std::vector<double>{1, 3, 7, 9}));
      // Rows run over channels first, then the kernel's cells.
      EXPECT_EQ(values(Dispatch::unfold4d(tensor_on(device, {1, 2, 3, 4}, dt, {1, 2, 1, 2}), Size2{1, 2}, options())),
                (std::vector<double>{1, 2, 3, 4}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::unfold4d(tensor_on(device, {}, dt, {0, 1, 3, 3}), Size2{2, 2}, options())),
                (Shape{0, 4, 4}));
    }
  }
}

TYPED_TEST(Unfold4dOps, GradientAddsEachBlockCellBack) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    // 2x2 blocks every cell: a cell's gradient counts the blocks holding it.
    const DispatchTensor x = nine(device, dt);
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::unfold4d(x, Size2{2, 2}, options())));
    EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{1, 2, 1, 2, 4, 2, 1, 2, 1}));
    // Stride 2, padding 1: every cell in one block; an infinite cotangent on a padding cell is
    // dropped with it.
    const DispatchTensor x2 = nine(device, dt);
    std::vector<double> c(16, 1.0);
    c[0] = std::numeric_limits<double>::infinity();
    const DispatchTensor y = Dispatch::unfold4d(x2, Size2{2, 2}, options(2, 1));
    const Gradients g2 = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(y, tensor_on(device, c, dt, {1, 4, 4}))));
    EXPECT_EQ(values(*Dispatch::grad(x2, g2)), (std::vector<double>(9, 1.0)));
  }
}

TYPED_TEST(Unfold4dOps, BadArgumentsPanicInOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = nine(device, DType::F32);
  EXPECT_PANIC(Dispatch::unfold4d(tensor_on(device, std::vector<double>(9), DType::F32, {1, 3, 3}), Size2{2, 2}, options()),
               "module-input-rank", "unfold4d needs a 4-D input [batch, channels, height, width], got shape [1, 3, 3].");
  EXPECT_PANIC(Dispatch::unfold4d(x, Size2{0, 2}, options()), "module-option-zero",
               "unfold4d needs kernel_size of at least 1 in every dim, got [0, 2].");
  EXPECT_PANIC(Dispatch::unfold4d(x, Size2{2, 2}, options(0)), "module-option-zero",
               "unfold4d needs stride of at least 1 in every dim, got [0, 0].");
  EXPECT_PANIC(Dispatch::unfold4d(x, Size2{2, 2}, options(1, 0, 0)), "module-option-zero",
               "unfold4d needs dilation of at least 1 in every dim, got [0, 0].");
  EXPECT_PANIC(Dispatch::unfold4d(tensor_on(device, {}, DType::F32, {1, 1, 0, 3}), Size2{1, 1}, options(1, 1)), "pool-empty-input",
               "unfold4d needs an input with at least 1 element in each pooled dim, got shape [1, 1, 0, 3].");
  EXPECT_PANIC(Dispatch::unfold4d(x, Size2{4, 1}, options()), "pool-kernel-too-large",
               "unfold4d needs kernel_size of at most the padded input's size [3, 3], got [4, 1].");
}

}  // namespace
}  // namespace crossgrad
