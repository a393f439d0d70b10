#pragma once
// crossgrad-server's command line (usage in kUsage).
#include <crossgrad/server/options.hpp>

#include <optional>
#include <string>

namespace crossgrad::server {

struct CommandLine {
  ServerOptions options;
  std::string port_file;  // empty: none
  bool help = false;
};

extern const char kUsage[];

// Throws std::invalid_argument with a message for the user. The token comes from --token, else
// from the environment variable CROSSGRAD_REMOTE_TOKEN (`env_token`); none -> an error.
CommandLine parse_command_line(int argc, char** argv, const char* env_token);

}  // namespace crossgrad::server
