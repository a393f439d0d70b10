#pragma once
// Note [Transport-free handler]
// crossgrad::server::Handler is the whole server without the network: one method per rpc of
// engine/remote_protocol/crossgrad_remote.proto, taking the call's token, its request and its reply, and
// returning the gRPC status plus trailing metadata. The gRPC service (grpc_service.cpp) only copies
// the token out of the call metadata and the trailing metadata back; the protocol fuzzer and the
// unit tests call Handler directly. So Handler must answer ANY request with a status: every session,
// handle, op code, argument, dtype and shape is validated (WireError -> INVALID_ARGUMENT), engine
// panics travel as FAILED_PRECONDITION with their catalog id (x-crossgrad-panic-id), limits and
// std::bad_alloc as RESOURCE_EXHAUSTED, an unknown session as NOT_FOUND with x-crossgrad-lost. A
// call with a missing or wrong token gets UNAUTHENTICATED before anything is looked at or changed.
// Thread-safe: calls of one session run one at a time, sessions in parallel.
#include <crossgrad/server/bulk_transport.hpp>
#include <crossgrad/server/options.hpp>
#include <crossgrad/remote_protocol/bulk_frame.hpp>

#include "crossgrad_remote.pb.h"
#include <grpcpp/support/status.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace crossgrad::server {

namespace proto = ::crossgrad::remote;
using Metadata = std::vector<std::pair<std::string, std::string>>;

// Why a session ended (its log line says it).
enum class EndReason { Closed, Expired, ClientGone, Shutdown };

class Handler {
 public:
  // Throws std::invalid_argument for an empty token or a backend that is unknown, not built,
  // not available here, or Remote itself.
  explicit Handler(ServerOptions options);
  ~Handler();
  Handler(const Handler&) = delete;
  Handler& operator=(const Handler&) = delete;

  grpc::Status open_session(std::string_view token, const proto::OpenSessionRequest& request,
                            proto::OpenSessionReply* reply, Metadata* trailing);
  grpc::Status close_session(std::string_view token, const proto::SessionRef& request,
                             proto::Empty* reply, Metadata* trailing);
  grpc::Status keep_alive(std::string_view token, const proto::SessionRef& request,
                          proto::Empty* reply, Metadata* trailing);
  grpc::Status from_data(std::string_view token, const proto::FromDataRequest& request,
                         proto::TensorReply* reply, Metadata* trailing);
  grpc::Status into_data(std::string_view token, const proto::HandleRequest& request,
                         proto::TensorData* reply, Metadata* trailing);
  grpc::Status call(std::string_view token, const proto::OpCall& request, proto::TensorReply* reply,
                    Metadata* trailing);
  grpc::Status free(std::string_view token, const proto::FreeRequest& request, proto::Empty* reply,
                    Metadata* trailing);
  // Attach's check: OK when the token is right and the session is live (the transport then holds
  // the call open until the client goes, and reports that with client_gone).
  grpc::Status attach(std::string_view token, const proto::SessionRef& request, Metadata* trailing);

  // The bulk channel large from_data / into_data bytes travel on (Note [Remote bulk channel]); set
  // once by Server before it serves (nullptr: none). Not owned.
  void set_bulk_transport(BulkTransport* transport);
  // A bulk connection's Hello: the session is live and the key is its key (constant time).
  bool bulk_hello_valid(const remote::bulk::Hello& hello) const;

  bool session_live(std::uint64_t session) const;
  // The session's Attach call was cancelled: the client is gone; frees the session now.
  void client_gone(std::uint64_t session);
  // Ends every session whose lease ran out (none of its calls running); returns how many.
  std::size_t reap_expired();
  // Ends every session (server shutdown).
  void end_all();

  std::string_view backend_name() const;
  const ServerOptions& options() const { return options_; }
  Stats stats() const;

  struct State;  // opaque: sessions and the served backend (handler.cpp)

 private:
  ServerOptions options_;
  std::unique_ptr<State> state_;
};

}  // namespace crossgrad::server
