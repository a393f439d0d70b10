// attention (docs/OPS.md "Module ops") on every backend, plain and tracked: scores whose softmax is
// exact here (equal scores weigh their keys equally), the causal corner, masks, a fully masked row
// (zeros, Note [A fully masked row attends to nothing]) and its NaN-free gradients, and the
// argument panics in the documented order.
#include "test_support.hpp"

#include <cmath>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class AttentionOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(AttentionOps, AllBackendTypes, BackendTestName);

const DType kDtypes[] = {DType::F32, DType::F64};

DispatchTensor bools_on(const DispatchDevice& device, std::vector<bool> v, Shape shape) {
  return Dispatch::bool_from_data(TensorData::from_bool(std::move(v), std::move(shape)), device);
}

TYPED_TEST(AttentionOps, EqualScoresAverageTheValues) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : kDtypes) {
      // Queries of zeros: every score is 0, so each query averages the values it may see.
      const DispatchTensor q = tensor_on(device, {0, 0}, dt, {1, 1, 2, 1});
      const DispatchTensor k = tensor_on(device, {1, -1}, dt, {1, 1, 2, 1});
      const DispatchTensor v = tensor_on(device, {2, 10, 4, 20}, dt, {1, 1, 2, 2});
      const AttentionOptions plain{}, causal{std::nullopt, std::nullopt, true}, capped{0.5, 3.0, false};
      EXPECT_EQ(values(Dispatch::attention(q, k, v, std::nullopt, std::nullopt, plain)), (std::vector<double>{3, 15, 3, 15}));
      EXPECT_EQ(values(Dispatch::attention(q, k, v, std::nullopt, std::nullopt, capped)), (std::vector<double>{3, 15, 3, 15}));
      // Causal: query 0 sees key 0 alone.
      EXPECT_EQ(values(Dispatch::attention(q, k, v, std::nullopt, std::nullopt, causal)), (std::vector<double>{2, 10, 3, 15}));
      // With more keys than queries the diagonal ends at the bottom-right corner: one query of
      // three keys sees all three.
      const DispatchTensor k3 = tensor_on(device, {1, 2, 3}, dt, {1, 1, 3, 1});
      const DispatchTensor v3 = tensor_on(device, {3, 6, 9}, dt, {1, 1, 3, 1});
      EXPECT_EQ(values(Dispatch::attention(tensor_on(device, {0}, dt, {1, 1, 1, 1}), k3, v3, std::nullopt, std::nullopt, causal)),
                (std::vector<double>{6}));
      // A mask hides key 0 from query 1; a fully masked row is zeros.
      const DispatchTensor mask = bools_on(device, {true, true, true, false}, {1, 1, 2, 2});
      EXPECT_EQ(values(Dispatch::attention(q, k, v, mask, std::nullopt, plain)), (std::vector<double>{0, 0, 4, 20}));
      // A bias of -inf hides like a mask; a finite one shifts a row's scores and changes nothing.
      const double inf = INFINITY;
      const DispatchTensor bias = tensor_on(device, {-inf, 7, 1, 1}, dt, {1, 1, 2, 2});
      EXPECT_EQ(values(Dispatch::attention(q, k, v, std::nullopt, bias, plain)), (std::vector<double>{4, 20, 3, 15}));
      // No key at all: zeros; no query: an empty result.
      EXPECT_EQ(values(Dispatch::attention(q, tensor_on(device, {}, dt, {1, 1, 0, 1}), tensor_on(device, {}, dt, {1, 1, 0, 2}),
                                           std::nullopt, std::nullopt, plain)),
                (std::vector<double>{0, 0, 0, 0}));
      EXPECT_EQ(Dispatch::float_shape(Dispatch::attention(tensor_on(device, {}, dt, {1, 1, 0, 1}), k, v, std::nullopt, std::nullopt,
                                                          plain)),
                (Shape{1, 1, 0, 2}));
    }
  }
}

TYPED_TEST(AttentionOps, DistinctScoresWeighBySoftmax) {
  const DispatchDevice device = plain_device<TypeParam>();
  for (const DType dt : kDtypes) {
    // Scores log 3 and 0 (scale 1): weights 3/4 and 1/4.
    const DispatchTensor q = tensor_on(device, {std::log(3.0)}, dt, {1, 1, 1, 1});
    const DispatchTensor k = tensor_on(device, {1, 0}, dt, {1, 1, 2, 1});
    const DispatchTensor v = tensor_on(device, {2, 4}, dt, {1, 1, 2, 1});
    EXPECT_NEAR(values(Dispatch::attention(q, k, v, std::nullopt, std::nullopt, AttentionOptions{})).at(0), 2.5, 1e-6);
    // softcap 1 caps log 3 to tanh(log 3) = 0.8: weights e^0.8 / (e^0.8 + 1).
    const double w = std::exp(0.8) / (std::exp(0.8) + 1);
    EXPECT_NEAR(values(Dispatch::attention(q, k, v, std::nullopt, std::nullopt, AttentionOptions{std::nullopt, 1.0, false})).at(0),
                2 * w + 4 * (1 - w), 1e-6);
  }
}

