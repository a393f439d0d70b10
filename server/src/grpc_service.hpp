#pragma once
// The gRPC face of Handler: the Compute service of crossgrad_remote.proto as a thin shim that
// passes the call's token (metadata x-crossgrad-token) in and the trailing metadata out, and holds
// Attach calls open until their client goes (then the session is freed at once).
#include <crossgrad/server/handler.hpp>

#include "crossgrad_remote.grpc.pb.h"

#include <atomic>

namespace crossgrad::server {

class ComputeService final : public proto::Compute::Service {
 public:
  explicit ComputeService(Handler& handler) : handler_(handler) {}
  // Attach calls return (OK) soon after this; called before the gRPC server's Shutdown.
  void stop() { stopping_.store(true); }

  grpc::Status OpenSession(grpc::ServerContext* ctx, const proto::OpenSessionRequest* request,
                           proto::OpenSessionReply* reply) override;
  grpc::Status CloseSession(grpc::ServerContext* ctx, const proto::SessionRef* request,
                            proto::Empty* reply) override;
  grpc::Status KeepAlive(grpc::ServerContext* ctx, const proto::SessionRef* request,
                         proto::Empty* reply) override;
  grpc::Status FromData(grpc::ServerContext* ctx, const proto::FromDataRequest* request,
                        proto::TensorReply* reply) override;
  grpc::Status IntoData(grpc::ServerContext* ctx, const proto::HandleRequest* request,
                        proto::TensorData* reply) override;
  grpc::Status Call(grpc::ServerContext* ctx, const proto::OpCall* request, proto::TensorReply* reply) override;
  grpc::Status Free(grpc::ServerContext* ctx, const proto::FreeRequest* request, proto::Empty* reply) override;
  grpc::Status Attach(grpc::ServerContext* ctx, const proto::SessionRef* request,
                      grpc::ServerWriter<proto::Empty>* writer) override;

 private:
  Handler& handler_;
  std::atomic<bool> stopping_{false};
};

}  // namespace crossgrad::server
