#include "test_support.hpp"

#include <cmath>

namespace crossgrad {
namespace {

TEST(TensorData, RoundTripsEachReader) {
  EXPECT_EQ(TensorData::from_f32({1.5f, -2}, {2}).to_f32(), (std::vector<float>{1.5f, -2}));
  EXPECT_EQ(TensorData::from_f64({0.25}, {}).to_f64(), (std::vector<double>{0.25}));
  EXPECT_EQ(TensorData::from_i32({-3, 4}, {1, 2}).to_i64(), (std::vector<std::int64_t>{-3, 4}));
  EXPECT_EQ(TensorData::from_u8({255}, {1}).to_i64(), (std::vector<std::int64_t>{255}));
  EXPECT_EQ(TensorData::from_bool({true, false}, {2}).to_bool(), (std::vector<bool>{true, false}));
  EXPECT_EQ(TensorData::from_f64({0.1}, {1}).to_f32(), (std::vector<float>{0.1f}));
}

TEST(TensorData, ScalarsHaveOneElementAndZeroSizeDimsNone) {
  EXPECT_EQ(TensorData::from_f32({7}, {}).num_elements(), 1u);
  EXPECT_EQ(TensorData::from_f32({}, {3, 0}).num_elements(), 0u);
  EXPECT_EQ(Shape({2, 0, 5}).to_string(), "[2, 0, 5]");
  EXPECT_EQ(Shape{}.to_string(), "[]");
}

TEST(TensorData, EqualityIsBitwise) {
  const float nan = std::nanf("");
  EXPECT_EQ(TensorData::from_f32({nan}, {1}), TensorData::from_f32({nan}, {1}));
  EXPECT_NE(TensorData::from_f32({0.0f}, {1}), TensorData::from_f32({-0.0f}, {1}));
  EXPECT_NE(TensorData::from_f32({1}, {1}), TensorData::from_f32({1}, {1, 1}));
}

TEST(TensorData, FromBytesValidatesEverything) {
  const std::vector<std::byte> four(4);
  EXPECT_EQ(TensorData::from_bytes(four, {1}, DType::F32).to_f32(), (std::vector<float>{0}));
  EXPECT_PANIC(TensorData::from_bytes(four, {2}, DType::F32), "data-length-mismatch",
               "Tensor data has 1 values but shape [2] needs 2.");
  EXPECT_PANIC(TensorData::from_bytes(std::vector<std::byte>(3), {1}, DType::F32), "data-length-mismatch",
               "Tensor data has 0 values but shape [1] needs 1.");
  EXPECT_PANIC(TensorData::from_bytes(four, {2}, DType::BF16), "unsupported-dtype",
               "DType BF16 is not supported by TensorData.");
  EXPECT_PANIC(TensorData::from_bytes(four, {std::size_t{1} << 62, 8}, DType::U8), "shape-overflow",
               "Shape [4611686018427387904, 8] has more elements than fit in memory.");
  EXPECT_PANIC(TensorData::from_bool({true}, {1}).to_f32(), "data-kind-mismatch",
               "to_f32 needs float data, got dtype Bool.");
  EXPECT_PANIC(TensorData::from_f32({1}, {1}).to_i64(), "data-kind-mismatch", "to_i64 needs int data, got dtype F32.");
}

TEST(DType, NamesRoundTrip) {
  for (DType d : all_dtypes()) EXPECT_EQ(dtype_from_name(dtype_name(d)), d);
  EXPECT_EQ(dtype_name(DType::QInt8), "QInt8");
  EXPECT_FALSE(dtype_from_name("F8").has_value());
}

}  // namespace
}  // namespace crossgrad
