// Endpoint configuration: the API (configure) or, until it is called, the environment.
#include "backends/remote/config.hpp"

#include "backends/remote/session.hpp"

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

namespace crossgrad::remote {
namespace {

struct State {
  std::mutex mutex;
  bool loaded = false;
  client::ConfigSnapshot config;
};

State& state() {
  static State* s = new State();  // never destroyed: tensors may outlive static destruction
  return *s;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// CROSSGRAD_REMOTE_FILE: one "<address> <token>" per line; blank lines and '#' comments skipped.
void load_file(const std::string& path, client::ConfigSnapshot& out) {
  std::ifstream in(path);
  if (!in) {
    out.problem = "cannot read CROSSGRAD_REMOTE_FILE " + path;
    return;
  }
  std::string line;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    Endpoint e;
    fields >> e.address >> e.token;
    out.endpoints.push_back(std::move(e));
  }
  if (out.endpoints.empty()) out.problem = "CROSSGRAD_REMOTE_FILE " + path + " lists no server";
}

void load_environment(client::ConfigSnapshot& out) {
  if (const std::string file = env("CROSSGRAD_REMOTE_FILE"); !file.empty()) {
    load_file(file, out);
  } else if (const std::string list = env("CROSSGRAD_REMOTE"); !list.empty()) {
    const std::string token = env("CROSSGRAD_REMOTE_TOKEN");
    std::istringstream items(list);
    for (std::string address; std::getline(items, address, ',');) {
      address = trim(address);
      if (!address.empty()) out.endpoints.push_back({address, token});
    }
  }
  if (const std::string ms = env("CROSSGRAD_REMOTE_DEADLINE_MS"); !ms.empty()) {
    char* end = nullptr;
    const long long v = std::strtoll(ms.c_str(), &end, 10);
    if (end != ms.c_str() && *end == '\0' && v > 0) out.deadline = std::chrono::milliseconds(v);
  }
}

}  // namespace

void configure(std::vector<Endpoint> list, std::chrono::milliseconds deadline) {
  {
    State& s = state();
    std::lock_guard lock(s.mutex);
    s.loaded = true;
    s.config.endpoints = std::move(list);
    s.config.deadline = deadline.count() > 0 ? deadline : kDefaultDeadline;
    s.config.problem.clear();
    ++s.config.generation;
  }
  client::retire_sessions();
}

std::vector<Endpoint> endpoints() { return client::config_snapshot().endpoints; }

namespace {

// CROSSGRAD_REMOTE_BULK_BYTES: base-10 digits, or "off"; anything else keeps the default.
std::size_t bulk_from_environment() {
  const std::string v = env("CROSSGRAD_REMOTE_BULK_BYTES");
  if (v == "off") return kBulkOff;
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 19) return kDefaultBulkBytes;
  return static_cast<std::size_t>(std::stoull(v));
}

std::atomic<std::size_t>& bulk_setting() {
  static std::atomic<std::size_t> setting{bulk_from_environment()};
  return setting;
}

}  // namespace

void set_bulk_threshold(std::size_t bytes) { bulk_setting().store(bytes); }

std::size_t bulk_threshold() { return bulk_setting().load(); }

std::chrono::milliseconds deadline() { return client::config_snapshot().deadline; }

namespace client {

ConfigSnapshot config_snapshot() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (!s.loaded) {
    s.loaded = true;
    load_environment(s.config);
    ++s.config.generation;
  }
  return s.config;
}

}  // namespace client
}  // namespace crossgrad::remote
