// The layout ops of the int and bool kinds (docs/OPS.md "Integer arithmetic", Note [One layout
// kernel for every kind]) on every backend, plain and on an autodiff device: elements move bit for
// bit at the dtypes' ends (I64 values no double holds), the receiver's kind is checked, and every
// panic names the op that was called. Expected values are written out here from the op's layout.
#include "test_support.hpp"

#include <cstdint>
#include <limits>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
class LayoutKinds : public OnEachBackend<B> {};
TYPED_TEST_SUITE(LayoutKinds, AllBackendTypes, BackendTestName);

constexpr std::int64_t kI64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();

std::vector<DispatchDevice> devices_of(const DispatchDevice& plain) { return {plain, DispatchDevice::Autodiff(plain)}; }

// [2, 3]: row 0 the I64 ends and their neighbours (none of them a double), row 1 small values.
DispatchTensor i64_2x3(const DispatchDevice& d) {
  return Dispatch::int_from_data(TensorData::from_i64({kI64Min, kI64Max, kI64Max - 1, -1, 0, 7}, Shape{2, 3}), d);
}
DispatchTensor bool_2x3(const DispatchDevice& d) {
  return Dispatch::bool_from_data(TensorData::from_bool({true, false, false, true, true, false}, Shape{2, 3}), d);
}

TYPED_TEST(LayoutKinds, IntMovesKeepEveryBitOfTheI64Ends) {
  for (const DispatchDevice& d : devices_of(plain_device<TypeParam>())) {
    const DispatchTensor x = i64_2x3(d);
    EXPECT_EQ(Dispatch::int_into_data(Dispatch::int_transpose(x)).to_i64(),
              (std::vector<std::int64_t>{kI64Min, -1, kI64Max, 0, kI64Max - 1, 7}));
    EXPECT_EQ(Dispatch::int_into_data(Dispatch::int_flip(x, {0, 1})).to_i64(),
              (std::vector<std::int64_t>{7, 0, -1, kI64Max - 1, kI64Max, kI64Min}));
    EXPECT_EQ(Dispatch::int_into_data(Dispatch::int_slice(x, {{0, 1}, {1, 3}})).to_i64(), (std::vector<std::int64_t>{kI64Max, kI64Max - 1}));
    const DispatchTensor idx = Dispatch::int_from_data(TensorData::from_i64({2, 0}, Shape{2}), d);
    EXPECT_EQ(Dispatch::int_into_data(Dispatch::int_select(x, 1, idx)).to_i64(),
              (std::vector<std::int64_t>{kI64Max - 1, kI64Min, 7, -1}));
    EXPECT_EQ(Dispatch::int_into_data(Dispatch::int_cat({x, Dispatch::int_slice(x, {{1, 2}})}, 0)).to_i64(),
              (std::vector<std::int64_t>{kI64Min, kI64Max, kI64Max - 1, -1, 0, 7, -1, 0, 7}));
    const DispatchTensor block = Dispatch::int_from_data(TensorData::from_i64({kI64Max, kI64Min}, Shape{1, 2}), d);
    EXPECT_EQ(Dispatch::int_into_data(Dispatch::int_slice_assign(x, {{1, 2}, {0, 2}}, block)).to_i64(),
              (std::vector<std::int64_t>{kI64Min, kI64Max, kI64Max - 1, kI64Max, kI64Min, 7}));
    // Windows of 2, step 1, along dim 1: [2, 2 windows, 2].
    const TensorData windows = Dispatch::int_into_data(Dispatch::int_unfold(x, 1, 2, 1));
    EXPECT_EQ(windows.shape(), (Shape{2, 2, 2}));
    EXPECT_EQ(windows.to_i64(), (std::vector<std::int64_t>{kI64Min, kI64Max, kI64Max, kI64Max - 1, -1, 0, 0, 7}));
    const TensorData twice = Dispatch::int_into_data(Dispatch::int_repeat_dim(Dispatch::int_slice(x, {{0, 1}}), 0, 2));
    EXPECT_EQ(twice.to_i64(), (std::vector<std::int64_t>{kI64Min, kI64Max, kI64Max - 1, kI64Min, kI64Max, kI64Max - 1}));
  }
}

