// CONTRACT section 7 (issue 14): float_to_device of a tracked tensor to another backend's autodiff
// device keeps the graph. Values move bit for bit, the result is tracked on the target backend with
// the receiver's checkpointing strategy, backward gives every leaf its gradient on the leaf's own
// backend, and section 5 applies per leaf (a gradient of another backend of the same graph is the
// exact cross-backend panic, nothing touched). Expected values are worked out by hand from the
// inputs (every product and sum below is exact in F32 and F64); expected messages are written out
// from the catalog text, never produced by the engine's formatter.
#include "test_support.hpp"

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace crossgrad {
namespace {
using namespace testing_support;
using backends::Flex;
using backends::NdArray;

// ---- inputs ------------------------------------------------------------------------------------

TensorData data_of(DType dtype, const std::vector<double>& values, Shape shape) {
  if (dtype == DType::F64) return TensorData::from_f64(values, std::move(shape));
  return TensorData::from_f32(std::vector<float>(values.begin(), values.end()), std::move(shape));
}

template <class B>
DispatchTensor leaf_on(DType dtype, const std::vector<double>& values, Shape shape) {
  return Dispatch::float_from_data(data_of(dtype, values, std::move(shape)), autodiff_device<B>());
}

// One hop: the tracked tensor moved to B's autodiff device.
template <class B>
DispatchTensor hop_to(const DispatchTensor& t) {
  return Dispatch::float_to_device(t, autodiff_device<B>());
}

// Special values by their bits: quiet NaN, a negative NaN with a payload, a signalling NaN, both
// infinities, -0, the smallest subnormal, the largest finite value, and ordinary numbers.
TensorData special_f32() {
  const std::uint32_t bits[] = {0x7fc00000u, 0xffc01234u, 0x7fa00001u, 0x7f800000u, 0xff800000u,
                                0x80000000u, 0x00000001u, 0x7f7fffffu, 0x3fc00000u, 0xc0000000u};
  std::vector<float> v;
  for (std::uint32_t b : bits) v.push_back(std::bit_cast<float>(b));
  return TensorData::from_f32(std::move(v), {2, 5});
}
TensorData special_f64() {
  const std::uint64_t bits[] = {0x7ff8000000000000ull, 0xfff8000000001234ull, 0x7ff4000000000001ull,
                                0x7ff0000000000000ull, 0xfff0000000000000ull, 0x8000000000000000ull,
                                0x0000000000000001ull, 0x7fefffffffffffffull, 0x3ff8000000000000ull,
                                0xc000000000000000ull};
  std::vector<double> v;
  for (std::uint64_t b : bits) v.push_back(std::bit_cast<double>(b));
  return TensorData::from_f64(std::move(v), {5, 2});
}

// ---- what a tensor is --------------------------------------------------------------------------

// The primitive kind of a backend kind; nullopt for Autodiff(...).
std::optional<PrimitiveKind> primitive_kind_of(const DispatchTensorKind& k) {
  return std::visit(
      []<class V>(const V& v) -> std::optional<PrimitiveKind> {
        if constexpr (std::is_same_v<V, AutodiffKind>) {
          return std::nullopt;
        } else {
          return v.primitive_kind();
        }
      },
      k.value);
}

// The backend B of Autodiff(B(Autodiff(...))), or "" for any other kind.
std::string tracked_backend(const DispatchTensor& t) {
  if (!t.kind.is_autodiff()) return "";
  const DispatchTensorKind& in = t.kind.autodiff_inner();
  return primitive_kind_of(in) == PrimitiveKind::Autodiff ? std::string(in.backend_name()) : std::string();
}

// The backend B of a plain B(Float(...)), or "" for any other kind.
std::string plain_float_backend(const DispatchTensor& t) {
  return primitive_kind_of(t.kind) == PrimitiveKind::Float ? std::string(t.kind.backend_name()) : std::string();
}

// "Flex(Autodiff(AutodiffTensor { primitive: FlexTensor { ... }, node: NodeId(7) }))": the receiver's
// inner kind as the cross-backend message prints it (CONTRACT section 5).
template <class B>
std::string tracked_debug(const DispatchTensor& t, const std::string& shape, const std::string& dtype) {
  return std::string(B::name) + "(Autodiff(AutodiffTensor { primitive: " + std::string(B::name) + "Tensor { shape: " + shape +
         ", dtype: " + dtype + ", device: " + B::default_device().to_string() + " }, node: NodeId(" +
         std::to_string(node_of<B>(t).value) + ") }))";
}
template <class B>
std::string float_debug(const std::string& shape, const std::string& dtype) {
  return std::string(B::name) + "(Float(" + std::string(B::name) + "Tensor { shape: " + shape + ", dtype: " + dtype +
         ", device: " + B::default_device().to_string() + " }))";
}
std::string cross_backend_message(const std::string& t, const std::string& g) {
  return "The provided tensors are not on the same backend. Got backends " + t + " and " + g + ".";
}

// leaf's gradient: a plain float tensor of the leaf's backend B, on B's device, with `want`'s bytes,
// shape and dtype; and the Gradients entry itself holds B's tensor type.
template <class B>
void expect_gradient_on(const DispatchTensor& leaf, const Gradients& grads, const TensorData& want) {
  SCOPED_TRACE(std::string("gradient of a ") + std::string(B::name) + " leaf");
  const AnyTensor* entry = grads.find(node_of<B>(leaf));
  ASSERT_NE(entry, nullptr) << "no Gradients entry for the leaf";
  EXPECT_TRUE(std::holds_alternative<typename B::Tensor>(*entry)) << "entry of variant index " << entry->index();
  const std::optional<DispatchTensor> g = Dispatch::grad(leaf, grads);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(plain_float_backend(*g), std::string(B::name));
  EXPECT_EQ(Dispatch::float_device(*g), plain_device<B>());
  EXPECT_EQ(Dispatch::float_dtype(*g), want.dtype());
  EXPECT_EQ(Dispatch::float_into_data(*g), want);
}

// ---- checks run for one ordered pair of backends (Home: the leaf x; Away: the hop target) -------

template <class Home, class Away>
void check_value_moves_bit_for_bit() {
  for (const TensorData& data : {special_f32(), special_f64()}) {
    SCOPED_TRACE(std::string(dtype_name(data.dtype())));
    const DispatchTensor x = Dispatch::float_from_data(data, autodiff_device<Home>());
    const DispatchTensor there = hop_to<Away>(x);
    EXPECT_EQ(tracked_backend(there), std::string(Away::name));
    EXPECT_EQ(Dispatch::float_device(there), autodiff_device<Away>());
    EXPECT_EQ(Dispatch::float_dtype(there), data.dtype());
    EXPECT_EQ(Dispatch::float_shape(there), data.shape());
    EXPECT_EQ(Dispatch::float_into_data(there), data);  // bytes, so NaN payloads and -0 included
    EXPECT_NE(node_of<Away>(there).value, node_of<Home>(x).value) << "a hop is a new node";
    const DispatchTensor back = hop_to<Home>(there);
    EXPECT_EQ(tracked_backend(back), std::string(Home::name));
    EXPECT_EQ(Dispatch::float_into_data(back), data);
  }
}

// x on Home, y on Away; r = hop_Home(hop_Away(x) * y) + x = x*y + x, a non-scalar root (acts like
// its sum): dr/dx = y + 1, dr/dy = x. One entry per leaf, each on its own backend.
template <class Home, class Away>
void check_gradients_land_on_each_leafs_backend() {
  for (DType dtype : {DType::F32, DType::F64}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const DispatchTensor x = leaf_on<Home>(dtype, {1.5, -2, 0.25}, {3});
    const DispatchTensor y = leaf_on<Away>(dtype, {3, 0.25, -0.0}, {3});
    const DispatchTensor r = Dispatch::float_add(hop_to<Home>(Dispatch::float_mul(hop_to<Away>(x), y)), x);
    EXPECT_EQ(tracked_backend(r), std::string(Home::name));
    const Gradients grads = Dispatch::backward(r);
    EXPECT_EQ(grads.size(), 2u) << "one entry per leaf, none for the hops";
    expect_gradient_on<Home>(x, grads, data_of(dtype, {4, 1.25, 1}, {3}));
    expect_gradient_on<Away>(y, grads, data_of(dtype, {1.5, -2, 0.25}, {3}));
  }
}

// r = hop_Home(hop_Away(x) * -2) (no other path): dr/dx = -2 moved back; and a leaf y on Away whose
// gradient x * 1 keeps -0 and inf bit for bit on the way back (1 * v is exact for every v).
template <class Home, class Away>
void check_gradient_moves_back_bit_for_bit() {
  for (DType dtype : {DType::F32, DType::F64}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const double inf = std::numeric_limits<double>::infinity();
    const DispatchTensor x = leaf_on<Away>(dtype, {-0.0, inf, 3}, {3});
    const DispatchTensor y = leaf_on<Home>(dtype, {1, 1, 1}, {3});
    // r lives on Away; y reaches it through a hop, so y's gradient x * 1 comes back to Home.
    const DispatchTensor r = Dispatch::float_mul(x, hop_to<Away>(y));
    const Gradients grads = Dispatch::backward(r);
    EXPECT_EQ(grads.size(), 2u);
    expect_gradient_on<Home>(y, grads, data_of(dtype, {-0.0, inf, 3}, {3}));
    expect_gradient_on<Away>(x, grads, data_of(dtype, {1, 1, 1}, {3}));
  }
}

// x reached directly and through a hop: its gradient is the sum of both paths, exactly once each.
// r = x + hop_Home(hop_Away(x) * 3): dr/dx = 1 + 3 = 4 (a hop gradient counted twice gives 7);
// and a diamond of two separate hops, s = hop_Home(hop_Away(x) * hop_Away(x)): ds/dx = 2x.
template <class Home, class Away>
void check_both_paths_summed_once() {
  for (DType dtype : {DType::F32, DType::F64}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const DispatchTensor x = leaf_on<Home>(dtype, {1, -0.5}, {2});
    const DispatchTensor r = Dispatch::float_add(x, hop_to<Home>(Dispatch::float_mul_scalar(hop_to<Away>(x), 3)));
    const Gradients grads = Dispatch::backward(r);
    EXPECT_EQ(grads.size(), 1u);
    expect_gradient_on<Home>(x, grads, data_of(dtype, {4, 4}, {2}));

    const DispatchTensor s = hop_to<Home>(Dispatch::float_mul(hop_to<Away>(x), hop_to<Away>(x)));
    const Gradients diamond = Dispatch::backward(s);
    EXPECT_EQ(diamond.size(), 1u);
    expect_gradient_on<Home>(x, diamond, data_of(dtype, {2, -1}, {2}));
  }
}

// grad_replace per leaf on a Gradients holding entries of both backends: a gradient of the OTHER
// backend of the same graph is the exact cross-backend panic and leaves every entry as it was; a
// gradient of the leaf's own backend replaces its entry only. grad and grad_remove work per leaf.
template <class Home, class Away>
void check_grad_api_per_leaf() {
  const DispatchTensor x = leaf_on<Home>(DType::F32, {1.5, -2}, {2});
  const DispatchTensor y = leaf_on<Away>(DType::F32, {3, 0.25}, {2});
  Gradients grads = Dispatch::backward(Dispatch::float_add(hop_to<Home>(Dispatch::float_mul(hop_to<Away>(x), y)), x));
  const TensorData gx = TensorData::from_f32({4, 1.25}, {2});
  const TensorData gy = TensorData::from_f32({1.5, -2}, {2});
  ASSERT_EQ(grads.size(), 2u);
  const std::vector<NodeId> ids = grads.node_ids();

  const auto expect_untouched = [&] {
    EXPECT_EQ(grads.size(), 2u);
    EXPECT_EQ(grads.node_ids(), ids);
    expect_gradient_on<Home>(x, grads, gx);
    expect_gradient_on<Away>(y, grads, gy);
  };

  // The gradients of this very graph, each of the other leaf's backend.
  const DispatchTensor y_grad = *Dispatch::grad(y, grads);  // on Away
  const DispatchTensor x_grad = *Dispatch::grad(x, grads);  // on Home
  EXPECT_PANIC(Dispatch::grad_replace(x, grads, y_grad), "cross-backend",
               cross_backend_message(tracked_debug<Home>(x, "[2]", "F32"), float_debug<Away>("[2]", "F32")));
  expect_untouched();
  EXPECT_PANIC(Dispatch::grad_replace(y, grads, x_grad), "cross-backend",
               cross_backend_message(tracked_debug<Away>(y, "[2]", "F32"), float_debug<Home>("[2]", "F32")));
  expect_untouched();
  // A tracked tensor of the graph (the hop itself) is no gradient either: Autodiff(...) kind.
  const DispatchTensor moved = hop_to<Away>(x);
  EXPECT_PANIC(Dispatch::grad_replace(y, grads, moved), "cross-backend",
               cross_backend_message(tracked_debug<Away>(y, "[2]", "F32"),
                                     "Autodiff(" + tracked_debug<Away>(moved, "[2]", "F32") + ")"));
  expect_untouched();

  // Same backend as the leaf: replaces that entry only (any shape and dtype of the backend).
  Dispatch::grad_replace(x, grads, Dispatch::float_from_data(TensorData::from_f64({7, 8, 9}, {3}), plain_device<Home>()));
  expect_gradient_on<Home>(x, grads, TensorData::from_f64({7, 8, 9}, {3}));
  expect_gradient_on<Away>(y, grads, gy);
  Dispatch::grad_replace(y, grads, Dispatch::float_from_data(TensorData::from_f32({-1, -2}, {2}), plain_device<Away>()));
  expect_gradient_on<Away>(y, grads, TensorData::from_f32({-1, -2}, {2}));
  expect_gradient_on<Home>(x, grads, TensorData::from_f64({7, 8, 9}, {3}));
  EXPECT_EQ(grads.size(), 2u);

  // grad_remove takes one leaf's entry out, on its backend, once.
  const std::optional<DispatchTensor> removed = Dispatch::grad_remove(y, grads);
  ASSERT_TRUE(removed.has_value());
  EXPECT_EQ(plain_float_backend(*removed), std::string(Away::name));
  EXPECT_EQ(Dispatch::float_into_data(*removed), TensorData::from_f32({-1, -2}, {2}));
  EXPECT_FALSE(Dispatch::grad(y, grads).has_value());
  EXPECT_FALSE(Dispatch::grad_remove(y, grads).has_value());
  EXPECT_EQ(grads.size(), 1u);
  expect_gradient_on<Home>(x, grads, TensorData::from_f64({7, 8, 9}, {3}));
  // A cross-backend replace into a container where the leaf has no entry installs nothing.
  EXPECT_PANIC(Dispatch::grad_replace(y, grads, x_grad), "cross-backend",
               cross_backend_message(tracked_debug<Away>(y, "[2]", "F32"), float_debug<Home>("[2]", "F32")));
  EXPECT_FALSE(Dispatch::grad(y, grads).has_value());
  EXPECT_EQ(grads.size(), 1u);
}

// ---- one partner per backend (typed tests: a backend without a device skips with its reason) ----

// Home is the typed backend; Away is NdArray, or Flex when Home is NdArray. So NdArray -> Flex ->
// NdArray, Flex -> NdArray -> Flex and Cuda -> NdArray -> Cuda (with a GPU).
template <class Home>
using PartnerOf = std::conditional_t<std::is_same_v<Home, NdArray>, Flex, NdArray>;

template <class B>
class CrossBackendAutodiff : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_IF_UNAVAILABLE(B);
    SKIP_IF_UNAVAILABLE(PartnerOf<B>);
  }
};
TYPED_TEST_SUITE(CrossBackendAutodiff, AllBackendTypes, BackendTestName);

