// Handler (Note [Transport-free handler]): sessions, token, limits, statuses. The engine work is
// the tensor table's (served_backend.cpp).
#include <crossgrad/server/handler.hpp>

#include "tensor_table.hpp"

#include <crossgrad/core/panic.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <limits>
#include <mutex>
#include <new>
#include <random>
#include <stdexcept>
#include <thread>
#include <unordered_map>

namespace crossgrad::server {
namespace {

using Clock = std::chrono::steady_clock;

// Constant time in the contents: every byte of the longer string is looked at whatever the
// earlier ones were, and a length mismatch is folded into the same result.
bool token_matches(std::string_view given, std::string_view expected) {
  const std::size_t n = std::max(given.size(), expected.size());
  unsigned diff = given.size() == expected.size() ? 0u : 1u;
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char a = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
    const unsigned char b = i < expected.size() ? static_cast<unsigned char>(expected[i]) : 0;
    diff |= static_cast<unsigned>(a ^ b);
  }
  return diff == 0;
}

const char* reason_word(EndReason reason) {
  switch (reason) {
    case EndReason::Closed:
      return "closed";
    case EndReason::Expired:
      return "expired";
    case EndReason::ClientGone:
      return "client gone";
    case EndReason::Shutdown:
      return "shutdown";
  }
  return "closed";
}

}  // namespace

struct Session {
  std::uint64_t id = 0;
  remote::bulk::Key bulk_key{};        // set before the session is published, then read-only
  std::uint64_t next_download = 1;     // guarded by mutex: the next bulk download's transfer id
  std::mutex mutex;                    // one call of the session at a time
  std::unique_ptr<TensorTable> table;  // guarded by mutex
  bool ended = false;                  // guarded by mutex
  std::uint64_t next_handle = 1;       // guarded by mutex; never reused
  std::size_t tensors = 0;             // guarded by mutex
  std::size_t bytes = 0;               // guarded by mutex
  std::size_t peak_tensors = 0;
  std::size_t peak_bytes = 0;
  std::size_t calls = 0;
  std::atomic<Clock::rep> last_call{0};
  std::atomic<int> running{0};         // calls in progress: the lease does not run out under them

  void touch() { last_call.store(Clock::now().time_since_epoch().count()); }
};

struct Handler::State {
  std::unique_ptr<ServedBackend> backend;
  BulkTransport* bulk = nullptr;
  mutable std::mutex mutex;  // guards sessions and rng
  std::unordered_map<std::uint64_t, std::shared_ptr<Session>> sessions;
  std::mt19937_64 rng{std::random_device{}()};
  std::atomic<std::size_t> tensors{0};
  std::atomic<std::size_t> bytes{0};
};

namespace {

grpc::Status lost(std::uint64_t session, Metadata* trailing) {
  trailing->emplace_back(wire::kLostKey, wire::kLostSession);
  return {grpc::StatusCode::NOT_FOUND, "unknown session " + std::to_string(session) +
                                           " (ended, expired, or from before a restart)"};
}

grpc::Status unauthenticated() {
  return {grpc::StatusCode::UNAUTHENTICATED,
          std::string("missing or wrong token (call metadata ") + wire::kTokenKey + ")"};
}

}  // namespace

Handler::Handler(ServerOptions options) : options_(std::move(options)), state_(std::make_unique<State>()) {
  if (options_.token.empty()) throw std::invalid_argument("crossgrad-server needs a token (it is empty)");
  state_->backend = make_served_backend(options_.backend);
  if (!options_.log) {
    options_.log = [](std::string_view line) { std::cerr << line << std::endl; };
  }
}

Handler::~Handler() { end_all(); }

std::string_view Handler::backend_name() const { return state_->backend->name(); }

Stats Handler::stats() const {
  std::lock_guard lock(state_->mutex);
  return Stats{state_->sessions.size(), state_->tensors.load(), state_->bytes.load()};
}

void Handler::set_bulk_transport(BulkTransport* transport) { state_->bulk = transport; }

bool Handler::bulk_hello_valid(const remote::bulk::Hello& hello) const {
  std::shared_ptr<Session> s;
  {
    std::lock_guard lock(state_->mutex);
    auto it = state_->sessions.find(hello.session);
    if (it != state_->sessions.end()) s = it->second;
  }
  return s != nullptr && remote::bulk::keys_equal(s->bulk_key, hello.key);
}

bool Handler::session_live(std::uint64_t session) const {
  std::lock_guard lock(state_->mutex);
  return state_->sessions.contains(session);
}

