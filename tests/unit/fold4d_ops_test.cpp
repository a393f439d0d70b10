// fold4d (docs/OPS.md "Module ops", col2im) on every backend, plain and tracked, against sums worked
// out here from the definition (row (c, i, j) of block (oy, ox) added to the cell (oy stride + i
// dilation - padding, ox stride + j dilation - padding) of plane c, cells in the padding dropped),
// its gradient through Autodiff<B> (each block cell reads its cell's cotangent: unfold4d of it), and
// the argument panics in the documented order.
#include "test_support.hpp"

#include <cstdint>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class Fold4dOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(Fold4dOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

UnfoldOptions options(std::size_t stride = 1, std::size_t padding = 0, std::size_t dilation = 1) {
  return UnfoldOptions{{stride, stride}, {padding, padding}, {dilation, dilation}};
}

// The four 2x2 blocks of the plane 1..9 (unfold4d's result over [1, 1, 3, 3]), row (i, j), then block.
DispatchTensor blocks_of_nine(const DispatchDevice& device, DType dt) {
  return tensor_on(device, {1, 2, 4, 5, 2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9}, dt, {1, 4, 4});
}

TYPED_TEST(Fold4dOps, EachBlockAddsBackOntoItsCells) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      // Overlapping blocks: each cell times the number of blocks holding it (corners 1, edges 2, centre 4).
      const DispatchTensor folded = Dispatch::fold4d(blocks_of_nine(device, dt), Size2{3, 3}, Size2{2, 2}, options());
      EXPECT_EQ(Dispatch::float_shape(folded), (Shape{1, 1, 3, 3}));
      EXPECT_EQ(values(folded), (std::vector<double>{1, 4, 3, 8, 20, 12, 7, 16, 9}));
      // Stride 2 over the plane padded by 1: every cell in one block, the padding cells dropped
      // (their values 100 added nowhere).
      const DispatchTensor padded_blocks =
          tensor_on(device, {100, 100, 100, 5, 100, 100, 4, 6, 100, 2, 100, 8, 1, 3, 7, 9}, dt, {1, 4, 4});
      EXPECT_EQ(values(Dispatch::fold4d(padded_blocks, Size2{3, 3}, Size2{2, 2}, options(2, 1))),
                (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
      // Dilation 2: one block onto the corners.
      EXPECT_EQ(values(Dispatch::fold4d(tensor_on(device, {1, 3, 7, 9}, dt, {1, 4, 1}), Size2{3, 3}, Size2{2, 2}, options(1, 0, 2))),
                (std::vector<double>{1, 0, 3, 0, 0, 0, 7, 0, 9}));
      // Rows run over channels first, then the kernel's cells.
      EXPECT_EQ(values(Dispatch::fold4d(tensor_on(device, {1, 2, 3, 4}, dt, {1, 4, 1}), Size2{1, 2}, Size2{1, 2}, options())),
                (std::vector<double>{1, 2, 3, 4}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::fold4d(tensor_on(device, {}, dt, {0, 4, 4}), Size2{3, 3}, Size2{2, 2}, options())),
                (Shape{0, 1, 3, 3}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::fold4d(tensor_on(device, {}, dt, {2, 0, 4}), Size2{3, 3}, Size2{2, 2}, options())),
                (Shape{2, 0, 3, 3}));
    }
  }
}

TYPED_TEST(Fold4dOps, GradientReadsEachBlockCellsCotangent) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    // The cotangent 1..9 on the folded plane: each block cell's gradient is its cell's.
    const DispatchTensor x = blocks_of_nine(device, dt);
    const DispatchTensor y = Dispatch::fold4d(x, Size2{3, 3}, Size2{2, 2}, options());
    const DispatchTensor c = tensor_on(device, {1, 2, 3, 4, 5, 6, 7, 8, 9}, dt, {1, 1, 3, 3});
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(y, c)));
    EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{1, 2, 4, 5, 2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9}));
    // Stride 2, padding 1: the block cells in the padding read nothing (0).
    const DispatchTensor x2 = tensor_on(device, std::vector<double>(16, 1.0), dt, {1, 4, 4});
    const Gradients g2 = Dispatch::backward(
        Dispatch::float_sum(Dispatch::float_mul(Dispatch::fold4d(x2, Size2{3, 3}, Size2{2, 2}, options(2, 1)), c)));
    EXPECT_EQ(values(*Dispatch::grad(x2, g2)), (std::vector<double>{0, 0, 0, 5, 0, 0, 4, 6, 0, 2, 0, 8, 1, 3, 7, 9}));
  }
}

