// CONTRACT section 5, row by row, on every registered backend. Expected messages are written out
// from the contract's text, never produced by the engine's formatter.
#include "test_support.hpp"

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class GradReplace : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_IF_UNAVAILABLE(B);
    x = Dispatch::float_from_data(TensorData::from_f32({1, 2, 3, 4}, {2, 2}), autodiff_device<B>());
    grads = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(x, x)));
  }
  std::vector<float> grad_of_x() { return Dispatch::float_into_data(*Dispatch::grad(x, grads)).to_f32(); }
  std::string x_struct() {
    return std::string(B::name) + "Tensor { shape: [2, 2], dtype: F32, device: " + B::default_device().to_string() + " }";
  }
  std::string x_inner_debug() {
    return std::string(B::name) + "(Autodiff(AutodiffTensor { primitive: " + x_struct() + ", node: NodeId(" +
           std::to_string(node_of<B>(x).value) + ") }))";
  }
  DispatchTensor x;
  Gradients grads;
};
TYPED_TEST_SUITE(GradReplace, AllBackendTypes, BackendTestName);

TYPED_TEST(GradReplace, SameBackendReplacesNeverAccumulates) {
  using B = TypeParam;
  const DispatchTensor g = Dispatch::float_from_data(TensorData::from_f32({10, 20, 30, 40}, {2, 2}), plain_device<B>());
  ASSERT_EQ(this->grad_of_x(), (std::vector<float>{2, 4, 6, 8}));
  Dispatch::grad_replace(this->x, this->grads, g);
  EXPECT_EQ(this->grad_of_x(), (std::vector<float>{10, 20, 30, 40}));
  EXPECT_EQ(this->grads.size(), 1u);
}

TYPED_TEST(GradReplace, AcceptsAnotherShapeAndDtypeOfTheSameBackend) {
  using B = TypeParam;
  const DispatchTensor g = Dispatch::float_from_data(TensorData::from_f64({0.5, -0.25, 7}, {3}), plain_device<B>());
  Dispatch::grad_replace(this->x, this->grads, g);
  const TensorData got = Dispatch::float_into_data(*Dispatch::grad(this->x, this->grads));
  EXPECT_EQ(got, TensorData::from_f64({0.5, -0.25, 7}, {3}));
}

TYPED_TEST(GradReplace, ReplacementCheckpointingNeverMatters) {
  using B = TypeParam;
  for (auto cp : {std::optional<CheckpointingStrategy>{}, std::optional{CheckpointingStrategy::Disabled},
                  std::optional{CheckpointingStrategy::Balanced}}) {
    DispatchTensor g = Dispatch::float_from_data(TensorData::from_f32({1, 1, 1, 1}, {2, 2}), plain_device<B>());
    g.checkpointing = cp;
    Dispatch::grad_replace(this->x, this->grads, g);
    EXPECT_EQ(this->grad_of_x(), (std::vector<float>{1, 1, 1, 1}));
  }
}

TYPED_TEST(GradReplace, InstallsAnEntryWhereNoneWas) {
  using B = TypeParam;
  Gradients empty;
  const DispatchTensor g = Dispatch::float_from_data(TensorData::from_f32({3}, {1}), plain_device<B>());
  Dispatch::grad_replace(this->x, empty, g);
  EXPECT_EQ(Dispatch::float_into_data(*Dispatch::grad(this->x, empty)).to_f32(), (std::vector<float>{3}));
}

TYPED_TEST(GradReplace, GradRemoveReturnsTheReplacementOnce) {
  using B = TypeParam;
  const DispatchTensor g = Dispatch::float_from_data(TensorData::from_f32({5, 6, 7, 8}, {2, 2}), plain_device<B>());
  Dispatch::grad_replace(this->x, this->grads, g);
  const auto removed = Dispatch::grad_remove(this->x, this->grads);
  ASSERT_TRUE(removed.has_value());
  EXPECT_EQ(Dispatch::float_into_data(*removed).to_f32(), (std::vector<float>{5, 6, 7, 8}));
  EXPECT_FALSE(Dispatch::grad_remove(this->x, this->grads).has_value());
  EXPECT_FALSE(Dispatch::grad(this->x, this->grads).has_value());
}

TYPED_TEST(GradReplace, PlainReceiverRequiresAutodiff) {
  using B = TypeParam;
  const DispatchTensor plain = Dispatch::float_from_data(TensorData::from_f32({1}, {1}), plain_device<B>());
  EXPECT_PANIC(Dispatch::grad_replace(plain, this->grads, plain), "requires-autodiff", "Requires autodiff tensor.");
  // Receiver first: a malformed gradient does not change the verdict.
  const DispatchTensor nested{DispatchTensorKind::Autodiff(this->x.kind), std::nullopt};
  EXPECT_PANIC(Dispatch::grad_replace(plain, this->grads, nested), "requires-autodiff", "Requires autodiff tensor.");
}

