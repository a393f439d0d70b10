// Burn's IndexingUpdateOp scatters and the index-row ops (docs/OPS.md "Layout and indexing"):
// float_scatter with each update, float_gather_nd and float_scatter_nd on every backend, plain and
// tracked, against values worked out here from the spec (the last Assign wins, products in index
// order, NaN and signed-zero ties for Min / Max, k = 0 rows), their argument panics in the
// documented order, and their backward rules against gradients worked out by hand.
#include "test_support.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

DispatchTensor index_on(const DispatchDevice& device, std::vector<std::int64_t> v, Shape shape) {
  return Dispatch::int_from_data(TensorData::from_i64(std::move(v), shape), device);
}

template <class B>
class ScatterUpdateOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(ScatterUpdateOps, AllBackendTypes, BackendTestName);

bool negative_zero(double v) { return v == 0 && std::signbit(v); }

TYPED_TEST(ScatterUpdateOps, EachUpdateCombinesInRowMajorOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  for (const DType dt : {DType::F32, DType::F64}) {
    const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, dt, {2, 3});
    const DispatchTensor v = tensor_on(device, {10, 20, 30, -1, 7, -2}, dt, {2, 3});
    // Row 0 sends 10 and 30 to column 2 and 20 to column 0; row 1 sends all three to column 1.
    const DispatchTensor idx = index_on(device, {2, 0, 2, 1, 1, 1}, {2, 3});
    const auto run = [&](IndexingUpdateOp u) { return values(Dispatch::float_scatter(x, 1, idx, v, u)); };
    EXPECT_EQ(run(IndexingUpdateOp::Assign), (std::vector<double>{20, 2, 30, 4, -2, 6}));
    EXPECT_EQ(run(IndexingUpdateOp::Add), (std::vector<double>{21, 2, 43, 4, 9, 6}));
    EXPECT_EQ(run(IndexingUpdateOp::Mul), (std::vector<double>{20, 2, 900, 4, 70, 6}));
    EXPECT_EQ(run(IndexingUpdateOp::Min), (std::vector<double>{1, 2, 3, 4, -2, 6}));
    EXPECT_EQ(run(IndexingUpdateOp::Max), (std::vector<double>{20, 2, 30, 4, 7, 6}));
  }
}

TYPED_TEST(ScatterUpdateOps, MinAndMaxTakeNanValuesKeepNanTargetsAndKeepTheTargetOnATie) {
  const DispatchDevice device = plain_device<TypeParam>();
  for (const DType dt : {DType::F32, DType::F64}) {
    const DispatchTensor x = tensor_on(device, {NAN, 0.0, -0.0, 5}, dt, {4});
    // NaN target, then +0 <- -0, -0 <- +0, 5 <- NaN then 9.
    const DispatchTensor v = tensor_on(device, {-7, -0.0, 0.0, NAN, 9}, dt, {5});
    const DispatchTensor idx = index_on(device, {0, 1, 2, 3, 3}, {5});
    for (const IndexingUpdateOp u : {IndexingUpdateOp::Min, IndexingUpdateOp::Max}) {
      const std::vector<double> y = values(Dispatch::float_scatter(x, 0, idx, v, u));
      EXPECT_TRUE(std::isnan(y[0])) << indexing_update_name(u);
      EXPECT_TRUE(y[1] == 0 && !std::signbit(y[1])) << indexing_update_name(u);
      EXPECT_TRUE(negative_zero(y[2])) << indexing_update_name(u);
      EXPECT_TRUE(std::isnan(y[3])) << indexing_update_name(u);
    }
  }
}

TYPED_TEST(ScatterUpdateOps, MulRoundsEachProductInIndexOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  // 2^100 * 2^100 overflows F32 before 2^-100 could bring it back: inf in index order.
  const DispatchTensor x = tensor_on(device, {0x1p100, 1}, DType::F32, {2});
  const DispatchTensor v = tensor_on(device, {0x1p100, 0x1p-100}, DType::F32, {2});
  const std::vector<double> y = values(Dispatch::float_scatter(x, 0, index_on(device, {0, 0}, {2}), v, IndexingUpdateOp::Mul));
  EXPECT_TRUE(std::isinf(y[0]) && y[0] > 0);
  EXPECT_EQ(y[1], 1);
}

