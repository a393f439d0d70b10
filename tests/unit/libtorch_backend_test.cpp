// The LibTorch backend (backends/libtorch.hpp): its registry entry and rendering, the plugin's
// loading, and the places where it adapts ATen to crossgrad's semantics (docs/OPS.md, "LibTorch"),
// each against NdArray's bits. The typed tests, properties and corpora cover it like every other
// backend; these few tests load the plugin once each (Note [The LibTorch plugin's ABI]).
#include "test_support.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>

namespace crossgrad {
namespace {
using namespace testing_support;

TEST(LibTorchRegistry, IsIndexFourBuiltOrNot) {
  const auto all = registered_backends();
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[4].name, "LibTorch");
  EXPECT_EQ(all[4].device_kind, Device::Kind::Cpu);
#if CROSSGRAD_WITH_LIBTORCH
  EXPECT_TRUE(all[4].built);
  EXPECT_TRUE(all[4].available) << all[4].unavailable_reason;
  EXPECT_EQ(all[4].device_count, 1u);
#else
  EXPECT_FALSE(all[4].built);
  EXPECT_FALSE(all[4].available);
  EXPECT_EQ(all[4].unavailable_reason, "not built with LibTorch");
#endif
}

#if CROSSGRAD_WITH_LIBTORCH
using backends::LibTorch;

DispatchTensor on_libtorch(const TensorData& data) { return Dispatch::float_from_data(data, DispatchDevice::LibTorch()); }
DispatchTensor on_ndarray(const TensorData& data) { return Dispatch::float_from_data(data, DispatchDevice::NdArray()); }

// f applied on both backends; the LibTorch result must have NdArray's bits.
template <class F>
void expect_same_bits(const TensorData& input, F f) {
  const TensorData want = Dispatch::float_into_data(f(on_ndarray(input)));
  const TensorData got = Dispatch::float_into_data(f(on_libtorch(input)));
  EXPECT_EQ(got.shape(), want.shape());
  EXPECT_EQ(got.dtype(), want.dtype());
  EXPECT_TRUE(got == want) << "LibTorch's bits differ from NdArray's";
}

TEST(LibTorchBackend, RendersAsItsOwnBackend) {
  const auto x = on_libtorch(TensorData::from_f32({1, 2, 3, 4}, {2, 2}));
  EXPECT_EQ(debug(x.kind), "LibTorch(Float(LibTorchTensor { shape: [2, 2], dtype: F32, device: Cpu }))");
  EXPECT_EQ(DispatchDevice::LibTorch().to_string(), "LibTorch(Cpu)");
}

TEST(LibTorchBackend, DataRoundTripsBitForBitForEveryStorableDtype) {
  const float nan_payload = std::bit_cast<float>(0x7fc12345u);
  const auto f32 = TensorData::from_f32({-0.0f, nan_payload, std::numeric_limits<float>::denorm_min(), 1e38f}, {2, 2});
  EXPECT_TRUE(Dispatch::float_into_data(on_libtorch(f32)) == f32);
  const auto f64 = TensorData::from_f64({-0.0, std::numeric_limits<double>::infinity()}, {2});
  EXPECT_TRUE(Dispatch::float_into_data(on_libtorch(f64)) == f64);
  const auto i64 = TensorData::from_i64({std::numeric_limits<std::int64_t>::min(), 7}, {2, 1});
  EXPECT_TRUE(Dispatch::int_into_data(Dispatch::int_from_data(i64, DispatchDevice::LibTorch())) == i64);
  const auto b = TensorData::from_bool({true, false, true}, {3});
  EXPECT_TRUE(Dispatch::bool_into_data(Dispatch::bool_from_data(b, DispatchDevice::LibTorch())) == b);
  const auto empty = TensorData::from_f32({}, {0, 3});
  EXPECT_TRUE(Dispatch::float_into_data(on_libtorch(empty)) == empty);
}

// Each case below is one place where ATen's own op would give other bits.
TEST(LibTorchBackend, AdaptsATenToCrossgradSemantics) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto specials = TensorData::from_f32({-0.0f, 0.0f, nan, -inf, inf, -2.5f, 3.0f, -1e-3f}, {2, 4});
  // relu(-0) = +0 (at::relu keeps -0), NaN propagates.
  expect_same_bits(specials, [](const DispatchTensor& x) { return Dispatch::relu(x); });
  // clamp: NaN passes, a zero keeps its sign at a zero bound.
  expect_same_bits(specials, [](const DispatchTensor& x) { return Dispatch::float_clamp(x, 0.0, 2.0); });
  expect_same_bits(specials, [](const DispatchTensor& x) { return Dispatch::float_clamp(x, -1.0, 0.0); });
  // pow(-0, 0.5) = +0 and pow(-inf, 0.5) = +inf (ATen's scalar path takes sqrt: -0 and NaN).
  expect_same_bits(specials, [](const DispatchTensor& x) { return Dispatch::float_powf_scalar(x, 0.5); });
  expect_same_bits(specials, [](const DispatchTensor& x) { return Dispatch::float_powf_scalar(x, 2.0); });
  // The max scan: the first NaN of a lane, else the first of equal maxima (-0 before +0).
  const auto lanes = TensorData::from_f32({-0.0f, 0.0f, 1.0f, nan, 2.0f, -nan, 5.0f, 5.0f, 0.0f, -0.0f, -inf, -inf},
                                          {4, 3});
  expect_same_bits(lanes, [](const DispatchTensor& x) { return Dispatch::float_max_dim(x, 1); });
  EXPECT_TRUE(Dispatch::int_into_data(Dispatch::float_argmax(on_libtorch(lanes), 1)) ==
              Dispatch::int_into_data(Dispatch::float_argmax(on_ndarray(lanes), 1)));
  // sigmoid far below 0 is a subnormal, not +0.
  const auto low = TensorData::from_f32({-100.0f, -90.0f, -88.0f, 0.0f, 30.0f}, {5});
  const std::vector<float> s = Dispatch::float_into_data(Dispatch::sigmoid(on_libtorch(low))).to_f32();
  EXPECT_GT(s[0], 0.0f);
  EXPECT_GT(s[1], 0.0f);
  EXPECT_EQ(s[3], 0.5f);
  // F32 sums accumulate in double: 2^24 + 1 + 1 - 2^24 is 2 (a float accumulator gives 0).
  const auto sums = TensorData::from_f32({16777216.0f, 1.0f, 1.0f, -16777216.0f}, {1, 4});
  expect_same_bits(sums, [](const DispatchTensor& x) { return Dispatch::float_sum(x); });
  expect_same_bits(sums, [](const DispatchTensor& x) { return Dispatch::float_sum_dim(x, 1); });
  expect_same_bits(sums, [](const DispatchTensor& x) { return Dispatch::float_mean_dim(x, 1); });
  // Means of nothing are 0/0 = NaN; softmax over an empty dim is empty, without a panic.
  const auto none = TensorData::from_f32({}, {2, 0});
  expect_same_bits(none, [](const DispatchTensor& x) { return Dispatch::float_mean(x); });
  expect_same_bits(none, [](const DispatchTensor& x) { return Dispatch::float_mean_dim(x, 1); });
  expect_same_bits(none, [](const DispatchTensor& x) { return Dispatch::softmax(x, 1); });
  // A scalar rounds to the tensor's dtype first (F32: 0.1f), as NdArray's static_cast.
  expect_same_bits(specials, [](const DispatchTensor& x) { return Dispatch::float_add_scalar(x, 0.1); });
  expect_same_bits(specials, [](const DispatchTensor& x) { return Dispatch::float_mul_scalar(x, 0.1); });
  EXPECT_TRUE(Dispatch::bool_into_data(Dispatch::float_greater_scalar(on_libtorch(specials), 0.1)) ==
              Dispatch::bool_into_data(Dispatch::float_greater_scalar(on_ndarray(specials), 0.1)));
}

