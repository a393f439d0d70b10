#pragma once
// Note [Remote sessions]
// One server-side session per configured endpoint, opened lazily by the first call that needs it.
// While open it holds an Attach stream (so the server frees everything at once when this process
// disappears) and sends a KeepAlive every third of the lease (so an idle client keeps its tensors).
// Every tensor holds its session (RemoteHandle): an op runs in its receiver's session; dropping a
// tensor queues its handle, and the session's next call carries it in `frees` (no round trip).
// A session the server no longer knows (NOT_FOUND + x-crossgrad-lost) is marked lost and dropped
// from the pool: its tensors raise remote-session-lost, while the next call that creates a tensor
// opens a new session (reconnect). configure() retires every session of the old endpoint list.
// Sessions are never destroyed (tensors may outlive static destruction); a closed one keeps no
// thread and no call.
#include "backends/remote/bulk_link.hpp"
#include "backends/remote/config.hpp"
#include <crossgrad/remote_protocol/wire.hpp>

#include "crossgrad_remote.grpc.pb.h"

#include <crossgrad/core/device.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace crossgrad::remote::client {

namespace proto = wire::proto;

class Session {
 public:
  Session(int endpoint_index, Endpoint endpoint, std::shared_ptr<grpc::Channel> channel,
          std::chrono::milliseconds deadline);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // OpenSession + Attach; raises the catalog panic of a failed OpenSession.
  void open();
  // CloseSession (best effort, short deadline), stops the Attach stream and the keep-alive thread.
  void close();

  std::uint64_t id() const { return id_; }
  int endpoint_index() const { return endpoint_index_; }
  const std::string& address() const { return endpoint_.address; }
  bool lost() const { return lost_.load(); }
  void mark_lost() { lost_.store(true); }

  // Queues a handle for the next call's `frees` (a RemoteHandle's destructor).
  void queue_free(std::uint64_t handle);
  std::vector<std::uint64_t> take_frees();

  // A context with the token and the call deadline (wait-for-ready: a restarting server is waited
  // for, a dead one fails at the deadline).
  void prepare(grpc::ClientContext& context) const;
  std::chrono::milliseconds deadline() const { return deadline_; }

  // The bulk link for a transfer of `bytes` (Note [Remote bulk channel]), connected on first use
  // and locked in `lock` for the caller's whole transfer; nullptr when gRPC messages carry it
  // (below remote::bulk_threshold(), a server without a bulk port, or a link that cannot connect).
  BulkLink* bulk_link(std::size_t bytes, std::unique_lock<std::mutex>& lock);
  // The link broke mid-transfer: the next large transfer connects again. Caller holds the lock.
  void drop_bulk_link() { bulk_.reset(); }
  proto::Compute::Stub& stub() { return *stub_; }

 private:
  void keep_alive_loop();
  // KeepAlive or CloseSession with the short courtesy deadline (a dead server must not hold the
  // caller up); a session the server no longer knows is marked lost.
  using CourtesyRpc = grpc::Status (proto::Compute::Stub::*)(grpc::ClientContext*, const proto::SessionRef&,
                                                              proto::Empty*);
  void courtesy_call(CourtesyRpc rpc);

  const int endpoint_index_;
  const Endpoint endpoint_;
  const std::shared_ptr<grpc::Channel> channel_;
  const std::unique_ptr<proto::Compute::Stub> stub_;
  const std::chrono::milliseconds deadline_;
  std::uint64_t id_ = 0;
  std::chrono::milliseconds lease_{30000};
  std::atomic<bool> lost_{false};

  std::mutex frees_mutex_;
  std::vector<std::uint64_t> frees_;

  std::mutex bulk_mutex_;
  int bulk_port_ = 0;                // from OpenSessionReply; 0: the server has no bulk channel
  bulk::Key bulk_key_{};
  bool bulk_refused_ = false;        // guarded by bulk_mutex_: a connect failed, use gRPC
  std::unique_ptr<BulkLink> bulk_;   // guarded by bulk_mutex_

  std::mutex life_mutex_;
  std::condition_variable life_changed_;
  bool closing_ = false;
  grpc::ClientContext attach_context_;
  std::unique_ptr<grpc::ClientReader<proto::Empty>> attach_;
  std::thread attach_thread_;
  std::thread keep_alive_thread_;
};

// The current session of Remote(index): validates the device (device-unavailable), retires the
// sessions of an old configuration, opens a new session when there is none or the last was lost.
std::shared_ptr<Session> session_for(const Device& device);
// Closes every open session (remote::configure calls it: the old endpoint list is retired at once,
// so its servers free those tensors now, and they raise remote-session-lost here).
void retire_sessions();
// Why Remote is unavailable here (no endpoint configured), or empty.
std::string unavailable_reason();
// Drops `session` from the pool when it is still the current one (after it was found lost).
void forget(const std::shared_ptr<Session>& session);

}  // namespace crossgrad::remote::client

namespace crossgrad::backends {

// One server-side tensor: its session and handle. The last copy of a tensor queues the handle.
class RemoteHandle {
 public:
  RemoteHandle(std::shared_ptr<remote::client::Session> session, std::uint64_t id)
      : session_(std::move(session)), id_(id) {}
  RemoteHandle(const RemoteHandle&) = delete;
  RemoteHandle& operator=(const RemoteHandle&) = delete;
  ~RemoteHandle() {
    if (!session_->lost()) session_->queue_free(id_);
  }
  const std::shared_ptr<remote::client::Session>& session() const { return session_; }
  std::uint64_t id() const { return id_; }

 private:
  std::shared_ptr<remote::client::Session> session_;
  std::uint64_t id_;
};

}  // namespace crossgrad::backends
