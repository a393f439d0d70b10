// Failed remote calls -> catalog panics (Note [Remote failures are catalog panics]).
#include "backends/remote/status.hpp"

#include <crossgrad/remote_protocol/wire.hpp>

#include <crossgrad/core/panic.hpp>

#include <array>
#include <optional>

namespace crossgrad::remote::client {
namespace {

// Indexed by the code's value (grpc::StatusCode 0..16).
constexpr std::array<std::string_view, 17> kCodeNames = {
    "OK",        "CANCELLED",         "UNKNOWN",          "INVALID_ARGUMENT",    "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
    "OUT_OF_RANGE", "UNIMPLEMENTED",  "INTERNAL",         "UNAVAILABLE",         "DATA_LOSS",         "UNAUTHENTICATED"};

std::optional<std::string> trailing(const grpc::ClientContext& context, std::string_view key) {
  const auto& md = context.GetServerTrailingMetadata();
  const auto it = md.find(grpc::string_ref(key.data(), key.size()));
  if (it == md.end()) return std::nullopt;
  return std::string(it->second.data(), it->second.size());
}

std::optional<PanicId> catalog_id(std::string_view name) {
  for (PanicId id : all_panic_ids()) {
    if (panic_id_name(id) == name) return id;
  }
  return std::nullopt;
}

}  // namespace

std::string_view status_code_name(grpc::StatusCode code) {
  const auto i = static_cast<std::size_t>(code);
  return i < kCodeNames.size() ? kCodeNames[i] : std::string_view("UNKNOWN");
}

bool session_lost(const grpc::ClientContext& context) {
  return trailing(context, wire::kLostKey) == std::optional<std::string>("session");
}

void raise_session_lost(std::string_view endpoint, std::uint64_t session) {
  panic(PanicId::RemoteSessionLost, {{"session", std::to_string(session)}, {"endpoint", std::string(endpoint)}});
}

void raise_bulk_failure(std::string_view endpoint, std::string_view call, std::string_view what, bool timed_out) {
  panic(PanicId::RemoteUnavailable, {{"endpoint", std::string(endpoint)},
                                     {"call", std::string(call)},
                                     {"status", timed_out ? "DEADLINE_EXCEEDED" : "UNAVAILABLE"},
                                     {"detail", "bulk channel: " + std::string(what)}});
}

void raise_status(const grpc::Status& status, const grpc::ClientContext& context, std::string_view endpoint,
                  std::string_view call, std::uint64_t session) {
  const std::string name(status_code_name(status.error_code()));
  const std::initializer_list<PanicArg> args = {{"endpoint", std::string(endpoint)},
                                                {"call", std::string(call)},
                                                {"status", name},
                                                {"detail", status.error_message()}};
  switch (status.error_code()) {
    case grpc::StatusCode::FAILED_PRECONDITION:
      if (const auto id_name = trailing(context, wire::kPanicIdKey)) {
        if (const auto id = catalog_id(*id_name)) throw Panic(*id, status.error_message());
      }
      break;
    case grpc::StatusCode::NOT_FOUND:
      if (session_lost(context)) raise_session_lost(endpoint, session);
      break;
    case grpc::StatusCode::UNAUTHENTICATED:
      panic(PanicId::RemoteRefused, args);
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::CANCELLED:
    case grpc::StatusCode::UNKNOWN:
      panic(PanicId::RemoteUnavailable, args);
    case grpc::StatusCode::OK:
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
    case grpc::StatusCode::ABORTED:
    case grpc::StatusCode::OUT_OF_RANGE:
    case grpc::StatusCode::UNIMPLEMENTED:
    case grpc::StatusCode::INTERNAL:
    case grpc::StatusCode::DATA_LOSS:
    case grpc::StatusCode::DO_NOT_USE:
      break;
  }
  panic(PanicId::RemoteRejected, args);
}

}  // namespace crossgrad::remote::client