// Duplicate indices add in index order; negative indices are errors (ATen would wrap them).
TEST(LibTorchBackend, IndexRulesAreCrossgrads) {
  const auto x = TensorData::from_f64({1, 2, 3, 4, 5, 6}, {2, 3});
  const auto idx = TensorData::from_i64({2, 0, 2}, {3});
  const auto values = TensorData::from_f64({0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, {2, 3});
  const auto run = [&](DispatchDevice dev) {
    const auto t = Dispatch::float_from_data(x, dev);
    const auto i = Dispatch::int_from_data(idx, dev);
    const auto v = Dispatch::float_from_data(values, dev);
    return std::pair{Dispatch::float_into_data(Dispatch::float_select_assign(t, 1, i, v)),
                     Dispatch::float_into_data(Dispatch::float_select(t, 1, i))};
  };
  EXPECT_TRUE(run(DispatchDevice::LibTorch()) == run(DispatchDevice::NdArray()));
  const auto t = on_libtorch(x);
  const auto negative = Dispatch::int_from_data(TensorData::from_i64({0, -1}, {2}), DispatchDevice::LibTorch());
  const auto nd_negative = Dispatch::int_from_data(TensorData::from_i64({0, -1}, {2}), DispatchDevice::NdArray());
  const auto want = panic_of([&] { (void)Dispatch::float_select(on_ndarray(x), 1, nd_negative); });
  ASSERT_TRUE(want.has_value());
  EXPECT_PANIC(Dispatch::float_select(t, 1, negative), want->id, want->message);
  // Slices follow crossgrad's bound rules, not ATen's clamping.
  const auto nd_slice = panic_of([&] { (void)Dispatch::float_slice(on_ndarray(x), {{0, 2}, {1, 9}}); });
  ASSERT_TRUE(nd_slice.has_value());
  EXPECT_PANIC(Dispatch::float_slice(t, {{0, 2}, {1, 9}}), nd_slice->id, nd_slice->message);
}

// Autodiff<LibTorch> is the generic decorator: crossgrad's rules, gradients on LibTorch.
TEST(LibTorchBackend, BackwardAndGradReplace) {
  const auto ad = DispatchDevice::Autodiff(DispatchDevice::LibTorch());
  const auto x = Dispatch::float_from_data(TensorData::from_f32({1, 2, 3, 4}, {2, 2}), ad);
  Gradients grads = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(x, x)));
  const auto g = *Dispatch::grad(x, grads);
  EXPECT_EQ(debug(g.kind), "LibTorch(Float(LibTorchTensor { shape: [2, 2], dtype: F32, device: Cpu }))");
  EXPECT_EQ(Dispatch::float_into_data(g).to_f32(), (std::vector<float>{2, 4, 6, 8}));
  const auto other = Dispatch::float_from_data(TensorData::from_f32({0, 0, 0, 0}, {2, 2}), DispatchDevice::Flex());
  const std::string id = std::to_string(node_of<LibTorch>(x).value);
  EXPECT_PANIC(Dispatch::grad_replace(x, grads, other), "cross-backend",
               "The provided tensors are not on the same backend. Got backends LibTorch(Autodiff(AutodiffTensor { "
               "primitive: LibTorchTensor { shape: [2, 2], dtype: F32, device: Cpu }, node: NodeId(" + id +
               ") })) and Flex(Float(FlexTensor { shape: [2, 2], dtype: F32, device: Cpu })).");
  EXPECT_EQ(Dispatch::float_into_data(*Dispatch::grad(x, grads)).to_f32(), (std::vector<float>{2, 4, 6, 8}));
  const auto mine = Dispatch::float_from_data(TensorData::from_f32({9, 9, 9, 9}, {2, 2}), DispatchDevice::LibTorch());
  Dispatch::grad_replace(x, grads, mine);
  EXPECT_EQ(Dispatch::float_into_data(*Dispatch::grad(x, grads)).to_f32(), (std::vector<float>{9, 9, 9, 9}));
}

