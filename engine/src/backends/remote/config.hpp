#pragma once
// The client's view of remote_config.hpp: one consistent snapshot of the endpoint list, the
// deadline and a generation number that changes with every configure(), so the session pool can
// tell that its sessions belong to an old list.
#include <crossgrad/backends/remote_config.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace crossgrad::remote::client {

struct ConfigSnapshot {
  std::vector<Endpoint> endpoints;
  std::chrono::milliseconds deadline = kDefaultDeadline;
  std::uint64_t generation = 0;
  std::string problem;  // why the environment gave no endpoint (unreadable file, ...); may be empty
};

ConfigSnapshot config_snapshot();

}  // namespace crossgrad::remote::client
