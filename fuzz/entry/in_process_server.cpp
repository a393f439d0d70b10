// Note [Fuzzing Remote through an in-process server] (in_process_server.hpp).
#include "entry/in_process_server.hpp"

#include <crossgrad/crossgrad.hpp>

#include <cstdlib>
#include <string_view>

#if CROSSGRAD_WITH_REMOTE
#include <crossgrad/backends/remote_config.hpp>
#include <crossgrad/server/server.hpp>

#include <memory>
#include <random>
#endif

namespace crossgrad::fuzz {

std::string serve_remote_in_process() {
#if CROSSGRAD_WITH_REMOTE
  if (std::getenv("CROSSGRAD_REMOTE") != nullptr || std::getenv("CROSSGRAD_REMOTE_FILE") != nullptr)
    return "configured";
  if (const char *mode = std::getenv("CROSSGRAD_FUZZ_REMOTE"); mode != nullptr && std::string_view(mode) == "off")
    return "off (CROSSGRAD_FUZZ_REMOTE=off)";
  static server::Server *running = nullptr;  // reachable until exit, never destroyed
  static std::string token;
  if (running == nullptr) {
    std::random_device rd;
    for (int i = 0; i < 32; ++i) token += "0123456789abcdef"[rd() % 16];
    server::ServerOptions options;
    options.backend = "Flex";
    options.port = 0;
    options.token = token;
    options.log = [](std::string_view) {};  // one line per ended session: not in fuzzing output
    running = server::Server::start(options).release();
    remote::configure({remote::Endpoint{running->endpoint(), token}});
    // Opens the client's session now: it starts threads, which must not start inside an input
    // (Note [Threads start before the first input], fuzz_entry.cpp).
    (void)backends::Remote::from_data(TensorData::from_f32({0.0f}, {1}), backends::Remote::default_device());
  }
  return "in-process " + running->endpoint();
#else
  return "not built";
#endif
}

}  // namespace crossgrad::fuzz
