#include <crossgrad/oracle/registry.hpp>

#include <crossgrad/backends/registry.hpp>

namespace crossgrad::oracle {
namespace {

DeviceSpec device_spec(const Device& device) {
  return {device.kind == Device::Kind::Cuda ? DeviceSpec::Kind::Cuda : DeviceSpec::Kind::Cpu, device.index};
}

std::vector<BackendRef> collect() {
  std::vector<BackendRef> refs;
  const std::vector<BackendInfo> infos = registered_backends();
  std::size_t index = 0;
  for_each_backend([&]<class B>() {
    BackendRef ref;
    ref.index = index;
    ref.name = std::string(B::name);
    ref.available = index < infos.size() ? infos[index].available : B::is_available();
    ref.unavailable_reason = index < infos.size() ? infos[index].unavailable_reason : std::string{};
    ref.default_device = device_spec(B::default_device());
    refs.push_back(std::move(ref));
    ++index;
  });
  return refs;
}

}  // namespace

const std::vector<BackendRef>& all_backends() {
  static const std::vector<BackendRef> refs = collect();
  return refs;
}

std::vector<BackendRef> available_backends() {
  std::vector<BackendRef> out;
  for (const BackendRef& ref : all_backends()) {
    if (ref.available) out.push_back(ref);
  }
  return out;
}

std::size_t reference_backend() { return 0; }

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