// CONTRACT section 7: a graph through LibTorch and Flex gives each leaf its gradient on its own backend.
TEST(LibTorchBackend, GraphSpansLibTorchAndFlex) {
  const auto x = Dispatch::float_from_data(TensorData::from_f64({1, 2, 3}, {3}),
                                           DispatchDevice::Autodiff(DispatchDevice::LibTorch()));
  const auto moved = Dispatch::float_to_device(x, DispatchDevice::Autodiff(DispatchDevice::Flex()));
  const auto back = Dispatch::float_to_device(Dispatch::float_mul(moved, moved),
                                              DispatchDevice::Autodiff(DispatchDevice::LibTorch()));
  Gradients grads = Dispatch::backward(Dispatch::float_sum(back));
  const auto g = *Dispatch::grad(x, grads);
  EXPECT_EQ(debug(g.kind).substr(0, 15), "LibTorch(Float(");
  EXPECT_EQ(Dispatch::float_into_data(g).to_f64(), (std::vector<double>{2, 4, 6}));
}

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

// A plugin that is not there: listed unavailable with the path, and the first op panics
// device-unavailable. The plugin is loaded once per process, so the op part needs a process that
// has not loaded it yet, as ctest gives every test.
TEST(LibTorchPlugin, MissingPluginIsUnavailableWithItsPath) {
  const ScopedEnv env("CROSSGRAD_LIBTORCH_PLUGIN", "/nonexistent/libcrossgrad_aten.so");
  EXPECT_FALSE(LibTorch::is_available());
  EXPECT_EQ(LibTorch::unavailable_reason(), "the LibTorch plugin /nonexistent/libcrossgrad_aten.so does not exist");
  const auto caught = panic_of([] { (void)on_libtorch(TensorData::from_f32({1}, {1})); });
  if (!caught) GTEST_SKIP() << "the plugin was loaded earlier in this process (run this test alone, as ctest does)";
  EXPECT_EQ(caught->id, "device-unavailable");
  EXPECT_EQ(caught->message,
            "Device Cpu of backend LibTorch is not available: the LibTorch plugin "
            "/nonexistent/libcrossgrad_aten.so does not exist.");
}

#else
TEST(LibTorchBackend, SkippedWithoutLibTorch) { GTEST_SKIP() << "not built with LibTorch"; }
#endif

}  // namespace
}  // namespace crossgrad
