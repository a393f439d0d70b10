#pragma once
// The server's side of the bulk channel (Note [Remote bulk channel]): a TCP listener on the gRPC
// host, one connection per session that asked for it, a reader thread per connection staging the
// client's upload frames, and a writer thread sending queued downloads.
#include <crossgrad/server/bulk_transport.hpp>
#include <crossgrad/server/handler.hpp>
#include <crossgrad/remote_protocol/bulk_frame.hpp>

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

namespace crossgrad::server {

class BulkChannel final : public BulkTransport {
 public:
  // Listens on options.host (an ephemeral port); throws std::runtime_error when it cannot.
  BulkChannel(Handler& handler, const ServerOptions& options);
  ~BulkChannel() override;
  BulkChannel(const BulkChannel&) = delete;
  BulkChannel& operator=(const BulkChannel&) = delete;

  int port() const override { return port_; }
  HostBuffer take_upload(std::uint64_t session, std::uint64_t transfer, std::size_t bytes) override;
  void send_download(std::uint64_t session, std::uint64_t transfer, Download download) override;

  // Closes the listener and every connection, joins every thread. Idempotent.
  void stop();

  struct Connection;

 private:
  void accept_loop();
  void serve(const std::shared_ptr<Connection>& connection);   // a connection's reader thread
  void write_loop(const std::shared_ptr<Connection>& connection);
  void close(Connection& connection);
  std::shared_ptr<Connection> bound(std::uint64_t session);
  void join_finished();

  Handler& handler_;
  const std::size_t max_bytes_;                // a session's bytes: no frame or staging exceeds it
  const std::chrono::milliseconds wait_;
  remote::bulk::Socket listener_;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;                           // guards by_session_ and all_
  std::unordered_map<std::uint64_t, std::shared_ptr<Connection>> by_session_;
  std::vector<std::shared_ptr<Connection>> all_;
  std::thread acceptor_;
};

}  // namespace crossgrad::server
