// Server: Handler + ComputeService on a gRPC server, and the lease reaper thread.
#include <crossgrad/server/server.hpp>

#include "bulk_channel.hpp"
#include "grpc_service.hpp"

#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>
#include <grpcpp/security/server_credentials.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace crossgrad::server {

struct Server::Impl {
  explicit Impl(const ServerOptions& options) : handler(options), service(handler) {}

  Handler handler;
  ComputeService service;
  std::unique_ptr<BulkChannel> bulk;  // after handler: destroyed (stopped) first
  std::unique_ptr<grpc::Server> grpc_server;
  std::string host;
  int port = 0;

  std::mutex mutex;
  std::condition_variable wake;
  bool stopped = false;  // guarded by mutex
  std::thread reaper;

  void reap_until_stopped() {
    // A quarter of the lease between looks: a session is freed at most 1.25 leases after its
    // last call.
    const auto period = std::clamp<std::chrono::milliseconds>(handler.options().lease / 4,
                                                              std::chrono::milliseconds(5),
                                                              std::chrono::milliseconds(1000));
    std::unique_lock lock(mutex);
    while (!stopped) {
      wake.wait_for(lock, period);
      if (stopped) break;
      lock.unlock();
      handler.reap_expired();
      lock.lock();
    }
  }
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() { shutdown(); }

std::unique_ptr<Server> Server::start(const ServerOptions& options) {
  auto impl = std::make_unique<Impl>(options);  // validates token and backend
  if (options.bulk) {
    impl->bulk = std::make_unique<BulkChannel>(impl->handler, options);
    impl->handler.set_bulk_transport(impl->bulk.get());
  }
  const int message_limit = static_cast<int>(std::min<std::size_t>(options.max_message_bytes, INT_MAX));
  grpc::ServerBuilder builder;
  int selected = 0;
  const std::string address = options.host + ":" + std::to_string(options.port);
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &selected);
  builder.SetMaxReceiveMessageSize(message_limit);
  builder.SetMaxSendMessageSize(message_limit);
  // Clients may ping an idle connection (their keep-alive); a dead peer is found by our pings.
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 1000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  builder.RegisterService(&impl->service);
  impl->grpc_server = builder.BuildAndStart();
  if (!impl->grpc_server || selected == 0) {
    throw std::runtime_error("crossgrad-server cannot listen on " + address);
  }
  impl->host = options.host;
  impl->port = selected;
  impl->reaper = std::thread([p = impl.get()] { p->reap_until_stopped(); });
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

int Server::port() const { return impl_->port; }
std::string Server::endpoint() const { return impl_->host + ":" + std::to_string(impl_->port); }
Stats Server::stats() const { return impl_->handler.stats(); }

void Server::shutdown() {
  {
    std::lock_guard lock(impl_->mutex);
    if (impl_->stopped) return;
    impl_->stopped = true;
  }
  impl_->wake.notify_all();
  impl_->service.stop();
  impl_->grpc_server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  impl_->grpc_server->Wait();
  if (impl_->reaper.joinable()) impl_->reaper.join();
  if (impl_->bulk) {
    impl_->handler.set_bulk_transport(nullptr);
    impl_->bulk->stop();
  }
  impl_->handler.end_all();
}

}  // namespace crossgrad::server
