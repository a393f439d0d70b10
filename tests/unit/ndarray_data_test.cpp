// NdArray, the reference backend: from_data / full / into_data and quantize / dequantize against
// values worked out by hand, and their panics.
#include "ndarray_test_support.hpp"

#include <cfloat>

namespace crossgrad {
namespace {
using namespace ndarray_test;

// ---- data -------------------------------------------------------------------------------------

TEST(NdArrayData, FromDataCopies) {
  const TensorData d = TensorData::from_f32({1, 2}, {2});
  const T a = NdArray::from_data(d, Device::cpu());
  const T b = NdArray::from_data(d, Device::cpu());
  EXPECT_NE(a.buffer.data(), b.buffer.data());
}

TEST(NdArrayData, FromDataOnCudaPanics) {
  expect_panic([] { NdArray::from_data(TensorData::from_f32({1}, {1}), Device::cuda(0)); },
               PanicId::DeviceUnavailable,
               "Device Cuda(0) of backend NdArray is not available: NdArray runs on the CPU only.");
}

TEST(NdArrayData, FullFills) {
  EXPECT_EQ(vals32(NdArray::float_full({2, 2}, 2.5, DType::F32, Device::cpu())),
            (std::vector<float>{2.5f, 2.5f, 2.5f, 2.5f}));
  const T s = NdArray::float_full({}, -1.0, DType::F64, Device::cpu());
  EXPECT_EQ(NdArray::shape(s), Shape{});
  EXPECT_EQ(vals64(s), std::vector<double>{-1.0});
  EXPECT_TRUE(vals32(NdArray::float_full({3, 0}, 1.0, DType::F32, Device::cpu())).empty());
  // 0.1 is rounded to float once, not computed in double and then rounded differently.
  EXPECT_EQ(vals32(NdArray::float_full({1}, 0.1, DType::F32, Device::cpu()))[0], 0.1f);
}

TEST(NdArrayData, FullPanics) {
  expect_panic([] { NdArray::float_full({1}, 0, DType::I64, Device::cpu()); },
               PanicId::UnsupportedDtype, "DType I64 is not supported by float_full.");
  expect_panic([] { NdArray::float_full({1}, 0, DType::F32, Device::cuda(1)); },
               PanicId::DeviceUnavailable,
               "Device Cuda(1) of backend NdArray is not available: NdArray runs on the CPU only.");
}

// ---- quantization -----------------------------------------------------------------------------

TEST(NdArrayQuantize, RoundTrip) {
  // max|x| = 127, so scale = 1 and q = round(x).
  const T a = f32({127, -63.5f, 0.4f, 2}, {2, 2});
  const NdArray::Quantized q = NdArray::quantize(a);
  EXPECT_EQ(q.scale, 1.0f);
  EXPECT_EQ(NdArray::dtype(q.values), DType::QInt8);
  EXPECT_EQ(NdArray::shape(q.values), (Shape{2, 2}));
  const std::int8_t* v = q.values.data<std::int8_t>();
  EXPECT_EQ((std::vector<int>{v[0], v[1], v[2], v[3]}), (std::vector<int>{127, -64, 0, 2}));
  const T d = NdArray::dequantize(q);
  EXPECT_EQ(NdArray::dtype(d), DType::F32);
  EXPECT_EQ(vals32(d), (std::vector<float>{127, -64, 0, 2}));
}

TEST(NdArrayQuantize, ScaleAndZeros) {
  // max|x| = 254 -> scale 2; 3 / 2 = 1.5 rounds away from zero to 2 -> dequantized 4.
  const NdArray::Quantized q = NdArray::quantize(f64({-254, 3}, {2}));
  EXPECT_EQ(q.scale, 2.0f);
  EXPECT_EQ(vals32(NdArray::dequantize(q)), (std::vector<float>{-254, 4}));
  const NdArray::Quantized z = NdArray::quantize(f32({0, 0}, {2}));
  EXPECT_EQ(z.scale, 1.0f);
  EXPECT_EQ(vals32(NdArray::dequantize(z)), (std::vector<float>{0, 0}));
  const NdArray::Quantized e = NdArray::quantize(f32({}, {0}));
  EXPECT_EQ(NdArray::shape(NdArray::dequantize(e)), (Shape{0}));
}

TEST(NdArrayQuantize, Panics) {
  expect_panic([] { NdArray::quantize(f32({1, std::numeric_limits<float>::infinity()}, {2})); },
               PanicId::QuantizeNonFinite, "quantize needs finite values, got inf.");
  expect_panic([] { NdArray::quantize(NdArray::from_data(TensorData::from_i64({1}, {1}), Device::cpu())); },
               PanicId::UnsupportedDtype, "DType I64 is not supported by quantize.");
}

TEST(NdArrayData, FromDataRejectsQuantizedStorage) {
  // QInt8 data has no scale, so it cannot become a tensor directly.
  const std::byte one{1};
  expect_panic(
      [&] {
        NdArray::from_data(TensorData::from_bytes(std::span<const std::byte>(&one, 1), {1}, DType::QInt8),
                           Device::cpu());
      },
      PanicId::UnsupportedDtype, "DType QInt8 is not supported by NdArray::from_data.");
}

// ---- quantize rounds a subnormal scale up only when max|x| / scale would exceed 127; when
// max|x| / 127 is an exact F32 (here the smallest subnormal), the scale is that value and the
// largest magnitude gets code 127. The older tests only had inputs that needed the round-up.
TEST(NdArrayQuantize, AnExactSubnormalScaleIsNotRoundedUp) {
  const double tiny = static_cast<double>(std::numeric_limits<float>::denorm_min());  // 2^-149
  const auto q = NdArray::quantize(f64({127 * tiny, -127 * tiny, 0}, {3}));
  EXPECT_EQ(q.scale, std::numeric_limits<float>::denorm_min());
  const TensorData codes = NdArray::into_data(q.values);
  ASSERT_EQ(codes.bytes().size(), 3u);
  EXPECT_EQ(static_cast<std::int8_t>(std::to_integer<std::uint8_t>(codes.bytes()[0])), 127);
  EXPECT_EQ(static_cast<std::int8_t>(std::to_integer<std::uint8_t>(codes.bytes()[1])), -127);
}

}  // namespace
}  // namespace crossgrad