// Ends one session that is already out of the map: frees its tensors and writes its log line.
static void finish_session(Handler::State& state, Session& s, EndReason reason, const ServerOptions& options);

namespace {

// Runs one session call: stall, token, session lookup, then `body(session)` with every failure
// mapped to its status (Note [Transport-free handler]).
template <class Body>
grpc::Status session_call(Handler::State& state, const ServerOptions& options, std::string_view token,
                          std::uint64_t session_id, Metadata* trailing, Body&& body) {
  if (options.stall.count() > 0) std::this_thread::sleep_for(options.stall);
  if (!token_matches(token, options.token)) return unauthenticated();
  std::shared_ptr<Session> session;
  {
    std::lock_guard lock(state.mutex);
    auto it = state.sessions.find(session_id);
    if (it != state.sessions.end()) session = it->second;
  }
  if (!session) return lost(session_id, trailing);
  std::lock_guard lock(session->mutex);
  if (session->ended) return lost(session_id, trailing);
  session->running.fetch_add(1);
  session->touch();
  ++session->calls;
  struct Done {
    Session& s;
    ~Done() {
      s.touch();
      s.running.fetch_sub(1);
    }
  } done{*session};
  try {
    return body(*session);
  } catch (const Panic& p) {
    trailing->emplace_back(wire::kPanicIdKey, std::string(panic_id_name(p.id())));
    return {grpc::StatusCode::FAILED_PRECONDITION, p.message()};
  } catch (const wire::WireError& e) {
    return {grpc::StatusCode::INVALID_ARGUMENT, e.what()};
  } catch (const UnknownHandle& e) {
    return {grpc::StatusCode::NOT_FOUND, std::string(e.what()) + " in session " + std::to_string(session_id)};
  } catch (const LimitError& e) {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED, e.what()};
  } catch (const BulkUnavailable& e) {
    return {grpc::StatusCode::UNAVAILABLE, e.what()};
  } catch (const std::bad_alloc&) {
    session->table->drop_pending();
    return {grpc::StatusCode::RESOURCE_EXHAUSTED, "the server ran out of memory for this call"};
  } catch (const std::exception& e) {
    session->table->drop_pending();
    return {grpc::StatusCode::INTERNAL, e.what()};
  }
}

std::string limit_message(const char* what, std::size_t value, const char* flag, std::size_t limit) {
  return std::string(what) + " " + std::to_string(value) + " is over the limit of " + std::to_string(limit) +
         " (" + flag + ")";
}

void free_handles(Handler::State& state, Session& s, const google::protobuf::RepeatedField<std::uint64_t>& frees) {
  for (std::uint64_t h : frees) {
    const bool held = s.table->contains(h);
    const std::size_t bytes = s.table->free(h);
    if (!held) continue;  // freeing an unknown handle is not an error: the client may be racing an end
    --s.tensors;
    s.bytes -= bytes;
    state.tensors.fetch_sub(1);
    state.bytes.fetch_sub(bytes);
  }
}

// Admits a pending tensor into the session (limits) and fills the reply.
void store_new(Handler::State& state, const ServerOptions& options, Session& s, const NewTensor& made,
               proto::TensorReply* reply) {
  if (s.tensors + 1 > options.max_tensors) {
    s.table->drop_pending();
    throw LimitError(limit_message("the session's tensor count", s.tensors + 1, "--max-tensors", options.max_tensors));
  }
  if (made.bytes > options.max_session_bytes - std::min(s.bytes, options.max_session_bytes)) {
    s.table->drop_pending();
    throw LimitError(limit_message("the session's bytes", s.bytes + made.bytes, "--max-session-bytes",
                                   options.max_session_bytes));
  }
  const std::uint64_t handle = s.next_handle++;
  s.table->store(handle);
  ++s.tensors;
  s.bytes += made.bytes;
  s.peak_tensors = std::max(s.peak_tensors, s.tensors);
  s.peak_bytes = std::max(s.peak_bytes, s.bytes);
  state.tensors.fetch_add(1);
  state.bytes.fetch_add(made.bytes);
  reply->set_handle(handle);
  wire::put_shape(made.shape, reply->mutable_shape());
  reply->set_dtype(wire::put_dtype(made.dtype));
  reply->set_scale(made.scale);
}

}  // namespace