TYPED_TEST(AttentionOps, GradientsAreFiniteAndSplitEvenly) {
  const DispatchDevice device = autodiff_device<TypeParam>();
  for (const DType dt : kDtypes) {
    const DispatchTensor q = tensor_on(device, {0, 0}, dt, {1, 1, 2, 1});
    const DispatchTensor k = tensor_on(device, {1, -1}, dt, {1, 1, 2, 1});
    const DispatchTensor v = tensor_on(device, {2, 10, 4, 20}, dt, {1, 1, 2, 2});
    // Equal weights: each value row gets half of each query's cotangent (two queries: 1 in all).
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::attention(q, k, v, std::nullopt, std::nullopt, AttentionOptions{})));
    EXPECT_EQ(values(*Dispatch::grad(v, g)), (std::vector<double>{1, 1, 1, 1}));
    // Every row masked: zeros forward, and zero (not NaN) gradients for every operand.
    const DispatchTensor all = Dispatch::bool_from_data(TensorData::from_bool({true, true, true, true}, Shape{1, 1, 2, 2}),
                                                        autodiff_device<TypeParam>());
    const Gradients gm = Dispatch::backward(Dispatch::float_sum(Dispatch::attention(q, k, v, all, std::nullopt, AttentionOptions{})));
    EXPECT_EQ(values(*Dispatch::grad(q, gm)), (std::vector<double>{0, 0}));
    EXPECT_EQ(values(*Dispatch::grad(k, gm)), (std::vector<double>{0, 0}));
    EXPECT_EQ(values(*Dispatch::grad(v, gm)), (std::vector<double>{0, 0, 0, 0}));
  }
}

TYPED_TEST(AttentionOps, BadArgumentsPanicInOrder) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor q = tensor_on(device, std::vector<double>(8), DType::F32, {1, 1, 2, 4});
  const DispatchTensor kv = tensor_on(device, std::vector<double>(12), DType::F32, {1, 1, 3, 4});
  const AttentionOptions o{};
  EXPECT_PANIC(Dispatch::attention(q, tensor_on(device, std::vector<double>(12), DType::F64, {1, 1, 3, 4}), kv, std::nullopt,
                                   std::nullopt, o),
               "dtype-mismatch", "attention needs operands of one dtype, got F32 and F64.");
  EXPECT_PANIC(Dispatch::attention(q, kv, kv, std::nullopt, std::nullopt, AttentionOptions{std::nullopt, -1.0, false}),
               "attention-softcap", "attention needs a positive softcap, got -1.");
  EXPECT_PANIC(Dispatch::attention(tensor_on(device, std::vector<double>(8), DType::F32, {2, 4}), kv, kv, std::nullopt, std::nullopt, o),
               "module-input-rank", "attention needs a 4-D query [batch, heads, seq_q, head_dim], got shape [2, 4].");
  EXPECT_PANIC(Dispatch::attention(q, tensor_on(device, std::vector<double>(9), DType::F32, {1, 1, 3, 3}), kv, std::nullopt,
                                   std::nullopt, o),
               "module-dim-mismatch",
               "attention needs the key [1, 1, 3, 3] and the query [1, 1, 2, 4] to agree: dim 3 of the key is 3, dim 3 of the query is 4.");
  EXPECT_PANIC(Dispatch::attention(q, kv, tensor_on(device, std::vector<double>(8), DType::F32, {1, 1, 2, 4}), std::nullopt,
                                   std::nullopt, o),
               "module-dim-mismatch",
               "attention needs the value [1, 1, 2, 4] and the key [1, 1, 3, 4] to agree: dim 2 of the value is 2, dim 2 of the key is 3.");
  EXPECT_PANIC(Dispatch::attention(q, kv, kv, bools_on(device, {true, false}, {1, 1, 1, 2}), std::nullopt, o), "attention-operand-shape",
               "attention needs a mask of the scores' shape [batch, heads, seq_q, seq_k] = [1, 1, 2, 3], got [1, 1, 1, 2].");
}

}  // namespace
}  // namespace crossgrad
