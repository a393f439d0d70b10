// The scalar ops of issue 36 (float_sub_scalar, float_div_scalar, float_clamp_min,
// float_clamp_max) on every backend at the edges docs/OPS.md "Op semantics" names: the scalar
// converted to the dtype, IEEE division by +-0 and +-inf, the clamps' NaN rules (a NaN x passes,
// a NaN bound gives NaN everywhere), the zero's sign at a zero bound, and their gradients: the
// bound included, +0 where clamped whatever the cotangent's sign, +0 everywhere for a NaN bound.
#include "test_support.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <utility>
#include <string>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TensorData data_of(const std::vector<double>& v, DType dtype) {
  return dtype == DType::F64 ? TensorData::from_f64(v, {v.size()})
                             : TensorData::from_f32(std::vector<float>(v.begin(), v.end()), {v.size()});
}

// Same bits, NaN as a class.
bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b)); }

template <class B>
class ScalarOpEdges : public ::testing::Test {
 protected:
  void SetUp() override { SKIP_IF_UNAVAILABLE(B); }
  static std::vector<double> run(const std::vector<double>& xs, DType dtype,
                                 const std::function<DispatchTensor(const DispatchTensor&)>& op) {
    return Dispatch::float_into_data(op(Dispatch::float_from_data(data_of(xs, dtype), plain_device<B>()))).to_f64();
  }
  // d/dx sum(op(x) * c).
  static std::vector<double> gradient(const std::vector<double>& xs, DType dtype, double c,
                                      const std::function<DispatchTensor(const DispatchTensor&)>& op) {
    const DispatchTensor x = Dispatch::float_from_data(data_of(xs, dtype), autodiff_device<B>());
    const DispatchTensor cot = Dispatch::float_from_data(data_of({c}, dtype), autodiff_device<B>());
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(op(x), cot)));
    const auto got = Dispatch::grad(x, g);
    EXPECT_TRUE(got.has_value());
    return got ? Dispatch::float_into_data(*got).to_f64() : std::vector<double>{};
  }
};
TYPED_TEST_SUITE(ScalarOpEdges, AllBackendTypes);

void expect_same(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(same(got[i], want[i])) << what << " element " << i << ": " << got[i] << " vs " << want[i];
}

TYPED_TEST(ScalarOpEdges, SubAndDivScalarValues) {
  for (const DType dt : {DType::F32, DType::F64}) {
    const std::string d(dtype_name(dt));
    expect_same(TestFixture::run({1.5, -0.0, 0.0, kInf, kNaN}, dt, [](const DispatchTensor& x) { return Dispatch::float_sub_scalar(x, 0.5); }),
                {1.0, -0.5, -0.5, kInf, kNaN}, d + " x - 0.5");
    expect_same(TestFixture::run({-0.0, 0.0, kInf}, dt, [](const DispatchTensor& x) { return Dispatch::float_sub_scalar(x, 0.0); }),
                {-0.0, 0.0, kInf}, d + " x - 0 keeps the zero's sign");
    expect_same(TestFixture::run({kInf}, dt, [](const DispatchTensor& x) { return Dispatch::float_sub_scalar(x, kInf); }), {kNaN},
                d + " inf - inf");
    expect_same(TestFixture::run({3, -3, 0.0, -0.0, kNaN, kInf}, dt, [](const DispatchTensor& x) { return Dispatch::float_div_scalar(x, 0.0); }),
                {kInf, -kInf, kNaN, kNaN, kNaN, kInf}, d + " x / +0");
    expect_same(TestFixture::run({3, -3}, dt, [](const DispatchTensor& x) { return Dispatch::float_div_scalar(x, -0.0); }), {-kInf, kInf},
                d + " x / -0");
    expect_same(TestFixture::run({3, -3, kInf}, dt, [](const DispatchTensor& x) { return Dispatch::float_div_scalar(x, kInf); }),
                {0.0, -0.0, kNaN}, d + " x / inf");
    expect_same(TestFixture::run({1, 6}, dt, [](const DispatchTensor& x) { return Dispatch::float_div_scalar(x, 3.0); }),
                {dt == DType::F32 ? static_cast<double>(1.0f / 3.0f) : 1.0 / 3.0, 2.0}, d + " one IEEE division");
  }
  // The scalar is converted to F32 first: 0.1 acts as 0.100000001490116, 1e-50 as 0.
  expect_same(TestFixture::run({1}, DType::F32, [](const DispatchTensor& x) { return Dispatch::float_sub_scalar(x, 0.1); }),
              {static_cast<double>(1.0f - 0.1f)}, "F32 1 - 0.1");
  expect_same(TestFixture::run({1}, DType::F32, [](const DispatchTensor& x) { return Dispatch::float_div_scalar(x, 1e-50); }), {kInf},
              "F32 1 / 1e-50");
  expect_same(TestFixture::run({7}, DType::F32, [](const DispatchTensor& x) { return Dispatch::float_div_scalar(x, 0.1); }),
              {static_cast<double>(7.0f / 0.1f)}, "F32 7 / 0.1");
}

