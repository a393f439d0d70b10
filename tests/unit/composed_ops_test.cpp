// Burn's names written as compositions of registry ops (docs/OPS.md "Composed ops"), on every
// backend: powi_scalar's exponent conversion (Rust's `as i64`), powi through int_into_float,
// greater_elem, and the activations' backward entry points, which must give the very bits a
// backward pass through the activation gives.
#include "test_support.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class ComposedOps : public OnEachBackend<B> {};
TYPED_TEST_SUITE(ComposedOps, AllBackendTypes, BackendTestName);

TYPED_TEST(ComposedOps, PowiScalarTakesTheExponentAsRustsAsI64) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    const DispatchTensor x = tensor_on(device, {2, -1, 0.5, 1}, DType::F64, {4});
    EXPECT_EQ(values(Dispatch::float_powi_scalar(x, 2.9)), (std::vector<double>{4, 1, 0.25, 1}));    // toward zero
    EXPECT_EQ(values(Dispatch::float_powi_scalar(x, -1.5)), (std::vector<double>{0.5, -1, 2, 1}));   // -1, not -2
    EXPECT_EQ(values(Dispatch::float_powi_scalar(x, NAN)), (std::vector<double>{1, 1, 1, 1}));      // NaN as 0
    // Saturated at i64's largest, which is 2^63 - 1 as an integer but 2^63 (even) as a double.
    EXPECT_EQ(values(Dispatch::float_powi_scalar(x, 1e300)),
              (std::vector<double>{std::numeric_limits<double>::infinity(), 1, 0, 1}));
    EXPECT_EQ(values(Dispatch::float_powi_scalar(x, -1e300)), (std::vector<double>{0, 1, std::numeric_limits<double>::infinity(), 1}));
    // The same bits as float_powf_scalar with the converted exponent.
    EXPECT_EQ(Dispatch::float_into_data(Dispatch::float_powi_scalar(x, -3.7)),
              Dispatch::float_into_data(Dispatch::float_powf_scalar(x, -3.0)));
  }
  // Its gradient is powf_scalar's: 3 x^2.
  const DispatchTensor x = tensor_on(autodiff_device<TypeParam>(), {2, -1}, DType::F32, {2});
  const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_powi_scalar(x, 3.2)));
  EXPECT_EQ(values(*Dispatch::grad(x, g)), (std::vector<double>{12, 3}));
}

TYPED_TEST(ComposedOps, PowiAndGreaterElem) {
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    const DispatchTensor x = tensor_on(device, {2, 4, -3}, DType::F32, {3});
    const DispatchTensor e = Dispatch::int_from_data(TensorData::from_i64({3, -1, 2}, Shape{3}), device);
    EXPECT_EQ(values(Dispatch::float_powi(x, e)), (std::vector<double>{8, 0.25, 9}));
    EXPECT_EQ(Dispatch::bool_into_data(Dispatch::float_greater_elem(x, 2)),
              Dispatch::bool_into_data(Dispatch::float_greater_scalar(x, 2)));
    const Tensor t(x);
    EXPECT_EQ(values(t.powi_scalar(2).dispatch()), (std::vector<double>{4, 16, 9}));
  }
}

// d/dx sum(act(x) * g) by a backward pass, against the entry point on (act(x) or x, g).
TYPED_TEST(ComposedOps, ActivationBackwardsGiveTheBackwardPassesBits) {
  const std::vector<double> xs{-3, -0.5, -0.0, 0.0, 0.25, 2, 40, -40, INFINITY, -INFINITY, NAN, 1e-30};
  const std::vector<double> gs{1, -2, -1, 3, 0.5, -0.25, 7, 1e30, -1, 2, 1, -4};
  const DispatchDevice plain = plain_device<TypeParam>();
  for (const DType dt : {DType::F32, DType::F64}) {
    const auto pass = [&](auto act) {
      const DispatchTensor x = tensor_on(autodiff_device<TypeParam>(), xs, dt, {xs.size()});
      const DispatchTensor g = tensor_on(autodiff_device<TypeParam>(), gs, dt, {gs.size()});
      const Gradients grads = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(act(x), g)));
      return Dispatch::float_into_data(*Dispatch::grad(x, grads));
    };
    const DispatchTensor x = tensor_on(plain, xs, dt, {xs.size()});
    const DispatchTensor g = tensor_on(plain, gs, dt, {gs.size()});
    EXPECT_EQ(Dispatch::float_into_data(Dispatch::relu_backward(Dispatch::relu(x), g)),
              pass([](const DispatchTensor& t) { return Dispatch::relu(t); }));
    EXPECT_EQ(Dispatch::float_into_data(Dispatch::sigmoid_backward(Dispatch::sigmoid(x), g)),
              pass([](const DispatchTensor& t) { return Dispatch::sigmoid(t); }));
    EXPECT_EQ(Dispatch::float_into_data(Dispatch::gelu_backward(x, g)), pass([](const DispatchTensor& t) { return Dispatch::gelu(t); }));
    EXPECT_EQ(Dispatch::float_into_data(Dispatch::log_sigmoid_backward(x, g)),
              pass([](const DispatchTensor& t) { return Dispatch::log_sigmoid(t); }));
    // Hand values: relu's masked-out zero is +0 even for a negative g; sigmoid at y = 0.5 is g / 4.
    const std::vector<double> r = values(Dispatch::relu_backward(Dispatch::relu(x), g));
    EXPECT_EQ(r[1], 0.0);
    EXPECT_FALSE(std::signbit(r[1]));
    EXPECT_EQ(r[5], -0.25);
    const DispatchTensor half = tensor_on(plain, {0.5}, dt, {1});
    EXPECT_EQ(values(Dispatch::sigmoid_backward(half, tensor_on(plain, {8}, dt, {1}))), (std::vector<double>{2}));
  }
}

}  // namespace
}  // namespace crossgrad
