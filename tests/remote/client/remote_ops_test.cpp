// Remote(Flex) against local Flex, bit for bit (issue 15, item 3): every registry op (kOps) through
// Dispatch with a plain and a tracked receiver of both float dtypes (int and bool receivers for the
// conversions), the gradients of every Backward op, quantize / dequantize, moves between Remote
// and Flex, and from_data / into_data of the extreme values of every dtype. The server is
// crossgrad::server::Server in this process, serving Flex.
#include "../../unit/extreme_data.hpp"
#include "../../unit/registry_op_calls.hpp"
#include "remote_test_support.hpp"

#include <cmath>
#include <limits>
#include <set>

namespace crossgrad {
namespace {
using remote_tests::InProcessServer;
using testing_support::data_dtypes;
using testing_support::extreme_data;
using testing_support::first_difference;

InProcessServer& shared_server() {
  static InProcessServer* s = new InProcessServer();  // lives until the process ends
  return *s;
}

class RemoteOps : public ::testing::Test {
 protected:
  void SetUp() override { shared_server().use(); }
};

const Shape kShape{2, 3};
const std::vector<double> kValues{0.5, 1.25, 2.0, 0.75, 1.5, 3.0};
const std::vector<double> kOther{1.0, 0.25, 2.5, 0.75, 2.0, 0.5};

DType other_float(DType d) { return d == DType::F32 ? DType::F64 : DType::F32; }

TensorData floats(DType dtype, const std::vector<double>& values, const Shape& shape) {
  if (dtype == DType::F32) return TensorData::from_f32(std::vector<float>(values.begin(), values.end()), shape);
  return TensorData::from_f64(values, shape);
}

// One side of the comparison: the same inputs on one device.
struct Side {
  DispatchDevice device;
  DType dtype;
  DispatchTensor receiver(OpKind kind) const {
    switch (kind) {
      case OpKind::Float:
        return Dispatch::float_from_data(floats(dtype, kValues, kShape), device);
      case OpKind::Int:
        return Dispatch::int_from_data(TensorData::from_i64({3, -1, 0, 7, 2, -5}, kShape), device);
      case OpKind::Bool:
        return Dispatch::bool_from_data(TensorData::from_bool({true, false, false, true, true, false}, kShape), device);
    }
    return Dispatch::float_from_data(floats(dtype, kValues, kShape), device);
  }
  DispatchTensor other() const { return Dispatch::float_from_data(floats(dtype, kOther, kShape), device); }
  DispatchTensor indices() const { return Dispatch::int_from_data(TensorData::from_i64({2, 0, 2}, {3}), device); }
};

// `op` through Dispatch with valid arguments built from its signature (registry_op_calls.hpp).
DispatchTensor call(OpId op, const DispatchTensor& x, const Side& s) {
  return testing_support::call_registry_op(op, x, s.other(), s.indices(), other_float(s.dtype));
}

TensorData data_of(OpKind kind, const DispatchTensor& t) {
  switch (kind) {
    case OpKind::Float: return Dispatch::float_into_data(t);
    case OpKind::Int: return Dispatch::int_into_data(t);
    case OpKind::Bool: return Dispatch::bool_into_data(t);
  }
  return Dispatch::float_into_data(t);
}

// The backend name inside a rendering, so the two sides' renderings compare: "Remote(...Remote(0)"
// and "Flex(...Cpu" both become "B(...D".
std::string neutral(std::string s, const std::string& name, const std::string& device) {
  for (std::size_t at; (at = s.find(name)) != std::string::npos;) s.replace(at, name.size(), "B");
  for (std::size_t at; (at = s.find(device)) != std::string::npos;) s.replace(at, device.size(), "D");
  return s;
}

TEST_F(RemoteOps, EveryRegistryOpIsBitIdenticalToFlex) {
  std::size_t compared = 0;
  for (const OpInfo& op : kOps) {
    for (bool tracked : {false, true}) {
      for (DType dtype : {DType::F32, DType::F64}) {
        SCOPED_TRACE(std::string(op.name) + (tracked ? " tracked " : " plain ") + std::string(dtype_name(dtype)));
        const auto wrap = [&](DispatchDevice d) { return tracked ? DispatchDevice::Autodiff(std::move(d)) : d; };
        const Side flex{wrap(DispatchDevice::Flex()), dtype};
        const Side remote{wrap(DispatchDevice::Remote(0)), dtype};
        const DispatchTensor fx = flex.receiver(op.operand);
        const DispatchTensor rx = remote.receiver(op.operand);
        if (tracked && op.rule == OpRule::NotDifferentiable) {  // refused on both, before any remote call
          for (const auto& [x, side] : {std::pair{fx, flex}, std::pair{rx, remote}}) {
            try {
              call(op.id, x, side);
              ADD_FAILURE() << "no panic on an autodiff device";
            } catch (const Panic& p) {
              EXPECT_EQ(p.id(), PanicId::NotDifferentiable) << p.message();
            }
          }
          ++compared;
          continue;
        }
        const DispatchTensor fr = call(op.id, fx, flex);
        const DispatchTensor rr = call(op.id, rx, remote);
        EXPECT_EQ(rr.kind.is_autodiff(), fr.kind.is_autodiff());
        EXPECT_EQ(neutral(debug(rr.kind), "Remote", "Remote(0)").substr(0, 40),
                  neutral(debug(fr.kind), "Flex", "Cpu").substr(0, 40));
        const TensorData want = data_of(op.result, fr);
        const TensorData got = data_of(op.result, rr);
        ASSERT_EQ(got.shape(), want.shape());
        ASSERT_EQ(got.dtype(), want.dtype());
        EXPECT_TRUE(got == want) << first_difference(want, got);
        ++compared;
        if (!tracked || op.rule != OpRule::Backward) continue;
        // Autodiff<Remote>: the graph is here, every backward op a remote call; the receiver leaf's
        // gradient equals Autodiff<Flex>'s bit for bit.
        const std::optional<DispatchTensor> fg = Dispatch::grad(fx, Dispatch::backward(fr));
        const std::optional<DispatchTensor> rg = Dispatch::grad(rx, Dispatch::backward(rr));
        ASSERT_TRUE(fg.has_value());
        ASSERT_TRUE(rg.has_value());
        EXPECT_EQ(debug(rg->kind).rfind("Remote(Float(RemoteTensor { shape: ", 0), 0u) << debug(rg->kind);
        const TensorData fgd = Dispatch::float_into_data(*fg);
        const TensorData rgd = Dispatch::float_into_data(*rg);
        EXPECT_TRUE(rgd == fgd) << "gradient: " << first_difference(fgd, rgd);
      }
    }
  }
  EXPECT_EQ(compared, kOpCount * 4);
}

// A small MLP's whole backward (matmul, add, relu, log_softmax, mean) on Autodiff<Remote> and
// Autodiff<Flex>: every leaf's gradient, bit for bit.
TEST_F(RemoteOps, AutodiffBackwardOfAnMlpEqualsFlex) {
  const auto run = [](const DispatchDevice& plain) {
    const DispatchDevice ad = DispatchDevice::Autodiff(plain);
    const auto make = [&](std::size_t n, double scale, Shape shape) {
      std::vector<float> v(n);
      for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i + 1)) * scale);
      return Dispatch::float_from_data(TensorData::from_f32(std::move(v), std::move(shape)), ad);
    };
    DispatchTensor x = make(12, 1.0, {4, 3});
    DispatchTensor w1 = make(15, 0.5, {3, 5});
    DispatchTensor b1 = make(5, 0.1, {5});
    DispatchTensor w2 = make(10, 0.5, {5, 2});
    DispatchTensor h = Dispatch::relu(Dispatch::float_add(Dispatch::float_matmul(x, w1), b1));
    DispatchTensor loss = Dispatch::float_mean(Dispatch::log_softmax(Dispatch::float_matmul(h, w2), 1));
    Gradients grads = Dispatch::backward(loss);
    std::vector<TensorData> out{Dispatch::float_into_data(loss)};
    for (const DispatchTensor* leaf : {&x, &w1, &b1, &w2}) out.push_back(Dispatch::float_into_data(*Dispatch::grad(*leaf, grads)));
    return out;
  };
  const std::vector<TensorData> flex = run(DispatchDevice::Flex());
  const std::vector<TensorData> remote = run(DispatchDevice::Remote(0));
  ASSERT_EQ(flex.size(), remote.size());
  for (std::size_t i = 0; i < flex.size(); ++i) EXPECT_TRUE(remote[i] == flex[i]) << i << ": " << first_difference(flex[i], remote[i]);
}