TYPED_TEST(ScalarOpEdges, ClampMinAndMaxValues) {
  for (const DType dt : {DType::F32, DType::F64}) {
    const std::string d(dtype_name(dt));
    const std::vector<double> xs{-2, -0.5, 0.5, 2, kNaN, -kInf, kInf, -0.0, 0.0};
    expect_same(TestFixture::run(xs, dt, [](const DispatchTensor& x) { return Dispatch::float_clamp_min(x, -1); }),
                {-1, -0.5, 0.5, 2, kNaN, -1, kInf, -0.0, 0.0}, d + " clamp_min -1");
    expect_same(TestFixture::run(xs, dt, [](const DispatchTensor& x) { return Dispatch::float_clamp_max(x, 1); }),
                {-2, -0.5, 0.5, 1, kNaN, -kInf, 1, -0.0, 0.0}, d + " clamp_max 1");
    // A zero bound: x keeps its own zero's sign (-0 < +0 is false).
    expect_same(TestFixture::run({-0.0, 0.0, -1, 1}, dt, [](const DispatchTensor& x) { return Dispatch::float_clamp_min(x, 0.0); }),
                {-0.0, 0.0, 0.0, 1}, d + " clamp_min +0");
    expect_same(TestFixture::run({-0.0, 0.0, -1, 1}, dt, [](const DispatchTensor& x) { return Dispatch::float_clamp_max(x, -0.0); }),
                {-0.0, 0.0, -1, -0.0}, d + " clamp_max -0");
    // A NaN bound: NaN everywhere.
    expect_same(TestFixture::run({-1, 0, kInf, kNaN}, dt, [](const DispatchTensor& x) { return Dispatch::float_clamp_min(x, kNaN); }),
                {kNaN, kNaN, kNaN, kNaN}, d + " clamp_min NaN");
    expect_same(TestFixture::run({-1, 0, -kInf, kNaN}, dt, [](const DispatchTensor& x) { return Dispatch::float_clamp_max(x, kNaN); }),
                {kNaN, kNaN, kNaN, kNaN}, d + " clamp_max NaN");
    // Infinite bounds.
    expect_same(TestFixture::run({-kInf, 3}, dt, [](const DispatchTensor& x) { return Dispatch::float_clamp_min(x, -kInf); }), {-kInf, 3},
                d + " clamp_min -inf");
    expect_same(TestFixture::run({-kInf, 3}, dt, [](const DispatchTensor& x) { return Dispatch::float_clamp_max(x, -kInf); }),
                {-kInf, -kInf}, d + " clamp_max -inf");
  }
  // The bound is converted to F32 first: 1e39 is inf, 0.1 is 0.100000001490116.
  expect_same(TestFixture::run({1e38}, DType::F32, [](const DispatchTensor& x) { return Dispatch::float_clamp_min(x, 1e39); }), {kInf},
              "F32 clamp_min 1e39");
  expect_same(TestFixture::run({1}, DType::F32, [](const DispatchTensor& x) { return Dispatch::float_clamp_max(x, 0.1); }),
              {static_cast<double>(0.1f)}, "F32 clamp_max 0.1");
}

