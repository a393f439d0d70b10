#pragma once
// One session's tensors on the served backend, type-erased so that Handler is not a template:
// make_tensor_table(name) picks the backend by its registry name at start (served_backend.cpp).
// The table only executes and stores; handles, limits and statistics are the session's (handler.cpp).
#include <crossgrad/remote_protocol/wire.hpp>
#include <crossgrad/server/bulk_transport.hpp>

#include <crossgrad/core/dtype.hpp>
#include <crossgrad/core/shape.hpp>
#include <crossgrad/core/tensor_data.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace crossgrad::server {

namespace wire = ::crossgrad::remote::wire;

// A handle the session does not hold (NOT_FOUND, no lost key).
class UnknownHandle : public std::runtime_error {
 public:
  explicit UnknownHandle(std::uint64_t handle)
      : std::runtime_error("unknown tensor handle " + std::to_string(handle)), handle_(handle) {}
  std::uint64_t handle() const { return handle_; }

 private:
  std::uint64_t handle_;
};

// A limit of the session was reached (RESOURCE_EXHAUSTED); what() names the flag.
class LimitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A new tensor before it is stored: the session decides (limits) whether it is kept.
struct NewTensor {
  Shape shape;
  DType dtype = DType::F32;
  float scale = 0.0f;        // quantize's scale (0 otherwise)
  std::size_t bytes = 0;     // shape x dtype
};

class TensorTable {
 public:
  virtual ~TensorTable() = default;

  // Before an op allocates a result whose shape is an argument (float_full, reshape, expand), the
  // table asks `admit(bytes)`, which throws LimitError when the session could not hold it.
  using Admit = std::function<void(std::size_t bytes)>;

  // Each computes a tensor and keeps it pending; store(handle) keeps it, drop_pending() not.
  virtual NewTensor from_data(const TensorData& data) = 0;
  // from_data(TensorData::from_bytes(bytes, shape, dtype)) with the same panics; a host backend
  // keeps `bytes` as the tensor's storage (a bulk upload: no copy).
  virtual NewTensor from_bulk(Shape shape, DType dtype, HostBuffer bytes) = 0;
  virtual NewTensor call(const wire::proto::OpCall& call, const Admit& admit) = 0;
  virtual void store(std::uint64_t handle) = 0;
  virtual void drop_pending() = 0;

  virtual TensorData into_data(std::uint64_t handle) const = 0;   // UnknownHandle
  // The same bytes for the bulk channel, without a copy where the backend allows (UnknownHandle).
  virtual Download download(std::uint64_t handle) const = 0;
  virtual bool contains(std::uint64_t handle) const = 0;
  // The stored tensor's bytes, or 0 after freeing nothing when the handle is unknown.
  virtual std::size_t free(std::uint64_t handle) = 0;
  virtual std::size_t bytes_of(std::uint64_t handle) const = 0;   // UnknownHandle
  virtual void clear() = 0;
};

// The served backend: a registry name chosen at start.
class ServedBackend {
 public:
  virtual ~ServedBackend() = default;
  virtual std::string_view name() const = 0;
  virtual std::unique_ptr<TensorTable> new_table() const = 0;
};

// Throws std::invalid_argument naming the problem (unknown, not built, unavailable, Remote).
std::unique_ptr<ServedBackend> make_served_backend(std::string_view name);

std::size_t tensor_bytes(const Shape& shape, DType dtype);

}  // namespace crossgrad::server
