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

}  // namespace

#endif  // CROSSGRAD_WITH_CUDA
