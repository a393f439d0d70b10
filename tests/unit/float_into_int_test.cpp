// float_into_int (docs/OPS.md "Conversions"): Rust's `as` on every backend, plain and tracked, for
// every int target, against values worked out here from the rule (toward zero, NaN to 0,
// saturating at the target's ends), and the target check.
#include "test_support.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class FloatIntoInt : public OnEachBackend<B> {};
TYPED_TEST_SUITE(FloatIntoInt, AllBackendTypes, BackendTestName);

std::vector<std::int64_t> ints_of(const DispatchTensor& t, DType want) {
  const TensorData d = Dispatch::int_into_data(t);
  EXPECT_EQ(d.dtype(), want);
  return d.to_i64();
}

TYPED_TEST(FloatIntoInt, TruncatesSaturatesAndSendsNanToZero) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> x = {2.9, -2.9, -0.0, NAN, inf, -inf, 300.7, -129.5, 1e30, -1e30, 127.99, -0.9};
  for (const DispatchDevice& device : {plain_device<TypeParam>(), autodiff_device<TypeParam>()}) {
    for (const DType dt : {DType::F32, DType::F64}) {
      const DispatchTensor t = tensor_on(device, x, dt, {x.size()});
      const std::int64_t i64max = std::numeric_limits<std::int64_t>::max(), i64min = std::numeric_limits<std::int64_t>::min();
      EXPECT_EQ(ints_of(Dispatch::float_into_int(t, DType::I64), DType::I64),
                (std::vector<std::int64_t>{2, -2, 0, 0, i64max, i64min, 300, -129, i64max, i64min, 127, 0}));
      EXPECT_EQ(ints_of(Dispatch::float_into_int(t, DType::I32), DType::I32),
                (std::vector<std::int64_t>{2, -2, 0, 0, 2147483647, -2147483648LL, 300, -129, 2147483647, -2147483648LL, 127, 0}));
      EXPECT_EQ(ints_of(Dispatch::float_into_int(t, DType::I8), DType::I8),
                (std::vector<std::int64_t>{2, -2, 0, 0, 127, -128, 127, -128, 127, -128, 127, 0}));
      EXPECT_EQ(ints_of(Dispatch::float_into_int(t, DType::U8), DType::U8),
                (std::vector<std::int64_t>{2, 0, 0, 0, 255, 0, 255, 0, 255, 0, 127, 0}));
    }
  }
}

TYPED_TEST(FloatIntoInt, TheLargestValuesBelowEachEndStayExact) {
  const DispatchDevice device = plain_device<TypeParam>();
  // F64 2^63 - 1024 is the largest double below 2^63; 2^63 itself saturates.
  const DispatchTensor t = tensor_on(device, {0x1p63 - 1024, 0x1p63, -0x1p63}, DType::F64, {3});
  EXPECT_EQ(ints_of(Dispatch::float_into_int(t, DType::I64), DType::I64),
            (std::vector<std::int64_t>{9223372036854774784LL, std::numeric_limits<std::int64_t>::max(),
                                       std::numeric_limits<std::int64_t>::min()}));
}

TYPED_TEST(FloatIntoInt, TheTargetIsAnIntDtype) {
  const DispatchTensor t = tensor_on(plain_device<TypeParam>(), {1, 2}, DType::F32, {2});
  EXPECT_PANIC(Dispatch::float_into_int(t, DType::F64), "unsupported-dtype",
               "DType F64 is not supported by float_into_int targets.");
  EXPECT_PANIC(Dispatch::float_into_int(t, DType::Bool), "unsupported-dtype",
               "DType Bool is not supported by float_into_int targets.");
}

}  // namespace
}  // namespace crossgrad