TYPED_TEST(ScalarOpEdges, Gradients) {
  for (const DType dt : {DType::F32, DType::F64}) {
    const std::string d(dtype_name(dt));
    expect_same(TestFixture::gradient({1, kInf, kNaN}, dt, -2, [](const DispatchTensor& x) { return Dispatch::float_sub_scalar(x, 3); }),
                {-2, -2, -2}, d + " sub_scalar");
    expect_same(TestFixture::gradient({1, 5}, dt, 3, [](const DispatchTensor& x) { return Dispatch::float_div_scalar(x, -4); }),
                {-0.75, -0.75}, d + " div_scalar");
    expect_same(TestFixture::gradient({1}, dt, 1, [](const DispatchTensor& x) { return Dispatch::float_div_scalar(x, 0.0); }), {kInf},
                d + " div_scalar by +0");
    // The bound included; a NaN x passes its gradient; the clamped side gets +0 for a negative cotangent too.
    for (const double c : {1.0, -1.0}) {
      const std::vector<double> xs{-2, -1, 0.5, kNaN, -kInf, kInf};
      expect_same(TestFixture::gradient(xs, dt, c, [](const DispatchTensor& x) { return Dispatch::float_clamp_min(x, -1); }),
                  {0.0, c, c, c, 0.0, c}, d + " clamp_min -1, cotangent " + std::to_string(c));
      expect_same(TestFixture::gradient(xs, dt, c, [](const DispatchTensor& x) { return Dispatch::float_clamp_max(x, -1); }),
                  {c, c, 0.0, c, c, 0.0}, d + " clamp_max -1, cotangent " + std::to_string(c));
    }
    // A NaN bound: the value does not depend on x, +0 everywhere whatever the cotangent.
    for (const double c : {-1.0, kInf, kNaN}) {
      expect_same(TestFixture::gradient({-1, kNaN, kInf}, dt, c, [](const DispatchTensor& x) { return Dispatch::float_clamp_min(x, kNaN); }),
                  {0.0, 0.0, 0.0}, d + " clamp_min NaN bound");
      expect_same(TestFixture::gradient({-1, kNaN, -kInf}, dt, c, [](const DispatchTensor& x) { return Dispatch::float_clamp_max(x, kNaN); }),
                  {0.0, 0.0, 0.0}, d + " clamp_max NaN bound");
    }
  }
}

TensorData shaped(const std::vector<double>& v, std::vector<std::size_t> shape, DType dtype) {
  return dtype == DType::F64 ? TensorData::from_f64(v, Shape(shape))
                             : TensorData::from_f32(std::vector<float>(v.begin(), v.end()), Shape(shape));
}

