#include "flags.hpp"

#include <charconv>
#include <stdexcept>
#include <string_view>

namespace crossgrad::server {

const char kUsage[] = R"(Usage: crossgrad-server [flags]
Serves a local crossgrad backend to Remote clients over gRPC (engine/remote_protocol/crossgrad_remote.proto).
  --backend NAME            the served backend (default Flex; NdArray, Cuda when built and present)
  --host HOST               address to listen on (default 127.0.0.1)
  --port N                  port (default 0: an ephemeral one, printed on start)
  --token T                 the token clients must send (x-crossgrad-token); default: the
                            environment variable CROSSGRAD_REMOTE_TOKEN; one of them is required
  --port-file PATH          once listening, write "HOST:PORT" to PATH
  --max-tensors N           tensors one session may hold (default 100000)
  --max-session-bytes N     bytes one session may hold (default 8589934592 = 8 GiB)
  --max-message-bytes N     largest request or reply (default 268435456 = 256 MiB)
  --max-sessions N          live sessions at once (default 4096)
  --lease-ms N              a session ends this long after its last call (default 30000)
  --stall-ms N              tests only: every call but OpenSession/Attach first sleeps N ms
  --bulk on|off             a second, ephemeral port on HOST for tensors of 1 MiB or more (the
                            client's threshold), far faster than gRPC messages (default on)
  --help                    this text
SIGTERM or SIGINT: graceful shutdown (calls in progress get 2 s), exit status 0.
)";

namespace {

std::size_t number(std::string_view flag, std::string_view text) {
  std::size_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    throw std::invalid_argument(std::string(flag) + " needs a non-negative integer, got '" + std::string(text) + "'");
  }
  return value;
}

}  // namespace

CommandLine parse_command_line(int argc, char** argv, const char* env_token) {
  CommandLine out;
  bool token_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      out.help = true;
      return out;
    }
    if (i + 1 >= argc) throw std::invalid_argument("unknown flag or missing value: " + std::string(flag));
    const std::string_view value = argv[++i];
    ServerOptions& o = out.options;
    if (flag == "--backend") {
      o.backend = value;
    } else if (flag == "--host") {
      o.host = value;
    } else if (flag == "--port") {
      const std::size_t port = number(flag, value);
      if (port > 65535) throw std::invalid_argument("--port must be 0..65535");
      o.port = static_cast<int>(port);
    } else if (flag == "--token") {
      o.token = value;
      token_given = true;
    } else if (flag == "--port-file") {
      out.port_file = value;
    } else if (flag == "--max-tensors") {
      o.max_tensors = number(flag, value);
    } else if (flag == "--max-session-bytes") {
      o.max_session_bytes = number(flag, value);
    } else if (flag == "--max-message-bytes") {
      o.max_message_bytes = number(flag, value);
    } else if (flag == "--max-sessions") {
      o.max_sessions = number(flag, value);
    } else if (flag == "--lease-ms") {
      o.lease = std::chrono::milliseconds(number(flag, value));
    } else if (flag == "--stall-ms") {
      o.stall = std::chrono::milliseconds(number(flag, value));
    } else if (flag == "--bulk") {
      if (value != "on" && value != "off") throw std::invalid_argument("--bulk must be on or off");
      o.bulk = value == "on";
    } else {
      throw std::invalid_argument("unknown flag " + std::string(flag) + " (see --help)");
    }
  }
  if (!token_given && env_token != nullptr) out.options.token = env_token;
  if (out.options.token.empty()) {
    throw std::invalid_argument(
        "no token: pass --token T or set CROSSGRAD_REMOTE_TOKEN (clients must send the same token)");
  }
  return out;
}

}  // namespace crossgrad::server
