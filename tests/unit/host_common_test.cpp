// The helpers NdArray and Flex share (crossgrad/backends/host_common.hpp): the float-type dispatch
// maps F32/F64 to float/double and turns any other dtype into the catalog's unreachable panic
// (never a kernel reading int or bool bytes as floats); the device check and the from_data dtype
// rule raise the catalog messages each backend gave before they were shared. Expected messages are
// written out from docs/PANICS.md, not produced by the engine's formatter.
#include <crossgrad/backends/host_common.hpp>
#include <crossgrad/core/panic.hpp>

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

namespace crossgrad {
namespace {

using backends::host::require_host_device;
using backends::host::require_storable_dtype;
using backends::host::with_float_type;

// The panic `fn` raises: its id and message; fails the test when nothing is thrown.
template <class Fn>
Panic caught(Fn&& fn) {
  try {
    fn();
  } catch (const Panic& p) {
    return p;
  }
  ADD_FAILURE() << "no panic";
  return Panic(PanicId::Unreachable, "");
}

TEST(HostCommon, WithFloatTypeMapsF32ToFloatAndF64ToDouble) {
  EXPECT_EQ(with_float_type(DType::F32, []<class T>(T) { return std::is_same_v<T, float>; }), true);
  EXPECT_EQ(with_float_type(DType::F64, []<class T>(T) { return std::is_same_v<T, double>; }), true);
  EXPECT_EQ(with_float_type(DType::F32, []<class T>(T) { return sizeof(T); }), 4u);
  EXPECT_EQ(with_float_type(DType::F64, []<class T>(T) { return sizeof(T); }), 8u);
}

TEST(HostCommon, WithFloatTypeRaisesUnreachableForEveryOtherDtype) {
  for (DType d : {DType::F16, DType::BF16, DType::I64, DType::I32, DType::I8, DType::U8, DType::Bool,
                  DType::QInt8}) {
    bool called = false;
    const Panic p = caught([&] { with_float_type(d, [&](auto) { called = true; }); });
    EXPECT_EQ(p.id(), PanicId::Unreachable) << dtype_name(d);
    EXPECT_EQ(p.message(), "internal error: entered unreachable code") << dtype_name(d);
    EXPECT_FALSE(called) << dtype_name(d) << ": the kernel ran on a non-float dtype";
  }
}

TEST(HostCommon, RequireHostDeviceAcceptsTheCpuAndNamesTheBackendOtherwise) {
  EXPECT_NO_THROW(require_host_device(Device::cpu(), "NdArray"));
  EXPECT_NO_THROW(require_host_device(Device::cpu(), "Flex"));
  Panic p = caught([] { require_host_device(Device::cuda(0), "NdArray"); });
  EXPECT_EQ(p.id(), PanicId::DeviceUnavailable);
  EXPECT_EQ(p.message(), "Device Cuda(0) of backend NdArray is not available: NdArray runs on the CPU only.");
  p = caught([] { require_host_device(Device::cuda(2), "Flex"); });
  EXPECT_EQ(p.id(), PanicId::DeviceUnavailable);
  EXPECT_EQ(p.message(), "Device Cuda(2) of backend Flex is not available: Flex runs on the CPU only.");
}

// One rule for every backend's from_data: float, int and bool dtypes that are implemented.
TEST(HostCommon, StorableDtypesAreImplementedFloatIntAndBool) {
  for (DType d : {DType::F64, DType::F32, DType::I64, DType::I32, DType::I8, DType::U8, DType::Bool}) {
    EXPECT_TRUE(is_backend_storable(d)) << dtype_name(d);
    EXPECT_NO_THROW(require_storable_dtype(d, "Flex")) << dtype_name(d);
  }
  for (DType d : {DType::F16, DType::BF16, DType::QInt8}) {
    EXPECT_FALSE(is_backend_storable(d)) << dtype_name(d);
    const Panic p = caught([&] { require_storable_dtype(d, "NdArray"); });
    EXPECT_EQ(p.id(), PanicId::UnsupportedDtype) << dtype_name(d);
    EXPECT_EQ(p.message(), "DType " + std::string(dtype_name(d)) + " is not supported by NdArray::from_data.");
  }
}

}  // namespace
}  // namespace crossgrad