// remainder: the sign of the divisor (PyTorch's torch.remainder, Python's %); a zero result keeps
// the dividend's sign; b = +-0 and a = +-inf give NaN; b = +-inf gives a, or b where a has the
// other sign.
TYPED_TEST(ScalarOpEdges, RemainderValues) {
  for (const DType dt : {DType::F32, DType::F64}) {
    const std::string d(dtype_name(dt));
    const std::vector<double> xs{5, -5, 5.5, -0.5, 0.0, -0.0, -4, 4, -6, 6, kInf, kNaN};
    expect_same(TestFixture::run(xs, dt, [](const DispatchTensor& x) { return Dispatch::float_remainder_scalar(x, 3); }),
                {2, 1, 2.5, 2.5, 0.0, -0.0, 2, 1, -0.0, 0.0, kNaN, kNaN}, d + " x % 3");
    expect_same(TestFixture::run(xs, dt, [](const DispatchTensor& x) { return Dispatch::float_remainder_scalar(x, -3); }),
                {-1, -2, -0.5, -0.5, 0.0, -0.0, -1, -2, -0.0, 0.0, kNaN, kNaN}, d + " x % -3");
    expect_same(TestFixture::run({1, -1, 0.0}, dt, [](const DispatchTensor& x) { return Dispatch::float_remainder_scalar(x, 0.0); }),
                {kNaN, kNaN, kNaN}, d + " x % 0");
    expect_same(TestFixture::run({1, -1, 0.0, -0.0}, dt, [](const DispatchTensor& x) { return Dispatch::float_remainder_scalar(x, kInf); }),
                {1, kInf, 0.0, -0.0}, d + " x % inf");
    expect_same(TestFixture::run({1, -1}, dt, [](const DispatchTensor& x) { return Dispatch::float_remainder_scalar(x, -kInf); }),
                {-kInf, -1}, d + " x % -inf");
    // Broadcasting: [2, 1] % [2].
    const DispatchTensor a = Dispatch::float_from_data(shaped({5, -5}, {2, 1}, dt), plain_device<TypeParam>());
    const DispatchTensor b = Dispatch::float_from_data(shaped({3, -3}, {2}, dt), plain_device<TypeParam>());
    const TensorData r = Dispatch::float_into_data(Dispatch::float_remainder(a, b));
    EXPECT_EQ(r.shape(), Shape({2, 2})) << d;
    expect_same(r.to_f64(), {2, -1, 1, -2}, d + " [[5], [-5]] % [3, -3]");
  }
  // One rounding: a tiny negative fmod plus b rounds to b (F64: -1e-20 % 1 is 1).
  expect_same(TestFixture::run({-1e-20}, DType::F64, [](const DispatchTensor& x) { return Dispatch::float_remainder_scalar(x, 1); }), {1.0},
              "F64 -1e-20 % 1");
}

TYPED_TEST(ScalarOpEdges, RemainderGradients) {
  for (const DType dt : {DType::F32, DType::F64}) {
    const std::string d(dtype_name(dt));
    expect_same(TestFixture::gradient({5, -5, kInf, kNaN}, dt, -2, [](const DispatchTensor& x) { return Dispatch::float_remainder_scalar(x, 3); }),
                {-2, -2, -2, -2}, d + " remainder_scalar: d/dx = 1");
    // d/da = 1, d/db = -floor(a / b) as ATen's floor division: 1 / 0.1 is 10 rounded, 9 floored
    // (fmod(1, 0.1) = 0.0999...).
    const DispatchTensor a = Dispatch::float_from_data(data_of({5, -5, 1, -7}, dt), autodiff_device<TypeParam>());
    const DispatchTensor b = Dispatch::float_from_data(data_of({3, 3, 0.1, -2}, dt), autodiff_device<TypeParam>());
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_remainder(a, b)));
    expect_same(Dispatch::float_into_data(*Dispatch::grad(a, g)).to_f64(), {1, 1, 1, 1}, d + " remainder d/da");
    expect_same(Dispatch::float_into_data(*Dispatch::grad(b, g)).to_f64(), {-1, 2, -9, -3}, d + " remainder d/db");
    // Broadcast: b [1] gets the sum over a's elements.
    const DispatchTensor a2 = Dispatch::float_from_data(data_of({5, -5, 7}, dt), autodiff_device<TypeParam>());
    const DispatchTensor b2 = Dispatch::float_from_data(data_of({2}, dt), autodiff_device<TypeParam>());
    const Gradients g2 = Dispatch::backward(Dispatch::float_sum(Dispatch::float_remainder(a2, b2)));
    expect_same(Dispatch::float_into_data(*Dispatch::grad(b2, g2)).to_f64(), {-(2 - 3 + 3)}, d + " remainder d/db broadcast");
  }
  // a - y overflows (DBL_MAX % -1e300: y = -5.2e299): the divisor's gradient is still
  // -floor(a / b) = 179769314, not inf (found by the torch differential).
  const DispatchTensor a = Dispatch::float_from_data(data_of({std::numeric_limits<double>::max()}, DType::F64), autodiff_device<TypeParam>());
  const DispatchTensor b = Dispatch::float_from_data(data_of({-1e300}, DType::F64), autodiff_device<TypeParam>());
  const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_remainder(a, b)));
  expect_same(Dispatch::float_into_data(*Dispatch::grad(b, g)).to_f64(), {179769314}, "F64 remainder d/db where a - y overflows");
}

