// Sessions and the per-endpoint pool (Note [Remote sessions]).
#include "backends/remote/session.hpp"

#include "backends/remote/status.hpp"

#include <crossgrad/core/panic.hpp>

#include <algorithm>
#include <cstdlib>

namespace crossgrad::remote::client {
namespace {

// CloseSession and KeepAlive are courtesy calls: a dead server must not hold the caller up.
constexpr std::chrono::milliseconds kCourtesyDeadline{1000};

std::shared_ptr<grpc::Channel> make_channel(const std::string& address) {
  grpc::ChannelArguments args;
  // The server enforces its own message limit (--max-message-bytes); the client takes anything.
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  // A restarted server is found again quickly (gRPC's default backoff grows to two minutes).
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
}

std::string unavailable_reason_for(const ConfigSnapshot& config) {
  if (!config.problem.empty()) return config.problem;
  return "no server configured (set CROSSGRAD_REMOTE or CROSSGRAD_REMOTE_FILE)";
}

[[noreturn]] void device_unavailable(const Device& device, const std::string& reason) {
  panic(PanicId::DeviceUnavailable, {{"device", device.to_string()}, {"backend", "Remote"}, {"reason", reason}});
}

struct Pool {
  std::mutex mutex;
  std::uint64_t generation = 0;
  bool configured = false;
  ConfigSnapshot config;
  std::vector<std::shared_ptr<grpc::Channel>> channels;  // per endpoint
  std::vector<std::shared_ptr<Session>> current;         // per endpoint; null: none open
  std::vector<std::shared_ptr<Session>> all;             // every session ever opened (never destroyed)

