#pragma once
// What a crossgrad-server is told at start (flags of crossgrad-server, ServerOptions of the
// in-process API): the served backend, where to listen, the token, the limits and the lease.
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace crossgrad::server {

struct ServerOptions {
  std::string backend = "Flex";     // a built, available local backend (registry name)
  std::string host = "127.0.0.1";
  int port = 0;                     // 0: an ephemeral port (Server::port() says which)
  std::string token;                // required, never empty
  // Per-session limits, each named by its flag in the RESOURCE_EXHAUSTED message.
  std::size_t max_tensors = 100000;                          // --max-tensors
  std::size_t max_session_bytes = std::size_t{8} << 30;      // --max-session-bytes
  std::size_t max_message_bytes = std::size_t{256} << 20;    // --max-message-bytes (both ways)
  std::size_t max_sessions = 4096;                           // --max-sessions (live at once)
  std::chrono::milliseconds lease{30000};                    // --lease-ms
  std::chrono::milliseconds stall{0};                        // --stall-ms (tests only)
  // The bulk channel for large tensors (Note [Remote bulk channel]): a second port on `host`.
  bool bulk = true;                                          // --bulk on|off
  // How long FromData waits for its bulk upload's bytes to arrive.
  std::chrono::milliseconds bulk_wait{10000};
  // One line per ended session; default: the line on stderr.
  std::function<void(std::string_view)> log;
};

// What the server holds now.
struct Stats {
  std::size_t sessions = 0;
  std::size_t tensors = 0;
  std::size_t bytes = 0;
  friend bool operator==(const Stats&, const Stats&) = default;
};

}  // namespace crossgrad::server
