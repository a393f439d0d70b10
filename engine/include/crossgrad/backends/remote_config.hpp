#pragma once
// Which crossgrad servers the Remote backend talks to. Device Remote(i) is endpoint i of this list.
// Without a configure() call the list comes from the environment at first use:
//   CROSSGRAD_REMOTE_FILE        a file of lines "<address> <token>" (the ctest fixture writes one);
//   else CROSSGRAD_REMOTE        comma-separated addresses, all with the token CROSSGRAD_REMOTE_TOKEN;
//   CROSSGRAD_REMOTE_DEADLINE_MS the deadline of every call (default 5000).
// configure() replaces the list and the deadline at any time; sessions opened on the old list are
// closed (their tensors then raise remote-session-lost), so tests can point the client elsewhere.
#include <chrono>
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

}  // namespace crossgrad::remote
