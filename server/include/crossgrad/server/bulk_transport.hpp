#pragma once
// What Handler needs of the bulk channel (Note [Remote bulk channel] in
// engine/remote_protocol/include/crossgrad/remote_protocol/bulk_frame.hpp). Server gives Handler its
// TCP BulkChannel; a Handler without one (the protocol fuzzer, the unit tests, --bulk off) tells
// sessions bulk_port 0 and answers a bulk request INVALID_ARGUMENT.
#include <crossgrad/core/tensor_data.hpp>

#include <crossgrad/core/dtype.hpp>
#include <crossgrad/core/host_buffer.hpp>
#include <crossgrad/core/shape.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>

namespace crossgrad::server {

// The session's bulk connection broke or never came: the call fails UNAVAILABLE (the client
// raises remote-unavailable), nothing is stored.
class BulkUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A stored tensor's bytes as into_data would give them, and what keeps them alive until they are
// sent: a TensorData, or, for a host backend, the tensor itself (its buffer is shared, not copied;
// tensors are immutable).
struct Download {
  Shape shape;
  DType dtype = DType::F32;
  std::shared_ptr<const void> owner;
  std::span<const std::byte> bytes;
};

class BulkTransport {
 public:
  virtual ~BulkTransport() = default;
  virtual int port() const = 0;
  // The bytes of upload `transfer` of `session`, exactly `bytes` long, in a host buffer (so that a
  // host backend can keep them as its storage); waits for them. Throws wire::WireError for a frame
  // of another length, BulkUnavailable when the connection is missing or broke or the bytes did
  // not come in time. Staged uploads with smaller ids are dropped.
  virtual HostBuffer take_upload(std::uint64_t session, std::uint64_t transfer, std::size_t bytes) = 0;
  // Queues the bytes as download `transfer` of `session` (sent after the reply); throws
  // BulkUnavailable when the session has no bulk connection.
  virtual void send_download(std::uint64_t session, std::uint64_t transfer, Download download) = 0;
};

}  // namespace crossgrad::server
