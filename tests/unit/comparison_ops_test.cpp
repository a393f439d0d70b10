// The comparisons of issue 36 (docs/OPS.md "Comparisons"): float_greater_equal, float_lower_equal,
// float_not_equal (broadcast), the scalar _elem forms and float_is_nan / float_is_inf, on every
// backend, plain and on the autodiff device, against IEEE's answers written here: NaN compares
// false except in not_equal (true), -0 equals +0, +-inf are ordered values, the scalar is rounded
// to the dtype first.
#include "test_support.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
// Specials and neighbours: NaN, +-0, +-inf, F32's largest and smallest, a subnormal, 0.1 (which
// F32 holds as 0.100000001490116), 1.5.
const std::vector<double> kValues{kNaN, -0.0, 0.0, kInf, -kInf, 1.5, -1.5, 0.1, 3.4028234663852886e38, 1e-45, -2.0};

TensorData data_of(const std::vector<double>& v, DType dtype, Shape shape) {
  if (dtype == DType::F64) return TensorData::from_f64(v, shape);
  return TensorData::from_f32(std::vector<float>(v.begin(), v.end()), shape);
}

std::vector<bool> bools(const DispatchTensor& t) { return Dispatch::bool_into_data(t).to_bool(); }
Shape shape_of(const DispatchTensor& t) { return Dispatch::bool_into_data(t).shape(); }

// x in the dtype, as the kernels see it.
double in_dtype(double x, DType dtype) { return dtype == DType::F32 ? static_cast<double>(static_cast<float>(x)) : x; }

template <class B>
class ComparisonOps : public ::testing::Test {
 protected:
  void SetUp() override { SKIP_IF_UNAVAILABLE(B); }
};
TYPED_TEST_SUITE(ComparisonOps, AllBackendTypes);

using Binary = DispatchTensor (*)(const DispatchTensor&, const DispatchTensor&);
using WithScalar = DispatchTensor (*)(const DispatchTensor&, double);
using Predicate = std::function<bool(double, double)>;

TYPED_TEST(ComparisonOps, BroadcastPairsFollowIeee) {
  const struct {
    const char* name;
    Binary op;
    Predicate want;
  } cases[] = {
      {"greater_equal", &Dispatch::float_greater_equal, [](double a, double b) { return a >= b; }},
      {"lower_equal", &Dispatch::float_lower_equal, [](double a, double b) { return a <= b; }},
      {"not_equal", &Dispatch::float_not_equal, [](double a, double b) { return !(a == b); }},
  };
  const std::size_t n = kValues.size();
  for (const bool tracked : {false, true}) {
    const DispatchDevice device = tracked ? autodiff_device<TypeParam>() : plain_device<TypeParam>();
    for (const DType dtype : {DType::F32, DType::F64}) {
      // [n, 1] against [1, n]: every pair, by broadcasting.
      const DispatchTensor a = Dispatch::float_from_data(data_of(kValues, dtype, {n, 1}), device);
      const DispatchTensor b = Dispatch::float_from_data(data_of(kValues, dtype, {1, n}), device);
      for (const auto& c : cases) {
        const DispatchTensor r = c.op(a, b);
        EXPECT_EQ(shape_of(r), (Shape{n, n}));
        const std::vector<bool> got = bools(r);
        ASSERT_EQ(got.size(), n * n);
        for (std::size_t i = 0; i < n; ++i) {
          for (std::size_t j = 0; j < n; ++j) {
            const double x = in_dtype(kValues[i], dtype), y = in_dtype(kValues[j], dtype);
            EXPECT_EQ(got[i * n + j], c.want(x, y)) << c.name << " " << dtype_name(dtype) << (tracked ? " tracked" : "")
                                                    << " (" << x << ", " << y << ")";
          }
        }
      }
    }
  }
}