static void finish_session(Handler::State& state, Session& s, EndReason reason, const ServerOptions& options) {
  std::lock_guard lock(s.mutex);
  if (s.ended) return;
  s.ended = true;
  s.table->clear();
  state.tensors.fetch_sub(s.tensors);
  state.bytes.fetch_sub(s.bytes);
  s.tensors = 0;
  s.bytes = 0;
  options.log("crossgrad-server: session " + std::to_string(s.id) + " ended (" + reason_word(reason) + ") after " +
              std::to_string(s.calls) + " calls, " + std::to_string(s.peak_tensors) + " tensors, " +
              std::to_string(s.peak_bytes) + " bytes held at most");
}

// Takes the session out of the map (if `only_if` agrees) and finishes it outside the map's lock.
template <class Pred>
static bool end_session(Handler::State& state, std::uint64_t id, EndReason reason, const ServerOptions& options,
                        Pred only_if) {
  std::shared_ptr<Session> s;
  {
    std::lock_guard lock(state.mutex);
    auto it = state.sessions.find(id);
    if (it == state.sessions.end() || !only_if(*it->second)) return false;
    s = std::move(it->second);
    state.sessions.erase(it);
  }
  finish_session(state, *s, reason, options);
  return true;
}

grpc::Status Handler::open_session(std::string_view token, const proto::OpenSessionRequest&,
                                   proto::OpenSessionReply* reply, Metadata*) {
  if (!token_matches(token, options_.token)) return unauthenticated();
  auto s = std::make_shared<Session>();
  s->table = state_->backend->new_table();
  // The bulk key from the OS's generator: knowing it lets a connection read this session's data.
  std::random_device entropy;
  for (std::size_t i = 0; i < s->bulk_key.size(); i += 4) {
    const unsigned word = entropy();
    for (std::size_t j = 0; j < 4; ++j) s->bulk_key[i + j] = static_cast<std::uint8_t>(word >> (8 * j));
  }
  s->touch();
  {
    std::lock_guard lock(state_->mutex);
    if (state_->sessions.size() >= options_.max_sessions) {
      return {grpc::StatusCode::RESOURCE_EXHAUSTED,
              limit_message("live sessions", state_->sessions.size() + 1, "--max-sessions", options_.max_sessions)};
    }
    // Random ids: a restarted server never recognises a session of its previous life.
    do {
      s->id = state_->rng();
    } while (s->id == 0 || state_->sessions.contains(s->id));
    state_->sessions.emplace(s->id, s);
  }
  reply->set_session(s->id);
  reply->set_backend(std::string(state_->backend->name()));
  reply->set_lease_ms(static_cast<std::uint32_t>(
      std::min<long long>(options_.lease.count(), std::numeric_limits<std::uint32_t>::max())));
  if (state_->bulk != nullptr) {
    reply->set_bulk_port(static_cast<std::uint32_t>(state_->bulk->port()));
    reply->set_bulk_key(remote::bulk::key_to_string(s->bulk_key));
  }
  return grpc::Status::OK;
}

grpc::Status Handler::close_session(std::string_view token, const proto::SessionRef& request, proto::Empty*,
                                    Metadata* trailing) {
  if (options_.stall.count() > 0) std::this_thread::sleep_for(options_.stall);
  if (!token_matches(token, options_.token)) return unauthenticated();
  if (!end_session(*state_, request.session(), EndReason::Closed, options_, [](const Session&) { return true; })) {
    return lost(request.session(), trailing);
  }
  return grpc::Status::OK;
}

grpc::Status Handler::keep_alive(std::string_view token, const proto::SessionRef& request, proto::Empty*,
                                 Metadata* trailing) {
  return session_call(*state_, options_, token, request.session(), trailing,
                      [](Session&) { return grpc::Status::OK; });
}

grpc::Status Handler::from_data(std::string_view token, const proto::FromDataRequest& request,
                                proto::TensorReply* reply, Metadata* trailing) {
  return session_call(*state_, options_, token, request.session(), trailing, [&](Session& s) {
    free_handles(*state_, s, request.frees());
    const proto::TensorData& message = request.data();
    if (message.bulk_transfer() != 0) {
      if (state_->bulk == nullptr) throw wire::WireError("a bulk transfer, but this server has no bulk channel");
      if (!message.data().empty()) throw wire::WireError("both inline bytes and a bulk transfer");
      const DType dtype = wire::get_dtype(message.dtype());
      Shape shape = wire::get_shape(message.shape());
      HostBuffer bytes = state_->bulk->take_upload(s.id, message.bulk_transfer(), tensor_bytes(shape, dtype));
      store_new(*state_, options_, s, s.table->from_bulk(std::move(shape), dtype, std::move(bytes)), reply);
      return grpc::Status::OK;
    }
    const std::size_t size = message.data().size();
    if (size > options_.max_message_bytes) {
      throw LimitError(limit_message("the tensor's bytes", size, "--max-message-bytes", options_.max_message_bytes));
    }
    const TensorData data = wire::get_data(message);
    store_new(*state_, options_, s, s.table->from_data(data), reply);
    return grpc::Status::OK;
  });
}

