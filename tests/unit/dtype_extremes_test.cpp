// Every dtype at its extremes (issue 10, item 3): TensorData round trips (typed constructors, raw
// bytes, readers), every backend's from_data / into_data bit for bit, float_cast between F32 and
// F64, and quantize / dequantize of F32 and F64 at the edges of the int8 scheme
// (backends/quantized.hpp). Expected values are written here from the IEEE rules and the
// documented scheme, never read back from the engine.
#include "extreme_data.hpp"
#include "test_support.hpp"

#include <bit>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

// ---- TensorData ----------------------------------------------------------------------------------

TEST(DtypeExtremes, FloatBitsSurviveTensorDataAndItsSameTypeReader) {
  const auto b64 = f64_extreme_bits();
  const TensorData d64 = extreme_data(DType::F64);
  const std::vector<double> r64 = d64.to_f64();
  ASSERT_EQ(r64.size(), b64.size());
  for (std::size_t i = 0; i < b64.size(); ++i) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(r64[i]), b64[i]) << "F64 element " << i;
  }
  const auto b32 = f32_extreme_bits();
  const TensorData d32 = extreme_data(DType::F32);
  const std::vector<float> r32 = d32.to_f32();
  ASSERT_EQ(r32.size(), b32.size());
  for (std::size_t i = 0; i < b32.size(); ++i) {
    EXPECT_EQ(std::bit_cast<std::uint32_t>(r32[i]), b32[i]) << "F32 element " << i;
  }
  // The typed constructors store the same bytes as the raw ones.
  std::vector<double> v64(b64.size());
  for (std::size_t i = 0; i < b64.size(); ++i) v64[i] = std::bit_cast<double>(b64[i]);
  EXPECT_EQ(TensorData::from_f64(v64, {v64.size()}), d64) << first_difference(d64, TensorData::from_f64(v64, {v64.size()}));
  std::vector<float> v32(b32.size());
  for (std::size_t i = 0; i < b32.size(); ++i) v32[i] = std::bit_cast<float>(b32[i]);
  EXPECT_EQ(TensorData::from_f32(v32, {v32.size()}), d32) << first_difference(d32, TensorData::from_f32(v32, {v32.size()}));
}

// to_f32 on F64 rounds to nearest: overflow to a same-sign infinity, underflow to a same-sign
// zero, NaN stays NaN with its sign; to_f64 on F32 widens exactly.
TEST(DtypeExtremes, CrossWidthReadersRoundAsIeeeConversion) {
  const double inf = std::numeric_limits<double>::infinity();
  const TensorData d = TensorData::from_f64({DBL_MAX, -DBL_MAX, DBL_MIN, -DBL_TRUE_MIN, FLT_MAX, -static_cast<double>(FLT_TRUE_MIN),
                                             static_cast<double>(FLT_TRUE_MIN) / 2, 1e-50, inf, -inf, -std::nan("")},
                                            {11});
  const std::vector<float> f = d.to_f32();
  const float finf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(f[0], finf);
  EXPECT_EQ(f[1], -finf);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(f[2]), 0x00000000u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(f[3]), 0x80000000u);
  EXPECT_EQ(f[4], FLT_MAX);
  EXPECT_EQ(f[5], -FLT_TRUE_MIN);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(f[6]), 0x00000000u) << "half of denorm_min ties to even (0)";
  EXPECT_EQ(std::bit_cast<std::uint32_t>(f[7]), 0x00000000u);
  EXPECT_EQ(f[8], finf);
  EXPECT_EQ(f[9], -finf);
  EXPECT_TRUE(std::isnan(f[10]) && std::signbit(f[10]));

  const std::vector<double> w = extreme_data(DType::F32).to_f64();
  const auto b32 = f32_extreme_bits();
  for (std::size_t i = 0; i < b32.size(); ++i) {
    const float x = std::bit_cast<float>(b32[i]);
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(w[i]) && std::signbit(w[i]) == std::signbit(x)) << "element " << i;
    } else {
      EXPECT_EQ(std::bit_cast<std::uint64_t>(w[i]), std::bit_cast<std::uint64_t>(static_cast<double>(x))) << "element " << i;
    }
  }
  EXPECT_EQ(w[9], 1.401298464324817e-45);  // denorm_min of F32, exactly
  EXPECT_EQ(w[13], 3.4028234663852886e38);  // FLT_MAX, exactly
}

