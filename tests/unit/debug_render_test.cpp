// CONTRACT section 3's grammar, on hand-written expectations.
#include "test_support.hpp"

namespace crossgrad {
namespace {
using namespace testing_support;
using backends::Flex;
using backends::NdArray;

TEST(DebugRender, EveryPrimitiveKind) {
  const auto nd = DispatchDevice::NdArray();
  EXPECT_EQ(debug(Dispatch::float_from_data(TensorData::from_f64({1, 2, 3, 4, 5, 6}, {2, 3}), nd).kind),
            "NdArray(Float(NdArrayTensor { shape: [2, 3], dtype: F64, device: Cpu }))");
  EXPECT_EQ(debug(Dispatch::int_from_data(TensorData::from_i64({1}, {}), nd).kind),
            "NdArray(Int(NdArrayTensor { shape: [], dtype: I64, device: Cpu }))");
  EXPECT_EQ(debug(Dispatch::bool_from_data(TensorData::from_bool({}, {0}), DispatchDevice::Flex()).kind),
            "Flex(Bool(FlexTensor { shape: [0], dtype: Bool, device: Cpu }))");
  EXPECT_EQ(debug(Dispatch::quantize(Dispatch::float_from_data(TensorData::from_f32({1}, {1}), nd)).kind),
            "NdArray(Quantized(NdArrayTensor { shape: [1], dtype: QInt8, device: Cpu }))");
  const auto x = Dispatch::float_from_data(TensorData::from_f32({1, 2, 3, 4, 5, 6}, {2, 3}),
                                           DispatchDevice::Autodiff(DispatchDevice::Flex()));
  const std::string id = std::to_string(node_of<Flex>(x).value);
  EXPECT_EQ(debug(x.kind), "Autodiff(Flex(Autodiff(AutodiffTensor { primitive: FlexTensor { shape: [2, 3], dtype: F32, "
                           "device: Cpu }, node: NodeId(" + id + ") })))");
  EXPECT_EQ(debug(DispatchTensorKind::Autodiff(x.kind)).substr(0, 23), "Autodiff(Autodiff(Flex(");
}

TEST(DebugRender, NeverPrintsValuesSoLengthIgnoresSize) {
  const auto small = Dispatch::float_from_data(TensorData::from_f32({1}, {1}), DispatchDevice::NdArray());
  const auto big = Dispatch::float_from_data(TensorData::from_f32(std::vector<float>(9, 123.5f), {9}), DispatchDevice::NdArray());
  EXPECT_EQ(debug(small.kind).size(), debug(big.kind).size());
  EXPECT_EQ(debug(big.kind).find("123"), std::string::npos);
}

TEST(Registry, ListsBackendsInContractOrder) {
  const auto all = registered_backends();
  ASSERT_GE(all.size(), 2u);
  EXPECT_EQ(all[0].name, "NdArray");
  EXPECT_EQ(all[1].name, "Flex");
  if (all.size() > 2) {
    EXPECT_EQ(all[2].name, "Cuda");
  }
  if (all.size() > 3) {
    EXPECT_EQ(all[3].name, "Remote");
  }
  if (all.size() > 4) {
    EXPECT_EQ(all[4].name, "LibTorch");
  }
  for (const auto& b : all) EXPECT_EQ(b.available, b.unavailable_reason.empty()) << b.name;
}

}  // namespace
}  // namespace crossgrad

namespace crossgrad {
namespace {

TEST(TensorApi, OperatorsRouteThroughDispatch) {
  const auto ad = DispatchDevice::Autodiff(DispatchDevice::NdArray());
  const Tensor x = Tensor::from_data(TensorData::from_f64({1, 2, 3, 4}, {2, 2}), ad);
  const Tensor y = (x * x + 1.0).sum();
  EXPECT_EQ(y.into_data().to_f64(), (std::vector<double>{1 + 4 + 9 + 16 + 4}));
  const Gradients grads = y.backward();
  EXPECT_EQ(x.grad(grads)->into_data().to_f64(), (std::vector<double>{2, 4, 6, 8}));
  EXPECT_EQ(x.transpose().into_data().to_f64(), (std::vector<double>{1, 3, 2, 4}));
  EXPECT_EQ(Dispatch::float_shape(x.dispatch()), (Shape{2, 2}));
  EXPECT_EQ(Dispatch::float_dtype(x.dispatch()), DType::F64);
  EXPECT_EQ(x.device(), ad);
}

}  // namespace
}  // namespace crossgrad