TYPED_TEST(GradReplace, AutodiffOfAutodiffReceiver) {
  using B = TypeParam;
  const DispatchTensor nested{DispatchTensorKind::Autodiff(this->x.kind), CheckpointingStrategy::Balanced};
  const DispatchTensor g = Dispatch::float_from_data(TensorData::from_f32({1}, {1}), plain_device<B>());
  EXPECT_PANIC(Dispatch::grad_replace(nested, this->grads, g), "autodiff-wraps-autodiff",
               "Autodiff should not wrap an autodiff tensor.");
}

TYPED_TEST(GradReplace, ReceiverWithoutAutodiffPrimitiveIsUnreachable) {
  using B = TypeParam;
  const DispatchTensor float_inside{DispatchTensorKind::Autodiff(DispatchTensorKind{BackendTensor<B>::Float(
                                        B::from_data(TensorData::from_f32({1}, {1}), B::default_device()))}),
                                    std::nullopt};
  const DispatchTensor g = Dispatch::float_from_data(TensorData::from_f32({1}, {1}), plain_device<B>());
  EXPECT_PANIC(Dispatch::grad_replace(float_inside, this->grads, g), "unreachable",
               "internal error: entered unreachable code");
  // Int tensors on an autodiff device have this shape too.
  const DispatchTensor ints = Dispatch::int_from_data(TensorData::from_i64({1}, {1}), autodiff_device<B>());
  EXPECT_PANIC(Dispatch::grad_replace(ints, this->grads, g), "unreachable", "internal error: entered unreachable code");
  // The receiver is checked before the gradient's kind.
  const DispatchTensor int_grad = Dispatch::int_from_data(TensorData::from_i64({1}, {1}), plain_device<B>());
  EXPECT_PANIC(Dispatch::grad_replace(float_inside, this->grads, int_grad), "unreachable",
               "internal error: entered unreachable code");
}

TYPED_TEST(GradReplace, SameBackendNonFloatGradient) {
  using B = TypeParam;
  const DispatchTensor ints = Dispatch::int_from_data(TensorData::from_i64({1, 2}, {2}), plain_device<B>());
  const DispatchTensor bools = Dispatch::bool_from_data(TensorData::from_bool({true}, {1}), plain_device<B>());
  const DispatchTensor q =
      Dispatch::quantize(Dispatch::float_from_data(TensorData::from_f32({1, -2}, {2}), plain_device<B>()));
  const DispatchTensor ad_prim{Dispatch::float_from_data(TensorData::from_f32({1}, {1}), autodiff_device<B>()).kind.autodiff_inner(),
                               std::nullopt};
  EXPECT_PANIC(Dispatch::grad_replace(this->x, this->grads, ints), "should-be-float", "Should be float, got int");
  EXPECT_PANIC(Dispatch::grad_replace(this->x, this->grads, bools), "should-be-float", "Should be float, got bool");
  EXPECT_PANIC(Dispatch::grad_replace(this->x, this->grads, q), "should-be-float", "Should be float, got quantized");
  EXPECT_PANIC(Dispatch::grad_replace(this->x, this->grads, ad_prim), "should-be-float", "Should be float, got autodiff");
  EXPECT_EQ(this->grad_of_x(), (std::vector<float>{2, 4, 6, 8}));
}

TYPED_TEST(GradReplace, AutodiffGradientIsCrossBackendEvenOnTheSameBackend) {
  using B = TypeParam;
  const DispatchTensor g = Dispatch::float_from_data(TensorData::from_f32({1, 2}, {2}), autodiff_device<B>());
  const std::string g_debug = "Autodiff(" + std::string(B::name) + "(Autodiff(AutodiffTensor { primitive: " +
                              std::string(B::name) + "Tensor { shape: [2], dtype: F32, device: " +
                              B::default_device().to_string() + " }, node: NodeId(" +
                              std::to_string(node_of<B>(g).value) + ") })))";
  EXPECT_PANIC(Dispatch::grad_replace(this->x, this->grads, g), "cross-backend",
               "The provided tensors are not on the same backend. Got backends " + this->x_inner_debug() + " and " +
                   g_debug + ".");
  EXPECT_EQ(this->grad_of_x(), (std::vector<float>{2, 4, 6, 8}));
}