  void retire_all() {
    for (auto& s : current) {
      if (s) s->close();
      s.reset();
    }
  }
};

// An empty token is sent as no token at all (the server refuses both alike).
void add_token(grpc::ClientContext& context, const std::string& token) {
  if (!token.empty()) context.AddMetadata(wire::kTokenKey, token);
}

void close_all_at_exit();

Pool& pool() {
  // Never destroyed: tensors held by static objects may queue frees during static destruction.
  static Pool* p = [] {
    auto* made = new Pool();
    std::atexit(close_all_at_exit);  // after gRPC's own initialisation, so it runs before its teardown
    return made;
  }();
  return *p;
}

// A process that exits normally ends its sessions at once (a killed one: the server sees Attach
// cancelled). Tensors still alive then raise remote-session-lost if used from later destructors.
void close_all_at_exit() {
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  p.retire_all();
}

}  // namespace

Session::Session(int endpoint_index, Endpoint endpoint, std::shared_ptr<grpc::Channel> channel,
                 std::chrono::milliseconds deadline)
    : endpoint_index_(endpoint_index),
      endpoint_(std::move(endpoint)),
      channel_(std::move(channel)),
      stub_(proto::Compute::NewStub(channel_)),
      deadline_(deadline) {}

void Session::prepare(grpc::ClientContext& context) const {
  add_token(context, endpoint_.token);
  context.set_deadline(std::chrono::system_clock::now() + deadline_);
  context.set_wait_for_ready(true);
}

void Session::open() {
  proto::OpenSessionRequest request;
  proto::OpenSessionReply reply;
  grpc::ClientContext context;
  prepare(context);
  const grpc::Status status = stub_->OpenSession(&context, request, &reply);
  if (!status.ok()) raise_status(status, context, endpoint_.address, "OpenSession", 0);
  id_ = reply.session();
  if (reply.lease_ms() > 0) lease_ = std::chrono::milliseconds(reply.lease_ms());
  if (const auto key = bulk::key_from_string(reply.bulk_key()); key && reply.bulk_port() > 0 && reply.bulk_port() < 65536) {
    bulk_port_ = static_cast<int>(reply.bulk_port());
    bulk_key_ = *key;
  }

  // Attach: started here so the server knows the stream before any tensor exists; read (until the
  // server ends it or close() cancels it) on its own thread.
  proto::SessionRef ref;
  ref.set_session(id_);
  add_token(attach_context_, endpoint_.token);
  attach_ = stub_->Attach(&attach_context_, ref);
  attach_thread_ = std::thread([this] {
    proto::Empty ignored;
    while (attach_->Read(&ignored)) {
    }
    (void)attach_->Finish();
  });
  keep_alive_thread_ = std::thread([this] { keep_alive_loop(); });
}

void Session::courtesy_call(CourtesyRpc rpc) {
  proto::SessionRef ref;
  ref.set_session(id_);
  proto::Empty reply;
  grpc::ClientContext context;
  add_token(context, endpoint_.token);
  context.set_deadline(std::chrono::system_clock::now() + std::min(deadline_, kCourtesyDeadline));
  const grpc::Status status = (stub_.get()->*rpc)(&context, ref, &reply);
  if (status.error_code() == grpc::StatusCode::NOT_FOUND && session_lost(context)) mark_lost();
}

void Session::keep_alive_loop() {
  const auto period = std::max(lease_ / 3, std::chrono::milliseconds(50));
  std::unique_lock lock(life_mutex_);
  while (!life_changed_.wait_for(lock, period, [this] { return closing_; })) {
    lock.unlock();
    courtesy_call(&proto::Compute::Stub::KeepAlive);
    lock.lock();
  }
}

void Session::close() {
  {
    std::lock_guard lock(life_mutex_);
    if (closing_) return;
    closing_ = true;
  }
  life_changed_.notify_all();
  const bool was_lost = lost_.exchange(true);  // from now on its tensors are lost
  if (id_ != 0 && !was_lost) courtesy_call(&proto::Compute::Stub::CloseSession);
  if (attach_) attach_context_.TryCancel();
  if (attach_thread_.joinable()) attach_thread_.join();
  if (keep_alive_thread_.joinable()) keep_alive_thread_.join();
  std::lock_guard bulk_lock(bulk_mutex_);
  bulk_.reset();
}

BulkLink* Session::bulk_link(std::size_t bytes, std::unique_lock<std::mutex>& lock) {
  if (bulk_port_ == 0 || bytes < remote::bulk_threshold()) return nullptr;
  lock = std::unique_lock(bulk_mutex_);
  if (!bulk_ && !bulk_refused_) {
    const std::string host = bulk::host_of(endpoint_.address);
    try {
      if (host.empty()) throw bulk::BulkError("no TCP host in " + endpoint_.address, false);
      bulk_ = BulkLink::connect(host, bulk_port_, bulk::Hello{id_, bulk_key_}, bulk::Clock::now() + deadline_);
    } catch (const bulk::BulkError&) {
      // A port we cannot reach (a firewall, a unix: endpoint): gRPC messages carry the bytes; a
      // server that is down fails the gRPC call itself.
      bulk_refused_ = true;
    }
  }
  if (!bulk_) lock.unlock();
  return bulk_.get();
}

void Session::queue_free(std::uint64_t handle) {
  std::lock_guard lock(frees_mutex_);
  frees_.push_back(handle);
}

std::vector<std::uint64_t> Session::take_frees() {
  std::lock_guard lock(frees_mutex_);
  std::vector<std::uint64_t> out;
  out.swap(frees_);
  return out;
}

std::shared_ptr<Session> session_for(const Device& device) {
  ConfigSnapshot config = config_snapshot();
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  if (!p.configured || p.generation != config.generation) {
    p.retire_all();
    p.channels.clear();
    for (const Endpoint& e : config.endpoints) p.channels.push_back(make_channel(e.address));
    p.current.assign(config.endpoints.size(), nullptr);
    p.config = std::move(config);
    p.generation = p.config.generation;
    p.configured = true;
  }
  if (device.kind != Device::Kind::Remote) device_unavailable(device, "Remote runs on configured servers only");
  const std::size_t n = p.config.endpoints.size();
  if (n == 0) device_unavailable(device, unavailable_reason_for(p.config));
  if (device.index < 0 || static_cast<std::size_t>(device.index) >= n) {
    device_unavailable(device, std::to_string(n) + (n == 1 ? " server is" : " servers are") + " configured");
  }
  const auto i = static_cast<std::size_t>(device.index);
  if (p.current[i] && !p.current[i]->lost()) return p.current[i];
  if (p.current[i]) p.current[i]->close();
  auto made = std::make_shared<Session>(device.index, p.config.endpoints[i], p.channels[i], p.config.deadline);
  made->open();  // a failed open raises; the unopened session is simply destroyed
  p.all.push_back(made);
  p.current[i] = made;
  return made;
}

void retire_sessions() {
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  p.retire_all();
  p.configured = false;  // channels are rebuilt for the new list at the next call
}

void forget(const std::shared_ptr<Session>& session) {
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  const auto i = static_cast<std::size_t>(session->endpoint_index());
  if (i < p.current.size() && p.current[i] == session) {
    p.current[i]->close();
    p.current[i].reset();
  }
}

std::string unavailable_reason() {
  const ConfigSnapshot config = config_snapshot();
  return config.endpoints.empty() ? unavailable_reason_for(config) : std::string();
}

}  // namespace crossgrad::remote::client
