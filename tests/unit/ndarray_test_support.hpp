// Helpers of the NdArray op tests (ndarray_*_test.cpp): tensors from literal values, values back,
// and exact-panic checks. NdArray is the reference backend, so its tests check hand-worked values,
// never another backend's output.
#pragma once
#include "test_support.hpp"

#include <crossgrad/backends/ndarray.hpp>
#include <crossgrad/core/panic.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace crossgrad::ndarray_test {

using backends::NdArray;
using T = NdArray::Tensor;

inline T f32(std::vector<float> v, Shape s) {
  return NdArray::from_data(TensorData::from_f32(std::move(v), std::move(s)), Device::cpu());
}
inline T f64(std::vector<double> v, Shape s) {
  return NdArray::from_data(TensorData::from_f64(std::move(v), std::move(s)), Device::cpu());
}
inline T i64(std::vector<std::int64_t> v, Shape s) {
  return NdArray::from_data(TensorData::from_i64(std::move(v), std::move(s)), Device::cpu());
}
inline T i32(std::vector<std::int32_t> v, Shape s) {
  return NdArray::from_data(TensorData::from_i32(std::move(v), std::move(s)), Device::cpu());
}
inline std::vector<float> vals32(const T& t) { return NdArray::into_data(t).to_f32(); }
inline std::vector<double> vals64(const T& t) { return NdArray::into_data(t).to_f64(); }
inline std::vector<std::int64_t> ints(const T& t) { return NdArray::into_data(t).to_i64(); }
inline std::vector<bool> bools(const T& t) { return NdArray::into_data(t).to_bool(); }

// Runs fn, which must panic with exactly this id and message.
inline void expect_panic(const std::function<void()>& fn, PanicId id, const std::string& message) {
  try {
    fn();
  } catch (const Panic& p) {
    EXPECT_EQ(p.id(), id) << p.message();
    EXPECT_EQ(p.message(), message);
    return;
  }
  ADD_FAILURE() << "expected a panic: " << message;
}

// Runs fn, which must panic with this catalog id; returns the message ("" when it did not panic).
inline std::string expect_panic_id(const std::function<void()>& fn, PanicId id) {
  try {
    fn();
  } catch (const Panic& p) {
    EXPECT_EQ(p.id(), id) << p.message();
    return p.message();
  }
  ADD_FAILURE() << "expected a panic";
  return {};
}

inline constexpr float kNaN32 = std::numeric_limits<float>::quiet_NaN();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace crossgrad::ndarray_test
