// Cuda backend. Without a device (no GPU, no driver, as in CI) only the "no device" behaviour is
// tested, and every kernel test skips with the reason; a machine with a device node or a driver
// whose runtime fails fails them instead (Note [Cuda test gate] in
// crossgrad/backends/cuda_testing.hpp). With a device, every op is compared with
// the NdArray reference on the same data: bit for bit where both sides compute the same IEEE
// operations in the same order (element-wise + - * /, sqrt, relu, casts, layout, quantization,
// small matmuls), within a few ulps for the transcendental functions, and within a bound from the
// summation order for reductions and large matmuls. Special values and panics are checked exactly.
// (The kernels' logic also runs on the CPU, without a GPU: cuda_kernel_emulation_test.cpp.)
#include <crossgrad/config.hpp>

#if CROSSGRAD_WITH_CUDA

#include <crossgrad/backends/cuda.hpp>
#include <crossgrad/backends/cuda_testing.hpp>
#include <crossgrad/backends/ndarray.hpp>
#include <crossgrad/core/panic.hpp>
#include <crossgrad/core/shape_rules.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <regex>
#include <initializer_list>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace {

using crossgrad::Device;
using crossgrad::DType;
using crossgrad::Panic;
using crossgrad::PanicId;
using crossgrad::Shape;
using crossgrad::TensorData;
using crossgrad::backends::NdArray;
using B = crossgrad::backends::Cuda;
using BT = B::Tensor;
using NT = NdArray::Tensor;

// ---- helpers ----------------------------------------------------------------------------------

struct Caught {
  PanicId id;
  std::string message;
};

std::optional<Caught> panic_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Panic& p) {
    return Caught{p.id(), p.message()};
  }
  return std::nullopt;
}

// Deterministic values in [lo, hi].
std::vector<double> values(std::size_t n, unsigned seed, double lo = -2.0, double hi = 2.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = dist(rng);
  return v;
}

TensorData data_of(const std::vector<double>& v, const Shape& shape, DType dtype) {
  if (dtype == DType::F64) return TensorData::from_f64(v, shape);
  return TensorData::from_f32(std::vector<float>(v.begin(), v.end()), shape);
}

TensorData random_data(const Shape& shape, DType dtype, unsigned seed, double lo = -2.0, double hi = 2.0) {
  return data_of(values(shape.num_elements(), seed, lo, hi), shape, dtype);
}

BT on_b(const TensorData& d) { return B::from_data(d, B::default_device()); }
NT on_ref(const TensorData& d) { return NdArray::from_data(d, Device::cpu()); }

// Distance in units in the last place between two finite values of one dtype (0 when equal,
// so +0 and -0 count as equal here; bit-exact checks compare TensorData instead).
template <class F>
std::uint64_t ulp_distance(F a, F b) {
  using U = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;
  auto key = [](F x) {
    const U bits = std::bit_cast<U>(x);
    const U sign = U(1) << (sizeof(U) * 8 - 1);
    return (bits & sign) ? U(~bits) : U(bits | sign);  // monotonic in x
  };
  const U ka = key(a), kb = key(b);
  if (a == b) return 0;
  return ka > kb ? ka - kb : kb - ka;
}

// Element-wise agreement: same shape and dtype; NaN where the reference has NaN, equal infinities,
// and finite values within `max_ulps` ulps or `abs_tol` absolutely.
void expect_close(const TensorData& got, const TensorData& want, std::uint64_t max_ulps, double abs_tol,
                  const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  auto check = [&](const auto& g, const auto& w) {
    ASSERT_EQ(g.size(), w.size()) << what;
    std::size_t reported = 0;
    for (std::size_t i = 0; i < g.size(); ++i) {
      bool ok;
      if (std::isnan(w[i])) {
        ok = std::isnan(g[i]);
      } else if (std::isinf(w[i]) || std::isinf(g[i])) {
        ok = g[i] == w[i];
      } else {
        ok = ulp_distance(g[i], w[i]) <= max_ulps || std::fabs(double(g[i]) - double(w[i])) <= abs_tol;
      }
      if (!ok && reported++ < 5) {
        ADD_FAILURE() << what << ": element " << i << " is " << g[i] << ", reference " << w[i];
      }
    }
  };
  if (want.dtype() == DType::F64) {
    check(got.to_f64(), want.to_f64());
  } else {
    check(got.to_f32(), want.to_f32());
  }
}

void expect_same_panic(const std::function<void()>& on_backend, const std::function<void()>& on_reference,
                       const std::string& what) {
  const auto got = panic_of(on_backend);
  const auto want = panic_of(on_reference);
  ASSERT_TRUE(want.has_value()) << what << ": the reference did not panic";
  ASSERT_TRUE(got.has_value()) << what << ": no panic, reference says " << want->message;
  EXPECT_EQ(got->id, want->id) << what;
  EXPECT_EQ(got->message, want->message) << what;
}

const DType kFloatDtypes[] = {DType::F32, DType::F64};

std::string name_of(DType d) { return std::string(crossgrad::dtype_name(d)); }

// ---- without a device: a clean "no device" ------------------------------------------------------

using crossgrad::backends::Cuda;

TEST(CudaAvailability, ProbeNeverCrashesAndAgrees) {
  const bool available = Cuda::is_available();
  EXPECT_EQ(Cuda::is_available(), available);  // probed once, stable
  if (available) {
    EXPECT_GT(Cuda::device_count(), 0);
    EXPECT_EQ(Cuda::unavailable_reason(), "");
  } else {
    EXPECT_EQ(Cuda::device_count(), 0);
    const std::string reason = Cuda::unavailable_reason();
    EXPECT_FALSE(reason.empty());
    EXPECT_EQ(reason.find('\n'), std::string::npos) << "one line: " << reason;
  }
}

TEST(CudaAvailability, MissingDeviceIsTheCatalogPanic) {
  // Past the device count: Cuda(0) without a device, Cuda(count) with one.
  const int index = Cuda::device_count();
  const Device device = Device::cuda(index);
  const std::string reason =
      Cuda::is_available() ? "this machine has " + std::to_string(index) + " CUDA device" + (index == 1 ? "" : "s") +
                                 ", so the index must be below " + std::to_string(index)
                           : Cuda::unavailable_reason();
  const std::string expected = "Device Cuda(" + std::to_string(index) + ") of backend Cuda is not available: " +
                               reason + ".";
  const std::vector<std::function<void()>> creations = {
      [&] { Cuda::from_data(TensorData::from_f32({1, 2}, {2}), device); },
      [&] { Cuda::from_data(TensorData::from_i64({1}, {1}), device); },
      [&] { Cuda::from_data(TensorData::from_bool({true}, {}), device); },
      [&] { Cuda::float_full({2, 2}, 1.0, DType::F32, device); },
      [&] { Cuda::from_data(TensorData::from_f32({}, {0}), device); },
  };
  for (const auto& create : creations) {
    const auto caught = panic_of(create);
    ASSERT_TRUE(caught.has_value());
    EXPECT_EQ(caught->id, PanicId::DeviceUnavailable);
    EXPECT_EQ(caught->message, expected);
    EXPECT_TRUE(std::regex_match(caught->message, std::regex(std::string(crossgrad::panic_pattern(
                                                      PanicId::DeviceUnavailable)))))
        << caught->message;
  }
}

TEST(CudaAvailability, NegativeIndexAndCpuDeviceAreRefused) {
  for (const Device& device : {Device::cuda(-1), Device::cpu()}) {
    const auto caught = panic_of([&] { Cuda::from_data(TensorData::from_f32({1}, {1}), device); });
    ASSERT_TRUE(caught.has_value());
    EXPECT_EQ(caught->id, PanicId::DeviceUnavailable);
    EXPECT_EQ(caught->message.rfind("Device " + device.to_string() + " of backend Cuda is not available: ", 0), 0u)
        << caught->message;
  }
}

TEST(CudaAvailability, FloatDtypeIsCheckedBeforeTheDevice) {
  // float_full checks its dtype first (as NdArray), so this panic does not need a device.
  const auto caught = panic_of([] { Cuda::float_full({1}, 0, DType::I64, Device::cuda(0)); });
  ASSERT_TRUE(caught.has_value());
  EXPECT_EQ(caught->id, PanicId::UnsupportedDtype);
  EXPECT_EQ(caught->message, "DType I64 is not supported by float_full.");
}

// ---- with a device: every op against the reference ---------------------------------------------

class CudaOps : public ::testing::Test {
 protected:
  void SetUp() override {
    namespace ct = crossgrad::backends::cuda_testing;
    const ct::Gate& gate = ct::gate();
    if (gate.verdict == ct::GateVerdict::Skip) GTEST_SKIP() << gate.reason;
    ASSERT_NE(gate.verdict, ct::GateVerdict::Fail) << gate.reason;
    ASSERT_TRUE(B::is_available()) << "the gate says run, yet: " << B::unavailable_reason();
  }
};

TEST_F(CudaOps, DataRoundTripsEveryStoredDtype) {
  const TensorData datas[] = {
      TensorData::from_f32({1.5f, -0.0f, std::numeric_limits<float>::quiet_NaN(),
                            -std::numeric_limits<float>::infinity(), 1e-45f},
                           {5}),
      TensorData::from_f64({2.25, 3, -0.0, 5e-324}, {2, 2}),
      TensorData::from_i64({-7, 8, std::numeric_limits<std::int64_t>::min()}, {3}),
      TensorData::from_i32({1}, {}),
      TensorData::from_i8({-1, 2, 3}, {3}),
      TensorData::from_u8({255}, {1}),
      TensorData::from_bool({true, false, true}, {3, 1}),
      TensorData::from_f32({}, {0, 3}),
      TensorData::from_f64({}, {2, 0}),
  };
  for (const TensorData& d : datas) {
    const BT t = on_b(d);
    EXPECT_EQ(B::into_data(t), d) << name_of(d.dtype()) << " " << d.shape().to_string();
    EXPECT_EQ(B::shape(t), d.shape());
    EXPECT_EQ(B::dtype(t), d.dtype());
    EXPECT_EQ(B::device(t), B::default_device());
  }
  // A large buffer with a length that is not a multiple of anything convenient.
  const TensorData big = random_data({1000003}, DType::F32, 1);
  EXPECT_EQ(B::into_data(on_b(big)), big);
}

