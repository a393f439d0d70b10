#include <crossgrad/oracle/build.hpp>

#include <crossgrad/autodiff/autodiff.hpp>
#include <crossgrad/backends/registry.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace crossgrad::oracle {
namespace {

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

// f.template operator()<B>()'s result for the backend with registry index `index` (Note [Registry
// indices do not depend on the build]).
template <class R, class F>
R with_backend(std::size_t index, F&& f) {
  std::optional<R> result;
  with_backend_at(index, [&]<class B>() { result.emplace(f.template operator()<B>()); });
  if (!result) throw std::out_of_range("oracle: no backend with registry index " + std::to_string(index));
  return std::move(*result);
}

template <class T>
std::vector<T> converted(const std::vector<double>& values) {
  std::vector<T> out;
  out.reserve(values.size());
  for (double v : values) {
    if constexpr (std::is_integral_v<T>) {
      const double lo = static_cast<double>(std::numeric_limits<T>::min());
      const double hi = static_cast<double>(std::numeric_limits<T>::max());
      const double c = std::isnan(v) ? 0.0 : std::fmin(std::fmax(std::trunc(v), lo), hi);
      out.push_back(c >= hi ? std::numeric_limits<T>::max() : static_cast<T>(c));
    } else {
      out.push_back(static_cast<T>(v));
    }
  }
  return out;
}

template <class B>
BackendTensor<B> build_primitive(const TensorSpec& spec) {
  const Device device = to_device(spec.device);
  const TensorData data = leaf_data(spec);
  switch (spec.primitive) {
    case PrimitiveKind::Float: return BackendTensor<B>::Float(B::from_data(data, device));
    case PrimitiveKind::Int: return BackendTensor<B>::Int(B::from_data(data, device));
    case PrimitiveKind::Bool: return BackendTensor<B>::Bool(B::from_data(data, device));
    case PrimitiveKind::Quantized: return BackendTensor<B>::Quantized(B::quantize(B::from_data(data, device)));
    case PrimitiveKind::Autodiff: {
      typename B::Tensor primitive = B::from_data(data, device);
      return BackendTensor<B>::Autodiff(spec.node_id ? Autodiff<B>::leaf_with_id(std::move(primitive), NodeId{*spec.node_id})
                                                     : Autodiff<B>::from_inner(std::move(primitive)));
    }
  }
  throw std::logic_error("oracle: bad primitive kind");
}

const DispatchTensorKind& innermost(const DispatchTensorKind& kind) {
  const DispatchTensorKind* k = &kind;
  while (k->is_autodiff()) k = &k->autodiff_inner();
  return *k;
}

}  // namespace

Device to_device(const DeviceSpec& device) {
  switch (device.kind) {
    case DeviceSpec::Kind::Cpu: return Device::cpu();
    case DeviceSpec::Kind::Cuda: return Device::cuda(device.index);
    case DeviceSpec::Kind::Remote: return Device::remote(device.index);
  }
  return Device::cpu();
}

DeviceSpec device_spec(const Device& device) {
  switch (device.kind) {
    case Device::Kind::Cpu: return {DeviceSpec::Kind::Cpu, device.index};
    case Device::Kind::Cuda: return {DeviceSpec::Kind::Cuda, device.index};
    case Device::Kind::Remote: return {DeviceSpec::Kind::Remote, device.index};
  }
  return {DeviceSpec::Kind::Cpu, device.index};
}

DispatchDevice dispatch_device(std::size_t backend, const DeviceSpec& device, bool autodiff) {
  DispatchDevice d = with_backend<DispatchDevice>(backend, [&]<class B>() { return DispatchDevice::of<B>(to_device(device)); });
  return autodiff ? DispatchDevice::Autodiff(std::move(d)) : d;
}