TYPED_TEST(CrossBackendAutodiff, ValueMovesBitForBit) { check_value_moves_bit_for_bit<TypeParam, PartnerOf<TypeParam>>(); }
TYPED_TEST(CrossBackendAutodiff, GradientsLandOnEachLeafsBackend) {
  check_gradients_land_on_each_leafs_backend<TypeParam, PartnerOf<TypeParam>>();
}
TYPED_TEST(CrossBackendAutodiff, GradientMovesBackBitForBit) {
  check_gradient_moves_back_bit_for_bit<TypeParam, PartnerOf<TypeParam>>();
}
TYPED_TEST(CrossBackendAutodiff, LeafReachedDirectlyAndThroughAHopSumsBothPathsOnce) {
  check_both_paths_summed_once<TypeParam, PartnerOf<TypeParam>>();
}
TYPED_TEST(CrossBackendAutodiff, GradApiPerLeafAndCrossBackendReplace) { check_grad_api_per_leaf<TypeParam, PartnerOf<TypeParam>>(); }

TYPED_TEST(CrossBackendAutodiff, ResultKeepsTheReceiversCheckpointing) {
  using Home = TypeParam;
  using Away = PartnerOf<TypeParam>;
  for (auto cp : {std::optional<CheckpointingStrategy>{}, std::optional{CheckpointingStrategy::Disabled},
                  std::optional{CheckpointingStrategy::Balanced}}) {
    SCOPED_TRACE(cp ? (*cp == CheckpointingStrategy::Balanced ? "Balanced" : "Disabled") : "nullopt");
    const std::optional<CheckpointingStrategy> want = cp ? cp : std::optional{CheckpointingStrategy::Disabled};
    DispatchTensor x = leaf_on<Home>(DType::F32, {1, 2}, {2});
    x.checkpointing = cp;
    const DispatchTensor there = hop_to<Away>(x);
    EXPECT_EQ(there.checkpointing, want);
    EXPECT_EQ(hop_to<Home>(there).checkpointing, want);
    // A same-backend move follows the same rule.
    EXPECT_EQ(hop_to<Home>(x).checkpointing, want);
    // And the strategy changes nothing about the gradient.
    const Gradients grads = Dispatch::backward(Dispatch::float_mul_scalar(there, -2));
    expect_gradient_on<Home>(x, grads, TensorData::from_f32({-2, -2}, {2}));
  }
}