TEST_F(CudaOps, FullFills) {
  EXPECT_EQ(B::into_data(B::float_full({2, 3}, 1.5, DType::F32, B::default_device())),
            TensorData::from_f32({1.5f, 1.5f, 1.5f, 1.5f, 1.5f, 1.5f}, {2, 3}));
  EXPECT_EQ(B::into_data(B::float_full({}, -0.1, DType::F64, B::default_device())),
            TensorData::from_f64({-0.1}, {}));
  // Rounded once to F32, as NdArray does.
  EXPECT_EQ(B::into_data(B::float_full({3}, 0.1, DType::F32, B::default_device())),
            TensorData::from_f32({0.1f, 0.1f, 0.1f}, {3}));
  EXPECT_EQ(B::into_data(B::float_full({0, 4}, 2.0, DType::F32, B::default_device())),
            TensorData::from_f32({}, {0, 4}));
  const BT big = B::float_full({1 << 20, 3}, 7.0, DType::F64, B::default_device());
  EXPECT_EQ(B::into_data(big), NdArray::into_data(NdArray::float_full({1 << 20, 3}, 7.0, DType::F64, Device::cpu())));
}

// Shape pairs for broadcasting: equal, row vector, outer, scalar, rank-3 middle, zero-size,
// alternating broadcasts that do not collapse, and sizes that leave vector tails.
const std::pair<Shape, Shape> kBroadcastCases[] = {
    {{2, 3}, {2, 3}},
    {{2, 3}, {3}},
    {{4, 1}, {1, 5}},
    {{}, {5}},
    {{7}, {}},
    {{4, 1, 3}, {2, 1}},
    {{0, 3}, {1, 3}},
    {{3, 1, 2, 1, 2}, {1, 4, 1, 3, 1}},
    {{1, 1, 1}, {1}},
    {{257, 33}, {33}},
    {{1001, 1}, {1, 997}},
    {{5, 6, 7, 8}, {6, 1, 8}},
};

TEST_F(CudaOps, BinaryOpsAreBitIdenticalToTheReference) {
  using Op = BT (*)(const BT&, const BT&);
  using RefOp = NT (*)(const NT&, const NT&);
  const std::tuple<const char*, Op, RefOp> ops[] = {
      {"float_add", &B::float_add, &NdArray::float_add},
      {"float_sub", &B::float_sub, &NdArray::float_sub},
      {"float_mul", &B::float_mul, &NdArray::float_mul},
      {"float_div", &B::float_div, &NdArray::float_div},
  };
  unsigned seed = 10;
  for (DType dtype : kFloatDtypes) {
    for (const auto& [ls, rs] : kBroadcastCases) {
      const TensorData l = random_data(ls, dtype, ++seed);
      const TensorData r = random_data(rs, dtype, ++seed);
      for (const auto& [name, op, ref] : ops) {
        EXPECT_EQ(B::into_data(op(on_b(l), on_b(r))), NdArray::into_data(ref(on_ref(l), on_ref(r))))
            << name << " " << name_of(dtype) << " " << ls.to_string() << " " << rs.to_string();
        // Operand order matters for broadcasting and for sub/div.
        EXPECT_EQ(B::into_data(op(on_b(r), on_b(l))), NdArray::into_data(ref(on_ref(r), on_ref(l))))
            << name << " swapped " << name_of(dtype) << " " << ls.to_string() << " " << rs.to_string();
      }
    }
  }
}

TEST_F(CudaOps, BinaryIeeeSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const TensorData a = TensorData::from_f32({1, -1, 0, inf, nan, -0.0f}, {6});
  const TensorData b = TensorData::from_f32({0, 0, 0, inf, 1, 0}, {6});
  const std::vector<float> q = B::into_data(B::float_div(on_b(a), on_b(b))).to_f32();
  EXPECT_EQ(q[0], inf);
  EXPECT_EQ(q[1], -inf);
  EXPECT_TRUE(std::isnan(q[2]));
  EXPECT_TRUE(std::isnan(q[3]));
  EXPECT_TRUE(std::isnan(q[4]));
  EXPECT_TRUE(std::isnan(q[5]));
  const std::vector<float> s = B::into_data(B::float_add(on_b(a), on_b(b))).to_f32();
  EXPECT_EQ(s[3], inf);
  EXPECT_FALSE(std::signbit(s[5]));  // -0 + 0 = +0
}

TEST_F(CudaOps, HandWorkedBroadcast) {
  const BT a = on_b(TensorData::from_f32({1, 2, 3, 4, 5, 6}, {2, 3}));
  const BT row = on_b(TensorData::from_f32({10, 20, 30}, {3}));
  const BT col = on_b(TensorData::from_f32({100, 200}, {2, 1}));
  EXPECT_EQ(B::into_data(B::float_add(a, row)), TensorData::from_f32({11, 22, 33, 14, 25, 36}, {2, 3}));
  EXPECT_EQ(B::into_data(B::float_mul(a, col)), TensorData::from_f32({100, 200, 300, 800, 1000, 1200}, {2, 3}));
  EXPECT_EQ(B::into_data(B::float_sub(row, col)), TensorData::from_f32({-90, -80, -70, -190, -180, -170}, {2, 3}));
}

TEST_F(CudaOps, UnaryOpsMatchTheReference) {
  using Op = BT (*)(const BT&);
  using RefOp = NT (*)(const NT&);
  struct Case {
    const char* name;
    Op op;
    RefOp ref;
    std::uint64_t ulps;  // 0: bit-identical (IEEE-exact on both sides)
    double lo, hi;
  };
  const Case cases[] = {
      {"float_neg", &B::float_neg, &NdArray::float_neg, 0, -3, 3},
      {"relu", &B::relu, &NdArray::relu, 0, -3, 3},
      {"float_sqrt", &B::float_sqrt, &NdArray::float_sqrt, 0, 0, 100},
      {"float_exp", &B::float_exp, &NdArray::float_exp, 4, -80, 80},
      {"float_log", &B::float_log, &NdArray::float_log, 4, 1e-6, 1e6},
      {"float_tanh", &B::float_tanh, &NdArray::float_tanh, 4, -10, 10},
      {"sigmoid", &B::sigmoid, &NdArray::sigmoid, 4, -30, 30},
      // The math ops (math_ops.cuh): CUDA's documented error plus glibc's (docs/OPS.md "Accuracy in
      // ulps"); the IEEE ones bit for bit.
      {"float_cos", &B::float_cos, &NdArray::float_cos, 4, -10, 10},
      {"float_sin", &B::float_sin, &NdArray::float_sin, 4, -10, 10},
      {"float_tan", &B::float_tan, &NdArray::float_tan, 6, -1.5, 1.5},
      {"float_cosh", &B::float_cosh, &NdArray::float_cosh, 5, -10, 10},
      {"float_sinh", &B::float_sinh, &NdArray::float_sinh, 5, -10, 10},
      {"float_acos", &B::float_acos, &NdArray::float_acos, 4, -1, 1},
      {"float_acosh", &B::float_acosh, &NdArray::float_acosh, 6, 1, 100},
      {"float_asin", &B::float_asin, &NdArray::float_asin, 4, -1, 1},
      {"float_asinh", &B::float_asinh, &NdArray::float_asinh, 6, -100, 100},
      {"float_atan", &B::float_atan, &NdArray::float_atan, 4, -100, 100},
      {"float_atanh", &B::float_atanh, &NdArray::float_atanh, 5, -0.99, 0.99},
      {"float_erf", &B::float_erf, &NdArray::float_erf, 4, -5, 5},
      {"float_recip", &B::float_recip, &NdArray::float_recip, 0, 0.01, 100},
      {"float_round", &B::float_round, &NdArray::float_round, 0, -10, 10},
      {"float_floor", &B::float_floor, &NdArray::float_floor, 0, -10, 10},
      {"float_ceil", &B::float_ceil, &NdArray::float_ceil, 0, -10, 10},
      {"float_trunc", &B::float_trunc, &NdArray::float_trunc, 0, -10, 10},
      {"float_sign", &B::float_sign, &NdArray::float_sign, 0, -10, 10},
      {"float_log1p", &B::float_log1p, &NdArray::float_log1p, 4, -0.99, 100},
      // Composed ops: the oracle's bounds (oracle/src/ulp_bounds.cpp) plus glibc's ulp.
      {"log_sigmoid", &B::log_sigmoid, &NdArray::log_sigmoid, 6, -30, 30},
      {"gelu", &B::gelu, &NdArray::gelu, 6, -5, 5},
  };
  unsigned seed = 100;
  for (DType dtype : kFloatDtypes) {
    for (const Shape& shape : {Shape{}, Shape{7}, Shape{3, 5}, Shape{0, 2}, Shape{1025, 3}}) {
      for (const Case& c : cases) {
        const TensorData x = random_data(shape, dtype, ++seed, c.lo, c.hi);
        const TensorData got = B::into_data(c.op(on_b(x)));
        const TensorData want = NdArray::into_data(c.ref(on_ref(x)));
        if (c.ulps == 0) {
          EXPECT_EQ(got, want) << c.name << " " << name_of(dtype) << " " << shape.to_string();
        } else {
          expect_close(got, want, c.ulps, 0.0, std::string(c.name) + " " + name_of(dtype) + " " + shape.to_string());
        }
      }
    }
  }
}

TEST_F(CudaOps, UnarySpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (DType dtype : kFloatDtypes) {
    const TensorData x = data_of({-0.0, 0.0, nan, -inf, inf, -1, 1, -1000, 1000}, {9}, dtype);
    const std::vector<double> r = B::into_data(B::relu(on_b(x))).to_f64();
    EXPECT_EQ(r[0], 0.0);
    EXPECT_FALSE(std::signbit(r[0])) << "relu(-0.0) is +0";
    EXPECT_FALSE(std::signbit(r[1]));
    EXPECT_TRUE(std::isnan(r[2])) << "relu(NaN) is NaN";
    EXPECT_EQ(r[3], 0.0);
    EXPECT_EQ(r[4], inf);
    const std::vector<double> s = B::into_data(B::sigmoid(on_b(x))).to_f64();
    EXPECT_EQ(s[0], 0.5);
    EXPECT_TRUE(std::isnan(s[2]));
    EXPECT_EQ(s[3], 0.0);
    EXPECT_EQ(s[4], 1.0);
    EXPECT_EQ(s[7], 0.0);  // exp(1000) overflows to inf: 1 / inf
    EXPECT_EQ(s[8], 1.0);
    const std::vector<double> e = B::into_data(B::float_exp(on_b(x))).to_f64();
    EXPECT_EQ(e[0], 1.0);
    EXPECT_EQ(e[3], 0.0);
    EXPECT_EQ(e[4], inf);
    const std::vector<double> l = B::into_data(B::float_log(on_b(x))).to_f64();
    EXPECT_EQ(l[0], -inf);
    EXPECT_TRUE(std::isnan(l[5]));
    const std::vector<double> q = B::into_data(B::float_sqrt(on_b(x))).to_f64();
    EXPECT_TRUE(std::signbit(q[0])) << "sqrt(-0.0) is -0.0";
    EXPECT_TRUE(std::isnan(q[5]));
    const std::vector<double> t = B::into_data(B::float_tanh(on_b(x))).to_f64();
    EXPECT_EQ(t[3], -1.0);
    EXPECT_EQ(t[4], 1.0);
    // NaN payloads and signs are not portable between CPU and GPU arithmetic: NaN is compared as
    // a class, everything else exactly.
    expect_close(B::into_data(B::float_neg(on_b(x))), NdArray::into_data(NdArray::float_neg(on_ref(x))), 0, 0.0,
                 "neg special values");
  }
}