// Every backend adds the same block cells to a cell in the same order (Flex plane by plane, the
// others with their own select_add): NdArray's bits, on values whose sums round.
TYPED_TEST(Fold4dOps, EveryBackendGivesNdArraysBits) {
  for (const DType dt : kDtypes) {
    for (const UnfoldOptions& o : {options(), options(2, 1), options(1, 1, 2), UnfoldOptions{{2, 1}, {0, 2}, {1, 2}}}) {
      const Size2 out{5, 6}, k{3, 2};
      std::size_t blocks = 1;
      for (std::size_t d = 0; d < 2; ++d) blocks *= (out[d] + 2 * o.padding[d] - (o.dilation[d] * (k[d] - 1) + 1)) / o.stride[d] + 1;
      std::vector<double> v(2 * 3 * 6 * blocks);
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 37) % 23) / 7.0 - 1.3;
      const Shape s{2, 18, blocks};
      EXPECT_EQ(values(Dispatch::fold4d(tensor_on(plain_device<TypeParam>(), v, dt, s), out, k, o)),
                values(Dispatch::fold4d(tensor_on(DispatchDevice::NdArray(), v, dt, s), out, k, o)));
    }
  }
}

TYPED_TEST(Fold4dOps, BadArgumentsPanicInOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = blocks_of_nine(device, DType::F32);
  EXPECT_PANIC(Dispatch::fold4d(tensor_on(device, std::vector<double>(16), DType::F32, {1, 4, 2, 2}), Size2{3, 3}, Size2{2, 2}, options()),
               "module-input-rank", "fold4d needs a 3-D input [batch, block_cells, blocks], got shape [1, 4, 2, 2].");
  EXPECT_PANIC(Dispatch::fold4d(x, Size2{3, 3}, Size2{0, 2}, options()), "module-option-zero",
               "fold4d needs kernel_size of at least 1 in every dim, got [0, 2].");
  EXPECT_PANIC(Dispatch::fold4d(x, Size2{3, 3}, Size2{2, 2}, options(0)), "module-option-zero",
               "fold4d needs stride of at least 1 in every dim, got [0, 0].");
  EXPECT_PANIC(Dispatch::fold4d(x, Size2{3, 3}, Size2{2, 2}, options(1, 0, 0)), "module-option-zero",
               "fold4d needs dilation of at least 1 in every dim, got [0, 0].");
  EXPECT_PANIC(Dispatch::fold4d(x, Size2{0, 3}, Size2{2, 2}, options()), "module-option-zero",
               "fold4d needs output_size of at least 1 in every dim, got [0, 3].");
  EXPECT_PANIC(Dispatch::fold4d(x, Size2{3, 3}, Size2{3, 1}, options()), "fold-channels",
               "fold4d needs the input's dim 1 to be a multiple of the kernel's 3 cells (kernel_size [3, 1]), got shape [1, 4, 4].");
  EXPECT_PANIC(Dispatch::fold4d(x, Size2{1, 3}, Size2{2, 2}, options()), "pool-kernel-too-large",
               "fold4d needs kernel_size of at most the padded input's size [1, 3], got [2, 2].");
  EXPECT_PANIC(Dispatch::fold4d(x, Size2{4, 3}, Size2{2, 2}, options()), "fold-blocks",
               "fold4d needs the input's dim 2 to be the number of blocks on the padded output, 3 * 2 = 6, got shape [1, 4, 4].");
  // A padding near 2^63: the grid is counted without wrapping (2^64 + 1 rows of blocks).
  EXPECT_PANIC(Dispatch::fold4d(tensor_on(device, {1}, DType::F32, {1, 1, 1}), Size2{1, 1}, Size2{1, 1},
                                UnfoldOptions{{1, 1}, {std::uint64_t{1} << 63, 0}, {1, 1}}),
               "fold-blocks",
               "fold4d needs the input's dim 2 to be the number of blocks on the padded output, 2^64 or more * 1 = 2^64 or more, got shape "
               "[1, 1, 1].");
}

}  // namespace
}  // namespace crossgrad
