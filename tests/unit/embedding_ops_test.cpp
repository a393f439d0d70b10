// embedding and embedding_backward (docs/OPS.md "Module ops") on every backend, plain and tracked,
// against values worked out here from the definition (a row per position; a row's gradient the
// sum of its positions' gradients), the gradient through Autodiff<B> (Burn's backward entry
// point), the backward pass called directly, the argument panics in the documented order, and the
// refusal of the backward pass on an autodiff device.
#include "test_support.hpp"

#include <cstdint>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class EmbeddingOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(EmbeddingOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

// The table [[1, 2], [3, 4], [5, 6]]: row r holds 2r + 1 and 2r + 2.
DispatchTensor table(const DispatchDevice& device, DType dt) { return tensor_on(device, {1, 2, 3, 4, 5, 6}, dt, {3, 2}); }

DispatchTensor rows(const DispatchDevice& device, std::vector<std::int64_t> v, Shape shape, DType dt = DType::I64) {
  return Dispatch::int_from_data(dt == DType::I32 ? TensorData::from_i32(std::vector<std::int32_t>(v.begin(), v.end()), shape)
                                                  : TensorData::from_i64(std::move(v), shape),
                                 device);
}

TYPED_TEST(EmbeddingOps, EachPositionReadsItsRow) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      for (const DType index_dt : {DType::I64, DType::I32}) {
        const DispatchTensor y = Dispatch::embedding(table(device, dt), rows(device, {2, 0, 2, 1}, Shape{2, 2}, index_dt));
        EXPECT_EQ(Dispatch::float_shape(y), (Shape{2, 2, 2}));
        EXPECT_EQ(values(y), (std::vector<double>{5, 6, 1, 2, 5, 6, 3, 4}));
      }
      // No positions, or rows of nothing: empty results of the output's shape.
      EXPECT_EQ(Dispatch::float_shape(Dispatch::embedding(table(device, dt), rows(device, {}, Shape{0, 4}))), (Shape{0, 4, 2}));
      const DispatchTensor narrow = tensor_on(device, {}, dt, {3, 0});
      EXPECT_EQ(Dispatch::float_shape(Dispatch::embedding(narrow, rows(device, {1, 2}, Shape{1, 2}))), (Shape{1, 2, 0}));
    }
  }
}

TYPED_TEST(EmbeddingOps, GradientAddsEachPositionToItsRow) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor w = table(device, dt);
    const DispatchTensor y = Dispatch::embedding(w, rows(device, {2, 0, 2}, Shape{1, 3}));
    const DispatchTensor c = tensor_on(device, {1, 2, 4, 8, 16, 32}, dt, {1, 3, 2});
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(y, c)));
    // Row 2 gathers positions 0 and 2, row 0 position 1, row 1 nothing.
    EXPECT_EQ(values(*Dispatch::grad(w, g)), (std::vector<double>{4, 8, 0, 0, 17, 34}));
  }
  // Called directly: repeated rows add up in position order (0.1 + 1e8 - 1e8 in F32 is 0, not 0.1).
  const DispatchDevice plain = plain_device<TypeParam>();
  const DispatchTensor w = tensor_on(plain, {0, 0}, DType::F32, {2, 1});
  const DispatchTensor grad = tensor_on(plain, {0.1, 1e8, -1e8, 7}, DType::F32, {1, 4, 1});
  const std::vector<double> dw = values(Dispatch::embedding_backward(w, grad, rows(plain, {0, 0, 0, 1}, Shape{1, 4})));
  EXPECT_EQ(dw, (std::vector<double>{0, 7}));
}

TYPED_TEST(EmbeddingOps, BadArgumentsPanicInOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor w = table(device, DType::F32);
  const DispatchTensor idx = rows(device, {0, 1}, Shape{1, 2});
  EXPECT_PANIC(Dispatch::embedding(tensor_on(device, {1, 2, 3}, DType::F32, {3}), rows(device, {0}, Shape{1})), "module-input-rank",
               "embedding needs a 2-D weight [n_embeddings, d_model], got shape [3].");
  EXPECT_PANIC(Dispatch::embedding(w, rows(device, {0, 1}, Shape{2})), "module-input-rank",
               "embedding needs a 2-D index [batch, seq_length], got shape [2].");
  EXPECT_PANIC(Dispatch::embedding(w, Dispatch::int_from_data(TensorData::from_u8({0, 1}, Shape{1, 2}), device)), "unsupported-dtype",
               "DType U8 is not supported by embedding indices.");
  // Every index is checked, the first bad one named, before anything is written; negative ones are
  // not wrapped.
  EXPECT_PANIC(Dispatch::embedding(w, rows(device, {1, 3, -1}, Shape{1, 3})), "index-out-of-range",
               "embedding got index 3 for dim 0 of size 3.");
  EXPECT_PANIC(Dispatch::embedding(w, rows(device, {-1, 0}, Shape{2, 1}, DType::I32)), "index-out-of-range",
               "embedding got index -1 for dim 0 of size 3.");
  // The backward pass: the gradient's dtype, the forward's checks (naming the backward pass),
  // the gradient's shape, then the index values.
  EXPECT_PANIC(Dispatch::embedding_backward(w, tensor_on(device, {1, 2, 3, 4}, DType::F64, {1, 2, 2}), idx), "dtype-mismatch",
               "embedding_backward needs operands of one dtype, got F32 and F64.");
  const DispatchTensor g = tensor_on(device, {1, 2, 3, 4}, DType::F32, {1, 2, 2});
  EXPECT_PANIC(Dispatch::embedding_backward(w, g, rows(device, {0, 1}, Shape{2})), "module-input-rank",
               "embedding_backward needs a 2-D index [batch, seq_length], got shape [2].");
  EXPECT_PANIC(Dispatch::embedding_backward(w, tensor_on(device, {1, 2}, DType::F32, {1, 2, 1}), rows(device, {0, 9}, Shape{1, 2})),
               "pool-grad-shape", "embedding_backward needs a gradient of the output's shape [1, 2, 2], got [1, 2, 1].");
  EXPECT_PANIC(Dispatch::embedding_backward(w, g, rows(device, {0, 9}, Shape{1, 2})), "index-out-of-range",
               "embedding_backward got index 9 for dim 0 of size 3.");
}

TYPED_TEST(EmbeddingOps, BackwardPassRefusesAnAutodiffDevice) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  EXPECT_PANIC(Dispatch::embedding_backward(table(device, DType::F32), tensor_on(device, {1, 2}, DType::F32, {1, 1, 2}),
                                            rows(device, {7}, Shape{1, 1})),
               "not-differentiable", "Can't differentiate embedding_backward.");
}

}  // namespace
}  // namespace crossgrad