// 200 hops alternating Home -> Away -> Home ..., each followed by a negation on the backend it
// reached, then * 2: the value is x * 2 ((-1)^200 = 1), the gradient 2 exactly, on Home.
TYPED_TEST(CrossBackendAutodiff, ChainOfTwoHundredHops) {
  using Home = TypeParam;
  using Away = PartnerOf<TypeParam>;
  const DispatchTensor x = leaf_on<Home>(DType::F64, {0.75, -3, 1e300}, {3});
  DispatchTensor t = x;
  for (int i = 0; i < 200; ++i) {
    t = Dispatch::float_neg(i % 2 == 0 ? hop_to<Away>(t) : hop_to<Home>(t));
    ASSERT_EQ(tracked_backend(t), std::string(i % 2 == 0 ? Away::name : Home::name)) << "after hop " << i;
  }
  const DispatchTensor r = Dispatch::float_mul_scalar(t, 2);
  EXPECT_EQ(Dispatch::float_into_data(r), TensorData::from_f64({1.5, -6, 2e300}, {3}));
  const Gradients grads = Dispatch::backward(r);
  EXPECT_EQ(grads.size(), 1u);
  expect_gradient_on<Home>(x, grads, TensorData::from_f64({2, 2, 2}, {3}));
}

// Leaves on both backends, hops each way, one graph: r = hop_Home(sum(hop_Away(a * b) * c)) +
// sum(hop_Home(c) * a), a and b on Home, c on Away. d/da = b*c + c, d/db = a*c, d/dc = a*b + a.
TYPED_TEST(CrossBackendAutodiff, LeavesOnBothBackendsInOneGraph) {
  using Home = TypeParam;
  using Away = PartnerOf<TypeParam>;
  const DispatchTensor a = leaf_on<Home>(DType::F32, {2, -1}, {2});
  const DispatchTensor b = leaf_on<Home>(DType::F32, {0.5, 4}, {2});
  const DispatchTensor c = leaf_on<Away>(DType::F32, {3, -2}, {2});
  const DispatchTensor on_away = Dispatch::float_sum(Dispatch::float_mul(hop_to<Away>(Dispatch::float_mul(a, b)), c));
  const DispatchTensor on_home = Dispatch::float_sum(Dispatch::float_mul(hop_to<Home>(c), a));
  const DispatchTensor r = Dispatch::float_add(hop_to<Home>(on_away), on_home);
  // sum({2*0.5*3, -1*4*-2}) + sum({3*2, -2*-1}) = 11 + 8
  EXPECT_EQ(Dispatch::float_into_data(r), TensorData::from_f32({19}, {1}));
  const Gradients grads = Dispatch::backward(r);
  EXPECT_EQ(grads.size(), 3u);
  expect_gradient_on<Home>(a, grads, TensorData::from_f32({4.5, -10}, {2}));  // b*c + c = {1.5+3, -8-2}
  expect_gradient_on<Home>(b, grads, TensorData::from_f32({6, 2}, {2}));      // a*c = {6, 2}
  expect_gradient_on<Away>(c, grads, TensorData::from_f32({3, -5}, {2}));     // a*b + a = {1+2, -4-1}
}