TEST_F(CudaOps, ScalarOpsComputeInTheTensorDtype) {
  unsigned seed = 200;
  for (DType dtype : kFloatDtypes) {
    const TensorData x = random_data({33, 3}, dtype, ++seed, -4, 4);
    const TensorData pos = random_data({33, 3}, dtype, ++seed, 0.01, 4);
    for (double s : {0.1, -2.5, 0.0, 1e300}) {
      EXPECT_EQ(B::into_data(B::float_add_scalar(on_b(x), s)),
                NdArray::into_data(NdArray::float_add_scalar(on_ref(x), s)))
          << name_of(dtype) << " + " << s;
      EXPECT_EQ(B::into_data(B::float_mul_scalar(on_b(x), s)),
                NdArray::into_data(NdArray::float_mul_scalar(on_ref(x), s)))
          << name_of(dtype) << " * " << s;
    }
    for (double e : {2.0, 0.5, -1.0, 3.0, 0.0, 1.7}) {
      expect_close(B::into_data(B::float_powf_scalar(on_b(pos), e)),
                   NdArray::into_data(NdArray::float_powf_scalar(on_ref(pos), e)), 4, 0.0,
                   "powf " + name_of(dtype) + " " + std::to_string(e));
    }
    // pow's special cases: x^0 = 1 even for NaN, negative base with integer exponent.
    const TensorData special = data_of({std::numeric_limits<double>::quiet_NaN(), -2.0, -0.0, 0.0}, {4}, dtype);
    EXPECT_EQ(B::into_data(B::float_powf_scalar(on_b(special), 0.0)), data_of({1, 1, 1, 1}, {4}, dtype));
    EXPECT_EQ(B::into_data(B::float_powf_scalar(on_b(special), 3.0)).to_f64()[1], -8.0);
  }
}

TEST_F(CudaOps, GreaterScalarAndBackToFloat) {
  const TensorData x = TensorData::from_f32({-1, 0, 0.5f, 2, std::numeric_limits<float>::quiet_NaN(), -0.0f}, {2, 3});
  const BT mask = B::float_greater_scalar(on_b(x), 0.0);
  EXPECT_EQ(B::dtype(mask), DType::Bool);
  EXPECT_EQ(B::into_data(mask), TensorData::from_bool({false, false, true, true, false, false}, {2, 3}));
  EXPECT_EQ(B::into_data(B::bool_into_float(mask, DType::F64)), TensorData::from_f64({0, 0, 1, 1, 0, 0}, {2, 3}));
  EXPECT_EQ(B::into_data(B::bool_into_float(mask, DType::F32)), TensorData::from_f32({0, 0, 1, 1, 0, 0}, {2, 3}));
  // The comparison is in the tensor's dtype: 0.1 rounds to 0.1f for F32 first.
  unsigned seed = 300;
  for (DType dtype : kFloatDtypes) {
    const TensorData r = random_data({1027}, dtype, ++seed, 0.0, 0.2);
    EXPECT_EQ(B::into_data(B::float_greater_scalar(on_b(r), 0.1)),
              NdArray::into_data(NdArray::float_greater_scalar(on_ref(r), 0.1)));
  }
  const TensorData bools = TensorData::from_bool({true, false, true, true, false}, {5});
  EXPECT_EQ(B::into_data(B::bool_into_float(on_b(bools), DType::F32)),
            NdArray::into_data(NdArray::bool_into_float(on_ref(bools), DType::F32)));
  EXPECT_EQ(B::into_data(B::float_greater_scalar(on_b(TensorData::from_f32({}, {0})), 1.0)),
            TensorData::from_bool({}, {0}));
}

TEST_F(CudaOps, SumAndMean) {
  const BT a = on_b(TensorData::from_f32({1, 2, 3, 4, 5, 6}, {2, 3}));
  EXPECT_EQ(B::into_data(B::float_sum(a)), TensorData::from_f32({21}, {1}));
  EXPECT_EQ(B::into_data(B::float_mean(a)), TensorData::from_f32({3.5f}, {1}));
  EXPECT_EQ(B::into_data(B::float_sum(on_b(TensorData::from_f64({2.5}, {})))), TensorData::from_f64({2.5}, {1}));
  // No elements: the sum is 0 and the mean 0/0 = NaN.
  EXPECT_EQ(B::into_data(B::float_sum(on_b(TensorData::from_f32({}, {0, 3})))), TensorData::from_f32({0}, {1}));
  EXPECT_TRUE(std::isnan(B::into_data(B::float_mean(on_b(TensorData::from_f64({}, {0})))).to_f64()[0]));
  // F32 accumulates in double: 2^24 + 1 + 1 is exact there, not in float.
  EXPECT_EQ(B::into_data(B::float_sum(on_b(TensorData::from_f32({16777216.0f, 1, 1}, {3})))),
            TensorData::from_f32({16777218.0f}, {1}));
  unsigned seed = 400;
  for (DType dtype : kFloatDtypes) {
    for (const Shape& shape : {Shape{5}, Shape{1000, 7}, Shape{4097}, Shape{1 << 22}, Shape{3, 3, 3}}) {
      const TensorData x = random_data(shape, dtype, ++seed);
      // Different summation trees in double: F32 rounds to the same float almost always; F64 sums
      // of up to 4M values in [-2, 2] differ by about 1e-9 (random-walk rounding), far below what
      // a lost or doubled element would change.
      expect_close(B::into_data(B::float_sum(on_b(x))), NdArray::into_data(NdArray::float_sum(on_ref(x))), 1, 1e-6,
                   "sum " + name_of(dtype) + " " + shape.to_string());
      expect_close(B::into_data(B::float_mean(on_b(x))), NdArray::into_data(NdArray::float_mean(on_ref(x))), 1,
                   1e-9, "mean " + name_of(dtype) + " " + shape.to_string());
    }
  }
}

TEST_F(CudaOps, SumDimAndMeanDim) {
  const BT a = on_b(TensorData::from_f32({1, 2, 3, 4, 5, 6}, {2, 3}));
  EXPECT_EQ(B::into_data(B::float_sum_dim(a, 0)), TensorData::from_f32({5, 7, 9}, {1, 3}));
  EXPECT_EQ(B::into_data(B::float_sum_dim(a, 1)), TensorData::from_f32({6, 15}, {2, 1}));
  EXPECT_EQ(B::into_data(B::float_mean_dim(a, 0)), TensorData::from_f32({2.5f, 3.5f, 4.5f}, {1, 3}));
  EXPECT_EQ(B::into_data(B::float_mean_dim(a, 1)), TensorData::from_f32({2, 5}, {2, 1}));
  // A zero-length reduced dim: sums are 0, means NaN; no output element: nothing at all.
  const BT empty_dim = on_b(TensorData::from_f64({}, {2, 0, 3}));
  EXPECT_EQ(B::into_data(B::float_sum_dim(empty_dim, 1)), TensorData::from_f64({0, 0, 0, 0, 0, 0}, {2, 1, 3}));
  for (double m : B::into_data(B::float_mean_dim(empty_dim, 1)).to_f64()) EXPECT_TRUE(std::isnan(m));
  EXPECT_EQ(B::into_data(B::float_sum_dim(empty_dim, 0)), TensorData::from_f64({}, {1, 0, 3}));
  unsigned seed = 500;
  const Shape shapes[] = {{7}, {3, 5}, {5, 3}, {4, 1000}, {1000, 4}, {2, 3, 4, 5}, {1, 1, 1}, {65537, 2}, {2, 65537}, {33, 300, 2}};
  for (DType dtype : kFloatDtypes) {
    for (const Shape& shape : shapes) {
      const TensorData x = random_data(shape, dtype, ++seed);
      for (std::size_t dim = 0; dim < shape.rank(); ++dim) {
        const std::string what = shape.to_string() + " dim " + std::to_string(dim) + " " + name_of(dtype);
        expect_close(B::into_data(B::float_sum_dim(on_b(x), dim)),
                     NdArray::into_data(NdArray::float_sum_dim(on_ref(x), dim)), 1, 1e-9, "sum_dim " + what);
        expect_close(B::into_data(B::float_mean_dim(on_b(x), dim)),
                     NdArray::into_data(NdArray::float_mean_dim(on_ref(x), dim)), 1, 1e-9, "mean_dim " + what);
      }
    }
  }
}

TEST_F(CudaOps, MatmulHandWorked) {
  const BT a = on_b(TensorData::from_f32({1, 2, 3, 4, 5, 6}, {2, 3}));
  const BT b = on_b(TensorData::from_f32({7, 8, 9, 10, 11, 12}, {3, 2}));
  EXPECT_EQ(B::into_data(B::float_matmul(a, b)), TensorData::from_f32({58, 64, 139, 154}, {2, 2}));
  // k = 0 gives zeros; m = 0 or a zero batch gives no elements.
  EXPECT_EQ(B::into_data(B::float_matmul(on_b(TensorData::from_f64({}, {2, 0})), on_b(TensorData::from_f64({}, {0, 3})))),
            TensorData::from_f64({0, 0, 0, 0, 0, 0}, {2, 3}));
  EXPECT_EQ(B::into_data(B::float_matmul(on_b(TensorData::from_f32({}, {0, 4})), on_b(random_data({4, 3}, DType::F32, 1)))),
            TensorData::from_f32({}, {0, 3}));
  EXPECT_EQ(B::into_data(B::float_matmul(on_b(TensorData::from_f32({}, {0, 2, 2})), on_b(random_data({2, 2}, DType::F32, 1)))),
            TensorData::from_f32({}, {0, 2, 2}));
  // A large k = 0 product takes the tiled kernel's path with no k slice at all.
  EXPECT_EQ(B::into_data(B::float_matmul(on_b(TensorData::from_f32({}, {200, 0})), on_b(TensorData::from_f32({}, {0, 300})))),
            TensorData::from_f32(std::vector<float>(200 * 300, 0.0f), {200, 300}));
}

