#pragma once
// Leaves for the public-API properties (tensor_api_props, checkpointing_props): float data on a
// plain, autodiff or doubly-autodiff device of any tested backend, rank 0..4, mostly broadcast
// variants of one base shape so binary ops apply; now and then a bad leaf (int data, a nested
// autodiff device) or a leaf on another backend, so the programs also reach the documented panics.
#include "gen/specs.hpp"

#include <crossgrad/dispatch/debug.hpp>
#include <crossgrad/dispatch/dispatch.hpp>
#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/render.hpp>

#include <rapidcheck.h>

#include <map>
#include <optional>
#include <ostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace crossgrad::properties::gen {

enum class DeviceKind { Plain, Autodiff, Nested };  // B, Autodiff(B), Autodiff(Autodiff(B))

struct LeafSpec {
  std::size_t backend = 0;
  DeviceKind device = DeviceKind::Plain;
  DType dtype = DType::F32;  // F32 / F64; I64 now and then (float_from_data refuses it)
  std::vector<std::size_t> shape;
  std::vector<double> values;
  std::optional<CheckpointingStrategy> checkpointing;  // used by the checkpointing property only
};

inline std::string strategy_name(const std::optional<CheckpointingStrategy>& s) {
  if (!s) return "none";
  return *s == CheckpointingStrategy::Balanced ? "Balanced" : "Disabled";
}

inline std::ostream& operator<<(std::ostream& os, const LeafSpec& l) {
  static const char* devices[] = {"", "Autodiff ", "Autodiff(Autodiff) "};
  os << devices[static_cast<int>(l.device)] << oracle::all_backends().at(l.backend).name << " "
     << oracle::render_dtype(l.dtype) << oracle::render_shape(l.shape) << " {";
  for (std::size_t i = 0; i < l.values.size(); ++i) os << (i ? ", " : "") << l.values[i];
  return os << "} cp=" << strategy_name(l.checkpointing);
}

inline TensorData leaf_data(const LeafSpec& l) {
  const Shape shape(l.shape);
  if (l.dtype == DType::F64) return TensorData::from_f64(l.values, shape);
  if (l.dtype == DType::I64) {
    std::vector<std::int64_t> v;
    for (double x : l.values) v.push_back(std::isfinite(x) ? static_cast<std::int64_t>(x) : 0);
    return TensorData::from_i64(std::move(v), shape);
  }
  std::vector<float> v(l.values.begin(), l.values.end());
  return TensorData::from_f32(std::move(v), shape);
}

inline DispatchDevice leaf_device(const LeafSpec& l) {
  const DispatchDevice plain = oracle::dispatch_device(l.backend, oracle::all_backends().at(l.backend).default_device);
  if (l.device == DeviceKind::Plain) return plain;
  if (l.device == DeviceKind::Autodiff) return DispatchDevice::Autodiff(plain);
  return DispatchDevice::Autodiff(DispatchDevice::Autodiff(plain));
}

// Rank 0..4, dims 1..3 (0 now and then), at most 48 elements.
inline rc::Gen<std::vector<std::size_t>> api_shape() {
  return rc::gen::map(rc::gen::mapcat(rc::gen::inRange<std::size_t>(0, 5),
                                      [](std::size_t rank) {
                                        return rc::gen::container<std::vector<std::size_t>>(
                                            rank, rc::gen::weightedOneOf<std::size_t>({{1, rc::gen::just<std::size_t>(0)},
                                                                                       {3, rc::gen::just<std::size_t>(1)},
                                                                                       {8, rc::gen::inRange<std::size_t>(2, 4)}}));
                                      }),
                      [](std::vector<std::size_t> dims) { return bounded(std::move(dims), 48); });
}

