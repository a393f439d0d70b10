#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/render.hpp>
#include <crossgrad/oracle/snapshot.hpp>

#include <crossgrad/backends/host_tensor.hpp>
#include <crossgrad/backends/registry.hpp>

#include <cstdio>
#include <cstring>
#include <type_traits>

namespace crossgrad::oracle {
namespace {
// f.template operator()<B>() for the backend B whose tensor type is T (each backend has its own).
template <class T, class F>
void with_backend_of(F&& f) {
  for_each_backend([&]<class B>() {
    if constexpr (std::is_same_v<typename B::Tensor, T>) f.template operator()<B>();
  });
}
}  // namespace

EntrySnapshot snapshot_of(const AnyTensor& tensor) {
  return std::visit(
      [&]<class T>(const T& t) {
        std::optional<EntrySnapshot> out;
        // The registry index (Note [Registry indices do not depend on the build]), not the position
        // among the backends built here: without Cuda, Remote is built third but is index 3.
        with_backend_of<T>([&]<class B>() { out.emplace(EntrySnapshot{registry_index_of<B>(), B::into_data(t), device_spec(B::device(t))}); });
        return std::move(*out);
      },
      tensor);
}

std::optional<EntrySnapshot> snapshot_of(const DispatchTensor& plain_float) {
  if (plain_float.kind.is_autodiff()) return std::nullopt;
  return std::visit(
      [&]<class V>(const V& v) -> std::optional<EntrySnapshot> {
        if constexpr (std::is_same_v<V, AutodiffKind>) {
          return std::nullopt;
        } else {
          if (const auto* f = std::get_if<0>(&v.value)) return snapshot_of(AnyTensor{f->tensor});  // Float
          return std::nullopt;
        }
      },
      plain_float.kind.value);
}

GradientsSnapshot snapshot(const Gradients& grads) {
  GradientsSnapshot out;
  for (const auto& [id, tensor] : grads) out.emplace(id.value, snapshot_of(tensor));
  return out;
}

namespace {
std::string bytes_hex(const TensorData& data, std::size_t limit = 16) {
  std::string s;
  const auto bytes = data.bytes();
  char buf[4];
  for (std::size_t i = 0; i < bytes.size() && i < limit; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned>(bytes[i]));
    s += buf;
  }
  if (bytes.size() > limit) s += "..";
  return s;
}
}  // namespace

std::string describe(const EntrySnapshot& entry) {
  return "backend#" + std::to_string(entry.backend) + " " + render_shape(entry.data.shape().dims()) + " " +
         render_dtype(entry.data.dtype()) + " " + render_device(entry.device) + " bytes=" + bytes_hex(entry.data);
}

std::optional<std::string> compare(const EntrySnapshot& expected, const EntrySnapshot& actual) {
  if (expected == actual) return std::nullopt;
  return "expected " + describe(expected) + ", got " + describe(actual);
}

namespace {
// The messages of both container comparisons below, which must read the same.
std::string missing(std::uint64_t id) { return "entry NodeId(" + std::to_string(id) + ") is missing"; }
std::string changed(std::uint64_t id, const std::string& diff) { return "entry NodeId(" + std::to_string(id) + ") changed: " + diff; }
std::string unexpected(std::uint64_t id, const EntrySnapshot& entry) {
  return "unexpected entry NodeId(" + std::to_string(id) + "): " + describe(entry);
}
}  // namespace

std::optional<std::string> compare(const GradientsSnapshot& expected, const GradientsSnapshot& actual) {
  for (const auto& [id, entry] : expected) {
    auto it = actual.find(id);
    if (it == actual.end()) return missing(id);
    if (auto diff = compare(entry, it->second)) return changed(id, *diff);
  }
  for (const auto& [id, entry] : actual) {
    if (!expected.count(id)) return unexpected(id, entry);
  }
  return std::nullopt;
}

namespace {
// Note [Entries compared in place]
// The model check compares every entry of the store after every command, and a snapshot of an
// entry is a copy of its data (B::into_data): on the gradients_api target that was ~5 % of all
// instructions and as many allocations as entries. A host backend's tensor already holds what
// its snapshot would (into_data copies its shape, dtype and bytes as they are), so a match is
// decided on the tensor itself; anything else, and every mismatch, goes through snapshot_of, so
// a difference reads (and panics, if into_data panics) exactly as before.
bool same_as_snapshot(const EntrySnapshot& expected, const AnyTensor& actual) {
  return std::visit(
      [&]<class T>(const T& t) {
        if constexpr (std::is_base_of_v<backends::HostTensor, T>) {
          const backends::HostTensor& host = t;
          const TensorData& data = expected.data;
          if (data.dtype() != host.dtype || data.shape() != host.shape || data.bytes().size() != host.buffer.size()) return false;
          if (host.buffer.size() != 0 && std::memcmp(data.bytes().data(), host.buffer.data(), host.buffer.size()) != 0) return false;
          bool same_place = false;
          with_backend_of<T>([&]<class B>() {
            same_place = expected.backend == registry_index_of<B>() && expected.device == device_spec(B::device(t));
          });
          return same_place;
        } else {
          return expected == snapshot_of(actual);
        }
      },
      actual);
}
}  // namespace

std::optional<std::string> compare(const GradientsSnapshot& expected, const Gradients& actual) {
  // Entry by entry, so the container is not first copied into a map of snapshots.
  for (const auto& [id, entry] : expected) {
    const AnyTensor* t = actual.find(NodeId{id});
    if (t == nullptr) return missing(id);
    if (same_as_snapshot(entry, *t)) continue;  // Note [Entries compared in place]
    if (auto diff = compare(entry, snapshot_of(*t))) return changed(id, *diff);
  }
  for (const auto& [id, tensor] : actual) {
    if (!expected.count(id.value)) return unexpected(id.value, snapshot_of(tensor));
  }
  return std::nullopt;
}

}  // namespace crossgrad::oracle
