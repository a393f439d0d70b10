// Burn's tracking calls (docs/OPS.md "Tracking") on every backend: detach cuts the graph and gives
// a leaf of the same values, require_grad moves between plain tensors and tracked leaves, and an
// op's result cannot be made a leaf in place.
#include "test_support.hpp"

#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class TrackingOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(TrackingOps, AllBackendTypes, BackendTestName);

TYPED_TEST(TrackingOps, DetachStopsBackwardAndKeepsTheValues) {
  const DispatchTensor x = tensor_on(autodiff_device<TypeParam>(), {1, 2, 3}, DType::F64, {3});
  const DispatchTensor y = Dispatch::float_mul(x, x);  // dy/dx = 2x
  const DispatchTensor d = Dispatch::float_detach(y);
  EXPECT_EQ(values(d), (std::vector<double>{1, 4, 9}));
  EXPECT_TRUE(d.kind.is_autodiff());
  // z = y * detach(y): only the first factor carries the graph back to x: dz/dx = 2x * y.
  const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(y, d)));
  EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{2, 16, 54}));
  // The detached leaf gets its own gradient (every leaf does): y.
  EXPECT_EQ(values(*Dispatch::grad(d, g)), (std::vector<double>{1, 4, 9}));
  // A plain tensor is returned as it is.
  const DispatchTensor p = tensor_on(plain_device<TypeParam>(), {5}, DType::F32, {1});
  EXPECT_FALSE(Dispatch::float_detach(p).kind.is_autodiff());
  EXPECT_EQ(values(Dispatch::float_detach(p)), (std::vector<double>{5}));
}

TYPED_TEST(TrackingOps, RequireGradIsATrackedLeaf) {
  const DispatchTensor p = tensor_on(plain_device<TypeParam>(), {1, 2}, DType::F32, {2});
  EXPECT_FALSE(Dispatch::float_is_require_grad(p));
  const DispatchTensor leaf = Dispatch::float_set_require_grad(p, true);
  EXPECT_TRUE(leaf.kind.is_autodiff());
  EXPECT_TRUE(Dispatch::float_is_require_grad(leaf));
  EXPECT_TRUE(Dispatch::float_is_require_grad(Dispatch::float_set_require_grad(leaf, true)));
  const DispatchTensor result = Dispatch::float_exp(leaf);
  EXPECT_FALSE(Dispatch::float_is_require_grad(result));
  EXPECT_TRUE(Dispatch::float_is_require_grad(Dispatch::float_detach(result)));
  EXPECT_PANIC(Dispatch::float_set_require_grad(result, true), "require-grad-non-leaf",
               "Can't convert a non leaf tensor into a tracked tensor.");
  const DispatchTensor off = Dispatch::float_set_require_grad(result, false);
  EXPECT_FALSE(off.kind.is_autodiff());
  EXPECT_EQ(values(off), values(result));
  EXPECT_FALSE(Dispatch::float_set_require_grad(p, false).kind.is_autodiff());
  const DispatchTensor i = Dispatch::int_from_data(TensorData::from_i64({1}, Shape{1}), plain_device<TypeParam>());
  const auto caught = panic_of([&] { (void)Dispatch::float_detach(i); });
  ASSERT_TRUE(caught.has_value());
  EXPECT_EQ(caught->id, "op-kind-mismatch");
}

}  // namespace
}  // namespace crossgrad
