#pragma once
// Note [Remote failures are catalog panics]
// Every failed remote call becomes exactly one catalog panic, chosen by its gRPC status:
//   FAILED_PRECONDITION with x-crossgrad-panic-id: the served backend's own panic, re-raised with
//     the server's exact message (so Remote(Flex) fails exactly as Flex does);
//   NOT_FOUND with x-crossgrad-lost: session      -> remote-session-lost (the server restarted, or
//     the session ended): the tensors of that session are gone, never silently replaced;
//   UNAUTHENTICATED                               -> remote-refused (wrong or missing token);
//   UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED, UNKNOWN -> remote-unavailable (dead, unreachable or
//     stalled server; raised within the call's deadline, never a hang);
//   anything else                                 -> remote-rejected.
#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace crossgrad::remote::client {

// "UNAVAILABLE", "DEADLINE_EXCEEDED", ...: the gRPC code's name.
std::string_view status_code_name(grpc::StatusCode code);

// True when the trailing metadata carries x-crossgrad-lost: session.
bool session_lost(const grpc::ClientContext& context);

// Raises the catalog panic for a failed call (Note [Remote failures are catalog panics]).
// `call` names the op or rpc; `session` is the session the call used (for remote-session-lost).
[[noreturn]] void raise_status(const grpc::Status& status, const grpc::ClientContext& context,
                               std::string_view endpoint, std::string_view call, std::uint64_t session);

// remote-unavailable for a transfer whose bulk channel broke or timed out (Note [Remote bulk
// channel]): status UNAVAILABLE, or DEADLINE_EXCEEDED when the deadline passed.
[[noreturn]] void raise_bulk_failure(std::string_view endpoint, std::string_view call, std::string_view what,
                                     bool timed_out);

// remote-session-lost for a tensor of `session` on `endpoint`.
[[noreturn]] void raise_session_lost(std::string_view endpoint, std::uint64_t session);

}  // namespace crossgrad::remote::client