// The leaf's shape: the base with some dims set to 1 and leading dims dropped (broadcastable),
// or, one time in eight, an unrelated shape.
inline rc::Gen<std::vector<std::size_t>> leaf_shape(const std::vector<std::size_t>& base) {
  auto variant = rc::gen::map(rc::gen::tuple(rc::gen::container<std::vector<bool>>(base.size(), rc::gen::weightedOneOf<bool>(
                                                                                                    {{3, rc::gen::just(false)}, {1, rc::gen::just(true)}})),
                                             rc::gen::weightedOneOf<std::size_t>(
                                                 {{4, rc::gen::just<std::size_t>(0)}, {1, rc::gen::inRange<std::size_t>(0, base.size() + 1)}})),
                              [base](const std::tuple<std::vector<bool>, std::size_t>& t) {
                                std::vector<std::size_t> s;
                                for (std::size_t i = std::get<1>(t); i < base.size(); ++i) s.push_back(std::get<0>(t)[i] ? 1 : base[i]);
                                return s;
                              });
  return rc::gen::weightedOneOf<std::vector<std::size_t>>({{7, std::move(variant)}, {1, api_shape()}});
}

// One leaf. `main` is the program's backend and `device` its usual device kind; `mixing` allows
// the odd leaf of another backend, device kind or (int) dtype.
inline rc::Gen<LeafSpec> leaf(std::size_t main, DeviceKind device, DType dtype, const std::vector<std::size_t>& base,
                              bool mixing) {
  const unsigned odd = mixing ? 1u : 0u;
  auto backend_gen = rc::gen::weightedOneOf<std::size_t>({{10, rc::gen::just(main)}, {odd, gen::backend()}});
  auto device_gen = rc::gen::weightedOneOf<DeviceKind>(
      {{12, rc::gen::just(device)},
       {odd * 2, rc::gen::elementOf(std::vector<DeviceKind>{DeviceKind::Plain, DeviceKind::Autodiff})},
       {odd, rc::gen::just(DeviceKind::Nested)}});
  auto dtype_gen = rc::gen::weightedOneOf<DType>(
      {{16, rc::gen::just(dtype)}, {odd, rc::gen::elementOf(std::vector<DType>{DType::F32, DType::F64, DType::I64})}});
  return rc::gen::mapcat(rc::gen::tuple(backend_gen, device_gen, dtype_gen, leaf_shape(base), checkpointing()),
                         [](const auto& t) {
                           LeafSpec l;
                           std::tie(l.backend, l.device, l.dtype, l.shape, l.checkpointing) = t;
                           return rc::gen::map(rc::gen::container<std::vector<double>>(oracle::element_count(l.shape), float_value(true)),
                                               [l](std::vector<double> v) {
                                                 LeafSpec out = l;
                                                 out.values = std::move(v);
                                                 return out;
                                               });
                         });
}

// 1..3 leaves around one base shape of rank 0..4.
inline rc::Gen<std::vector<LeafSpec>> leaves(bool mixing = true) {
  return rc::gen::mapcat(
      rc::gen::tuple(backend(), rc::gen::elementOf(std::vector<DeviceKind>{DeviceKind::Plain, DeviceKind::Autodiff}),
                     rc::gen::elementOf(std::vector<DType>{DType::F32, DType::F64}), api_shape(), rc::gen::inRange<std::size_t>(1, 4)),
      [mixing](const auto& t) {
        const auto& [b, device, dtype, base, n] = t;
        return rc::gen::container<std::vector<LeafSpec>>(n, leaf(b, device, dtype, base, mixing));
      });
}

// Renders `text` with each NodeId(n) replaced by NodeId(#i), i the first value holding node n, so
// two runs that built the same values through different calls print the same (node ids are
// global counters, so the runs' raw ids differ).
inline std::string canonical_nodes(const std::string& text, const std::vector<DispatchTensor>& values) {
  std::map<std::uint64_t, std::size_t> index;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (auto n = oracle::node_of(values[i].kind)) index.emplace(*n, i);
  }
  static const std::regex node(R"(NodeId\((\d+)\))");
  std::string out;
  auto it = std::sregex_iterator(text.begin(), text.end(), node);
  std::size_t last = 0;
  for (; it != std::sregex_iterator(); ++it) {
    out += text.substr(last, static_cast<std::size_t>(it->position()) - last);
    const auto found = index.find(std::stoull((*it)[1].str()));
    out += found == index.end() ? "NodeId(foreign)" : "NodeId(#" + std::to_string(found->second) + ")";
    last = static_cast<std::size_t>(it->position() + it->length());
  }
  return out + text.substr(last);
}

}  // namespace crossgrad::properties::gen