TensorData leaf_data(const TensorSpec& spec) {
  std::vector<double> values = effective_values(spec);
  Shape shape(spec.shape);  // moved into the result: each path returns once
  switch (spec.primitive) {
    case PrimitiveKind::Quantized: {
      // Quantized primitives only come from quantize, which refuses non-finite input (catalog:
      // quantize-non-finite): a quantized leaf holds values that are finite in F32.
      std::vector<float> finite;
      for (double v : values) {
        finite.push_back(std::isfinite(v) && std::fabs(v) <= std::numeric_limits<float>::max() ? static_cast<float>(v) : 0.0f);
      }
      return TensorData::from_f32(std::move(finite), std::move(shape));
    }
    case PrimitiveKind::Bool: {
      std::vector<bool> b;
      for (double v : values) b.push_back(v != 0.0);
      return TensorData::from_bool(std::move(b), std::move(shape));
    }
    case PrimitiveKind::Float:
    case PrimitiveKind::Int:
    case PrimitiveKind::Autodiff:
      break;
  }
  switch (spec.dtype) {
    case DType::F64: return TensorData::from_f64(std::move(values), std::move(shape));
    case DType::I64: return TensorData::from_i64(converted<std::int64_t>(values), std::move(shape));
    case DType::I32: return TensorData::from_i32(converted<std::int32_t>(values), std::move(shape));
    case DType::I8: return TensorData::from_i8(converted<std::int8_t>(values), std::move(shape));
    case DType::U8: return TensorData::from_u8(converted<std::uint8_t>(values), std::move(shape));
    case DType::Bool: {
      std::vector<bool> b;
      for (double v : values) b.push_back(v != 0.0);
      return TensorData::from_bool(std::move(b), std::move(shape));
    }
    case DType::F32:
    case DType::F16:
    case DType::BF16:
    case DType::QInt8:
      break;
  }
  return TensorData::from_f32(converted<float>(values), std::move(shape));
}

DispatchTensorKind build_backend_kind(const TensorSpec& spec) {
  return with_backend<DispatchTensorKind>(spec.backend, [&]<class B>() {
    return DispatchTensorKind{DispatchTensorKind::Variant{build_primitive<B>(spec)}};
  });
}

DispatchTensorKind build_kind(const KindSpec& spec) {
  DispatchTensorKind kind = build_backend_kind(spec.leaf);
  for (std::size_t i = 0; i < spec.autodiff_depth; ++i) kind = DispatchTensorKind::Autodiff(std::move(kind));
  return kind;
}

DispatchTensor build(const DispatchSpec& spec) { return DispatchTensor{build_kind(spec.kind), spec.checkpointing}; }

std::size_t autodiff_depth_of(const DispatchTensorKind& kind) {
  std::size_t depth = 0;
  for (const DispatchTensorKind* k = &kind; k->is_autodiff(); k = &k->autodiff_inner()) ++depth;
  return depth;
}

std::optional<std::uint64_t> node_of(const DispatchTensorKind& kind) {
  return std::visit(Overloaded{[](const AutodiffKind&) -> std::optional<std::uint64_t> { return std::nullopt; },
                               []<class B>(const BackendTensor<B>& bt) -> std::optional<std::uint64_t> {
                                 if (const auto* a = std::get_if<AutodiffTensor<B>>(&bt.value)) return a->id().value;
                                 return std::nullopt;
                               }},
                    innermost(kind).value);
}

// The registry index (Note [Registry indices do not depend on the build]), not the variant's
// alternative, which counts only the backends built here (without Cuda, Remote is alternative 2).
std::size_t backend_of(const DispatchTensorKind& kind) {
  return std::visit(Overloaded{[](const AutodiffKind&) { return kKnownBackendCount; },
                               []<class B>(const BackendTensor<B>&) { return registry_index_of<B>(); }},
                    innermost(kind).value);
}

PrimitiveKind primitive_of(const DispatchTensorKind& kind) {
  return std::visit(Overloaded{[](const AutodiffKind&) { return PrimitiveKind::Autodiff; },
                               []<class B>(const BackendTensor<B>& bt) { return bt.primitive_kind(); }},
                    innermost(kind).value);
}

}  // namespace crossgrad::oracle