TYPED_TEST(ComparisonOps, ScalarFormsRoundTheScalarToTheDtype) {
  const struct {
    const char* name;
    WithScalar op;
    Predicate want;
  } cases[] = {
      {"greater_equal_elem", &Dispatch::float_greater_equal_elem, [](double a, double s) { return a >= s; }},
      {"lower_elem", &Dispatch::float_lower_elem, [](double a, double s) { return a < s; }},
      {"lower_equal_elem", &Dispatch::float_lower_equal_elem, [](double a, double s) { return a <= s; }},
      {"equal_elem", &Dispatch::float_equal_elem, [](double a, double s) { return a == s; }},
      {"not_equal_elem", &Dispatch::float_not_equal_elem, [](double a, double s) { return !(a == s); }},
  };
  // 0.1 and 1e-50 are not F32 values: compared as float(0.1) and +0; 1e39 as +inf in F32.
  const std::vector<double> scalars{0.0, -0.0, 0.1, 1e-50, -1.5, kInf, -kInf, kNaN, 1e39};
  for (const bool tracked : {false, true}) {
    const DispatchDevice device = tracked ? autodiff_device<TypeParam>() : plain_device<TypeParam>();
    for (const DType dtype : {DType::F32, DType::F64}) {
      const DispatchTensor x = Dispatch::float_from_data(data_of(kValues, dtype, {kValues.size()}), device);
      for (const auto& c : cases) {
        for (const double s : scalars) {
          const std::vector<bool> got = bools(c.op(x, s));
          ASSERT_EQ(got.size(), kValues.size());
          for (std::size_t i = 0; i < kValues.size(); ++i) {
            const double v = in_dtype(kValues[i], dtype), sd = in_dtype(s, dtype);
            EXPECT_EQ(got[i], c.want(v, sd)) << c.name << " " << dtype_name(dtype) << (tracked ? " tracked" : "") << " (" << v
                                             << ", scalar " << s << ")";
          }
        }
      }
    }
  }
}

TYPED_TEST(ComparisonOps, IsNanAndIsInf) {
  for (const bool tracked : {false, true}) {
    const DispatchDevice device = tracked ? autodiff_device<TypeParam>() : plain_device<TypeParam>();
    for (const DType dtype : {DType::F32, DType::F64}) {
      const DispatchTensor x = Dispatch::float_from_data(data_of(kValues, dtype, {kValues.size()}), device);
      const std::vector<bool> nan = bools(Dispatch::float_is_nan(x));
      const std::vector<bool> inf = bools(Dispatch::float_is_inf(x));
      ASSERT_EQ(nan.size(), kValues.size());
      ASSERT_EQ(inf.size(), kValues.size());
      for (std::size_t i = 0; i < kValues.size(); ++i) {
        const double v = kValues[i];
        EXPECT_EQ(nan[i], i == 0) << "is_nan " << dtype_name(dtype) << " " << v;
        // 3.4028234663852886e38 is F32's largest finite value: not inf in either dtype.
        EXPECT_EQ(inf[i], v == kInf || v == -kInf) << "is_inf " << dtype_name(dtype) << " " << v;
      }
      // A NaN of the other sign and another payload is NaN too.
      const double neg_nan = -std::nan("0x123");
      EXPECT_EQ(bools(Dispatch::float_is_nan(Dispatch::float_from_data(data_of({neg_nan}, dtype, {1}), device))),
                std::vector<bool>{true});
      // Nothing to classify: an empty Bool tensor of the same shape.
      const DispatchTensor empty = Dispatch::float_from_data(data_of({}, dtype, {0, 3}), device);
      EXPECT_EQ(shape_of(Dispatch::float_is_inf(empty)), (Shape{0, 3}));
    }
  }
}

TYPED_TEST(ComparisonOps, MismatchesPanicWithTheCatalogMessages) {
  const DispatchDevice device = plain_device<TypeParam>();
  const DispatchTensor f23 = Dispatch::float_from_data(data_of({1, 2, 3, 4, 5, 6}, DType::F32, {2, 3}), device);
  const DispatchTensor f43 = Dispatch::float_from_data(data_of(std::vector<double>(12, 1.0), DType::F32, {4, 3}), device);
  const DispatchTensor d23 = Dispatch::float_from_data(data_of({1, 2, 3, 4, 5, 6}, DType::F64, {2, 3}), device);
  EXPECT_PANIC(Dispatch::float_greater_equal(f23, f43), "broadcast-mismatch",
               "float_greater_equal cannot broadcast shapes [2, 3] and [4, 3].");
  EXPECT_PANIC(Dispatch::float_not_equal(f23, d23), "dtype-mismatch", "float_not_equal needs operands of one dtype, got F32 and F64.");
  EXPECT_PANIC(Dispatch::float_lower_equal(d23, f23), "dtype-mismatch", "float_lower_equal needs operands of one dtype, got F64 and F32.");
}

}  // namespace
}  // namespace crossgrad