// Shapes for matmul: small ones (the exact kernel) and large ones (the tiled kernel, vector and
// scalar loads, edge tiles), batched with broadcast batch dims.
const std::pair<Shape, Shape> kMatmulCases[] = {
    {{1, 1}, {1, 1}},
    {{3, 4}, {4, 5}},
    {{2, 3, 4}, {4, 2}},
    {{2, 1, 3, 4}, {5, 4, 6}},
    {{1, 300}, {300, 200}},     // thin: exact kernel
    {{300, 20}, {20, 1}},       // thin: exact kernel
    {{128, 128}, {128, 128}},   // one full tile, vector loads
    {{130, 72}, {72, 140}},     // edge tiles, vector loads
    {{129, 67}, {67, 131}},     // edge tiles, scalar loads
    {{64, 33}, {33, 64}},       // k not a multiple of 4
    {{3, 100, 64}, {64, 100}},  // batch on one side
    {{2, 1, 40, 36}, {3, 36, 44}},
    {{512, 256}, {256, 384}},
};

TEST_F(CudaOps, MatmulMatchesTheReference) {
  unsigned seed = 600;
  for (DType dtype : kFloatDtypes) {
    for (const auto& [ls, rs] : kMatmulCases) {
      const TensorData l = random_data(ls, dtype, ++seed);
      const TensorData r = random_data(rs, dtype, ++seed);
      const TensorData got = B::into_data(B::float_matmul(on_b(l), on_b(r)));
      const TensorData want = NdArray::into_data(NdArray::float_matmul(on_ref(l), on_ref(r)));
      const std::size_t k = ls[ls.rank() - 1];
      const std::size_t m = ls[ls.rank() - 2];
      const std::size_t n = rs[rs.rank() - 1];
      const std::string what = "matmul " + name_of(dtype) + " " + ls.to_string() + " x " + rs.to_string();
      // The small kernel repeats NdArray's arithmetic exactly; the tiled one fuses multiply-adds
      // and may order them differently: each side's |error| <= k * eps * sum |a||b| <= 4 k^2 eps.
      const bool exact = m < 16 || n < 16 || double(m) * n * k <= 65536.0;
      if (exact) {
        EXPECT_EQ(got, want) << what;
      } else {
        const double eps = dtype == DType::F32 ? 0x1p-24 : 0x1p-53;
        expect_close(got, want, 0, 8.0 * double(k) * double(k) * eps, what);
      }
    }
  }
}