// Every ordered pair of distinct available backends: the documented cross-backend panic, with the
// receiver's inner kind first and the gradient's kind second; grads untouched and still usable.
TEST(GradReplaceCrossBackend, EveryPairOfAvailableBackends) {
  int pairs = 0;
  for_each_backend([&]<class T>() {
    if (!T::is_available()) return;
    for_each_backend([&]<class G>() {
      if (!G::is_available() || std::is_same_v<T, G>) return;
      ++pairs;
      const DispatchTensor x = Dispatch::float_from_data(TensorData::from_f64({1, 2, 3}, {3}), autodiff_device<T>());
      Gradients grads = Dispatch::backward(x);
      const DispatchTensor g = Dispatch::float_from_data(TensorData::from_f32({0, 0, 0, 0, 0, 0}, {2, 3}), plain_device<G>());
      const std::string expected =
          "The provided tensors are not on the same backend. Got backends " + std::string(T::name) +
          "(Autodiff(AutodiffTensor { primitive: " + std::string(T::name) + "Tensor { shape: [3], dtype: F64, device: " +
          T::default_device().to_string() + " }, node: NodeId(" + std::to_string(node_of<T>(x).value) + ") })) and " +
          std::string(G::name) + "(Float(" + std::string(G::name) + "Tensor { shape: [2, 3], dtype: F32, device: " +
          G::default_device().to_string() + " })).";
      EXPECT_PANIC(Dispatch::grad_replace(x, grads, g), "cross-backend", expected);
      EXPECT_EQ(Dispatch::float_into_data(*Dispatch::grad(x, grads)).to_f64(), (std::vector<double>{1, 1, 1}));
      Dispatch::grad_replace(x, grads, Dispatch::float_from_data(TensorData::from_f64({4, 5, 6}, {3}), plain_device<T>()));
      EXPECT_EQ(Dispatch::float_into_data(*Dispatch::grad(x, grads)).to_f64(), (std::vector<double>{4, 5, 6}));
    });
  });
  const std::size_t n = available_backends().size();
  EXPECT_EQ(pairs, static_cast<int>(n * (n - 1)));
  EXPECT_GE(n, 2u);
}

TYPED_TEST(GradReplace, OtherAutodiffOpsCheckTheReceiverTheSameWay) {
  using B = TypeParam;
  const DispatchTensor plain = Dispatch::float_from_data(TensorData::from_f32({1}, {1}), plain_device<B>());
  const DispatchTensor nested{DispatchTensorKind::Autodiff(this->x.kind), std::nullopt};
  const DispatchTensor float_inside{DispatchTensorKind::Autodiff(plain.kind), std::nullopt};
  EXPECT_PANIC(Dispatch::grad(plain, this->grads), "requires-autodiff", "Requires autodiff tensor.");
  EXPECT_PANIC(Dispatch::grad_remove(plain, this->grads), "requires-autodiff", "Requires autodiff tensor.");
  EXPECT_PANIC(Dispatch::backward(plain), "requires-autodiff", "Requires autodiff tensor.");
  EXPECT_PANIC(Dispatch::inner(plain), "requires-autodiff", "Requires autodiff tensor.");
  EXPECT_PANIC(Dispatch::grad(nested, this->grads), "autodiff-wraps-autodiff", "Autodiff should not wrap an autodiff tensor.");
  EXPECT_PANIC(Dispatch::grad_remove(nested, this->grads), "autodiff-wraps-autodiff", "Autodiff should not wrap an autodiff tensor.");
  EXPECT_PANIC(Dispatch::backward(nested), "autodiff-wraps-autodiff", "Autodiff should not wrap an autodiff tensor.");
  EXPECT_PANIC(Dispatch::inner(nested), "autodiff-wraps-autodiff", "Autodiff should not wrap an autodiff tensor.");
  EXPECT_PANIC(Dispatch::grad(float_inside, this->grads), "unreachable", "internal error: entered unreachable code");
  EXPECT_PANIC(Dispatch::grad_remove(float_inside, this->grads), "unreachable", "internal error: entered unreachable code");
  EXPECT_PANIC(Dispatch::backward(float_inside), "unreachable", "internal error: entered unreachable code");
  EXPECT_PANIC(Dispatch::inner(float_inside), "unreachable", "internal error: entered unreachable code");
  EXPECT_PANIC(Dispatch::from_inner(this->x), "autodiff-wraps-autodiff", "Autodiff should not wrap an autodiff tensor.");
  const DispatchTensor ints = Dispatch::int_from_data(TensorData::from_i64({1}, {1}), plain_device<B>());
  EXPECT_PANIC(Dispatch::from_inner(ints), "should-be-float", "Should be float, got int");
  EXPECT_EQ(this->grad_of_x(), (std::vector<float>{2, 4, 6, 8}));
}

TYPED_TEST(GradReplace, InnerAndFromInnerKeepTheData) {
  using B = TypeParam;
  const DispatchTensor in = Dispatch::inner(this->x);
  EXPECT_FALSE(in.kind.is_autodiff());
  EXPECT_EQ(Dispatch::float_into_data(in), TensorData::from_f32({1, 2, 3, 4}, {2, 2}));
  const DispatchTensor back = Dispatch::from_inner(in);
  EXPECT_TRUE(back.kind.is_autodiff());
  EXPECT_NE(node_of<B>(back).value, node_of<B>(this->x).value);
  EXPECT_EQ(Dispatch::float_into_data(back), TensorData::from_f32({1, 2, 3, 4}, {2, 2}));
}

}  // namespace
}  // namespace crossgrad
