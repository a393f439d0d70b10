#pragma once
// The in-process server: Handler (handler.hpp) behind gRPC on host:port, with its lease reaper.
// Used by crossgrad-server (main.cpp), the tests and the fuzz targets (a server on loopback).
#include <crossgrad/server/options.hpp>

#include <memory>
#include <string>

namespace crossgrad::server {

class Server {
 public:
  // Listens and serves at once. Throws std::invalid_argument for bad options (no token, a backend
  // that cannot be served) and std::runtime_error when it cannot listen on host:port.
  static std::unique_ptr<Server> start(const ServerOptions& options);
  ~Server();  // shutdown()

  int port() const;              // the port listened on (the ephemeral one for port 0)
  std::string endpoint() const;  // "host:port"
  // Stops accepting calls, waits up to 2 s for calls in progress (then cancels them), ends every
  // session (log line "shutdown"). Idempotent.
  void shutdown();
  Stats stats() const;

  struct Impl;

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace crossgrad::server