TYPED_TEST(ScatterUpdateOps, GatherNdReadsOneBlockPerIndexRow) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, DType::F32, {2, 3});
    // k = 2: single elements; k = 1: rows; k = 0: the whole tensor per row.
    const DispatchTensor e = Dispatch::float_gather_nd(x, index_on(device, {1, 2, 0, 0, 1, 2}, {3, 2}));
    EXPECT_EQ(Dispatch::float_shape(e), (Shape{3}));
    EXPECT_EQ(values(e), (std::vector<double>{6, 1, 6}));
    const DispatchTensor r = Dispatch::float_gather_nd(x, index_on(device, {1, 0, 1, 1}, {2, 2, 1}));
    EXPECT_EQ(Dispatch::float_shape(r), (Shape{2, 2, 3}));
    EXPECT_EQ(values(r), (std::vector<double>{4, 5, 6, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
    const DispatchTensor w = Dispatch::float_gather_nd(x, index_on(device, {}, {2, 0}));
    EXPECT_EQ(Dispatch::float_shape(w), (Shape{2, 2, 3}));
    EXPECT_EQ(values(w), (std::vector<double>{1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(Dispatch::float_shape(Dispatch::float_gather_nd(x, index_on(device, {}, {0, 1}))), (Shape{0, 3}));
  }
}

TYPED_TEST(ScatterUpdateOps, ScatterNdCombinesBlocksInIndexRowOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, DType::F64, {2, 3});
  const DispatchTensor v = tensor_on(device, {10, 20, 30, 2, 2, 2, 7, 8, 9}, DType::F64, {3, 3});
  const DispatchTensor rows = index_on(device, {1, 0, 1}, {3, 1});
  const auto run = [&](IndexingUpdateOp u) { return values(Dispatch::float_scatter_nd(x, rows, v, u)); };
  EXPECT_EQ(run(IndexingUpdateOp::Assign), (std::vector<double>{2, 2, 2, 7, 8, 9}));
  EXPECT_EQ(run(IndexingUpdateOp::Add), (std::vector<double>{3, 4, 5, 21, 33, 45}));
  EXPECT_EQ(run(IndexingUpdateOp::Mul), (std::vector<double>{2, 4, 6, 280, 800, 1620}));
  EXPECT_EQ(run(IndexingUpdateOp::Max), (std::vector<double>{2, 2, 3, 10, 20, 30}));
  // Single elements (k = 2).
  EXPECT_EQ(values(Dispatch::float_scatter_nd(x, index_on(device, {0, 2, 1, 0}, {2, 2}), tensor_on(device, {-1, -2}, DType::F64, {2}),
                                              IndexingUpdateOp::Assign)),
            (std::vector<double>{1, 2, -1, -2, 5, 6}));
}

TYPED_TEST(ScatterUpdateOps, ArgumentPanicsInTheDocumentedOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, DType::F32, {2, 3});
  const DispatchTensor v = tensor_on(device, {1, 2, 3, 4, 5, 6}, DType::F32, {2, 3});
  EXPECT_PANIC(Dispatch::float_scatter(x, 1, index_on(device, {0, 1, 3, 0, 0, 0}, {2, 3}), v, IndexingUpdateOp::Max),
               "index-out-of-range", "float_scatter got index 3 for dim 1 of size 3.");
  EXPECT_PANIC(Dispatch::float_gather_nd(x, index_on(device, {0, 0, 0}, {1, 3})), "gather-nd-index-shape",
               "float_gather_nd needs indices whose last dim is at most the tensor's rank 2, got indices of shape [1, 3].");
  EXPECT_PANIC(Dispatch::float_gather_nd(x, Dispatch::int_from_data(TensorData::from_i64({0}, Shape{}), device)),
               "gather-nd-index-shape",
               "float_gather_nd needs indices whose last dim is at most the tensor's rank 2, got indices of shape [].");
  // Each coordinate against its own dim, the first bad one in row-major order.
  EXPECT_PANIC(Dispatch::float_gather_nd(x, index_on(device, {1, 2, 1, 3, 2, 0}, {3, 2})), "index-out-of-range",
               "float_gather_nd got index 3 for dim 1 of size 3.");
  EXPECT_PANIC(Dispatch::float_scatter_nd(x, index_on(device, {-1, 0}, {1, 2}), v, IndexingUpdateOp::Add),
               "index-out-of-range", "float_scatter_nd got index -1 for dim 0 of size 2.");
  EXPECT_PANIC(Dispatch::float_scatter_nd(x, index_on(device, {0, 1}, {2, 1}), tensor_on(device, {1, 2}, DType::F32, {2}),
                                          IndexingUpdateOp::Add),
               "assign-shape-mismatch", "float_scatter_nd needs values of shape [2, 3], got [2].");
}

TYPED_TEST(ScatterUpdateOps, TrackedMulMinMaxPanicAfterTheOtherChecks) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  const DispatchTensor x = tensor_on(device, {1, 2, 3}, DType::F32, {3});
  const DispatchTensor v = tensor_on(device, {5}, DType::F32, {1});
  EXPECT_PANIC(Dispatch::float_scatter(x, 0, index_on(device, {1}, {1}), v, IndexingUpdateOp::Mul), "scatter-update-gradient",
               "not implemented: float_scatter with Mul update is not implemented");
  EXPECT_PANIC(Dispatch::float_scatter_nd(x, index_on(device, {1}, {1, 1}), v, IndexingUpdateOp::Min), "scatter-update-gradient",
               "not implemented: float_scatter_nd with Min update is not implemented");
  // A bad index is reported first.
  EXPECT_PANIC(Dispatch::float_scatter(x, 0, index_on(device, {3}, {1}), v, IndexingUpdateOp::Max), "index-out-of-range",
               "float_scatter got index 3 for dim 0 of size 3.");
}

TYPED_TEST(ScatterUpdateOps, AssignGradientSkipsReplacedElementsAndOverwrittenValues) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : {DType::F32, DType::F64}) {
    const DispatchTensor x = tensor_on(device, {1, 2, 3, 4}, dt, {4});
    const DispatchTensor v = tensor_on(device, {10, 20, 30}, dt, {3});
    const DispatchTensor c = tensor_on(device, {1, 2, 4, 8}, dt, {4});
    // Values 0 and 2 land on element 1 (value 2 wins), value 1 on element 3.
    const DispatchTensor y = Dispatch::float_scatter(x, 0, index_on(device, {1, 3, 1}, {3}), v, IndexingUpdateOp::Assign);
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(y, c)));
    const std::vector<double> gx = values(*Dispatch::grad(x, g)), gv = values(*Dispatch::grad(v, g));
    EXPECT_EQ(gx, (std::vector<double>{1, 0, 4, 0}));
    EXPECT_EQ(gv, (std::vector<double>{0, 8, 2}));
    EXPECT_TRUE(gx[1] == 0 && !std::signbit(gx[1]) && gv[0] == 0 && !std::signbit(gv[0]));
  }
}