TYPED_TEST(CrossBackendAutodiff, SameBackendMoveStillWorks) {
  using Home = TypeParam;
  const DispatchTensor x = leaf_on<Home>(DType::F32, {1, -2}, {2});
  const DispatchTensor moved = hop_to<Home>(x);
  EXPECT_EQ(tracked_backend(moved), std::string(Home::name));
  EXPECT_EQ(Dispatch::float_into_data(moved), TensorData::from_f32({1, -2}, {2}));
  const Gradients grads = Dispatch::backward(Dispatch::float_add(Dispatch::float_mul_scalar(moved, 3), x));
  EXPECT_EQ(grads.size(), 1u);
  expect_gradient_on<Home>(x, grads, TensorData::from_f32({4, 4}, {2}));
  // Plain tensors still move anywhere, untracked.
  const DispatchTensor plain = Dispatch::float_from_data(special_f32(), plain_device<Home>());
  const DispatchTensor plain_away = Dispatch::float_to_device(plain, plain_device<PartnerOf<Home>>());
  EXPECT_EQ(plain_float_backend(plain_away), std::string(PartnerOf<Home>::name));
  EXPECT_FALSE(plain_away.checkpointing.has_value());
  EXPECT_EQ(Dispatch::float_into_data(plain_away), special_f32());
}

