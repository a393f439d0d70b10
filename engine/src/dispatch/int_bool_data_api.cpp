// Burn's IntTensorOps / BoolTensorOps creation and device functions (int_full ... int_arange_step,
// bool_zeros ... bool_empty, int_/bool_ device, shape, dtype, to_device) at the Dispatch level:
// compositions of from_data, the registry's int_expand / bool_expand and the backends' device
// queries, with no registry entry of their own (docs/OPS.md "Creation").
#include "dispatch/create_on.hpp"
#include "dispatch/dispatch_arms.hpp"

#include <crossgrad/backends/host_common.hpp>
#include <crossgrad/core/host_buffer.hpp>
#include <crossgrad/core/int_arithmetic.hpp>
#include <crossgrad/core/int_conversion.hpp>
#include <crossgrad/core/shape_rules.hpp>
#include <crossgrad/dispatch/dispatch.hpp>

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace crossgrad {
using namespace dispatch_detail;
namespace {

using backends::host::with_int_type;

template <class I>
TensorData int_data(std::vector<I> values, Shape shape) {
  if constexpr (std::is_same_v<I, std::int64_t>) return TensorData::from_i64(std::move(values), std::move(shape));
  if constexpr (std::is_same_v<I, std::int32_t>) return TensorData::from_i32(std::move(values), std::move(shape));
  if constexpr (std::is_same_v<I, std::int8_t>) return TensorData::from_i8(std::move(values), std::move(shape));
  if constexpr (std::is_same_v<I, std::uint8_t>) return TensorData::from_u8(std::move(values), std::move(shape));
}

// A one-element (rank 0) tensor of `value` expanded to `shape` by the registry's expand of the
// kind: no host buffer of the result's size, and tensor-too-large from the backend that allocates.
DispatchTensor filled(const TensorData& scalar, const Shape& shape, const DispatchDevice& device) {
  const bool is_bool = scalar.dtype() == DType::Bool;
  return create_on(device, [&]<class B>(const Device& d) {
    typename B::Tensor one = B::from_data(scalar, d);
    return is_bool ? BackendTensor<B>::Bool(B::bool_expand(one, shape)) : BackendTensor<B>::Int(B::int_expand(one, shape));
  });
}

DispatchTensor int_full_named(const char* op, const Shape& shape, double value, const DispatchDevice& device, DType dtype) {
  rules::check_int_dtype(dtype, op);
  shape.num_elements();  // shape-overflow before any backend call
  const TensorData scalar = with_int_type(dtype, [&]<class I>(I) { return int_data<I>({int_scalar<I>(value)}, Shape{}); });
  return filled(scalar, shape, device);
}

DispatchTensor bool_full_named(const Shape& shape, bool value, const DispatchDevice& device) {
  shape.num_elements();
  return filled(TensorData::from_bool({value}, Shape{}), shape, device);
}

// f.template operator()<B>(p) on the P primitive of B(P(p)) or Autodiff(B(P(p))) (P: Int or Bool);
// op-kind-mismatch naming `op` on any other kind. Also gives whether the tensor is on an autodiff
// device.
template <PrimitiveKind K, class R, class F>
R with_primitive(const char* op, const DispatchTensor& t, F&& f) {
  const FloatView v = receiver_view<K>(op, t);
  const DispatchTensorKind& k = v.tracked ? t.kind.autodiff_inner() : t.kind;
  return visit_backend<R>(k, [&]<class B>(const BackendTensor<B>& bt) -> R {
    return f.template operator()<B>(primitive_of<B>(bt, K), v.tracked);
  });
}

template <PrimitiveKind K>
DispatchDevice device_of(const char* op, const DispatchTensor& t) {
  return with_primitive<K, DispatchDevice>(op, t, []<class B>(const typename B::Tensor& p, bool tracked) {
    DispatchDevice d = DispatchDevice::of<B>(B::device(p));
    return tracked ? DispatchDevice::Autodiff(std::move(d)) : d;
  });
}

// Int and bool tensors carry no graph, so every move is a copy of the values: within a backend
// and device the same (immutable) primitive, otherwise through host data. The device must be of
// the tensor's kind (device-kind-mismatch): an Autodiff(B(Int(...))) tensor goes to an autodiff
// device, a plain one to a plain device, as float_to_device.
template <PrimitiveKind K>
DispatchTensor move_to(const char* op, const DispatchTensor& t, const DispatchDevice& device) {
  const FloatView v = receiver_view<K>(op, t);
  const bool device_tracked = std::holds_alternative<AutodiffDevice>(device.value);
  if (v.tracked != device_tracked) {
    panic(PanicId::DeviceKindMismatch,
          {{"op", op}, {"tensor", v.tracked ? "an autodiff" : "a plain"}, {"device", device.to_string()}});
  }
  const DispatchDevice& target = device_tracked ? *std::get<AutodiffDevice>(device.value).inner : device;
  if (std::holds_alternative<AutodiffDevice>(target.value)) panic(PanicId::AutodiffWrapsAutodiff);
  const DispatchTensorKind& k = v.tracked ? t.kind.autodiff_inner() : t.kind;
  return visit_backend<DispatchTensor>(k, [&]<class From>(const BackendTensor<From>& bt) -> DispatchTensor {
    const typename From::Tensor& src = primitive_of<From>(bt, K);
    return std::visit(Overloaded{[](const AutodiffDevice&) -> DispatchTensor { panic(PanicId::Unreachable); },
                                 [&]<class To>(const BackendDevice<To>& d) -> DispatchTensor {
                                   const auto make = [&]() -> typename To::Tensor {
                                     if constexpr (std::is_same_v<From, To>) {
                                       if (From::device(src) == d.device) return src;
                                     }
                                     return To::from_data(From::into_data(src), d.device);
                                   };
                                   if (v.tracked) return wrap_tracked<To, K>(make, t.checkpointing);
                                   return wrap_plain<To, K>(make);
                                 }},
                      target.value);
  });
}

}  // namespace

DispatchTensor Dispatch::int_full(const Shape& shape, double value, const DispatchDevice& device, DType dtype) {
  return int_full_named("int_full", shape, value, device, dtype);
}
DispatchTensor Dispatch::int_zeros(const Shape& shape, const DispatchDevice& device, DType dtype) {
  return int_full_named("int_zeros", shape, 0.0, device, dtype);
}
DispatchTensor Dispatch::int_ones(const Shape& shape, const DispatchDevice& device, DType dtype) {
  return int_full_named("int_ones", shape, 1.0, device, dtype);
}
DispatchTensor Dispatch::int_empty(const Shape& shape, const DispatchDevice& device, DType dtype) {
  return int_full_named("int_empty", shape, 0.0, device, dtype);
}

// The F64 samples of the distribution (Default: Burn's NdArray int_random samples Uniform(0, 255)
// for ints), each converted as Burn's sampler does for an integer element: Uniform and Default
// by floor (with integer bounds every integer of [low, high) equally likely, as rand's integer
// Uniform), Normal toward zero (Rust's `as`), Bernoulli 0 / 1; then into the dtype by
// float_into_int's rule (saturating).
DispatchTensor Dispatch::int_random(const Shape& shape, const Distribution& distribution, std::uint64_t seed,
                                    const DispatchDevice& device, DType dtype) {
  rules::check_int_dtype(dtype, "int_random");
  const bool uniform = distribution.kind == Distribution::Kind::Default || distribution.kind == Distribution::Kind::Uniform;
  const Distribution sampled = distribution.kind == Distribution::Kind::Default ? Distribution::uniform(0, 255) : distribution;
  // float_random's order: the distribution (random-distribution, by sampling nothing), then the
  // size in the result's dtype; the F64 samples are then checked as an F64 tensor of the shape.
  (void)random_data(Shape{0}, sampled, seed, DType::F64, "int_random");
  checked_tensor_bytes(shape, dtype);
  const std::vector<double> samples = random_data(shape, sampled, seed, DType::F64, "int_random").to_f64();
  const TensorData data = with_int_type(dtype, [&]<class I>(I) {
    std::vector<I> v(samples.size());
    for (std::size_t i = 0; i < samples.size(); ++i) v[i] = saturating_int<I>(uniform ? std::floor(samples[i]) : samples[i]);
    return int_data<I>(std::move(v), shape);
  });
  return create_on(device, [&]<class B>(const Device& d) { return BackendTensor<B>::Int(B::from_data(data, d)); });
}

namespace {
// Burn's `(start..end).step_by(step)`: empty when start >= end; a zero step panics unfold-step
// (Rust's step_by asserts step != 0) whatever the range. The count is computed in uint64 (end -
// start fits there for every pair of int64s) and the size checked (tensor-too-large) before any
// buffer is allocated, so no range hangs or exhausts memory.
DispatchTensor arange_named(const char* op, std::int64_t start, std::int64_t end, std::size_t step,
                            const DispatchDevice& device, DType dtype) {
  rules::check_int_dtype(dtype, op);
  if (step == 0) panic(PanicId::UnfoldStep, {{"op", op}});
  std::uint64_t n = 0;
  if (start < end) {
    const std::uint64_t span = static_cast<std::uint64_t>(end) - static_cast<std::uint64_t>(start);
    const std::uint64_t s = step;
    n = span / s + (span % s != 0 ? 1 : 0);
  }
  const Shape shape{static_cast<std::size_t>(n)};
  checked_tensor_bytes(shape, dtype);
  const TensorData data = with_int_type(dtype, [&]<class I>(I) {
    std::vector<I> v(static_cast<std::size_t>(n));
    // start + i * step < end, so the uint64 sum is the element's two's-complement bits; into I as
    // int_cast converts (modulo 2^width).
    for (std::uint64_t i = 0; i < n; ++i) {
      v[i] = static_cast<I>(static_cast<std::int64_t>(static_cast<std::uint64_t>(start) + i * std::uint64_t{step}));
    }
    return int_data<I>(std::move(v), shape);
  });
  return create_on(device, [&]<class B>(const Device& d) { return BackendTensor<B>::Int(B::from_data(data, d)); });
}
}  // namespace

DispatchTensor Dispatch::int_arange(std::int64_t start, std::int64_t end, const DispatchDevice& device, DType dtype) {
  return arange_named("int_arange", start, end, 1, device, dtype);
}
DispatchTensor Dispatch::int_arange_step(std::int64_t start, std::int64_t end, std::size_t step, const DispatchDevice& device,
                                         DType dtype) {
  return arange_named("int_arange_step", start, end, step, device, dtype);
}

DispatchTensor Dispatch::bool_zeros(const Shape& shape, const DispatchDevice& device) { return bool_full_named(shape, false, device); }
DispatchTensor Dispatch::bool_ones(const Shape& shape, const DispatchDevice& device) { return bool_full_named(shape, true, device); }
DispatchTensor Dispatch::bool_empty(const Shape& shape, const DispatchDevice& device) { return bool_full_named(shape, false, device); }

DispatchDevice Dispatch::int_device(const DispatchTensor& t) { return device_of<PrimitiveKind::Int>("int_device", t); }
DispatchDevice Dispatch::bool_device(const DispatchTensor& t) { return device_of<PrimitiveKind::Bool>("bool_device", t); }

Shape Dispatch::int_shape(const DispatchTensor& t) {
  return with_primitive<PrimitiveKind::Int, Shape>("int_shape", t, []<class B>(const typename B::Tensor& p, bool) { return B::shape(p); });
}
Shape Dispatch::bool_shape(const DispatchTensor& t) {
  return with_primitive<PrimitiveKind::Bool, Shape>("bool_shape", t, []<class B>(const typename B::Tensor& p, bool) { return B::shape(p); });
}
DType Dispatch::int_dtype(const DispatchTensor& t) {
  return with_primitive<PrimitiveKind::Int, DType>("int_dtype", t, []<class B>(const typename B::Tensor& p, bool) { return B::dtype(p); });
}
DType Dispatch::bool_dtype(const DispatchTensor& t) {
  return with_primitive<PrimitiveKind::Bool, DType>("bool_dtype", t, []<class B>(const typename B::Tensor& p, bool) { return B::dtype(p); });
}

DispatchTensor Dispatch::int_to_device(const DispatchTensor& t, const DispatchDevice& device) {
  return move_to<PrimitiveKind::Int>("int_to_device", t, device);
}
DispatchTensor Dispatch::bool_to_device(const DispatchTensor& t, const DispatchDevice& device) {
  return move_to<PrimitiveKind::Bool>("bool_to_device", t, device);
}

}  // namespace crossgrad
