#pragma once
// Note [Fuzzing Remote through an in-process server]
// The scenario targets include Remote whenever a server is configured (issue 15 item 3). A fuzzer
// or replay run where none is (CROSSGRAD_REMOTE and CROSSGRAD_REMOTE_FILE unset) starts its own:
// crossgrad::server::Server serving Flex on 127.0.0.1 with an ephemeral port and a random token,
// and points the Remote client at it (crossgrad::remote::configure), so scenarios naming Remote run
// instead of being "not applicable here". CROSSGRAD_FUZZ_REMOTE=off leaves Remote unconfigured
// (those scenarios are then not applicable here, as before). Builds without Remote do nothing.
// The server lives until the process exits (never destroyed: libFuzzer leaves through exit(), and
// a gRPC server torn down by static destructors could outlive its sessions' users).
#include <string>

namespace crossgrad::fuzz {

// Starts the server when the rules above say so; returns a line saying what Remote runs against
// ("in-process 127.0.0.1:41234", "configured", "off (CROSSGRAD_FUZZ_REMOTE=off)", "not built").
std::string serve_remote_in_process();

}  // namespace crossgrad::fuzz