// What still panics (docs/PANICS.md): plain -> autodiff device and tracked -> plain device of
// another backend (device-kind-mismatch), Autodiff(Autodiff(..)) targets, and an unreachable device.
TYPED_TEST(CrossBackendAutodiff, MovesThatStillPanic) {
  using Home = TypeParam;
  using Away = PartnerOf<TypeParam>;
  const DispatchTensor x = leaf_on<Home>(DType::F32, {1}, {1});
  const DispatchTensor plain = Dispatch::float_from_data(TensorData::from_f32({1}, {1}), plain_device<Home>());
  const std::string away_device = std::string(Away::name) + "(" + Away::default_device().to_string() + ")";
  EXPECT_PANIC(Dispatch::float_to_device(plain, autodiff_device<Away>()), "device-kind-mismatch",
               "float_to_device needs a device of the tensor's kind, got a plain tensor and device Autodiff(" + away_device + ").");
  EXPECT_PANIC(Dispatch::float_to_device(x, plain_device<Away>()), "device-kind-mismatch",
               "float_to_device needs a device of the tensor's kind, got an autodiff tensor and device " + away_device + ".");
  EXPECT_PANIC(Dispatch::float_to_device(x, DispatchDevice::Autodiff(autodiff_device<Away>())), "autodiff-wraps-autodiff",
               "Autodiff should not wrap an autodiff tensor.");
  // A CPU backend given a CUDA device: the hop's target is unreachable.
  EXPECT_PANIC(Dispatch::float_to_device(x, DispatchDevice::Autodiff(DispatchDevice::of<Away>(Device::cuda(0)))),
               "device-unavailable",
               "Device Cuda(0) of backend " + std::string(Away::name) + " is not available: " + std::string(Away::name) +
                   " runs on the CPU only.");
}

