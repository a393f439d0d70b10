#pragma once
// The backends as the oracle sees them: read from the engine's one registry at run time, never
// named here. The list is every backend the engine knows, built or not (Note [Registry indices do
// not depend on the build] in crossgrad/backends/registry.hpp), so an index means the same backend
// in every build; `available` says whether it can run here.
#include <crossgrad/oracle/spec.hpp>

#include <string>
#include <vector>

namespace crossgrad::oracle {

struct BackendRef {
  std::size_t index = 0;
  std::string name;
  bool built = false;
  bool available = false;
  std::string unavailable_reason;  // empty when available
  bool indexed_devices = false;    // devices are numbered (Cuda, Remote); false: the one host device
  std::size_t device_count = 0;    // usable devices here
  DeviceSpec default_device;
  friend bool operator==(const BackendRef&, const BackendRef&) = default;
};

// Every registered backend, in registry order (the active ScopedAvailabilityView's, when one is).
const std::vector<BackendRef>& all_backends();
// Those with a device here.
std::vector<BackendRef> available_backends();
// The index of the reference backend (the first registered: NdArray, CONTRACT section 1).
std::size_t reference_backend();

// Why `device` of backend `backend` cannot run here ("Cuda: not built with CUDA", "Cuda: no
// device 1"), or nothing when it can.
std::optional<std::string> unavailable_here(std::size_t backend, const DeviceSpec& device);

// Test-only: while alive, all_backends() answers with `view` instead of the machine's registry, so
// a test can ask what code does on a machine with other backends available. Views nest; not
// thread-safe (tests are single-threaded here).
class ScopedAvailabilityView {
 public:
  explicit ScopedAvailabilityView(std::vector<BackendRef> view);
  ~ScopedAvailabilityView();
  ScopedAvailabilityView(const ScopedAvailabilityView&) = delete;
  ScopedAvailabilityView& operator=(const ScopedAvailabilityView&) = delete;

  // The machine's registry with every backend built and available, `devices` devices each
  // (indexed-device backends) — a machine that has everything.
  static std::vector<BackendRef> everything_available(std::size_t devices = 2);

 private:
  std::vector<BackendRef> view_;
  const std::vector<BackendRef>* previous_;
};

// A TensorSpec on `backend`'s default device with the given primitive, shape and dtype.
TensorSpec tensor_on(std::size_t backend, PrimitiveKind primitive, std::vector<std::size_t> shape,
                     DType dtype, std::vector<double> values = {});

}  // namespace crossgrad::oracle