// Every dtype a backend stores, its extreme values (NaN payloads, -0, subnormals, int limits),
// through from_data and into_data on Remote(0): the same bytes back.
TEST_F(RemoteOps, FromDataIntoDataRoundTripsEveryDtype) {
  std::set<DType> seen;
  for (DType dtype : data_dtypes()) {
    if (dtype_category(dtype) == DTypeCategory::Quantized) continue;  // quantize's own test below
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const TensorData d = extreme_data(dtype);
    const DispatchDevice remote = DispatchDevice::Remote(0);
    TensorData back = d;
    switch (dtype_category(dtype)) {
      case DTypeCategory::Float: back = Dispatch::float_into_data(Dispatch::float_from_data(d, remote)); break;
      case DTypeCategory::Int: back = Dispatch::int_into_data(Dispatch::int_from_data(d, remote)); break;
      case DTypeCategory::Bool: back = Dispatch::bool_into_data(Dispatch::bool_from_data(d, remote)); break;
      case DTypeCategory::Quantized: break;
    }
    EXPECT_EQ(back.dtype(), dtype);
    EXPECT_EQ(back.shape(), d.shape());
    EXPECT_TRUE(back == d) << first_difference(d, back);
    // A scalar and a zero-size tensor too.
    const TensorData empty = TensorData::from_bytes({}, {2, 0}, dtype);
    if (dtype_category(dtype) == DTypeCategory::Float) {
      EXPECT_TRUE(Dispatch::float_into_data(Dispatch::float_from_data(empty, remote)) == empty);
    }
    seen.insert(dtype);
  }
  EXPECT_EQ(seen, (std::set<DType>{DType::F64, DType::F32, DType::I64, DType::I32, DType::I8, DType::U8, DType::Bool}));
}

