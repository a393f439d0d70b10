#include "grpc_service.hpp"

#include <crossgrad/remote_protocol/wire.hpp>

#include <grpcpp/server_context.h>

#include <chrono>
#include <string_view>
#include <thread>

namespace crossgrad::server {
namespace {

namespace wire = ::crossgrad::remote::wire;

std::string_view token_of(const grpc::ServerContext* ctx) {
  const auto& md = ctx->client_metadata();
  auto it = md.find(wire::kTokenKey);
  if (it == md.end()) return {};
  return std::string_view(it->second.data(), it->second.size());
}

// Runs the handler method and copies its trailing metadata onto the call.
template <class Method, class Request, class Reply>
grpc::Status forward(Handler& handler, Method method, grpc::ServerContext* ctx, const Request* request,
                     Reply* reply) {
  Metadata trailing;
  grpc::Status status = (handler.*method)(token_of(ctx), *request, reply, &trailing);
  for (const auto& [key, value] : trailing) ctx->AddTrailingMetadata(key, value);
  return status;
}

}  // namespace

grpc::Status ComputeService::OpenSession(grpc::ServerContext* ctx, const proto::OpenSessionRequest* request,
                                         proto::OpenSessionReply* reply) {
  return forward(handler_, &Handler::open_session, ctx, request, reply);
}
grpc::Status ComputeService::CloseSession(grpc::ServerContext* ctx, const proto::SessionRef* request,
                                          proto::Empty* reply) {
  return forward(handler_, &Handler::close_session, ctx, request, reply);
}
grpc::Status ComputeService::KeepAlive(grpc::ServerContext* ctx, const proto::SessionRef* request,
                                       proto::Empty* reply) {
  return forward(handler_, &Handler::keep_alive, ctx, request, reply);
}
grpc::Status ComputeService::FromData(grpc::ServerContext* ctx, const proto::FromDataRequest* request,
                                      proto::TensorReply* reply) {
  return forward(handler_, &Handler::from_data, ctx, request, reply);
}
grpc::Status ComputeService::IntoData(grpc::ServerContext* ctx, const proto::HandleRequest* request,
                                      proto::TensorData* reply) {
  return forward(handler_, &Handler::into_data, ctx, request, reply);
}
grpc::Status ComputeService::Call(grpc::ServerContext* ctx, const proto::OpCall* request,
                                  proto::TensorReply* reply) {
  return forward(handler_, &Handler::call, ctx, request, reply);
}
grpc::Status ComputeService::Free(grpc::ServerContext* ctx, const proto::FreeRequest* request,
                                  proto::Empty* reply) {
  return forward(handler_, &Handler::free, ctx, request, reply);
}

grpc::Status ComputeService::Attach(grpc::ServerContext* ctx, const proto::SessionRef* request,
                                    grpc::ServerWriter<proto::Empty>*) {
  Metadata trailing;
  grpc::Status status = handler_.attach(token_of(ctx), *request, &trailing);
  for (const auto& [key, value] : trailing) ctx->AddTrailingMetadata(key, value);
  if (!status.ok()) return status;
  // The sync API has no cancellation callback: look every 20 ms (a client gone is noticed within
  // that, the lease is the fallback for connections that stay half-open).
  while (!ctx->IsCancelled() && !stopping_.load() && handler_.session_live(request->session())) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (ctx->IsCancelled()) handler_.client_gone(request->session());
  return grpc::Status::OK;
}

}  // namespace crossgrad::server