TEST(DtypeExtremes, IntReadersWidenWithTheirSign) {
  EXPECT_EQ(extreme_data(DType::I64).to_i64(),
            (std::vector<std::int64_t>{INT64_MIN, INT64_MIN + 1, INT64_MAX, INT64_MAX - 1, 0, 1, -1}));
  EXPECT_EQ(extreme_data(DType::I32).to_i64(),
            (std::vector<std::int64_t>{-2147483648LL, -2147483647LL, 2147483647LL, 2147483646LL, 0, 1, -1}));
  EXPECT_EQ(extreme_data(DType::I8).to_i64(), (std::vector<std::int64_t>{-128, -127, 127, 126, 0, 1, -1}));
  EXPECT_EQ(extreme_data(DType::U8).to_i64(), (std::vector<std::int64_t>{0, 1, 255, 254, 0, 1, 128}));
  // Little-endian bytes, two's complement.
  const std::vector<std::byte> i8 = {std::byte{0x80}, std::byte{0x81}, std::byte{0x7f}, std::byte{0x7e},
                                     std::byte{0x00}, std::byte{0x01}, std::byte{0xff}};
  EXPECT_EQ(TensorData::from_bytes(i8, {7}, DType::I8), extreme_data(DType::I8));
  const TensorData i32 = TensorData::from_i32({INT32_MIN}, {1});
  EXPECT_EQ(bits_string(i32.bytes(), 4, 0), "0x80000000");
}

TEST(DtypeExtremes, BoolHoldsExactlyZeroOrOne) {
  const TensorData b = extreme_data(DType::Bool);
  EXPECT_EQ(b.to_bool(), (std::vector<bool>{true, false, false, true}));
  EXPECT_EQ(bits_string(b.bytes(), 1, 0), "0x01");
  EXPECT_EQ(TensorData::from_bytes(b.bytes(), {4}, DType::Bool), b);
  for (unsigned bad : {2u, 3u, 0x7fu, 0x80u, 0xffu}) {
    const std::vector<std::byte> bytes = {std::byte{1}, std::byte{static_cast<unsigned char>(bad)}};
    EXPECT_PANIC(TensorData::from_bytes(bytes, {2}, DType::Bool), "invalid-bool-value",
                 "Bool data must hold 0 or 1, got byte " + std::to_string(bad) + " at index 1.");
  }
}

TEST(DtypeExtremes, QInt8DataHoldsEveryByteButNoReaderTakesIt) {
  const TensorData q = extreme_data(DType::QInt8);
  EXPECT_EQ(q.dtype(), DType::QInt8);
  EXPECT_EQ(bits_string(q.bytes(), 1, 0), "0x80");
  EXPECT_EQ(bits_string(q.bytes(), 1, 5), "0x7f");
  EXPECT_PANIC(q.to_i64(), "data-kind-mismatch", "to_i64 needs int data, got dtype QInt8.");
  EXPECT_PANIC(q.to_f32(), "data-kind-mismatch", "to_f32 needs float data, got dtype QInt8.");
  EXPECT_PANIC(q.to_f64(), "data-kind-mismatch", "to_f64 needs float data, got dtype QInt8.");
  EXPECT_PANIC(q.to_bool(), "data-kind-mismatch", "to_bool needs bool data, got dtype QInt8.");
}