// float_powf: C's pow per element (as float_powf_scalar); float_atan2: C's atan2 (docs/OPS.md).
TYPED_TEST(ScalarOpEdges, PowfAndAtan2Values) {
  const double pi = std::numbers::pi;
  for (const DType dt : {DType::F32, DType::F64}) {
    const std::string d(dtype_name(dt));
    const auto zip = [dt](const std::vector<double>& a, const std::vector<double>& b, DispatchTensor (*op)(const DispatchTensor&, const DispatchTensor&)) {
      const DispatchTensor x = Dispatch::float_from_data(data_of(a, dt), plain_device<TypeParam>());
      const DispatchTensor y = Dispatch::float_from_data(data_of(b, dt), plain_device<TypeParam>());
      return Dispatch::float_into_data(op(x, y)).to_f64();
    };
    expect_same(zip({0.0, kNaN, 1, -2, 0.0, -0.0, kInf, -8, 2}, {0.0, 0.0, kNaN, 3, -1, -1, -1, 1.0 / 3, 10}, &Dispatch::float_powf),
                {1, 1, 1, -8, kInf, -kInf, 0.0, kNaN, 1024}, d + " powf");
    const double pi_d = dt == DType::F32 ? static_cast<double>(static_cast<float>(pi)) : pi;
    const double half = dt == DType::F32 ? static_cast<double>(static_cast<float>(pi / 2)) : pi / 2;
    const double quarter = dt == DType::F32 ? static_cast<double>(static_cast<float>(pi / 4)) : pi / 4;
    expect_same(zip({0.0, -0.0, 0.0, -0.0, 1, kInf, kNaN}, {-0.0, -0.0, 0.0, 0.0, 0.0, kInf, 1}, &Dispatch::float_atan2),
                {pi_d, -pi_d, 0.0, -0.0, half, quarter, kNaN}, d + " atan2");
    // Broadcasting: [2, 1] with [2].
    const DispatchTensor a = Dispatch::float_from_data(shaped({2, 3}, {2, 1}, dt), plain_device<TypeParam>());
    const DispatchTensor b = Dispatch::float_from_data(shaped({2, -1}, {2}, dt), plain_device<TypeParam>());
    expect_same(Dispatch::float_into_data(Dispatch::float_powf(a, b)).to_f64(),
                {4, 0.5, 9, dt == DType::F32 ? static_cast<double>(1.0f / 3.0f) : 1.0 / 3.0}, d + " [[2], [3]] ^ [2, -1]");
  }
}