// ---- every ordered pair of available backends (Cuda included where a device exists) ---------------

TEST(CrossBackendAutodiffPairs, EveryOrderedPairOfAvailableBackends) {
  int pairs = 0;
  for_each_backend([&]<class Home>() {
    if (!Home::is_available()) return;
    for_each_backend([&]<class Away>() {
      if (!Away::is_available() || std::is_same_v<Home, Away>) return;
      ++pairs;
      SCOPED_TRACE(std::string(Home::name) + " -> " + std::string(Away::name));
      check_value_moves_bit_for_bit<Home, Away>();
      check_gradients_land_on_each_leafs_backend<Home, Away>();
      check_gradient_moves_back_bit_for_bit<Home, Away>();
      check_both_paths_summed_once<Home, Away>();
      check_grad_api_per_leaf<Home, Away>();
    });
  });
  const std::size_t n = available_backends().size();
  EXPECT_GE(n, 2u);
  EXPECT_EQ(pairs, static_cast<int>(n * (n - 1)));
}

// Without a GPU, a hop to a Cuda autodiff device is device-unavailable, as a plain move is.
TEST(CrossBackendAutodiffPairs, CudaTargetWithoutADevice) {
#if CROSSGRAD_WITH_CUDA
  if (backends::Cuda::is_available()) GTEST_SKIP() << "a CUDA device is present: Cuda pairs run in EveryOrderedPairOfAvailableBackends";
  const DispatchTensor x = leaf_on<NdArray>(DType::F32, {1}, {1});
  const auto caught = panic_of([&] { (void)Dispatch::float_to_device(x, DispatchDevice::Autodiff(DispatchDevice::Cuda(0))); });
  ASSERT_TRUE(caught.has_value());
  EXPECT_EQ(caught->id, "device-unavailable");
  const std::string prefix = "Device Cuda(0) of backend Cuda is not available: ";
  EXPECT_EQ(caught->message.substr(0, prefix.size()), prefix);
  EXPECT_GT(caught->message.size(), prefix.size() + 1);
  EXPECT_EQ(caught->message.back(), '.');
#else
  GTEST_SKIP() << "built without CUDA: no Cuda backend to move to";
#endif
}

}  // namespace
}  // namespace crossgrad