TEST(DtypeExtremes, RawBytesRoundTripEveryDtypeAndRejectTheUnimplemented) {
  for (DType dtype : data_dtypes()) {
    const TensorData d = extreme_data(dtype);
    EXPECT_EQ(TensorData::from_bytes(d.bytes(), d.shape(), dtype), d) << dtype_name(dtype);
    // Scalar and zero-size shapes of the same dtype.
    const TensorData one = TensorData::from_bytes(d.bytes().first(dtype_size(dtype)), {}, dtype);
    EXPECT_EQ(one.num_elements(), 1u);
    EXPECT_EQ(TensorData::from_bytes({}, {3, 0}, dtype).num_elements(), 0u);
  }
  for (DType dtype : {DType::F16, DType::BF16}) {
    EXPECT_PANIC(TensorData::from_bytes(std::vector<std::byte>(4), {2}, dtype), "unsupported-dtype",
                 "DType " + std::string(dtype_name(dtype)) + " is not supported by TensorData.");
  }
}

// ---- every backend ---------------------------------------------------------------------------

template <class B>
using DtypeExtremesOnBackend = OnEachBackend<B>;
TYPED_TEST_SUITE(DtypeExtremesOnBackend, AllBackendTypes, BackendTestName);

// from_data then into_data gives the same bytes (NaN payloads, signalling NaNs, -0, subnormals),
// at a small size and at one past two element-wise grains (where a backend may split a copy).
TYPED_TEST(DtypeExtremesOnBackend, FromDataIntoDataKeepsEveryBit) {
  using B = TypeParam;
  for (DType dtype : data_dtypes()) {
    if (dtype == DType::QInt8) continue;  // below: not a backend primitive
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, extreme_data(dtype).num_elements(), std::size_t{2 * 32768 + 7}}) {
      const TensorData d = n == 0 ? TensorData::from_bytes({}, {0}, dtype) : tiled(extreme_data(dtype), n);
      const TensorData back = B::into_data(B::from_data(d, B::default_device()));
      EXPECT_EQ(back, d) << B::name << " " << dtype_name(dtype) << " n=" << n << ": " << first_difference(d, back);
    }
  }
}

TYPED_TEST(DtypeExtremesOnBackend, QInt8DataIsNotABackendPrimitive) {
  using B = TypeParam;
  EXPECT_PANIC(B::from_data(extreme_data(DType::QInt8), B::default_device()), "unsupported-dtype",
               "DType QInt8 is not supported by " + std::string(B::name) + "::from_data.");
}

// F64 -> F32 rounds as the IEEE conversion (overflow to inf, underflow to a signed zero), F32 -> F64
// is exact; NaN stays NaN with its sign.
TYPED_TEST(DtypeExtremesOnBackend, FloatCastAtTheExtremes) {
  using B = TypeParam;
  const auto b64 = f64_extreme_bits();
  const std::vector<float> to32 =
      B::into_data(B::float_cast(B::from_data(extreme_data(DType::F64), B::default_device()), DType::F32)).to_f32();
  ASSERT_EQ(to32.size(), b64.size());
  for (std::size_t i = 0; i < b64.size(); ++i) {
    const double x = std::bit_cast<double>(b64[i]);
    const float want = static_cast<float>(x);
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(to32[i]) && std::signbit(to32[i]) == std::signbit(x)) << B::name << " element " << i;
    } else {
      EXPECT_EQ(std::bit_cast<std::uint32_t>(to32[i]), std::bit_cast<std::uint32_t>(want)) << B::name << " element " << i;
    }
  }
  const auto b32 = f32_extreme_bits();
  const std::vector<double> to64 =
      B::into_data(B::float_cast(B::from_data(extreme_data(DType::F32), B::default_device()), DType::F64)).to_f64();
  ASSERT_EQ(to64.size(), b32.size());
  for (std::size_t i = 0; i < b32.size(); ++i) {
    const float x = std::bit_cast<float>(b32[i]);
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(to64[i]) && std::signbit(to64[i]) == std::signbit(x)) << B::name << " element " << i;
    } else {
      EXPECT_EQ(to64[i], static_cast<double>(x)) << B::name << " element " << i;
      EXPECT_EQ(std::signbit(to64[i]), std::signbit(x)) << B::name << " element " << i;
    }
  }
}

