// The Remote backend's members: each one call to the server of the tensor's device. The registry
// ops are generated from CROSSGRAD_OPS (one body per Sig class, never per op); their arguments are
// packed by wire::put_args (Note [Remote wire codec]).
#include <crossgrad/backends/host_common.hpp>
#include <crossgrad/backends/remote.hpp>
#include <crossgrad/core/host_buffer.hpp>
#include <crossgrad/core/shape_rules.hpp>

#include "backends/remote/session.hpp"
#include "backends/remote/status.hpp"

#include <mutex>
#include <type_traits>

namespace crossgrad::backends {
namespace {

using remote::client::Session;
namespace proto = remote::wire::proto;
namespace wire = remote::wire;

template <class Request, class Reply>
using Rpc = grpc::Status (proto::Compute::Stub::*)(grpc::ClientContext*, const Request&, Reply*);

// One round trip in `session` with the configured deadline; a failure becomes its catalog panic
// (Note [Remote failures are catalog panics]), and a session the server no longer knows is dropped.
template <class Request, class Reply>
Reply invoke(const std::shared_ptr<Session>& session, std::string_view call, Rpc<Request, Reply> rpc,
             const Request& request) {
  grpc::ClientContext context;
  session->prepare(context);
  Reply reply;
  const grpc::Status status = (session->stub().*rpc)(&context, request, &reply);
  if (status.ok()) return reply;
  if (status.error_code() == grpc::StatusCode::NOT_FOUND && remote::client::session_lost(context)) {
    session->mark_lost();
    remote::client::forget(session);
  }
  remote::client::raise_status(status, context, session->address(), call, session->id());
}

template <class Request>
void attach_frees(Session& session, Request& request) {
  for (std::uint64_t h : session.take_frees()) request.add_frees(h);
}

RemoteTensor tensor_of(const std::shared_ptr<Session>& session, const proto::TensorReply& reply, const Device& device) {
  return RemoteTensor{wire::get_shape(reply.shape()), wire::get_dtype(reply.dtype()), device,
                      std::make_shared<RemoteHandle>(session, reply.handle())};
}

// The live session of `tensor`, or remote-session-lost.
const std::shared_ptr<Session>& live_session(const RemoteTensor& tensor) {
  if (!tensor.handle) panic(PanicId::Unreachable);  // a RemoteTensor{} never made by this backend
  const std::shared_ptr<Session>& s = tensor.handle->session();
  if (s->lost()) remote::client::raise_session_lost(s->address(), s->id());
  return s;
}

// Calls that create a tensor from nothing (from_data, float_full) run in the device's current
// session; when the server turns out not to know it (a restart), once more in a new one.
template <class Run>
RemoteTensor create_on(const Device& device, Run&& run) {
  for (int attempt = 0;; ++attempt) {
    const std::shared_ptr<Session> session = remote::client::session_for(device);
    try {
      return run(session);
    } catch (const Panic& p) {
      if (p.id() != PanicId::RemoteSessionLost || attempt > 0) throw;
    }
  }
}

// One op call in the receiver's session. Tensor arguments become handles of that session: a
// tensor of a lost session raises remote-session-lost; one of another server is copied over first
// (float_to_device semantics), and the copy is kept until the call returns.
class RemoteCall {
 public:
  RemoteCall(std::shared_ptr<Session> session, Device device) : session_(std::move(session)), device_(device) {}

  template <class T>
  const T& arg(const T& plain) { return plain; }
  wire::Handle arg(const RemoteTensor& tensor) {
    const std::shared_ptr<Session>& s = live_session(tensor);
    if (s == session_) return {tensor.handle->id()};
    RemoteTensor copy = Remote::from_data(Remote::into_data(tensor), device_);
    const std::uint64_t id = copy.handle->id();
    copies_.push_back(std::move(copy));
    return {id};
  }
  std::optional<wire::Handle> arg(const std::optional<RemoteTensor>& tensor) {
    if (!tensor) return std::nullopt;
    return arg(*tensor);
  }
  std::vector<wire::Handle> arg(const std::vector<RemoteTensor>& tensors) {
    std::vector<wire::Handle> out;
    out.reserve(tensors.size());
    for (const RemoteTensor& t : tensors) out.push_back(arg(t));
    return out;
  }

  template <class... A>
  RemoteTensor run(std::uint32_t op, std::string_view name, const A&... args) {
    proto::OpCall call;
    call.set_op(op);
    wire::put_args(call, arg(args)...);
    call.set_session(session_->id());
    attach_frees(*session_, call);
    return tensor_of(session_, invoke(session_, name, &proto::Compute::Stub::Call, call), device_);
  }

