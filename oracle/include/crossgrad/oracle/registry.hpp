#pragma once
// The backends as the oracle sees them: read from the engine's one registry at run time, never
// named here.
#include <crossgrad/oracle/spec.hpp>

#include <string>
#include <vector>

namespace crossgrad::oracle {

struct BackendRef {
  std::size_t index = 0;
  std::string name;
  bool available = false;
  std::string unavailable_reason;
  DeviceSpec default_device;
};

// Every registered backend, in registry order.
const std::vector<BackendRef>& all_backends();
// Those with a device here.
std::vector<BackendRef> available_backends();
// The index of the reference backend (the first registered: NdArray, CONTRACT section 1).
std::size_t reference_backend();

// A TensorSpec on `backend`'s default device with the given primitive, shape and dtype.
TensorSpec tensor_on(std::size_t backend, PrimitiveKind primitive, std::vector<std::size_t> shape,
                     DType dtype, std::vector<double> values = {});

}  // namespace crossgrad::oracle