TYPED_TEST(LayoutKinds, BoolMovesAndNarrowIntsKeepTheirValues) {
  for (const DispatchDevice& d : devices_of(plain_device<TypeParam>())) {
    const TensorData b = Dispatch::bool_into_data(Dispatch::bool_permute(bool_2x3(d), {1, 0}));
    EXPECT_EQ(b.shape(), (Shape{3, 2}));
    EXPECT_EQ(b.to_bool(), (std::vector<bool>{true, true, false, true, false, false}));
    EXPECT_EQ(Dispatch::bool_into_data(Dispatch::bool_expand(Dispatch::bool_slice(bool_2x3(d), {{0, 1}, {0, 1}}), {2, 2})).to_bool(),
              (std::vector<bool>{true, true, true, true}));
    const DispatchTensor u8 = Dispatch::int_from_data(TensorData::from_u8({0, 255, 128}, Shape{3}), d);
    const TensorData flipped = Dispatch::int_into_data(Dispatch::int_flip(u8, {0}));
    EXPECT_EQ(flipped.dtype(), DType::U8);
    EXPECT_EQ(flipped.to_i64(), (std::vector<std::int64_t>{128, 255, 0}));
    const DispatchTensor i8 = Dispatch::int_from_data(TensorData::from_i8({-128, 127}, Shape{2, 1}), d);
    EXPECT_EQ(Dispatch::int_into_data(Dispatch::int_swap_dims(i8, 0, 1)).to_i64(), (std::vector<std::int64_t>{-128, 127}));
    EXPECT_EQ(Dispatch::int_into_data(Dispatch::int_reshape(i8, {2})).shape(), (Shape{2}));
  }
}

TYPED_TEST(LayoutKinds, PanicsNameTheOpThatWasCalled) {
  const DispatchDevice d = plain_device<TypeParam>();
  EXPECT_PANIC(Dispatch::int_permute(i64_2x3(d), {0, 0}), "permute-invalid", "int_permute needs each of the 2 dims exactly once, got [0, 0].");
  EXPECT_PANIC(Dispatch::bool_flip(bool_2x3(d), {2}), "flip-invalid", "bool_flip needs distinct dims below the rank 2, got [2].");
  EXPECT_PANIC(Dispatch::int_reshape(i64_2x3(d), {4}), "reshape-mismatch", "int_reshape cannot turn shape [2, 3] into [4]: element counts differ.");
  EXPECT_PANIC(Dispatch::bool_expand(bool_2x3(d), {4, 3}), "expand-mismatch", "bool_expand cannot expand shape [2, 3] to [4, 3].");
  EXPECT_PANIC(Dispatch::int_cat({}, 0), "cat-empty", "int_cat needs at least one tensor.");
  EXPECT_PANIC(Dispatch::bool_cat({bool_2x3(d), Dispatch::bool_slice(bool_2x3(d), {{0, 2}, {0, 2}})}, 0), "cat-mismatch",
               "bool_cat needs shapes that differ only in dim 0, got [2, 3] and [2, 2].");
  EXPECT_PANIC(Dispatch::int_unfold(i64_2x3(d), 1, 2, 0), "unfold-step", "int_unfold needs a step of at least 1, got 0.");
  EXPECT_PANIC(Dispatch::int_slice(i64_2x3(d), {{0, 3}}), "slice-out-of-range", "int_slice got range 0..3 for dim 0 of size 2.");
}

TYPED_TEST(LayoutKinds, OperandsOfAnotherKindOrDtypeAreRefused) {
  const DispatchDevice d = plain_device<TypeParam>();
  const DispatchTensor i32 = Dispatch::int_from_data(TensorData::from_i32({1, 2, 3}, Shape{1, 3}), d);
  // Another int dtype in the list: the backend's dtype rule, naming the op.
  const auto mixed = panic_of([&] { (void)Dispatch::int_cat({i64_2x3(d), i32}, 0); });
  ASSERT_TRUE(mixed.has_value());
  EXPECT_EQ(mixed->id, "dtype-mismatch");
  EXPECT_NE(mixed->message.find("int_cat"), std::string::npos) << mixed->message;
  // Another kind: Dispatch's op-kind-mismatch, before any backend rule.
  const auto kind = panic_of([&] { (void)Dispatch::int_flip(bool_2x3(d), {0}); });
  ASSERT_TRUE(kind.has_value());
  EXPECT_EQ(kind->id, "op-kind-mismatch");
  const auto values = panic_of([&] { (void)Dispatch::bool_slice_assign(bool_2x3(d), {{0, 1}}, Dispatch::int_slice(i64_2x3(d), {{0, 1}})); });
  ASSERT_TRUE(values.has_value());
  EXPECT_EQ(values->id, "op-kind-mismatch");
}

// A backend called directly (no Dispatch) refuses a receiver of another kind with
// unsupported-dtype naming the op, and a float op still refuses an int receiver.
TEST(LayoutKindsOnNdArray, TheKernelChecksTheReceiversKind) {
  using backends::NdArray;
  const NdArray::Tensor floats = NdArray::from_data(TensorData::from_f32({1, 2}, Shape{2}), Device::cpu());
  const NdArray::Tensor ints = NdArray::from_data(TensorData::from_i64({1, 2}, Shape{2}), Device::cpu());
  EXPECT_PANIC(NdArray::int_flip(floats, {0}), "unsupported-dtype", "DType F32 is not supported by int_flip.");
  EXPECT_PANIC(NdArray::float_flip(ints, {0}), "unsupported-dtype", "DType I64 is not supported by float_flip.");
  EXPECT_PANIC(NdArray::bool_reshape(ints, {2}), "unsupported-dtype", "DType I64 is not supported by bool_reshape.");
}

}  // namespace
}  // namespace crossgrad