 private:
  std::shared_ptr<Session> session_;
  Device device_;
  std::vector<RemoteTensor> copies_;
};

const RemoteTensor& receiver(const RemoteTensor& tensor, std::string_view) { return tensor; }
const RemoteTensor& receiver(const std::vector<RemoteTensor>& tensors, std::string_view name) {
  if (tensors.empty()) (void)rules::cat_shape({}, 0, name);  // raises cat-empty, as every backend does
  return tensors.front();
}

template <class First, class... Rest>
RemoteTensor remote_op(OpId id, std::string_view name, const First& first, const Rest&... rest) {
  const RemoteTensor& r = receiver(first, name);
  RemoteCall call(live_session(r), r.dev);
  return call.run(static_cast<std::uint32_t>(id), name, first, rest...);
}

void require_remote_dtype(DType dtype) { host::require_storable_dtype(dtype, Remote::name); }

// A tensor's bytes as into_data will return them. Its shape came over the wire, so the size is
// the checked one: a shape past the limit is tensor-too-large, never a wrapped-around count.
std::size_t tensor_bytes(const RemoteTensor& tensor) { return checked_tensor_bytes(tensor.shape, tensor.dtype); }

// A bulk transfer has the call deadline to move its bytes.
remote::bulk::Clock::time_point bulk_deadline(const Session& session) {
  return remote::bulk::Clock::now() + session.deadline();
}

}  // namespace

bool Remote::is_available() { return device_count() > 0; }

std::string Remote::unavailable_reason() { return remote::client::unavailable_reason(); }

int Remote::device_count() { return static_cast<int>(remote::endpoints().size()); }

RemoteTensor Remote::from_data(const TensorData& data, const Device& device) {
  require_remote_dtype(data.dtype());
  return create_on(device, [&](const std::shared_ptr<Session>& session) {
    proto::FromDataRequest request;
    std::unique_lock<std::mutex> bulk_lock;
    if (remote::client::BulkLink* link = session->bulk_link(data.bytes().size(), bulk_lock)) {
      // The bytes go first on the bulk channel; the call names them (Note [Remote bulk channel]).
      const std::uint64_t transfer = link->next_upload();
      try {
        link->upload(transfer, data.bytes(), bulk_deadline(*session));
      } catch (const remote::bulk::BulkError& e) {
        session->drop_bulk_link();
        remote::client::raise_bulk_failure(session->address(), "from_data", e.what(), e.timed_out());
      }
      proto::TensorData* message = request.mutable_data();
      wire::put_shape(data.shape(), message->mutable_shape());
      message->set_dtype(wire::put_dtype(data.dtype()));
      message->set_bulk_transfer(transfer);
    } else {
      wire::put_data(data, request.mutable_data());
    }
    request.set_session(session->id());
    attach_frees(*session, request);
    return tensor_of(session, invoke(session, "from_data", &proto::Compute::Stub::FromData, request), device);
  });
}

TensorData Remote::into_data(const RemoteTensor& tensor) {
  const std::shared_ptr<Session>& session = live_session(tensor);
  proto::HandleRequest request;
  request.set_session(session->id());
  request.set_handle(tensor.handle->id());
  std::unique_lock<std::mutex> bulk_lock;
  remote::client::BulkLink* link = session->bulk_link(tensor_bytes(tensor), bulk_lock);
  request.set_bulk(link != nullptr);
  attach_frees(*session, request);
  proto::TensorData reply = invoke(session, "into_data", &proto::Compute::Stub::IntoData, request);
  if (reply.bulk_transfer() == 0) return wire::get_data(reply);
  if (link == nullptr) {
    remote::client::raise_bulk_failure(session->address(), "into_data", "a bulk reply to a call that asked for none", false);
  }
  const DType dtype = wire::get_dtype(reply.dtype());
  Shape shape = wire::get_shape(reply.shape());
  HostBytes bytes;
  try {
    bytes = link->download(reply.bulk_transfer(), checked_tensor_bytes(shape, dtype), bulk_deadline(*session));
  } catch (const remote::bulk::BulkError& e) {
    session->drop_bulk_link();
    remote::client::raise_bulk_failure(session->address(), "into_data", e.what(), e.timed_out());
  }
  return TensorData::adopt_bytes(std::move(bytes), std::move(shape), dtype);
}

Shape Remote::shape(const RemoteTensor& tensor) { return tensor.shape; }
DType Remote::dtype(const RemoteTensor& tensor) { return tensor.dtype; }
Device Remote::device(const RemoteTensor& tensor) { return tensor.dev; }

// Every call returns once the server has run it: nothing is ever queued here.
void Remote::synchronize(const Device&) {}

RemoteTensor Remote::float_full(const Shape& shape, double value, DType dtype, const Device& device) {
  return create_on(device, [&](const std::shared_ptr<Session>& session) {
    proto::OpCall call;
    call.set_op(wire::kFloatFull);
    wire::put_args(call, shape, value, dtype);
    call.set_session(session->id());
    attach_frees(*session, call);
    return tensor_of(session, invoke(session, "float_full", &proto::Compute::Stub::Call, call), device);
  });
}

RemoteTensor Remote::float_to_device(const RemoteTensor& tensor, const Device& device) {
  if (device == tensor.dev) return tensor;
  if (device.kind != Device::Kind::Remote) (void)remote::client::session_for(device);  // device-unavailable
  return from_data(into_data(tensor), device);
}

Remote::Quantized Remote::quantize(const RemoteTensor& tensor) {
  const std::shared_ptr<Session>& session = live_session(tensor);
  proto::OpCall call;
  call.set_op(wire::kQuantize);
  call.set_session(session->id());
  call.add_operands(tensor.handle->id());
  attach_frees(*session, call);
  const proto::TensorReply reply = invoke(session, "quantize", &proto::Compute::Stub::Call, call);
  return Quantized{tensor_of(session, reply, tensor.dev), reply.scale()};
}

RemoteTensor Remote::dequantize(const Quantized& tensor) {
  const std::shared_ptr<Session>& session = live_session(tensor.values);
  proto::OpCall call;
  call.set_op(wire::kDequantize);
  call.set_session(session->id());
  call.add_operands(tensor.values.handle->id());
  call.set_scale(tensor.scale);
  attach_frees(*session, call);
  return tensor_of(session, invoke(session, "dequantize", &proto::Compute::Stub::Call, call), tensor.values.dev);
}

// The registry ops: the argument list of each Sig class, then one generated body per op.
#define CROSSGRAD_REMOTE_ARGS_MAP(Sig) tensor CROSSGRAD_SIG_EXTRA_##Sig
#define CROSSGRAD_REMOTE_ARGS_ZIP(Sig) lhs, rhs
#define CROSSGRAD_REMOTE_ARGS_SELECT(Sig) tensor, dim, indices
#define CROSSGRAD_REMOTE_ARGS_ASSIGN(Sig) tensor, dim, indices, values
#define CROSSGRAD_REMOTE_ARGS_ASSIGN_UPDATE(Sig) tensor, dim, indices, values, update
#define CROSSGRAD_REMOTE_ARGS_GATHER_ND(Sig) tensor, indices
#define CROSSGRAD_REMOTE_ARGS_SCATTER_ND(Sig) tensor, indices, values, update
#define CROSSGRAD_REMOTE_ARGS_ZIP_DIM(Sig) lhs, rhs, dim
#define CROSSGRAD_REMOTE_ARGS_ZIP_RANGES(Sig) tensor, ranges, values
#define CROSSGRAD_REMOTE_ARGS_MASKED(Sig) tensor, mask, value
#define CROSSGRAD_REMOTE_ARGS_MASK_FILL(Sig) tensor, mask, value
#define CROSSGRAD_REMOTE_ARGS_MASK_SELECT(Sig) tensor, mask
#define CROSSGRAD_REMOTE_ARGS_CAT(Sig) tensors, dim
#define CROSSGRAD_REMOTE_ARGS_ZIP_WITH(Sig) CROSSGRAD_SIG_TENSORS_##Sig CROSSGRAD_SIG_EXTRA_##Sig
#define CROSSGRAD_REMOTE_ARGS_ZIP_OPTIONAL(Sig) tensor, weight, bias CROSSGRAD_SIG_EXTRA_##Sig
#define CROSSGRAD_REMOTE_ARGS_ZIP5_WITH(Sig) CROSSGRAD_SIG_TENSORS_##Sig CROSSGRAD_SIG_EXTRA_##Sig
#define CROSSGRAD_REMOTE_ARGS_ATTENTION(Sig) tensor, key, value, mask, bias CROSSGRAD_SIG_EXTRA_##Sig
#define CROSSGRAD_REMOTE_ARGS_ZIP3_WITH(Sig) CROSSGRAD_SIG_TENSORS_##Sig CROSSGRAD_SIG_EXTRA_##Sig
#define CROSSGRAD_REMOTE_ARGS_INDEXED_WITH(Sig) tensor, grad, indices CROSSGRAD_SIG_EXTRA_##Sig
#define CROSSGRAD_REMOTE_OP(name, method, Sig, Operand, Result, Rule)                                    \
  RemoteTensor Remote::name CROSSGRAD_SIG_PARAMS_##Sig(RemoteTensor, RemoteTensor) {                     \
    return remote_op(OpId::name, #name, CROSSGRAD_PP_CAT(CROSSGRAD_REMOTE_ARGS_, CROSSGRAD_SIG_CLASS_##Sig)(Sig)); \
  }
CROSSGRAD_OPS(CROSSGRAD_REMOTE_OP)
#undef CROSSGRAD_REMOTE_OP

}  // namespace crossgrad::backends