// ---- quantize / dequantize at the extremes ----------------------------------------------------
// The scheme (backends/quantized.hpp, docs/OPS.md "quantize / dequantize"): scale = max|x| / 127
// in F64 rounded to the nearest F32, except that a subnormal scale is rounded up (the smallest F32
// s with 127 s >= max|x|), and 1 when every value is 0; code = round(x / scale) in F64, half away
// from zero, clamped to [-127, 127]; dequantize = float(code) * scale in F32. Panics:
// quantize-non-finite first, then quantize-scale-overflow when max|x| > 127 * FLT_MAX.

struct Quantized {
  float scale;
  std::vector<std::int8_t> q;
  std::vector<float> dequantized;
};

float expected_scale(double max_abs) {
  if (max_abs == 0) return 1.0f;
  float s = static_cast<float>(max_abs / 127.0);
  if (s < FLT_MIN) {  // subnormal (or 0): the smallest F32 whose 127 multiple reaches max|x|
    while (127.0 * static_cast<double>(s) < max_abs) s = std::nextafter(s, FLT_MAX);
    while (s > 0 && 127.0 * static_cast<double>(std::nextafter(s, 0.0f)) >= max_abs) s = std::nextafter(s, 0.0f);
  }
  return s;
}

Quantized expected_quantization(const std::vector<double>& x) {
  double max_abs = 0;
  for (double v : x) max_abs = std::max(max_abs, std::fabs(v));
  Quantized out{expected_scale(max_abs), {}, {}};
  for (double v : x) {
    const double r = std::round(v / static_cast<double>(out.scale));
    const auto q = static_cast<std::int8_t>(r > 127 ? 127 : (r < -127 ? -127 : r));
    out.q.push_back(q);
    out.dequantized.push_back(static_cast<float>(q) * out.scale);
  }
  return out;
}

template <class B>
void expect_quantizes_as_the_scheme(const TensorData& data, const std::vector<double>& x, const std::string& what) {
  const Quantized want = expected_quantization(x);
  const typename B::Quantized q = B::quantize(B::from_data(data, B::default_device()));
  EXPECT_EQ(q.scale, want.scale) << B::name << " " << what;
  const TensorData qd = B::into_data(q.values);
  ASSERT_EQ(qd.dtype(), DType::QInt8) << what;
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(static_cast<std::int8_t>(std::to_integer<int>(qd.bytes()[i])), want.q[i]) << B::name << " " << what << " element " << i;
  }
  const std::vector<float> dq = B::into_data(B::dequantize(q)).to_f32();
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(std::bit_cast<std::uint32_t>(dq[i]), std::bit_cast<std::uint32_t>(want.dequantized[i]))
        << B::name << " " << what << " element " << i << ": want " << want.dequantized[i] << ", got " << dq[i];
  }
}

TYPED_TEST(DtypeExtremesOnBackend, QuantizeAtTheF32Extremes) {
  using B = TypeParam;
  // The largest magnitude negative: the scale must come from |x|, and -max maps to -127.
  const std::vector<float> f = {-FLT_MAX, FLT_MAX / 2, FLT_MIN, -FLT_TRUE_MIN, 0.0f, -0.0f, 1.0f, FLT_MAX / 254};
  std::vector<double> x(f.begin(), f.end());
  expect_quantizes_as_the_scheme<B>(TensorData::from_f32(f, {f.size()}), x, "F32 at +-max");
  // Ordinary magnitudes with exact halves: round half away from zero (2.5 -> 3, -0.5 -> -1).
  const std::vector<float> h = {127, 2.5f, -2.5f, 0.5f, -0.5f, 126.5f, -127};
  expect_quantizes_as_the_scheme<B>(TensorData::from_f32(h, {h.size()}), std::vector<double>(h.begin(), h.end()), "F32 halves");
}

TYPED_TEST(DtypeExtremesOnBackend, QuantizeAtTheF64ExtremesWithinTheF32Scale) {
  using B = TypeParam;
  // max|x| = 127 * FLT_MAX exactly: the largest magnitude whose scale (FLT_MAX) is finite.
  const double limit = 127.0 * static_cast<double>(FLT_MAX);
  const std::vector<double> x = {-limit, limit / 3, DBL_TRUE_MIN, -DBL_MIN, 0.0, 1e300 / 1e300};
  expect_quantizes_as_the_scheme<B>(TensorData::from_f64(x, {x.size()}), x, "F64 at 127 * FLT_MAX");
  const std::vector<double> y = {1e-30, -3e-31, 1e-300};
  expect_quantizes_as_the_scheme<B>(TensorData::from_f64(y, {y.size()}), y, "F64 tiny");
}