TYPED_TEST(ScatterUpdateOps, NdGradientsScatterBackAndGatherForTheValues) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  const DispatchTensor x = tensor_on(device, {1, 2, 3, 4, 5, 6}, DType::F64, {2, 3});
  const DispatchTensor c = tensor_on(device, {1, 2, 4, 8, 16, 32}, DType::F64, {2, 3});
  const DispatchTensor rows = index_on(device, {1, 0, 1}, {3, 1});
  // gather_nd: row 1 read twice, so its gradient adds both reads.
  {
    const DispatchTensor cg = tensor_on(device, {1, 1, 1, 2, 2, 2, 4, 4, 4}, DType::F64, {3, 3});
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(Dispatch::float_gather_nd(x, rows), cg)));
    EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{2, 2, 2, 5, 5, 5}));
  }
  // scatter_nd Add: g to the tensor, the gradient of each value's row to it.
  const DispatchTensor v = tensor_on(device, {1, 1, 1, 1, 1, 1, 1, 1, 1}, DType::F64, {3, 3});
  {
    const Gradients g = Dispatch::backward(
        Dispatch::float_sum(Dispatch::float_mul(Dispatch::float_scatter_nd(x, rows, v, IndexingUpdateOp::Add), c)));
    EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{1, 2, 4, 8, 16, 32}));
    EXPECT_EQ(values(*Dispatch::grad(v, g)), (std::vector<double>{8, 16, 32, 1, 2, 4, 8, 16, 32}));
  }
  // scatter_nd Assign: row 1 replaced (+0 to x there); value row 0 overwritten by row 2 (+0).
  {
    const Gradients g = Dispatch::backward(
        Dispatch::float_sum(Dispatch::float_mul(Dispatch::float_scatter_nd(x, rows, v, IndexingUpdateOp::Assign), c)));
    EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(values(*Dispatch::grad(v, g)), (std::vector<double>{0, 0, 0, 1, 2, 4, 8, 16, 32}));
  }
}

}  // namespace
}  // namespace crossgrad
