#pragma once
// Helpers shared by the unit tests. Expected values in tests are written by hand from the
// contract; these helpers only build inputs and catch panics.
#include <crossgrad/crossgrad.hpp>
#if CROSSGRAD_WITH_CUDA
#include <crossgrad/backends/cuda_testing.hpp>
#endif
#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <type_traits>

namespace crossgrad::testing_support {

struct Caught {
  std::string id;
  std::string message;
};

// Runs f; returns the panic it raised (id name and message), or nullopt.
inline std::optional<Caught> panic_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Panic& p) {
    return Caught{std::string(panic_id_name(p.id())), p.message()};
  }
  return std::nullopt;
}

#define EXPECT_PANIC(expr, expected_id, expected_message)                         \
  do {                                                                            \
    auto caught_ = ::crossgrad::testing_support::panic_of([&] { (void)(expr); }); \
    ASSERT_TRUE(caught_.has_value()) << "no panic from " #expr;                   \
    EXPECT_EQ(caught_->id, expected_id);                                          \
    EXPECT_EQ(caught_->message, expected_message);                                \
  } while (0)

// The registered backends as a gtest type list: typed tests cover every backend, and skip the
// ones without a device here.
template <class... Bs>
using GTestTypesOf = ::testing::Types<Bs...>;
using AllBackendTypes = AllBackends::apply<GTestTypesOf>;

// Typed tests are named after their backend (GradReplace/LibTorch.Same...), not its position in the
// list: ctest runs the LibTorch instances as one process (tests/CMakeLists.txt, Note [One process
// for the LibTorch unit tests]), which selects them by that name.
struct BackendTestName {
  template <class B>
  static std::string GetName(int) {
    return std::string(B::name);
  }
};

// Where the device should be usable but is not, a failure with the reason instead (for Cuda:
// Note [Cuda test gate] in crossgrad/backends/cuda_testing.hpp).
template <class B>
std::optional<std::string> broken_device_reason() {
#if CROSSGRAD_WITH_CUDA
  if constexpr (std::is_same_v<B, backends::Cuda>) {
    const backends::cuda_testing::Gate& gate = backends::cuda_testing::gate();
    if (gate.verdict == backends::cuda_testing::GateVerdict::Fail) return gate.reason;
  }
#endif
  return std::nullopt;
}

#define SKIP_IF_UNAVAILABLE(B)                                                                    \
  do {                                                                                            \
    if (B::is_available()) break;                                                                 \
    if (const auto broken_ = ::crossgrad::testing_support::broken_device_reason<B>())             \
      FAIL() << B::name << " backend unusable on a machine with its hardware: " << *broken_;      \
    GTEST_SKIP() << B::name << " backend unavailable: " << B::unavailable_reason();               \
  } while (0)

template <class B>
DispatchDevice plain_device() {
  return DispatchDevice::of<B>(B::default_device());
}
template <class B>
DispatchDevice autodiff_device() {
  return DispatchDevice::Autodiff(plain_device<B>());
}

// The fixture of a typed test over every backend (TYPED_TEST_SUITE(Suite, AllBackendTypes,
// BackendTestName)): skips a backend without a device here, fails one whose hardware is present
// but unusable. Suites with helpers of their own derive from it.
template <class B>
class OnEachBackend : public ::testing::Test {
 protected:
  void SetUp() override { SKIP_IF_UNAVAILABLE(B); }
};

// `values` as a 1-D F32 (each rounded to float) or F64 tensor's data.
inline TensorData float_data_1d(const std::vector<double>& values, DType dtype) {
  return dtype == DType::F64 ? TensorData::from_f64(values, {values.size()})
                             : TensorData::from_f32(std::vector<float>(values.begin(), values.end()), {values.size()});
}

// d/dx sum(op(x) * cotangent) at the points `xs` (a 1-D tensor of `dtype` on B's autodiff device):
// the cotangent reaching op is that one value at every element.
template <class B>
std::vector<double> gradient_at(const std::vector<double>& xs, DType dtype, double cotangent,
                                const std::function<DispatchTensor(const DispatchTensor&)>& op) {
  const DispatchTensor x = Dispatch::float_from_data(float_data_1d(xs, dtype), autodiff_device<B>());
  const DispatchTensor c = Dispatch::float_from_data(float_data_1d({cotangent}, dtype), autodiff_device<B>());
  const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(op(x), c)));
  const auto got = Dispatch::grad(x, g);
  EXPECT_TRUE(got.has_value()) << "no gradient reached x";
  return got ? Dispatch::float_into_data(*got).to_f64() : std::vector<double>{};
}

// A float tensor of `shape` on `device` holding `v` (each value rounded to float for F32).
inline DispatchTensor tensor_on(const DispatchDevice& device, const std::vector<double>& v, DType dtype, Shape shape) {
  const TensorData d = dtype == DType::F64 ? TensorData::from_f64(v, shape)
                                           : TensorData::from_f32(std::vector<float>(v.begin(), v.end()), shape);
  return Dispatch::float_from_data(d, device);
}
// A float tensor's values as doubles.
inline std::vector<double> values(const DispatchTensor& t) { return Dispatch::float_into_data(t).to_f64(); }

template <class B>
NodeId node_of(const DispatchTensor& t) {
  return std::get<AutodiffTensor<B>>(std::get<BackendTensor<B>>(t.kind.autodiff_inner().value).value).id();
}

}  // namespace crossgrad::testing_support
