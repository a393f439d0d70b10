#pragma once
// A Gradients container as plain values: node id -> (backend index, bit-exact data, device).
#include <crossgrad/oracle/spec.hpp>

#include <crossgrad/autodiff/gradients.hpp>
#include <crossgrad/core/tensor_data.hpp>
#include <crossgrad/dispatch/kind.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace crossgrad::oracle {

struct EntrySnapshot {
  std::size_t backend;
  TensorData data;  // bitwise equality: shape, dtype, bytes (NaN payloads and -0.0 count)
  DeviceSpec device;
  friend bool operator==(const EntrySnapshot&, const EntrySnapshot&) = default;
};
using GradientsSnapshot = std::map<std::uint64_t, EntrySnapshot>;

EntrySnapshot snapshot_of(const AnyTensor& tensor);
// A plain B(Float(..)) tensor (what grad returns, or a gradient passed to grad_replace).
std::optional<EntrySnapshot> snapshot_of(const DispatchTensor& plain_float);
GradientsSnapshot snapshot(const Gradients& grads);

std::string describe(const EntrySnapshot& entry);
// nullopt when equal; else the first difference, readable.
std::optional<std::string> compare(const EntrySnapshot& expected, const EntrySnapshot& actual);
std::optional<std::string> compare(const GradientsSnapshot& expected, const GradientsSnapshot& actual);
// compare(expected, snapshot(actual)), the same verdict and message, without building the snapshot.
std::optional<std::string> compare(const GradientsSnapshot& expected, const Gradients& actual);

}  // namespace crossgrad::oracle
