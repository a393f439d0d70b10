// quantize / dequantize at the edges of the scheme, on every backend (docs/OPS.md, "quantize /
// dequantize"): the largest magnitude an F32 scale can carry (127 * FLT_MAX), just below and just
// above it, f64::MAX, subnormals, all-zero and empty tensors. Expected scales, codes and
// dequantized values are worked out by hand from the rule, never by calling the engine's scheme.
#include "test_support.hpp"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

constexpr double kF32Max = static_cast<double>(FLT_MAX);
constexpr double kLimit = 127.0 * kF32Max;  // 4.3215858023093165e40, exact in double
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr float kInfF = std::numeric_limits<float>::infinity();

std::string overflow_message(const std::string& value) {
  return "quantize needs values of magnitude at most 127 * f32::MAX (about 4.32e40) so that its F32 scale is "
         "finite, got max |x| = " + value + ".";
}

template <class B>
class QuantizeExtremes : public OnEachBackend<B> {
 protected:
  static typename B::Quantized quantize(const TensorData& data) {
    return B::quantize(B::from_data(data, B::default_device()));
  }
  static std::vector<int> codes(const typename B::Quantized& q) {
    const TensorData d = B::into_data(q.values);
    EXPECT_EQ(d.dtype(), DType::QInt8);
    std::vector<int> out;
    for (std::byte b : d.bytes()) out.push_back(static_cast<std::int8_t>(std::to_integer<std::uint8_t>(b)));
    return out;
  }
  static std::vector<float> dequantized(const typename B::Quantized& q) {
    return B::into_data(B::dequantize(q)).to_f32();
  }
};
TYPED_TEST_SUITE(QuantizeExtremes, AllBackendTypes, BackendTestName);

TYPED_TEST(QuantizeExtremes, LargestMagnitudeIs127TimesF32Max) {
  // max |x| = 127 * FLT_MAX: scale FLT_MAX; L / FLT_MAX = 127, FLT_MAX / FLT_MAX = 1, -0.5 rounds
  // away from zero to -1. Dequantized in F32: 127 * FLT_MAX is +inf, as any F64 -> F32 conversion.
  const auto q = this->quantize(TensorData::from_f64({kLimit, kF32Max, -kF32Max / 2, 0, -kLimit}, {5}));
  EXPECT_EQ(q.scale, FLT_MAX);
  EXPECT_EQ(this->codes(q), (std::vector<int>{127, 1, -1, 0, -127}));
  EXPECT_EQ(this->dequantized(q), (std::vector<float>{kInfF, FLT_MAX, -FLT_MAX, 0, -kInfF}));
}

TYPED_TEST(QuantizeExtremes, OneUlpBelowTheLimitIsAccepted) {
  // (L - ulp) / 127 rounds to FLT_MAX in F32; the value is 126.99999... scales -> code 127.
  const double below = std::nextafter(kLimit, 0.0);
  const auto q = this->quantize(TensorData::from_f64({below, 1.0}, {2}));
  EXPECT_EQ(q.scale, FLT_MAX);
  EXPECT_EQ(this->codes(q), (std::vector<int>{127, 0}));
}

TYPED_TEST(QuantizeExtremes, AboveTheLimitPanicsWithTheLargestMagnitude) {
  // Before the fix the F32 scale was inf: every code 0 and every dequantized value NaN, silently.
  const double above = std::nextafter(kLimit, kInf);
  EXPECT_PANIC(this->quantize(TensorData::from_f64({1.0, above}, {2})), "quantize-scale-overflow",
               overflow_message("4.321585802309317e+40"));
  EXPECT_PANIC(this->quantize(TensorData::from_f64({-1e41, 3.0}, {2})), "quantize-scale-overflow",
               overflow_message("1e+41"));
  EXPECT_PANIC(this->quantize(TensorData::from_f64({DBL_MAX}, {1})), "quantize-scale-overflow",
               overflow_message("1.7976931348623157e+308"));
  EXPECT_PANIC(this->quantize(TensorData::from_f64({0.0, -DBL_MAX}, {1, 2})), "quantize-scale-overflow",
               overflow_message("1.7976931348623157e+308"));
  // In a tensor big enough for threaded / multi-block paths, the offender in the middle.
  std::vector<double> big(200003, 0.25);
  big[100001] = -2e42;
  EXPECT_PANIC(this->quantize(TensorData::from_f64(big, {200003})), "quantize-scale-overflow",
               overflow_message("2e+42"));
}