// Subnormal magnitudes: the scale is rounded up, so F32 denorm_min (and small multiples of it)
// come back exactly instead of as 0.
TYPED_TEST(DtypeExtremesOnBackend, QuantizeSubnormalTensorsRoundTheScaleUp) {
  using B = TypeParam;
  const std::vector<float> f = {FLT_TRUE_MIN, -FLT_TRUE_MIN, 0.0f, 3 * FLT_TRUE_MIN};
  expect_quantizes_as_the_scheme<B>(TensorData::from_f32(f, {f.size()}), std::vector<double>(f.begin(), f.end()), "F32 subnormal");
  const std::vector<float> back = B::into_data(B::dequantize(B::quantize(B::from_data(TensorData::from_f32(f, {4}), B::default_device())))).to_f32();
  EXPECT_EQ(back, f) << B::name << ": denorm_min multiples round-trip exactly";
  const std::vector<double> d = {1e-300, -DBL_TRUE_MIN, 0.0};
  expect_quantizes_as_the_scheme<B>(TensorData::from_f64(d, {d.size()}), d, "F64 far below F32");
  const std::vector<float> edge = {FLT_MIN * 100, -FLT_MIN};  // max / 127 just under min_normal
  expect_quantizes_as_the_scheme<B>(TensorData::from_f32(edge, {edge.size()}), std::vector<double>(edge.begin(), edge.end()),
                                    "F32 scale at the subnormal boundary");
}

TYPED_TEST(DtypeExtremesOnBackend, QuantizeRefusesNonFiniteValuesAndScaleOverflow) {
  using B = TypeParam;
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_PANIC(B::quantize(B::from_data(TensorData::from_f32({1, inf}, {2}), B::default_device())), "quantize-non-finite",
               "quantize needs finite values, got inf.");
  EXPECT_PANIC(B::quantize(B::from_data(TensorData::from_f64({-std::numeric_limits<double>::infinity(), 1}, {2}), B::default_device())),
               "quantize-non-finite", "quantize needs finite values, got -inf.");
  const auto caught = panic_of([&] {
    (void)B::quantize(B::from_data(TensorData::from_f64({0, std::nan("")}, {2}), B::default_device()));
  });
  ASSERT_TRUE(caught.has_value());
  EXPECT_EQ(caught->id, "quantize-non-finite");
  // Non-finite is reported before an overflowing magnitude, wherever it stands.
  EXPECT_PANIC(B::quantize(B::from_data(TensorData::from_f64({1e41, std::numeric_limits<double>::infinity()}, {2}), B::default_device())),
               "quantize-non-finite", "quantize needs finite values, got inf.");
  // Above 127 * FLT_MAX the F32 scale would be inf; the limit itself is accepted (scale FLT_MAX).
  const double limit = 127.0 * static_cast<double>(FLT_MAX);
  const std::string prefix =
      "quantize needs values of magnitude at most 127 * f32::MAX (about 4.32e40) so that its F32 scale is finite, got max |x| = ";
  for (double big : {std::nextafter(limit, DBL_MAX), -DBL_MAX, 1e41}) {
    char text[64];
    const auto end = std::to_chars(text, text + sizeof text, std::fabs(big), std::chars_format::scientific).ptr;
    EXPECT_PANIC(B::quantize(B::from_data(TensorData::from_f64({0.5, big}, {2}), B::default_device())), "quantize-scale-overflow",
                 prefix + std::string(text, end) + ".");
  }
  EXPECT_EQ(B::quantize(B::from_data(TensorData::from_f64({limit, -limit}, {2}), B::default_device())).scale, FLT_MAX);
}

}  // namespace
}  // namespace crossgrad
