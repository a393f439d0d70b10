// Data round trips through every registered backend's from_data / into_data (one typed test, so a
// new backend is covered by its registry entry).
#include "test_support.hpp"

namespace crossgrad {
namespace {
using namespace testing_support;

template <class B>
using BackendData = OnEachBackend<B>;
TYPED_TEST_SUITE(BackendData, AllBackendTypes, BackendTestName);

TYPED_TEST(BackendData, RoundTripsEveryStoredDtype) {
  using B = TypeParam;
  const TensorData datas[] = {
      TensorData::from_f32({1.5f, -0.0f}, {2}),  TensorData::from_f64({2.25, 3}, {1, 2}),
      TensorData::from_i64({-7, 8}, {2}),        TensorData::from_i32({1}, {}),
      TensorData::from_i8({-1, 2, 3}, {3}),      TensorData::from_u8({255}, {1}),
      TensorData::from_bool({true, false}, {2}), TensorData::from_f32({}, {0, 3}),
  };
  for (const TensorData& d : datas) {
    const auto t = B::from_data(d, B::default_device());
    EXPECT_EQ(B::into_data(t), d);
    EXPECT_EQ(B::shape(t), d.shape());
    EXPECT_EQ(B::dtype(t), d.dtype());
    EXPECT_EQ(B::device(t), B::default_device());
  }
}


// CPU backends finish every op before it returns: synchronize is a no-op that must not disturb a
// result computed before it.
TEST(CpuBackendData, SynchronizeLeavesResultsAsTheyWere) {
  const auto n = backends::NdArray::float_neg(backends::NdArray::from_data(TensorData::from_f32({1, -2}, {2}), Device::cpu()));
  backends::NdArray::synchronize(Device::cpu());
  EXPECT_EQ(backends::NdArray::into_data(n), TensorData::from_f32({-1, 2}, {2}));
  const auto f = backends::Flex::float_neg(backends::Flex::from_data(TensorData::from_f32({1, -2}, {2}), Device::cpu()));
  backends::Flex::synchronize(Device::cpu());
  EXPECT_EQ(backends::Flex::into_data(f), TensorData::from_f32({-1, 2}, {2}));
}

}  // namespace
}  // namespace crossgrad