TYPED_TEST(QuantizeExtremes, NonFiniteIsReportedBeforeAnOverflow) {
  EXPECT_PANIC(this->quantize(TensorData::from_f64({1e41, kInf}, {2})), "quantize-non-finite",
               "quantize needs finite values, got inf.");
  EXPECT_PANIC(this->quantize(TensorData::from_f64({-kInf, DBL_MAX}, {2})), "quantize-non-finite",
               "quantize needs finite values, got -inf.");
}

TYPED_TEST(QuantizeExtremes, SubnormalInputsKeepANonZeroScale) {
  const float tiny = std::numeric_limits<float>::denorm_min();  // 2^-149
  // max |x| = 3 * 2^-149: 3/127 * 2^-149 rounds to 0 in F32, so the scale rounds up to 2^-149
  // and these values round-trip exactly (before the fix: scale 1, every value became 0).
  const auto q = this->quantize(TensorData::from_f32({3 * tiny, -tiny, 0}, {3}));
  EXPECT_EQ(q.scale, tiny);
  EXPECT_EQ(this->codes(q), (std::vector<int>{3, -1, 0}));
  EXPECT_EQ(this->dequantized(q), (std::vector<float>{3 * tiny, -tiny, 0}));

  // max |x| = FLT_MIN = 8388608 * 2^-149: / 127 = 66052.03 * 2^-149, a subnormal scale, rounded
  // up to 66053 * 2^-149 so that no code needs more than 127: FLT_MIN -> 127, -FLT_MIN / 2
  // (4194304 * 2^-149) / 66053 = -63.4995 -> -63.
  const auto m = this->quantize(TensorData::from_f32({FLT_MIN, -FLT_MIN / 2}, {2}));
  const float scale = std::ldexp(66053.0f, -149);
  EXPECT_EQ(m.scale, scale);
  EXPECT_EQ(this->codes(m), (std::vector<int>{127, -63}));
  EXPECT_EQ(this->dequantized(m), (std::vector<float>{127 * scale, -63 * scale}));

  // F64 subnormals are far below the smallest F32 scale: scale 2^-149, codes 0, dequantized 0.
  const auto d = this->quantize(TensorData::from_f64({std::numeric_limits<double>::denorm_min(), -DBL_MIN}, {2}));
  EXPECT_EQ(d.scale, tiny);
  EXPECT_EQ(this->codes(d), (std::vector<int>{0, 0}));
  EXPECT_EQ(this->dequantized(d), (std::vector<float>{0, 0}));
}

TYPED_TEST(QuantizeExtremes, AllZeroAndEmptyTensorsGetScaleOne) {
  const auto z32 = this->quantize(TensorData::from_f32({0, -0.0f, 0}, {3}));
  EXPECT_EQ(z32.scale, 1.0f);
  EXPECT_EQ(this->codes(z32), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(this->dequantized(z32), (std::vector<float>{0, 0, 0}));
  const auto z64 = this->quantize(TensorData::from_f64(std::vector<double>(70000, 0.0), {70000}));
  EXPECT_EQ(z64.scale, 1.0f);
  EXPECT_EQ(this->dequantized(z64), std::vector<float>(70000, 0.0f));
  const auto e = this->quantize(TensorData::from_f64({}, {0, 3}));
  EXPECT_EQ(e.scale, 1.0f);
  EXPECT_EQ(TypeParam::shape(TypeParam::dequantize(e)), (Shape{0, 3}));
}

TYPED_TEST(QuantizeExtremes, DispatchNeverReturnsSilentNaN) {
  // The defect as a user saw it: quantize then dequantize an F64 tensor holding 1e41.
  const DispatchTensor x =
      Dispatch::float_from_data(TensorData::from_f64({1e41, 1.0}, {2}), plain_device<TypeParam>());
  EXPECT_PANIC(Dispatch::dequantize(Dispatch::quantize(x)), "quantize-scale-overflow", overflow_message("1e+41"));
}

// A Quantized assembled by hand around float values is refused with unsupported-dtype
// ("DType {dtype} is not supported by {what}.").
TEST(CpuQuantize, DequantizeRefusesValuesThatAreNotQInt8) {
  const backends::NdArray::Quantized nq{backends::NdArray::from_data(TensorData::from_f32({1, 2}, {2}), Device::cpu()), 0.5f};
  EXPECT_PANIC(backends::NdArray::dequantize(nq), "unsupported-dtype", "DType F32 is not supported by dequantize.");
  const backends::Flex::Quantized fq{backends::Flex::from_data(TensorData::from_i64({1, 2}, {2}), Device::cpu()), 0.5f};
  EXPECT_PANIC(backends::Flex::dequantize(fq), "unsupported-dtype", "DType I64 is not supported by dequantize.");
}

}  // namespace
}  // namespace crossgrad
