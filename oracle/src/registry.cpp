#include <crossgrad/oracle/registry.hpp>

#include <crossgrad/backends/registry.hpp>

namespace crossgrad::oracle {
namespace {

std::vector<BackendRef> collect() {
  std::vector<BackendRef> refs;
  for (const BackendInfo& info : registered_backends()) {
    BackendRef ref;
    ref.index = info.index;
    ref.name = std::string(info.name);
    ref.built = info.built;
    ref.available = info.available;
    ref.unavailable_reason = info.unavailable_reason;
    ref.indexed_devices = info.device_kind != Device::Kind::Cpu;  // Cuda: GPUs; Remote: configured servers
    ref.device_count = info.device_count;
    // Every backend's default device is the host or its device 0 (Note [The backend registry]).
    ref.default_device = DeviceSpec{};
    if (info.device_kind == Device::Kind::Cuda) ref.default_device = DeviceSpec{DeviceSpec::Kind::Cuda, 0};
    if (info.device_kind == Device::Kind::Remote) ref.default_device = DeviceSpec{DeviceSpec::Kind::Remote, 0};
    refs.push_back(std::move(ref));
  }
  return refs;
}

const std::vector<BackendRef>* active_view = nullptr;

}  // namespace

const std::vector<BackendRef>& all_backends() {
  static const std::vector<BackendRef> refs = collect();
  return active_view ? *active_view : refs;
}

std::vector<BackendRef> available_backends() {
  std::vector<BackendRef> out;
  for (const BackendRef& ref : all_backends()) {
    if (ref.available) out.push_back(ref);
  }
  return out;
}

std::size_t reference_backend() { return 0; }

std::optional<std::string> unavailable_here(std::size_t backend, const DeviceSpec& device) {
  const std::vector<BackendRef>& all = all_backends();
  if (backend >= all.size()) return "backend " + std::to_string(backend) + ": not registered";
  const BackendRef& ref = all[backend];
  if (!ref.available) {
    return ref.name + ": " + (ref.unavailable_reason.empty() ? std::string("no device") : ref.unavailable_reason);
  }
  if (ref.indexed_devices && (device.index < 0 || static_cast<std::size_t>(device.index) >= ref.device_count)) {
    return ref.name + ": no device " + std::to_string(device.index);
  }
  return std::nullopt;
}

ScopedAvailabilityView::ScopedAvailabilityView(std::vector<BackendRef> view)
    : view_(std::move(view)), previous_(active_view) {
  active_view = &view_;
}

ScopedAvailabilityView::~ScopedAvailabilityView() { active_view = previous_; }

std::vector<BackendRef> ScopedAvailabilityView::everything_available(std::size_t devices) {
  std::vector<BackendRef> view = all_backends();
  for (BackendRef& ref : view) {
    ref.built = true;
    ref.available = true;
    ref.unavailable_reason.clear();
    ref.device_count = ref.indexed_devices ? devices : 1;
  }
  return view;
}

TensorSpec tensor_on(std::size_t backend, PrimitiveKind primitive, std::vector<std::size_t> shape, DType dtype,
                     std::vector<double> values) {
  const BackendRef& ref = all_backends().at(backend);
  TensorSpec spec;
  spec.backend = backend;
  spec.backend_name = ref.name;
  spec.primitive = primitive;
  spec.shape = std::move(shape);
  spec.dtype = dtype;
  spec.device = ref.default_device;
  spec.values = std::move(values);
  return spec;
}

}  // namespace crossgrad::oracle
