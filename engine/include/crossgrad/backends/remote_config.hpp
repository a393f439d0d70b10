#pragma once
// Which crossgrad servers the Remote backend talks to. Device Remote(i) is endpoint i of this list.
// Without a configure() call the list comes from the environment at first use:
//   CROSSGRAD_REMOTE_FILE        a file of lines "<address> <token>" (the ctest fixture writes one);
//   else CROSSGRAD_REMOTE        comma-separated addresses, all with the token CROSSGRAD_REMOTE_TOKEN;
//   CROSSGRAD_REMOTE_DEADLINE_MS the deadline of every call (default 5000);
//   CROSSGRAD_REMOTE_BULK_BYTES  the bulk threshold below (digits, or "off").
// configure() replaces the list and the deadline at any time; sessions opened on the old list are
// closed (their tensors then raise remote-session-lost), so tests can point the client elsewhere.
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace crossgrad::remote {

struct Endpoint {
  std::string address;  // "127.0.0.1:50051", anything grpc::CreateChannel accepts
  std::string token;    // sent as the x-crossgrad-token metadata of every call
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

inline constexpr std::chrono::milliseconds kDefaultDeadline{5000};

// Replaces the configured endpoints and the per-call deadline.
void configure(std::vector<Endpoint> endpoints, std::chrono::milliseconds deadline = kDefaultDeadline);
// The configured endpoints (from the environment when configure() was never called).
std::vector<Endpoint> endpoints();
// The deadline of each remote call.
std::chrono::milliseconds deadline();

// Tensor bytes of from_data / into_data at or above this many cross on the server's bulk channel,
// a plain TCP connection beside gRPC (~30x faster for 64 MiB), instead of inside gRPC messages;
// below it, or with kBulkOff, or with a server that has no bulk channel, in gRPC messages. Same
// results and the same panics either way.
inline constexpr std::size_t kDefaultBulkBytes = std::size_t{1} << 20;
inline constexpr std::size_t kBulkOff = static_cast<std::size_t>(-1);
void set_bulk_threshold(std::size_t bytes);
std::size_t bulk_threshold();

}  // namespace crossgrad::remote