TYPED_TEST(ScalarOpEdges, PowfAndAtan2Gradients) {
  for (const DType dt : {DType::F32, DType::F64}) {
    const std::string d(dtype_name(dt));
    const double tol = dt == DType::F32 ? 1e-6 : 1e-14;
    const auto grads = [dt](const std::vector<double>& av, const std::vector<double>& bv, double c,
                            DispatchTensor (*op)(const DispatchTensor&, const DispatchTensor&)) {
      const DispatchTensor a = Dispatch::float_from_data(data_of(av, dt), autodiff_device<TypeParam>());
      const DispatchTensor b = Dispatch::float_from_data(data_of(bv, dt), autodiff_device<TypeParam>());
      const DispatchTensor cot = Dispatch::float_from_data(data_of({c}, dt), autodiff_device<TypeParam>());
      const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(op(a, b), cot)));
      return std::pair{Dispatch::float_into_data(*Dispatch::grad(a, g)).to_f64(), Dispatch::float_into_data(*Dispatch::grad(b, g)).to_f64()};
    };
    // d/da = b a^(b-1): 0 where b = 0 (also at a = 0), +0 for a negative cotangent too;
    // d/db = a^b log a: 0 where a = 0 and b >= 0.
    const auto [da, db] = grads({2, 0.0, 0.0, 3, 0.0, kNaN}, {3, 0.0, 2, -0.0, 0.5, 0.0}, -1, &Dispatch::float_powf);
    const std::vector<double> want_da{-12, 0.0, 0.0, 0.0, -kInf, 0.0};
    const std::vector<double> want_db{-8 * std::log(2.0), 0.0, 0.0, -std::log(3.0), 0.0, kNaN};
    for (std::size_t i = 0; i < want_da.size(); ++i) {
      if (want_da[i] == 0) EXPECT_TRUE(same(da[i], 0.0)) << d << " powf d/da " << i << ": " << da[i];
      else if (std::isinf(want_da[i])) EXPECT_EQ(da[i], want_da[i]) << d << " powf d/da " << i;
      else EXPECT_NEAR(da[i], want_da[i], tol * 12) << d << " powf d/da " << i;
      if (std::isnan(want_db[i])) EXPECT_TRUE(std::isnan(db[i])) << d << " powf d/db " << i << ": " << db[i];
      else EXPECT_NEAR(db[i], want_db[i], tol * 8) << d << " powf d/db " << i;
    }
    // atan2: b / (a^2 + b^2), -a / (a^2 + b^2); NaN at the origin.
    const auto [ga, gb] = grads({1, 3, 0.0}, {1, -4, 0.0}, 1, &Dispatch::float_atan2);
    EXPECT_NEAR(ga[0], 0.5, tol) << d;
    EXPECT_NEAR(gb[0], -0.5, tol) << d;
    EXPECT_NEAR(ga[1], -4.0 / 25, tol) << d;
    EXPECT_NEAR(gb[1], -3.0 / 25, tol) << d;
    EXPECT_TRUE(std::isnan(ga[2]) && std::isnan(gb[2])) << d << " atan2 at the origin";
  }
}

// float_hypot: C's hypot (no overflow of a^2 + b^2; hypot(inf, NaN) = inf); gradients a / h, b / h.
TYPED_TEST(ScalarOpEdges, HypotValuesAndGradients) {
  for (const DType dt : {DType::F32, DType::F64}) {
    const std::string d(dtype_name(dt));
    const DispatchTensor a = Dispatch::float_from_data(data_of({3, -0.0, 3e30, kInf, kNaN, 0.0}, dt), autodiff_device<TypeParam>());
    const DispatchTensor b = Dispatch::float_from_data(data_of({-4, 5, 4e30, kNaN, 1, 0.0}, dt), autodiff_device<TypeParam>());
    const DispatchTensor h = Dispatch::float_hypot(a, b);
    const std::vector<double> hv = Dispatch::float_into_data(h).to_f64();
    expect_same({hv[0], hv[1], hv[3], hv[4], hv[5]}, {5, 5, kInf, kNaN, 0.0}, d + " hypot");
    EXPECT_NEAR(hv[2], 5e30, 5e30 * 1e-6) << d << " hypot without overflow";
    const Gradients g = Dispatch::backward(Dispatch::float_sum(h));
    const auto ga = Dispatch::float_into_data(*Dispatch::grad(a, g)).to_f64();
    const auto gb = Dispatch::float_into_data(*Dispatch::grad(b, g)).to_f64();
    const double tol = dt == DType::F32 ? 1e-6 : 1e-15;
    EXPECT_NEAR(ga[0], 0.6, tol) << d;
    EXPECT_NEAR(gb[0], -0.8, tol) << d;
    EXPECT_TRUE(ga[1] == 0) << d;
    EXPECT_EQ(gb[1], 1) << d;
    EXPECT_NEAR(ga[2], 0.6, tol) << d;  // no overflow: a / h, not a^2
    EXPECT_NEAR(gb[2], 0.8, tol) << d;
    EXPECT_TRUE(std::isnan(ga[5]) && std::isnan(gb[5])) << d << " hypot at the origin";
  }
}

}  // namespace
}  // namespace crossgrad
