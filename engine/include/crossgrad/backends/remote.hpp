#pragma once
// Remote: tensors held by a crossgrad server (crossgrad-server) over gRPC. The client is this
// backend's "kernels": every member of the backend interface is one call to the server of the
// tensor's device (Remote(i) = endpoint i of remote_config.hpp), generated from the op registry.
// A tensor is a handle of its server-side session; dropping the last copy queues the handle, and
// the session's next call frees it (no round trip of its own). Autodiff<Remote> keeps the graph
// here, on the client, like every Autodiff<B>. Failures are catalog panics: remote-unavailable,
// remote-refused, remote-session-lost, remote-rejected, or the served backend's own panic with its
// exact message. Present only when built with gRPC (CROSSGRAD_WITH_REMOTE).
#include <crossgrad/backends/backend_ops.hpp>
#include <crossgrad/backends/quantized.hpp>
#include <crossgrad/backends/remote_config.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace crossgrad::backends {

// One server-side tensor of one session; its destructor queues the handle to be freed.
class RemoteHandle;

struct RemoteTensor {
  Shape shape;
  DType dtype = DType::F32;
  Device dev = Device::remote(0);
  std::shared_ptr<RemoteHandle> handle;
  Device device() const { return dev; }
};

struct Remote {
  static constexpr std::string_view name = "Remote";
  using Tensor = RemoteTensor;
  using Quantized = QuantizedTensor<RemoteTensor>;
  static Device default_device() { return Device::remote(0); }
  // True when at least one server is configured; whether it answers is found per call.
  static bool is_available();
  static std::string unavailable_reason();
  static int device_count();
  CROSSGRAD_DECLARE_BACKEND_OPS(Tensor, Quantized)
};

}  // namespace crossgrad::backends