TEST_F(CudaOps, ReshapeAndSwapDims) {
  const TensorData x = TensorData::from_f32({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(B::into_data(B::float_reshape(on_b(x), {3, 2})), TensorData::from_f32({1, 2, 3, 4, 5, 6}, {3, 2}));
  EXPECT_EQ(B::into_data(B::float_reshape(on_b(x), {6})), TensorData::from_f32({1, 2, 3, 4, 5, 6}, {6}));
  EXPECT_EQ(B::into_data(B::float_swap_dims(on_b(x), 0, 1)), TensorData::from_f32({1, 4, 2, 5, 3, 6}, {3, 2}));
  EXPECT_EQ(B::into_data(B::float_swap_dims(on_b(x), 1, 1)), x);
  unsigned seed = 700;
  const Shape shapes[] = {{2, 3, 4}, {1, 5, 1, 3}, {0, 3, 2}, {17, 1, 33}, {2, 3, 4, 5, 6}, {1000, 999}};
  for (DType dtype : kFloatDtypes) {
    for (const Shape& shape : shapes) {
      const TensorData d = random_data(shape, dtype, ++seed);
      for (std::size_t d0 = 0; d0 < shape.rank(); ++d0) {
        for (std::size_t d1 = 0; d1 < shape.rank(); ++d1) {
          EXPECT_EQ(B::into_data(B::float_swap_dims(on_b(d), d0, d1)),
                    NdArray::into_data(NdArray::float_swap_dims(on_ref(d), d0, d1)))
              << shape.to_string() << " " << d0 << "<->" << d1;
        }
      }
      // Swapping twice is the identity; reshape round-trips.
      if (shape.rank() >= 2) {
        const BT back = B::float_swap_dims(B::float_swap_dims(on_b(d), 0, shape.rank() - 1), 0, shape.rank() - 1);
        EXPECT_EQ(B::into_data(back), d);
      }
      EXPECT_EQ(B::into_data(B::float_reshape(B::float_reshape(on_b(d), Shape{shape.num_elements()}), shape)), d);
    }
  }
}

TEST_F(CudaOps, Cast) {
  const TensorData d = TensorData::from_f64({0.1, -1e300, 1e-320, -0.0, std::numeric_limits<double>::quiet_NaN(), 3}, {2, 3});
  const BT t = on_b(d);
  // NaN compared as a class (a GPU conversion may canonicalise the payload), the rest exactly.
  expect_close(B::into_data(B::float_cast(t, DType::F32)), NdArray::into_data(NdArray::float_cast(on_ref(d), DType::F32)),
               0, 0.0, "cast F64 -> F32");
  EXPECT_EQ(B::into_data(B::float_cast(t, DType::F64)), d);
  const TensorData f = random_data({1001}, DType::F32, 800);
  EXPECT_EQ(B::into_data(B::float_cast(B::float_cast(on_b(f), DType::F64), DType::F32)), f);
  EXPECT_EQ(B::into_data(B::float_cast(on_b(f), DType::F64)), NdArray::into_data(NdArray::float_cast(on_ref(f), DType::F64)));
}

TEST_F(CudaOps, QuantizeIsTheSharedScheme) {
  unsigned seed = 900;
  for (DType dtype : kFloatDtypes) {
    for (const Shape& shape : {Shape{}, Shape{5}, Shape{100, 37}, Shape{0, 3}, Shape{1 << 20}}) {
      const TensorData x = random_data(shape, dtype, ++seed, -3, 3);
      const B::Quantized q = B::quantize(on_b(x));
      const NdArray::Quantized r = NdArray::quantize(on_ref(x));
      EXPECT_EQ(q.scale, r.scale) << shape.to_string();
      EXPECT_EQ(B::dtype(q.values), DType::QInt8);
      EXPECT_EQ(B::shape(q.values), shape);
      const BT dq = B::dequantize(q);
      EXPECT_EQ(B::into_data(dq), NdArray::into_data(NdArray::dequantize(r))) << shape.to_string();
    }
  }
  // Hand-worked: max |x| = 2.54 -> scale 0.02; -0.01 / 0.02 = -0.5 rounds away from zero to -1.
  const B::Quantized q = B::quantize(on_b(TensorData::from_f64({2.54, -0.01, 0, -2.54}, {4})));
  EXPECT_EQ(q.scale, static_cast<float>(2.54 / 127.0));
  EXPECT_EQ(B::into_data(B::dequantize(q)),
            TensorData::from_f32({127 * q.scale, -1 * q.scale, 0, -127 * q.scale}, {4}));
  // All zeros: scale 1.
  EXPECT_EQ(B::quantize(on_b(TensorData::from_f32({0, -0.0f}, {2}))).scale, 1.0f);
}

TEST_F(CudaOps, QuantizeNonFinitePanicsLikeTheReference) {
  for (DType dtype : kFloatDtypes) {
    for (double bad : {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                       std::numeric_limits<double>::quiet_NaN()}) {
      std::vector<double> v = values(5000, 3);
      v[4321] = bad;
      v[4999] = std::numeric_limits<double>::infinity();  // a later one must not be the one reported
      const TensorData x = data_of(v, {5000}, dtype);
      expect_same_panic([&] { B::quantize(on_b(x)); }, [&] { NdArray::quantize(on_ref(x)); },
                        "quantize " + name_of(dtype));
    }
  }
}

TEST_F(CudaOps, ToDevice) {
  const TensorData d = random_data({3, 4}, DType::F32, 1000);
  const BT t = on_b(d);
  const BT same = B::float_to_device(t, B::device(t));
  EXPECT_EQ(B::device(same), B::device(t));
  EXPECT_EQ(B::into_data(same), d);
  {
    const Cuda::Tensor c = Cuda::from_data(d, Device::cuda(0));
    const int count = Cuda::device_count();
    const auto caught = panic_of([&] { Cuda::float_to_device(c, Device::cuda(count)); });
    ASSERT_TRUE(caught.has_value());
    EXPECT_EQ(caught->id, PanicId::DeviceUnavailable);
    if (count >= 2) {
      const Cuda::Tensor there = Cuda::float_to_device(c, Device::cuda(1));
      EXPECT_EQ(Cuda::device(there), Device::cuda(1));
      EXPECT_EQ(Cuda::into_data(there), d);
      // Ops on device 1, and mixed operands (the result follows the left one).
      EXPECT_EQ(Cuda::into_data(Cuda::float_add(there, there)),
                NdArray::into_data(NdArray::float_add(on_ref(d), on_ref(d))));
      const Cuda::Tensor mixed = Cuda::float_add(c, there);
      EXPECT_EQ(Cuda::device(mixed), Device::cuda(0));
      EXPECT_EQ(Cuda::into_data(mixed), NdArray::into_data(NdArray::float_add(on_ref(d), on_ref(d))));
      EXPECT_EQ(Cuda::into_data(Cuda::float_to_device(there, Device::cuda(0))), d);
    }
  }
}

TEST_F(CudaOps, PanicsAreTheReferencePanics) {
  const TensorData f23 = random_data({2, 3}, DType::F32, 1);
  const TensorData f43 = random_data({4, 3}, DType::F32, 2);
  const TensorData d23 = random_data({2, 3}, DType::F64, 3);
  const TensorData i23 = TensorData::from_i64({1, 2, 3, 4, 5, 6}, {2, 3});
  const TensorData b23 = TensorData::from_bool({true, false, true, true, false, false}, {2, 3});
  const TensorData v3 = random_data({3}, DType::F32, 4);
  expect_same_panic([&] { B::float_add(on_b(f23), on_b(f43)); }, [&] { NdArray::float_add(on_ref(f23), on_ref(f43)); },
                    "broadcast");
  expect_same_panic([&] { B::float_mul(on_b(f23), on_b(d23)); }, [&] { NdArray::float_mul(on_ref(f23), on_ref(d23)); },
                    "dtype");
  expect_same_panic([&] { B::float_sub(on_b(i23), on_b(d23)); }, [&] { NdArray::float_sub(on_ref(i23), on_ref(d23)); },
                    "int operand");
  expect_same_panic([&] { B::float_exp(on_b(i23)); }, [&] { NdArray::float_exp(on_ref(i23)); }, "exp int");
  expect_same_panic([&] { B::relu(on_b(b23)); }, [&] { NdArray::relu(on_ref(b23)); }, "relu bool");
  expect_same_panic([&] { B::float_matmul(on_b(v3), on_b(f23)); }, [&] { NdArray::float_matmul(on_ref(v3), on_ref(f23)); },
                    "matmul rank");
  expect_same_panic([&] { B::float_matmul(on_b(f23), on_b(f23)); }, [&] { NdArray::float_matmul(on_ref(f23), on_ref(f23)); },
                    "matmul inner");
  const TensorData batch_a = random_data({2, 2, 3}, DType::F32, 5);
  const TensorData batch_b = random_data({3, 3, 2}, DType::F32, 6);
  expect_same_panic([&] { B::float_matmul(on_b(batch_a), on_b(batch_b)); },
                    [&] { NdArray::float_matmul(on_ref(batch_a), on_ref(batch_b)); }, "matmul batch");
  expect_same_panic([&] { B::float_sum_dim(on_b(f23), 2); }, [&] { NdArray::float_sum_dim(on_ref(f23), 2); }, "sum_dim");
  expect_same_panic([&] { B::float_mean_dim(on_b(f23), 7); }, [&] { NdArray::float_mean_dim(on_ref(f23), 7); },
                    "mean_dim");
  expect_same_panic([&] { B::float_sum(on_b(i23)); }, [&] { NdArray::float_sum(on_ref(i23)); }, "sum int");
  expect_same_panic([&] { B::float_reshape(on_b(f23), {4}); }, [&] { NdArray::float_reshape(on_ref(f23), {4}); },
                    "reshape");
  expect_same_panic([&] { B::float_swap_dims(on_b(f23), 0, 2); }, [&] { NdArray::float_swap_dims(on_ref(f23), 0, 2); },
                    "swap_dims");
  expect_same_panic([&] { B::float_cast(on_b(f23), DType::I32); }, [&] { NdArray::float_cast(on_ref(f23), DType::I32); },
                    "cast to int");
  expect_same_panic([&] { B::float_cast(on_b(i23), DType::F32); }, [&] { NdArray::float_cast(on_ref(i23), DType::F32); },
                    "cast from int");
  expect_same_panic([&] { B::bool_into_float(on_b(f23), DType::F32); },
                    [&] { NdArray::bool_into_float(on_ref(f23), DType::F32); }, "bool_into_float of float");
  expect_same_panic([&] { B::bool_into_float(on_b(b23), DType::I8); },
                    [&] { NdArray::bool_into_float(on_ref(b23), DType::I8); }, "bool_into_float to int");
  expect_same_panic([&] { B::float_greater_scalar(on_b(i23), 1); },
                    [&] { NdArray::float_greater_scalar(on_ref(i23), 1); }, "greater int");
  expect_same_panic([&] { B::quantize(on_b(i23)); }, [&] { NdArray::quantize(on_ref(i23)); }, "quantize int");
  expect_same_panic([&] { B::float_to_device(on_b(i23), B::default_device()); },
                    [&] { NdArray::float_to_device(on_ref(i23), Device::cpu()); }, "to_device int");
  expect_same_panic([&] { B::float_full({2}, 1, DType::Bool, B::default_device()); },
                    [&] { NdArray::float_full({2}, 1, DType::Bool, Device::cpu()); }, "full bool");
  // Too large for one tensor: the same tensor-too-large panic, before any device memory is asked.
  const TensorData wide = random_data({200000, 1}, DType::F64, 7);
  const TensorData tall = random_data({1, 200000}, DType::F64, 8);
  expect_same_panic([&] { B::float_add(on_b(wide), on_b(tall)); },
                    [&] { NdArray::float_add(on_ref(wide), on_ref(tall)); }, "too large");
}

TEST_F(CudaOps, ManyOpsReuseCachedMemory) {
  // Exercises the caching allocator's reuse under stream ordering: each step frees the previous
  // temporaries, whose blocks the next step reuses before the earlier kernels are known finished.
  const TensorData x = random_data({1000, 100}, DType::F32, 1100);
  const NT ref_x = on_ref(x);
  NT ref = ref_x;
  BT t = on_b(x);
  for (int i = 0; i < 50; ++i) {
    t = B::float_add(B::float_mul_scalar(t, 0.5), B::float_sum_dim(B::float_exp(B::float_mul_scalar(t, 0.01)), 1));
    ref = NdArray::float_add(NdArray::float_mul_scalar(ref, 0.5),
                             NdArray::float_sum_dim(NdArray::float_exp(NdArray::float_mul_scalar(ref, 0.01)), 1));
  }
  expect_close(B::into_data(t), NdArray::into_data(ref), 64, 1e-4, "chained ops");
}

// ---- the registry's second batch of ops (abs ... int_into_float) ---------------------------------

// Values on a coarse grid (multiples of 0.5 in [-2, 2]) so that comparisons and maxima meet ties.
TensorData coarse_data(const Shape& shape, DType dtype, unsigned seed) {
  std::vector<double> v = values(shape.num_elements(), seed);
  for (double& x : v) x = std::round(x * 2.0) / 2.0;
  return data_of(v, shape, dtype);
}

// Special values: NaN, +-inf, -0 and +0 (ties), repeated maxima.
TensorData special_data(DType dtype) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  return data_of({-0.0, 0.0, 1, 1, nan, 2, -inf, -inf, -inf, -inf, 0.0, -0.0, 3, nan, inf, 1, inf, inf, -1, -2},
                 {5, 4}, dtype);
}

const Shape kDimShapes[] = {{7}, {3, 5}, {2, 3, 4}, {1, 1, 1}, {4, 1, 3}, {300, 3}, {3, 300}, {33, 40, 2}};

TEST_F(CudaOps, AbsAndClampAreBitIdentical) {
  unsigned seed = 1200;
  for (DType dtype : kFloatDtypes) {
    std::vector<TensorData> inputs = {special_data(dtype), data_of({}, {0, 3}, dtype)};
    for (const Shape& shape : {Shape{}, Shape{7}, Shape{1025, 3}}) inputs.push_back(random_data(shape, dtype, ++seed, -3, 3));
    for (const TensorData& x : inputs) {
      const std::string what = name_of(dtype) + " " + x.shape().to_string();
      EXPECT_EQ(B::into_data(B::float_abs(on_b(x))), NdArray::into_data(NdArray::float_abs(on_ref(x)))) << "abs " << what;
      for (const auto& [lo, hi] : {std::pair{-1.0, 1.0}, std::pair{0.1, 0.1}, std::pair{-0.0, 0.0}, std::pair{-1e300, 0.3}}) {
        EXPECT_EQ(B::into_data(B::float_clamp(on_b(x), lo, hi)), NdArray::into_data(NdArray::float_clamp(on_ref(x), lo, hi)))
            << "clamp " << what << " [" << lo << ", " << hi << "]";
      }
    }
    const std::vector<double> a = B::into_data(B::float_abs(on_b(special_data(dtype)))).to_f64();
    EXPECT_FALSE(std::signbit(a[0])) << "abs(-0) is +0";
    EXPECT_TRUE(std::isnan(a[4]));
    EXPECT_TRUE(std::isnan(B::into_data(B::float_clamp(on_b(special_data(dtype)), -1, 1)).to_f64()[4])) << "clamp keeps NaN";
  }
}

TEST_F(CudaOps, IntIntoFloatConvertsEveryIntDtype) {
  const std::int64_t big = (std::int64_t{1} << 53) + 1;  // rounds in F64, and further in F32
  const TensorData ints[] = {
      TensorData::from_i64({-7, 0, big, std::numeric_limits<std::int64_t>::min(), 16777217}, {5}),
      TensorData::from_i32({1, -2, 2147483647, 16777217, 5, 6}, {2, 3}),
      TensorData::from_i8({-128, 127, 0}, {3}),
      TensorData::from_u8({255, 0, 1, 2, 3}, {5, 1}),
      TensorData::from_i64({}, {0, 2}),
      TensorData::from_i32({42}, {}),
  };
  for (const TensorData& d : ints) {
    for (DType dtype : kFloatDtypes) {
      EXPECT_EQ(B::into_data(B::int_into_float(on_b(d), dtype)), NdArray::into_data(NdArray::int_into_float(on_ref(d), dtype)))
          << name_of(d.dtype()) << " -> " << name_of(dtype) << " " << d.shape().to_string();
    }
  }
  EXPECT_EQ(B::into_data(B::int_into_float(on_b(TensorData::from_i64({3, -4}, {2})), DType::F32)),
            TensorData::from_f32({3, -4}, {2}));
}

TEST_F(CudaOps, ComparisonsAreBitIdentical) {
  using Op = BT (*)(const BT&, const BT&);
  using RefOp = NT (*)(const NT&, const NT&);
  const std::tuple<const char*, Op, RefOp> ops[] = {
      {"float_greater", &B::float_greater, &NdArray::float_greater},
      {"float_lower", &B::float_lower, &NdArray::float_lower},
      {"float_equal", &B::float_equal, &NdArray::float_equal},
      {"float_greater_equal", &B::float_greater_equal, &NdArray::float_greater_equal},
      {"float_lower_equal", &B::float_lower_equal, &NdArray::float_lower_equal},
      {"float_not_equal", &B::float_not_equal, &NdArray::float_not_equal},
  };
  unsigned seed = 1300;
  for (DType dtype : kFloatDtypes) {
    for (const auto& [ls, rs] : kBroadcastCases) {
      const TensorData l = coarse_data(ls, dtype, ++seed);
      const TensorData r = coarse_data(rs, dtype, ++seed);
      for (const auto& [name, op, ref] : ops) {
        const BT got = op(on_b(l), on_b(r));
        EXPECT_EQ(B::dtype(got), DType::Bool);
        EXPECT_EQ(B::into_data(got), NdArray::into_data(ref(on_ref(l), on_ref(r))))
            << name << " " << name_of(dtype) << " " << ls.to_string() << " " << rs.to_string();
        EXPECT_EQ(B::into_data(op(on_b(r), on_b(l))), NdArray::into_data(ref(on_ref(r), on_ref(l))))
            << name << " swapped " << name_of(dtype) << " " << ls.to_string() << " " << rs.to_string();
      }
    }
    // Every pair of special values, hand-checked: NaN is false everywhere, -0 == +0.
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const TensorData a = data_of({nan, nan, 1, -0.0, -inf, 2}, {6}, dtype);
    const TensorData b = data_of({nan, 1, nan, 0.0, -inf, 1}, {6}, dtype);
    EXPECT_EQ(B::into_data(B::float_greater(on_b(a), on_b(b))),
              TensorData::from_bool({false, false, false, false, false, true}, {6}));
    EXPECT_EQ(B::into_data(B::float_lower(on_b(a), on_b(b))),
              TensorData::from_bool({false, false, false, false, false, false}, {6}));
    EXPECT_EQ(B::into_data(B::float_equal(on_b(a), on_b(b))),
              TensorData::from_bool({false, false, false, true, true, false}, {6}));
  }
}

// Each (name, op, ref) of a table of scalar-argument ops, on every tensor of `data` and every
// scalar of `scalars`: `expect(Cuda's result, NdArray's, a label)`.
template <class Ops, class Expect>
void for_each_scalar_case(const Ops& ops, std::initializer_list<double> scalars,
                          std::initializer_list<TensorData> data, Expect expect) {
  for (const auto& [name, op, ref] : ops) {
    for (double s : scalars) {
      for (const TensorData& d : data) {
        expect(B::into_data(op(on_b(d), s)), NdArray::into_data(ref(on_ref(d), s)),
               std::string(name) + " scalar " + std::to_string(s));
      }
    }
  }
}

TEST_F(CudaOps, ScalarComparisonsAndClassTestsAreBitIdentical) {
  using Op = BT (*)(const BT&, double);
  using RefOp = NT (*)(const NT&, double);
  const std::tuple<const char*, Op, RefOp> ops[] = {
      {"float_greater_equal_elem", &B::float_greater_equal_elem, &NdArray::float_greater_equal_elem},
      {"float_lower_elem", &B::float_lower_elem, &NdArray::float_lower_elem},
      {"float_lower_equal_elem", &B::float_lower_equal_elem, &NdArray::float_lower_equal_elem},
      {"float_equal_elem", &B::float_equal_elem, &NdArray::float_equal_elem},
      {"float_not_equal_elem", &B::float_not_equal_elem, &NdArray::float_not_equal_elem},
  };
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  unsigned seed = 1400;
  for (DType dtype : kFloatDtypes) {
    const TensorData x = coarse_data({257, 3}, dtype, ++seed);
    const TensorData special = data_of({nan, -inf, inf, -0.0, 0.0, 1, -1, 0.1}, {8}, dtype);
    for_each_scalar_case(ops, {0.0, -0.0, 0.1, 1.0, nan, inf}, {x, special},
                         [&](const TensorData& got, const TensorData& want, const std::string& what) {
                           EXPECT_EQ(got, want) << what << " " << name_of(dtype);
                         });
    EXPECT_EQ(B::into_data(B::float_is_nan(on_b(special))),
              TensorData::from_bool({true, false, false, false, false, false, false, false}, {8}));
    EXPECT_EQ(B::into_data(B::float_is_inf(on_b(special))),
              TensorData::from_bool({false, true, true, false, false, false, false, false}, {8}));
  }
}

TEST_F(CudaOps, ScalarArithmeticOpsMatchTheReference) {
  using Op = BT (*)(const BT&, double);
  using RefOp = NT (*)(const NT&, double);
  // IEEE-exact per element on both sides (one rounding or none): bit for bit; remainder_scalar's
  // floor(a / b) step is too (docs/OPS.md "remainder"), and leaky_relu is one product.
  const std::tuple<const char*, Op, RefOp> ops[] = {
      {"float_sub_scalar", &B::float_sub_scalar, &NdArray::float_sub_scalar},
      {"float_div_scalar", &B::float_div_scalar, &NdArray::float_div_scalar},
      {"float_clamp_min", &B::float_clamp_min, &NdArray::float_clamp_min},
      {"float_clamp_max", &B::float_clamp_max, &NdArray::float_clamp_max},
      {"leaky_relu", &B::leaky_relu, &NdArray::leaky_relu},
      {"float_remainder_scalar", &B::float_remainder_scalar, &NdArray::float_remainder_scalar},
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  unsigned seed = 1500;
  for (DType dtype : kFloatDtypes) {
    const TensorData x = random_data({129, 3}, dtype, ++seed, -4, 4);
    const TensorData special = special_data(dtype);
    for_each_scalar_case(ops, {0.1, -2.5, 3.0, 1e300, -0.0, nan}, {x, special},
                         [&](const TensorData& got, const TensorData& want, const std::string& what) {
                           expect_close(got, want, 0, 0.0, what + " " + name_of(dtype));
                         });
  }
}

TEST_F(CudaOps, BinaryMathOpsMatchTheReference) {
  using Op = BT (*)(const BT&, const BT&);
  using RefOp = NT (*)(const NT&, const NT&);
  struct Case {
    const char* name;
    Op op;
    RefOp ref;
    std::uint64_t ulps;  // 0: bit-identical
  };
  // CUDA's documented maxima plus glibc's (docs/OPS.md "Accuracy in ulps"): powf 4, atan2f 3.
  const Case cases[] = {
      {"float_remainder", &B::float_remainder, &NdArray::float_remainder, 0},
      {"float_powf", &B::float_powf, &NdArray::float_powf, 6},
      {"float_atan2", &B::float_atan2, &NdArray::float_atan2, 5},
  };
  unsigned seed = 1600;
  for (DType dtype : kFloatDtypes) {
    for (const auto& [ls, rs] : kBroadcastCases) {
      // Positive bases keep powf real; the divisors of remainder stay away from zero.
      const TensorData l = random_data(ls, dtype, ++seed, 0.01, 4);
      const TensorData r = random_data(rs, dtype, ++seed, 0.5, 3);
      for (const Case& c : cases) {
        expect_close(B::into_data(c.op(on_b(l), on_b(r))), NdArray::into_data(c.ref(on_ref(l), on_ref(r))), c.ulps, 0.0,
                     std::string(c.name) + " " + name_of(dtype) + " " + ls.to_string() + " " + rs.to_string());
        expect_close(B::into_data(c.op(on_b(r), on_b(l))), NdArray::into_data(c.ref(on_ref(r), on_ref(l))), c.ulps, 0.0,
                     std::string(c.name) + " swapped " + name_of(dtype) + " " + ls.to_string() + " " + rs.to_string());
      }
    }
  }
}

// rank_sort_kernel: each element's place in its lane's stable order (NaN largest, -0 equal to +0),
// so positions, sorted values and the top k are NdArray's bit for bit.
TEST_F(CudaOps, SortAndTopkGiveTheReferenceOrder) {
  unsigned seed = 1500;
  for (DType dtype : kFloatDtypes) {
    std::vector<TensorData> inputs = {special_data(dtype), data_of({}, {0, 3}, dtype)};
    for (const Shape& shape : kDimShapes) inputs.push_back(coarse_data(shape, dtype, ++seed));
    for (const TensorData& x : inputs) {
      for (std::size_t dim = 0; dim < x.shape().rank(); ++dim) {
        const std::string what = name_of(dtype) + " " + x.shape().to_string() + " dim " + std::to_string(dim);
        for (const bool descending : {false, true}) {
          EXPECT_EQ(B::into_data(B::float_argsort(on_b(x), dim, descending)),
                    NdArray::into_data(NdArray::float_argsort(on_ref(x), dim, descending)))
              << "argsort " << what << (descending ? " descending" : "");
          EXPECT_EQ(B::into_data(B::float_sort(on_b(x), dim, descending)),
                    NdArray::into_data(NdArray::float_sort(on_ref(x), dim, descending)))
              << "sort " << what << (descending ? " descending" : "");
        }
        const std::size_t k = x.shape()[dim] / 2;
        EXPECT_EQ(B::into_data(B::float_topk(on_b(x), dim, k)), NdArray::into_data(NdArray::float_topk(on_ref(x), dim, k)))
            << "topk " << what;
      }
    }
  }
}

TEST_F(CudaOps, MaxDimAndArgmaxFollowTheFirstNanFirstMaxScan) {
  unsigned seed = 1400;
  for (DType dtype : kFloatDtypes) {
    std::vector<TensorData> inputs = {special_data(dtype), data_of({}, {0, 3}, dtype), data_of({5}, {}, dtype)};
    for (const Shape& shape : kDimShapes) inputs.push_back(coarse_data(shape, dtype, ++seed));
    for (const TensorData& x : inputs) {
      for (std::size_t dim = 0; dim < std::max<std::size_t>(x.shape().rank(), 1); ++dim) {
        if (x.shape().rank() == 0 || x.shape()[dim] == 0) continue;  // panics, checked below
        const std::string what = name_of(dtype) + " " + x.shape().to_string() + " dim " + std::to_string(dim);
        // The kept element is copied: its bits (NaN payload, the sign of a zero) are the reference's.
        EXPECT_EQ(B::into_data(B::float_max_dim(on_b(x), dim)), NdArray::into_data(NdArray::float_max_dim(on_ref(x), dim)))
            << "max_dim " << what;
        const BT arg = B::float_argmax(on_b(x), dim);
        EXPECT_EQ(B::dtype(arg), DType::I64);
        EXPECT_EQ(B::into_data(arg), NdArray::into_data(NdArray::float_argmax(on_ref(x), dim))) << "argmax " << what;
        EXPECT_EQ(B::into_data(B::float_min_dim(on_b(x), dim)), NdArray::into_data(NdArray::float_min_dim(on_ref(x), dim)))
            << "min_dim " << what;
        EXPECT_EQ(B::into_data(B::float_argmin(on_b(x), dim)), NdArray::into_data(NdArray::float_argmin(on_ref(x), dim)))
            << "argmin " << what;
        EXPECT_EQ(B::into_data(B::float_max_abs_dim(on_b(x), dim)),
                  NdArray::into_data(NdArray::float_max_abs_dim(on_ref(x), dim)))
            << "max_abs_dim " << what;
      }
      // One thread per lane in index order (products in double): NdArray's bits.
      for (std::size_t dim = 0; dim < x.shape().rank(); ++dim) {
        const std::string what = name_of(dtype) + " " + x.shape().to_string() + " dim " + std::to_string(dim);
        EXPECT_EQ(B::into_data(B::float_prod_dim(on_b(x), dim)), NdArray::into_data(NdArray::float_prod_dim(on_ref(x), dim)))
            << "prod_dim " << what;
        EXPECT_EQ(B::into_data(B::float_any_dim(on_b(x), dim)), NdArray::into_data(NdArray::float_any_dim(on_ref(x), dim)))
            << "any_dim " << what;
        EXPECT_EQ(B::into_data(B::float_all_dim(on_b(x), dim)), NdArray::into_data(NdArray::float_all_dim(on_ref(x), dim)))
            << "all_dim " << what;
      }
      const std::string whole = name_of(dtype) + " " + x.shape().to_string();
      EXPECT_EQ(B::into_data(B::float_prod(on_b(x))), NdArray::into_data(NdArray::float_prod(on_ref(x)))) << "prod " << whole;
      EXPECT_EQ(B::into_data(B::float_any(on_b(x))), NdArray::into_data(NdArray::float_any(on_ref(x)))) << "any " << whole;
      EXPECT_EQ(B::into_data(B::float_all(on_b(x))), NdArray::into_data(NdArray::float_all(on_ref(x)))) << "all " << whole;
      if (x.shape().num_elements() == 0) continue;  // max, min, max_abs panic (empty-reduction)
      EXPECT_EQ(B::into_data(B::float_max(on_b(x))), NdArray::into_data(NdArray::float_max(on_ref(x)))) << "max " << whole;
      EXPECT_EQ(B::into_data(B::float_min(on_b(x))), NdArray::into_data(NdArray::float_min(on_ref(x)))) << "min " << whole;
      EXPECT_EQ(B::into_data(B::float_max_abs(on_b(x))), NdArray::into_data(NdArray::float_max_abs(on_ref(x))))
          << "max_abs " << whole;
    }
    // Hand-checked rows of special_data along dim 1: [-0, 0, 1, 1] keeps the first 1; [NaN, 2, -inf, -inf]
    // the NaN; [-inf, -inf, 0, -0] the first zero; [3, NaN, inf, 1] the NaN; [inf, inf, -1, -2] the
    // first inf.
    EXPECT_EQ(B::into_data(B::float_argmax(on_b(special_data(dtype)), 1)).to_i64(),
              (std::vector<std::int64_t>{2, 0, 2, 1, 0}));
    // -0 before +0: the first of the equal maxima, with its sign.
    const std::vector<double> z = B::into_data(B::float_max_dim(on_b(data_of({-0.0, 0.0, 0.0, -0.0}, {2, 2}, dtype)), 1)).to_f64();
    EXPECT_TRUE(std::signbit(z[0]));
    EXPECT_FALSE(std::signbit(z[1]));
  }
  // A 0 dim other than the reduced one: an empty result.
  EXPECT_EQ(B::into_data(B::float_max_dim(on_b(TensorData::from_f32({}, {0, 3})), 1)), TensorData::from_f32({}, {0, 1}));
  EXPECT_EQ(B::into_data(B::float_argmax(on_b(TensorData::from_f32({}, {0, 3})), 1)), TensorData::from_i64({}, {0, 1}));
}

TEST_F(CudaOps, SoftmaxAndLogSoftmaxMatchTheReference) {
  unsigned seed = 1500;
  for (DType dtype : kFloatDtypes) {
    const double eps = dtype == DType::F32 ? 0x1p-23 : 0x1p-52;
    std::vector<TensorData> inputs = {special_data(dtype), data_of({}, {0, 3}, dtype), data_of({}, {2, 0}, dtype)};
    for (const Shape& shape : kDimShapes) inputs.push_back(random_data(shape, dtype, ++seed, -20, 20));
    for (const TensorData& x : inputs) {
      for (std::size_t dim = 0; dim < x.shape().rank(); ++dim) {
        const std::string what = name_of(dtype) + " " + x.shape().to_string() + " dim " + std::to_string(dim);
        // Same operations in the same order; only exp and log may differ by their few ulps.
        expect_close(B::into_data(B::softmax(on_b(x), dim)), NdArray::into_data(NdArray::softmax(on_ref(x), dim)), 8,
                     0.0, "softmax " + what);
        // (x - m) - log(s) cancels near 0: an absolute allowance of a few ulps of log(s).
        expect_close(B::into_data(B::log_softmax(on_b(x), dim)),
                     NdArray::into_data(NdArray::log_softmax(on_ref(x), dim)), 8, 16 * eps * 8, "log_softmax " + what);
      }
    }
    // Hand-checked: equal inputs share 1/n; a NaN, +inf or an all -inf slice makes NaN everywhere in it.
    EXPECT_EQ(B::into_data(B::softmax(on_b(data_of({3, 3, 3, 3}, {4}, dtype)), 0)), data_of({0.25, 0.25, 0.25, 0.25}, {4}, dtype));
    const std::vector<double> s = B::into_data(B::softmax(on_b(special_data(dtype)), 1)).to_f64();
    for (std::size_t i = 0; i < 20; ++i) EXPECT_EQ(std::isnan(s[i]), (i >= 4 && i < 8) || i >= 12) << i;
    const double inf = std::numeric_limits<double>::infinity();
    for (double v : B::into_data(B::log_softmax(on_b(data_of({-inf, -inf}, {2}, dtype)), 0)).to_f64()) EXPECT_TRUE(std::isnan(v));
  }
}

TEST_F(CudaOps, CatIsBitIdentical) {
  unsigned seed = 1600;
  for (DType dtype : kFloatDtypes) {
    const std::vector<std::pair<std::vector<Shape>, std::size_t>> cases = {
        {{{2, 3}, {4, 3}}, 0},
        {{{2, 3}, {2, 1}, {2, 5}}, 1},
        {{{2, 0, 3}, {2, 4, 3}, {2, 0, 3}, {2, 1, 3}}, 1},  // zero-size pieces
        {{{0, 3}, {0, 3}}, 1},                              // no element at all
        {{{5}}, 0},
        {{{3, 4, 2}, {3, 4, 7}}, 2},
        {{{1000, 3}, {1, 3}, {999, 3}}, 0},
    };
    for (const auto& [shapes, dim] : cases) {
      std::vector<BT> pieces;
      std::vector<NT> refs;
      std::string what = name_of(dtype) + " dim " + std::to_string(dim);
      for (const Shape& shape : shapes) {
        const TensorData d = random_data(shape, dtype, ++seed);
        pieces.push_back(on_b(d));
        refs.push_back(on_ref(d));
        what += ' ';  // (two appends: GCC 12 warns -Wrestrict on " " + string here)
        what += shape.to_string();
      }
      EXPECT_EQ(B::into_data(B::float_cat(pieces, dim)), NdArray::into_data(NdArray::float_cat(refs, dim))) << what;
    }
  }
  EXPECT_EQ(B::into_data(B::float_cat({on_b(TensorData::from_f32({1, 2, 3, 4}, {2, 2})), on_b(TensorData::from_f32({5, 6}, {2, 1}))}, 1)),
            TensorData::from_f32({1, 2, 5, 3, 4, 6}, {2, 3}));
}

TEST_F(CudaOps, SlicePermuteExpandAreBitIdentical) {
  using crossgrad::Range;
  unsigned seed = 1700;
  for (DType dtype : kFloatDtypes) {
    const TensorData x = random_data({4, 5, 6}, dtype, ++seed);
    const std::vector<std::vector<Range>> slices = {
        {}, {{1, 3}}, {{0, 4}, {2, 5}}, {{3, 4}, {4, 5}, {5, 6}}, {{0, 4}, {0, 5}, {1, 4}}, {{2, 2}}, {{0, 4}, {1, 1}, {0, 6}},
    };
    for (const auto& ranges : slices) {
      EXPECT_EQ(B::into_data(B::float_slice(on_b(x), ranges)), NdArray::into_data(NdArray::float_slice(on_ref(x), ranges)))
          << name_of(dtype) << " slice of " << ranges.size() << " ranges";
    }
    EXPECT_EQ(B::into_data(B::float_slice(on_b(TensorData::from_f32({1, 2, 3, 4, 5, 6}, {2, 3})), {{1, 2}, {1, 3}})),
              TensorData::from_f32({5, 6}, {1, 2}));
    for (const auto& axes : std::vector<std::vector<std::size_t>>{{0, 1, 2}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}}) {
      EXPECT_EQ(B::into_data(B::float_permute(on_b(x), axes)), NdArray::into_data(NdArray::float_permute(on_ref(x), axes)))
          << name_of(dtype) << " permute " << axes[0] << axes[1] << axes[2];
    }
    const TensorData e = TensorData::from_f32({}, {0, 3});
    EXPECT_EQ(B::into_data(B::float_permute(on_b(e), {1, 0})), TensorData::from_f32({}, {3, 0}));
    const TensorData big = random_data({1000, 999}, dtype, ++seed);
    EXPECT_EQ(B::into_data(B::float_permute(on_b(big), {1, 0})), NdArray::into_data(NdArray::float_permute(on_ref(big), {1, 0})));
    const std::vector<std::pair<Shape, Shape>> expands = {
        {{3}, {2, 3}}, {{2, 1}, {2, 4}}, {{1, 3, 1}, {5, 2, 3, 7}}, {{}, {4}}, {{1}, {0}}, {{2, 3}, {2, 3}}, {{1, 1}, {300, 301}},
    };
    for (const auto& [from, to] : expands) {
      const TensorData d = random_data(from, dtype, ++seed);
      EXPECT_EQ(B::into_data(B::float_expand(on_b(d), to)), NdArray::into_data(NdArray::float_expand(on_ref(d), to)))
          << name_of(dtype) << " expand " << from.to_string() << " -> " << to.to_string();
    }
  }
}

TEST_F(CudaOps, SelectAndSelectAssignAreBitIdentical) {
  unsigned seed = 1800;
  for (DType dtype : kFloatDtypes) {
    const TensorData x = random_data({4, 5, 3}, dtype, ++seed);
    const std::vector<std::int64_t> index_lists[] = {{0}, {4, 0, 4, 2, 4}, {}, {3, 3, 3}, {1, 2, 3, 0, 4, 1}};
    for (std::size_t dim = 0; dim < 3; ++dim) {
      for (const auto& list : index_lists) {
        std::vector<std::int64_t> idx;
        for (std::int64_t v : list) idx.push_back(v % static_cast<std::int64_t>(x.shape()[dim]));
        const std::size_t k = idx.size();
        const TensorData i64 = TensorData::from_i64(idx, {k});
        const TensorData i32 = TensorData::from_i32(std::vector<std::int32_t>(idx.begin(), idx.end()), {k});
        const TensorData vals = random_data(crossgrad::rules::selected_shape(x.shape(), dim, k), dtype, ++seed);
        for (const TensorData& ind : {i64, i32}) {
          const std::string what = name_of(dtype) + " dim " + std::to_string(dim) + " k " + std::to_string(k) + " " +
                                   name_of(ind.dtype());
          EXPECT_EQ(B::into_data(B::float_select(on_b(x), dim, on_b(ind))),
                    NdArray::into_data(NdArray::float_select(on_ref(x), dim, on_ref(ind))))
              << "select " << what;
          // Duplicates accumulate in j order on both sides: the same bits.
          EXPECT_EQ(B::into_data(B::float_select_assign(on_b(x), dim, on_b(ind), on_b(vals))),
                    NdArray::into_data(NdArray::float_select_assign(on_ref(x), dim, on_ref(ind), on_ref(vals))))
              << "select_assign " << what;
        }
      }
    }
    // Hand-checked duplicate accumulation: 1 + 0.5 + 0.25 at position 1, in that order.
    const TensorData one = data_of({0, 1, 2}, {3}, dtype);
    EXPECT_EQ(B::into_data(B::float_select_assign(on_b(one), 0, on_b(TensorData::from_i64({1, 1}, {2})),
                                                  on_b(data_of({0.5, 0.25}, {2}, dtype)))),
              data_of({0, 1.75, 2}, {3}, dtype));
    // Empty tensors: nothing selected from a 0 outer dim; a select from an empty index list.
    const TensorData empty = data_of({}, {0, 3}, dtype);
    EXPECT_EQ(B::into_data(B::float_select(on_b(empty), 1, on_b(TensorData::from_i64({2, 0}, {2})))), data_of({}, {0, 2}, dtype));
    EXPECT_EQ(B::into_data(B::float_select(on_b(one), 0, on_b(TensorData::from_i64({}, {0})))), data_of({}, {0}, dtype));
  }
}

TEST_F(CudaOps, NewOpPanicsAreTheReferencePanics) {
  using crossgrad::Range;
  const TensorData f23 = random_data({2, 3}, DType::F32, 1);
  const TensorData d23 = random_data({2, 3}, DType::F64, 2);
  const TensorData f43 = random_data({4, 3}, DType::F32, 3);
  const TensorData i23 = TensorData::from_i64({1, 2, 3, 4, 5, 6}, {2, 3});
  const TensorData b23 = TensorData::from_bool({true, false, true, true, false, false}, {2, 3});
  const TensorData e03 = TensorData::from_f32({}, {0, 3});
  auto same = [&](const char* what, const std::function<void()>& on_backend, const std::function<void()>& on_ref_fn) {
    expect_same_panic(on_backend, on_ref_fn, what);
  };
  same("abs int", [&] { B::float_abs(on_b(i23)); }, [&] { NdArray::float_abs(on_ref(i23)); });
  same("clamp bounds", [&] { B::float_clamp(on_b(f23), 1, 0); }, [&] { NdArray::float_clamp(on_ref(f23), 1, 0); });
  same("clamp NaN", [&] { B::float_clamp(on_b(f23), std::nan(""), 0); },
       [&] { NdArray::float_clamp(on_ref(f23), std::nan(""), 0); });
  same("max_dim empty", [&] { B::float_max_dim(on_b(e03), 0); }, [&] { NdArray::float_max_dim(on_ref(e03), 0); });
  same("max_dim dim", [&] { B::float_max_dim(on_b(f23), 2); }, [&] { NdArray::float_max_dim(on_ref(f23), 2); });
  same("argmax empty", [&] { B::float_argmax(on_b(e03), 0); }, [&] { NdArray::float_argmax(on_ref(e03), 0); });
  same("argmax bool", [&] { B::float_argmax(on_b(b23), 0); }, [&] { NdArray::float_argmax(on_ref(b23), 0); });
  same("greater shapes", [&] { B::float_greater(on_b(f23), on_b(f43)); },
       [&] { NdArray::float_greater(on_ref(f23), on_ref(f43)); });
  same("lower dtypes", [&] { B::float_lower(on_b(f23), on_b(d23)); }, [&] { NdArray::float_lower(on_ref(f23), on_ref(d23)); });
  same("equal int", [&] { B::float_equal(on_b(i23), on_b(f23)); }, [&] { NdArray::float_equal(on_ref(i23), on_ref(f23)); });
  same("cat empty", [&] { B::float_cat({}, 0); }, [&] { NdArray::float_cat({}, 0); });
  same("cat mismatch", [&] { B::float_cat({on_b(f23), on_b(f43)}, 1); },
       [&] { NdArray::float_cat({on_ref(f23), on_ref(f43)}, 1); });
  same("cat dim", [&] { B::float_cat({on_b(f23)}, 2); }, [&] { NdArray::float_cat({on_ref(f23)}, 2); });
  same("cat dtype", [&] { B::float_cat({on_b(f23), on_b(d23)}, 0); }, [&] { NdArray::float_cat({on_ref(f23), on_ref(d23)}, 0); });
  same("slice range", [&] { B::float_slice(on_b(f23), {{0, 3}}); }, [&] { NdArray::float_slice(on_ref(f23), {{0, 3}}); });
  same("slice reversed", [&] { B::float_slice(on_b(f23), {{0, 2}, {2, 1}}); },
       [&] { NdArray::float_slice(on_ref(f23), {{0, 2}, {2, 1}}); });
  same("slice rank", [&] { B::float_slice(on_b(f23), {{0, 1}, {0, 1}, {0, 1}}); },
       [&] { NdArray::float_slice(on_ref(f23), {{0, 1}, {0, 1}, {0, 1}}); });
  const TensorData idx2d = TensorData::from_i64({0, 1}, {1, 2});
  const TensorData idx_f = TensorData::from_f32({0, 1}, {2});
  // Two bad indices: the first one is reported (-1 before 7).
  const TensorData bad = TensorData::from_i64({1, -1, 0, 7}, {4});
  const TensorData bad32 = TensorData::from_i32({2, 3, 0}, {3});
  same("select rank", [&] { B::float_select(on_b(f23), 0, on_b(idx2d)); },
       [&] { NdArray::float_select(on_ref(f23), 0, on_ref(idx2d)); });
  same("select index dtype", [&] { B::float_select(on_b(f23), 0, on_b(idx_f)); },
       [&] { NdArray::float_select(on_ref(f23), 0, on_ref(idx_f)); });
  same("select dim", [&] { B::float_select(on_b(f23), 2, on_b(bad)); }, [&] { NdArray::float_select(on_ref(f23), 2, on_ref(bad)); });
  same("select first bad", [&] { B::float_select(on_b(f23), 1, on_b(bad)); },
       [&] { NdArray::float_select(on_ref(f23), 1, on_ref(bad)); });
  same("select bad I32", [&] { B::float_select(on_b(f23), 0, on_b(bad32)); },
       [&] { NdArray::float_select(on_ref(f23), 0, on_ref(bad32)); });
  same("select from empty dim", [&] { B::float_select(on_b(e03), 0, on_b(TensorData::from_i64({0}, {1}))); },
       [&] { NdArray::float_select(on_ref(e03), 0, on_ref(TensorData::from_i64({0}, {1}))); });
  const TensorData v24 = random_data({2, 4}, DType::F32, 4);
  const TensorData v22 = random_data({2, 2}, DType::F32, 5);
  const TensorData d24 = random_data({2, 4}, DType::F64, 6);
  const TensorData ok4 = TensorData::from_i64({0, 2, 2, 1}, {4});
  same("select_assign first bad", [&] { B::float_select_assign(on_b(f23), 1, on_b(bad), on_b(v24)); },
       [&] { NdArray::float_select_assign(on_ref(f23), 1, on_ref(bad), on_ref(v24)); });
  same("select_assign bad and wrong values", [&] { B::float_select_assign(on_b(f23), 1, on_b(bad), on_b(v22)); },
       [&] { NdArray::float_select_assign(on_ref(f23), 1, on_ref(bad), on_ref(v22)); });
  same("select_assign values shape", [&] { B::float_select_assign(on_b(f23), 1, on_b(ok4), on_b(v22)); },
       [&] { NdArray::float_select_assign(on_ref(f23), 1, on_ref(ok4), on_ref(v22)); });
  same("select_assign values dtype", [&] { B::float_select_assign(on_b(f23), 1, on_b(ok4), on_b(d24)); },
       [&] { NdArray::float_select_assign(on_ref(f23), 1, on_ref(ok4), on_ref(d24)); });
  same("select_assign rank", [&] { B::float_select_assign(on_b(f23), 1, on_b(idx2d), on_b(v24)); },
       [&] { NdArray::float_select_assign(on_ref(f23), 1, on_ref(idx2d), on_ref(v24)); });
  same("permute", [&] { B::float_permute(on_b(f23), {0, 0}); }, [&] { NdArray::float_permute(on_ref(f23), {0, 0}); });
  same("permute rank", [&] { B::float_permute(on_b(f23), {0}); }, [&] { NdArray::float_permute(on_ref(f23), {0}); });
  same("expand", [&] { B::float_expand(on_b(f23), {4, 3}); }, [&] { NdArray::float_expand(on_ref(f23), {4, 3}); });
  same("expand rank", [&] { B::float_expand(on_b(f23), {3}); }, [&] { NdArray::float_expand(on_ref(f23), {3}); });
  same("softmax dim", [&] { B::softmax(on_b(f23), 2); }, [&] { NdArray::softmax(on_ref(f23), 2); });
  same("log_softmax int", [&] { B::log_softmax(on_b(i23), 0); }, [&] { NdArray::log_softmax(on_ref(i23), 0); });
  same("int_into_float of float", [&] { B::int_into_float(on_b(f23), DType::F32); },
       [&] { NdArray::int_into_float(on_ref(f23), DType::F32); });
  same("int_into_float of bool", [&] { B::int_into_float(on_b(b23), DType::F32); },
       [&] { NdArray::int_into_float(on_ref(b23), DType::F32); });
  same("int_into_float to int", [&] { B::int_into_float(on_b(i23), DType::I32); },
       [&] { NdArray::int_into_float(on_ref(i23), DType::I32); });
}

}  // namespace

#endif  // CROSSGRAD_WITH_CUDA