TEST_F(RemoteOps, QuantizeDequantizeEqualsFlex) {
  for (DType dtype : {DType::F32, DType::F64}) {
    const TensorData d = floats(dtype, {0.5, -1.25, 2.0, 0.0, -3.0, 3.0}, kShape);
    const DispatchTensor fq = Dispatch::quantize(Dispatch::float_from_data(d, DispatchDevice::Flex()));
    const DispatchTensor rq = Dispatch::quantize(Dispatch::float_from_data(d, DispatchDevice::Remote(0)));
    EXPECT_EQ(debug(rq.kind), "Remote(Quantized(RemoteTensor { shape: [2, 3], dtype: QInt8, device: Remote(0) }))");
    const TensorData fd = Dispatch::float_into_data(Dispatch::dequantize(fq));
    const TensorData rd = Dispatch::float_into_data(Dispatch::dequantize(rq));
    EXPECT_TRUE(rd == fd) << first_difference(fd, rd);
  }
}

// Plain and tracked moves Remote <-> Flex keep the data bit for bit, and a graph spanning both
// backends gives each leaf its gradient on its own backend (CONTRACT section 7).
TEST_F(RemoteOps, MovesBetweenRemoteAndFlexKeepDataAndGraph) {
  const TensorData d = extreme_data(DType::F32);
  const DispatchTensor on_flex = Dispatch::float_from_data(d, DispatchDevice::Flex());
  const DispatchTensor on_remote = Dispatch::float_to_device(on_flex, DispatchDevice::Remote(0));
  EXPECT_EQ(debug(on_remote.kind).rfind("Remote(Float(RemoteTensor { shape: [", 0), 0u);
  EXPECT_TRUE(Dispatch::float_into_data(on_remote) == d);
  EXPECT_TRUE(Dispatch::float_into_data(Dispatch::float_to_device(on_remote, DispatchDevice::Flex())) == d);

  const DispatchDevice ad_flex = DispatchDevice::Autodiff(DispatchDevice::Flex());
  const DispatchDevice ad_remote = DispatchDevice::Autodiff(DispatchDevice::Remote(0));
  const DispatchTensor a = Dispatch::float_from_data(TensorData::from_f32({1, 2, 3, 4}, {2, 2}), ad_flex);
  const DispatchTensor b = Dispatch::float_from_data(TensorData::from_f32({0.5, -1, 2, 0.25}, {2, 2}), ad_remote);
  const DispatchTensor y = Dispatch::float_sum(Dispatch::float_mul(Dispatch::float_to_device(a, ad_remote), b));
  const Gradients grads = Dispatch::backward(y);
  const DispatchTensor ga = *Dispatch::grad(a, grads);
  const DispatchTensor gb = *Dispatch::grad(b, grads);
  EXPECT_EQ(debug(ga.kind), "Flex(Float(FlexTensor { shape: [2, 2], dtype: F32, device: Cpu }))");
  EXPECT_EQ(debug(gb.kind), "Remote(Float(RemoteTensor { shape: [2, 2], dtype: F32, device: Remote(0) }))");
  EXPECT_EQ(Dispatch::float_into_data(ga).to_f32(), (std::vector<float>{0.5, -1, 2, 0.25}));
  EXPECT_EQ(Dispatch::float_into_data(gb).to_f32(), (std::vector<float>{1, 2, 3, 4}));
}