grpc::Status Handler::into_data(std::string_view token, const proto::HandleRequest& request,
                                proto::TensorData* reply, Metadata* trailing) {
  return session_call(*state_, options_, token, request.session(), trailing, [&](Session& s) {
    free_handles(*state_, s, request.frees());
    if (request.bulk()) {
      if (state_->bulk == nullptr) throw wire::WireError("a bulk download, but this server has no bulk channel");
      Download download = s.table->download(request.handle());
      wire::put_shape(download.shape, reply->mutable_shape());
      reply->set_dtype(wire::put_dtype(download.dtype));
      const std::uint64_t transfer = s.next_download++;
      reply->set_bulk_transfer(transfer);
      state_->bulk->send_download(s.id, transfer, std::move(download));
      return grpc::Status::OK;
    }
    const std::size_t bytes = s.table->bytes_of(request.handle());
    if (bytes > options_.max_message_bytes) {
      throw LimitError(limit_message("the tensor's bytes", bytes, "--max-message-bytes", options_.max_message_bytes));
    }
    wire::put_data(s.table->into_data(request.handle()), reply);
    return grpc::Status::OK;
  });
}

grpc::Status Handler::call(std::string_view token, const proto::OpCall& request, proto::TensorReply* reply,
                           Metadata* trailing) {
  return session_call(*state_, options_, token, request.session(), trailing, [&](Session& s) {
    free_handles(*state_, s, request.frees());
    if (s.tensors + 1 > options_.max_tensors) {
      throw LimitError(limit_message("the session's tensor count", s.tensors + 1, "--max-tensors", options_.max_tensors));
    }
    // Results whose size is an argument are refused before they are allocated.
    const TensorTable::Admit admit = [&](std::size_t bytes) {
      if (bytes > options_.max_session_bytes - std::min(s.bytes, options_.max_session_bytes)) {
        throw LimitError(limit_message("the session's bytes", s.bytes + std::min(bytes, SIZE_MAX - s.bytes),
                                       "--max-session-bytes", options_.max_session_bytes));
      }
    };
    store_new(*state_, options_, s, s.table->call(request, admit), reply);
    return grpc::Status::OK;
  });
}

grpc::Status Handler::free(std::string_view token, const proto::FreeRequest& request, proto::Empty*,
                           Metadata* trailing) {
  return session_call(*state_, options_, token, request.session(), trailing, [&](Session& s) {
    free_handles(*state_, s, request.frees());
    return grpc::Status::OK;
  });
}

grpc::Status Handler::attach(std::string_view token, const proto::SessionRef& request, Metadata* trailing) {
  if (!token_matches(token, options_.token)) return unauthenticated();
  if (!session_live(request.session())) return lost(request.session(), trailing);
  return grpc::Status::OK;
}

void Handler::client_gone(std::uint64_t session) {
  end_session(*state_, session, EndReason::ClientGone, options_, [](const Session&) { return true; });
}

std::size_t Handler::reap_expired() {
  const Clock::rep now = Clock::now().time_since_epoch().count();
  const Clock::rep lease = std::chrono::duration_cast<Clock::duration>(options_.lease).count();
  std::vector<std::uint64_t> candidates;
  {
    std::lock_guard lock(state_->mutex);
    for (const auto& [id, s] : state_->sessions) {
      if (s->running.load() == 0 && now - s->last_call.load() >= lease) candidates.push_back(id);
    }
  }
  std::size_t ended = 0;
  for (std::uint64_t id : candidates) {
    // Checked again under the map's lock: a call may have arrived since.
    ended += end_session(*state_, id, EndReason::Expired, options_, [&](const Session& s) {
      return s.running.load() == 0 && Clock::now().time_since_epoch().count() - s.last_call.load() >= lease;
    });
  }
  return ended;
}

void Handler::end_all() {
  std::unordered_map<std::uint64_t, std::shared_ptr<Session>> all;
  {
    std::lock_guard lock(state_->mutex);
    all.swap(state_->sessions);
  }
  for (auto& [id, s] : all) finish_session(*state_, *s, EndReason::Shutdown, options_);
}

}  // namespace crossgrad::server
