// Remote in the contract's type model: its debug rendering (CONTRACT section 3's grammar with
// device "Remote(" index ")") and grad_replace across Remote and Flex (section 5): the exact
// cross-backend message, written out by hand, and the Gradients untouched.
#include "remote_test_support.hpp"

namespace crossgrad {
namespace {
using remote_tests::InProcessServer;

InProcessServer& shared_server() {
  static InProcessServer* s = new InProcessServer();
  return *s;
}

class RemoteKinds : public ::testing::Test {
 protected:
  void SetUp() override { shared_server().use(); }
};

template <class B>
std::string node_text(const DispatchTensor& t) {
  const auto& bt = std::get<BackendTensor<B>>(t.kind.autodiff_inner().value);
  return std::to_string(std::get<AutodiffTensor<B>>(bt.value).id().value);
}

DispatchTensor f32(std::vector<float> v, Shape s, const DispatchDevice& d) {
  return Dispatch::float_from_data(TensorData::from_f32(std::move(v), std::move(s)), d);
}

TEST_F(RemoteKinds, DebugRenderingFollowsTheContractGrammar) {
  const DispatchTensor x = f32({1, 2, 3, 4, 5, 6}, {2, 3}, DispatchDevice::Remote(0));
  EXPECT_EQ(debug(x.kind), "Remote(Float(RemoteTensor { shape: [2, 3], dtype: F32, device: Remote(0) }))");
  const DispatchTensor i = Dispatch::int_from_data(TensorData::from_i64({1}, {}), DispatchDevice::Remote(0));
  EXPECT_EQ(debug(i.kind), "Remote(Int(RemoteTensor { shape: [], dtype: I64, device: Remote(0) }))");
  const DispatchTensor b = Dispatch::bool_from_data(TensorData::from_bool({true}, {1}), DispatchDevice::Remote(0));
  EXPECT_EQ(debug(b.kind), "Remote(Bool(RemoteTensor { shape: [1], dtype: Bool, device: Remote(0) }))");
  const DispatchTensor t = f32({1, 2}, {2}, DispatchDevice::Autodiff(DispatchDevice::Remote(0)));
  EXPECT_EQ(debug(t.kind), "Autodiff(Remote(Autodiff(AutodiffTensor { primitive: RemoteTensor { shape: [2], dtype: F32, "
                           "device: Remote(0) }, node: NodeId(" + node_text<backends::Remote>(t) + ") })))");
  EXPECT_EQ(DispatchDevice::Remote(0).to_string(), "Remote(Remote(0))");
  EXPECT_EQ(Device::remote(3).to_string(), "Remote(3)");
}

TEST_F(RemoteKinds, RemoteGradientOnFlexTensorPanicsCrossBackend) {
  const DispatchTensor x = f32({1, 2, 3, 4, 5, 6}, {2, 3}, DispatchDevice::Autodiff(DispatchDevice::Flex()));
  const Gradients before = Dispatch::backward(Dispatch::float_mul(x, x));
  Gradients grads = before;
  const DispatchTensor g = f32({0, 0, 0, 0, 0, 0}, {2, 3}, DispatchDevice::Remote(0));
  const auto caught = remote_tests::panic_of([&] { Dispatch::grad_replace(x, grads, g); });
  ASSERT_TRUE(caught.has_value());
  EXPECT_EQ(caught->id, "cross-backend");
  EXPECT_EQ(caught->message,
            "The provided tensors are not on the same backend. Got backends Flex(Autodiff(AutodiffTensor { primitive: "
            "FlexTensor { shape: [2, 3], dtype: F32, device: Cpu }, node: NodeId(" + node_text<backends::Flex>(x) +
                ") })) and Remote(Float(RemoteTensor { shape: [2, 3], dtype: F32, device: Remote(0) })).");
  ASSERT_EQ(grads.size(), before.size());
  EXPECT_EQ(Dispatch::float_into_data(*Dispatch::grad(x, grads)).to_f32(), (std::vector<float>{2, 4, 6, 8, 10, 12}));
}

TEST_F(RemoteKinds, FlexGradientOnRemoteTensorPanicsCrossBackend) {
  const DispatchTensor x = f32({1, 2, 3, 4, 5, 6}, {2, 3}, DispatchDevice::Autodiff(DispatchDevice::Remote(0)));
  Gradients grads = Dispatch::backward(Dispatch::float_mul(x, x));
  const std::size_t entries = grads.size();
  const DispatchTensor g = f32({0, 0, 0, 0, 0, 0}, {2, 3}, DispatchDevice::Flex());
  const auto caught = remote_tests::panic_of([&] { Dispatch::grad_replace(x, grads, g); });
  ASSERT_TRUE(caught.has_value());
  EXPECT_EQ(caught->id, "cross-backend");
  EXPECT_EQ(caught->message,
            "The provided tensors are not on the same backend. Got backends Remote(Autodiff(AutodiffTensor { primitive: "
            "RemoteTensor { shape: [2, 3], dtype: F32, device: Remote(0) }, node: NodeId(" + node_text<backends::Remote>(x) +
                ") })) and Flex(Float(FlexTensor { shape: [2, 3], dtype: F32, device: Cpu })).");
  ASSERT_EQ(grads.size(), entries);
  EXPECT_EQ(Dispatch::float_into_data(*Dispatch::grad(x, grads)).to_f32(), (std::vector<float>{2, 4, 6, 8, 10, 12}));
  // A Remote gradient of the same backend is accepted and replaces the entry.
  Dispatch::grad_replace(x, grads, f32({1, 1, 1, 1, 1, 1}, {2, 3}, DispatchDevice::Remote(0)));
  EXPECT_EQ(Dispatch::float_into_data(*Dispatch::grad(x, grads)).to_f32(), (std::vector<float>(6, 1.0f)));
}

// Without any configured server Remote is unavailable, with the documented reason.
TEST(RemoteConfig, NoServerConfiguredMakesRemoteUnavailable) {
  remote::configure({});
  EXPECT_FALSE(backends::Remote::is_available());
  EXPECT_EQ(backends::Remote::unavailable_reason(), "no server configured (set CROSSGRAD_REMOTE or CROSSGRAD_REMOTE_FILE)");
  const std::vector<BackendInfo> all = registered_backends();
  EXPECT_FALSE(all.at(3).available);
  EXPECT_EQ(all.at(3).device_count, 0u);
  const auto caught = remote_tests::panic_of([] {
    Dispatch::float_from_data(TensorData::from_f32({1}, {1}), DispatchDevice::Remote(0));
  });
  ASSERT_TRUE(caught.has_value());
  EXPECT_EQ(caught->id, "device-unavailable");
  EXPECT_EQ(caught->message,
            "Device Remote(0) of backend Remote is not available: no server configured (set CROSSGRAD_REMOTE or "
            "CROSSGRAD_REMOTE_FILE).");
  remote::configure({{"127.0.0.1:1", "t"}, {"127.0.0.1:2", "u"}}, std::chrono::milliseconds(1234));
  EXPECT_EQ(remote::endpoints().size(), 2u);
  EXPECT_EQ(remote::deadline(), std::chrono::milliseconds(1234));
  EXPECT_EQ(backends::Remote::device_count(), 2);
}

}  // namespace
}  // namespace crossgrad