// The served backend's panics come back as the same catalog panic with the same message.
TEST_F(RemoteOps, ServerPanicsAreReRaisedExactly) {
  const auto remote = [](std::vector<float> v, Shape s) {
    return Dispatch::float_from_data(TensorData::from_f32(std::move(v), std::move(s)), DispatchDevice::Remote(0));
  };
  auto caught = remote_tests::panic_of([&] { Dispatch::float_mul(remote(std::vector<float>(6), {2, 3}), remote(std::vector<float>(12), {4, 3})); });
  ASSERT_TRUE(caught.has_value());
  EXPECT_EQ(caught->id, "broadcast-mismatch");
  EXPECT_EQ(caught->message, "float_mul cannot broadcast shapes [2, 3] and [4, 3].");
  caught = remote_tests::panic_of([&] { Dispatch::float_cat({}, 0); });
  ASSERT_TRUE(caught.has_value());
  EXPECT_EQ(caught->id, "cat-empty");
  caught = remote_tests::panic_of([&] { Dispatch::quantize(remote({1, std::numeric_limits<float>::infinity()}, {2})); });
  ASSERT_TRUE(caught.has_value());
  EXPECT_EQ(caught->id, "quantize-non-finite");
  EXPECT_EQ(caught->message, "quantize needs finite values, got inf.");
}

// Remote(i) past the configured servers, or a host device given to Remote: device-unavailable.
TEST_F(RemoteOps, DevicesPastTheConfiguredServersAreUnavailable) {
  auto caught = remote_tests::panic_of([] {
    Dispatch::float_from_data(TensorData::from_f32({1}, {1}), DispatchDevice::Remote(1));
  });
  ASSERT_TRUE(caught.has_value());
  EXPECT_EQ(caught->id, "device-unavailable");
  EXPECT_EQ(caught->message, "Device Remote(1) of backend Remote is not available: 1 server is configured.");
  caught = remote_tests::panic_of([] {
    Dispatch::float_from_data(TensorData::from_f32({1}, {1}), DispatchDevice::of<backends::Remote>(Device::cpu()));
  });
  ASSERT_TRUE(caught.has_value());
  EXPECT_EQ(caught->message, "Device Cpu of backend Remote is not available: Remote runs on configured servers only.");
  caught = remote_tests::panic_of([] {
    Dispatch::float_from_data(TensorData::from_f32({1}, {1}), DispatchDevice::of<backends::Flex>(Device::remote(0)));
  });
  ASSERT_TRUE(caught.has_value());
  EXPECT_EQ(caught->message, "Device Remote(0) of backend Flex is not available: Flex runs on the CPU only.");
  const std::vector<BackendInfo> all = registered_backends();
  ASSERT_EQ(all.size(), 5u);  // NdArray, Flex, Cuda, Remote, LibTorch
  EXPECT_EQ(all[3].name, "Remote");
  EXPECT_TRUE(all[3].available);
  EXPECT_EQ(all[3].device_count, 1u);
  EXPECT_EQ(all[3].device_kind, Device::Kind::Remote);
}

}  // namespace
}  // namespace crossgrad
