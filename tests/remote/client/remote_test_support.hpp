#pragma once
// Helpers of the Remote client tests: an in-process crossgrad server (crossgrad::server::Server) or
// a crossgrad-server subprocess, each on 127.0.0.1 with an ephemeral port and a random token, and
// the client pointed at it with remote::configure. Expected values and messages are written in the
// tests by hand; nothing here formats a message.
#include <crossgrad/crossgrad.hpp>
#include <crossgrad/backends/remote_config.hpp>
#include <crossgrad/server/server.hpp>

#include <gtest/gtest.h>

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace crossgrad::remote_tests {

std::string random_token();

// A panic's id name and message, or nothing.
struct Caught {
  std::string id;
  std::string message;
};
std::optional<Caught> panic_of(const std::function<void()>& f);

// Runs f on another thread and waits at most `limit`: a call that hangs fails the whole test
// binary at once (exit 1 with a message) instead of hanging ctest.
std::optional<Caught> panic_within(std::chrono::milliseconds limit, const std::function<void()>& f,
                                   std::chrono::milliseconds* took = nullptr);

// An in-process server serving Flex, and the client configured to use it as Remote(0).
class InProcessServer {
 public:
  explicit InProcessServer(server::ServerOptions options = {});
  ~InProcessServer();
  server::Server& get() { return *server_; }
  const std::string& token() const { return token_; }
  std::string address() const;
  // remote::configure({{address, token}}, deadline).
  void use(std::chrono::milliseconds deadline = remote::kDefaultDeadline) const;

 private:
  std::string token_;
  std::unique_ptr<server::Server> server_;
};

// A crossgrad-server subprocess (the built executable, CROSSGRAD_SERVER_EXE).
class ServerProcess {
 public:
  // Starts `crossgrad-server --backend Flex --port <port> --token <token> --port-file ... <extra>`
  // and waits for its port file. port 0: ephemeral.
  ServerProcess(int port, std::string token, std::vector<std::string> extra = {});
  ~ServerProcess();  // SIGKILL if still running
  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  const std::string& token() const { return token_; }
  void kill_hard();  // SIGKILL and reap
  void use(std::chrono::milliseconds deadline = remote::kDefaultDeadline) const;

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string token_;
  std::string dir_;
};

// Spawns `path args...` with stdout on a pipe; returns the pid and the pipe's read end.
struct Child {
  pid_t pid = -1;
  int stdout_fd = -1;
};
Child spawn(const std::string& path, const std::vector<std::string>& args, bool pipe_stdout);
// One line of a child's stdout (without the newline), waiting at most `limit`; nullopt on EOF/timeout.
std::optional<std::string> read_line(int fd, std::chrono::milliseconds limit);

}  // namespace crossgrad::remote_tests
