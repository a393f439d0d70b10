// BulkChannel (Note [Remote bulk channel]).
#include "bulk_channel.hpp"

#include <crossgrad/core/host_buffer.hpp>
#include <crossgrad/core/panic.hpp>
#include <crossgrad/remote_protocol/wire.hpp>

#include <condition_variable>
#include <deque>
#include <map>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace crossgrad::server {

namespace bulk = ::crossgrad::remote::bulk;
using bulk::Clock;

// How long a new connection has to send its Hello.
constexpr std::chrono::milliseconds kHelloWait{5000};
// How often an idle connection looks whether its session or the server ended.
constexpr std::chrono::milliseconds kIdlePoll{200};

struct BulkChannel::Connection {
  bulk::Socket socket;
  std::uint64_t session = 0;                               // set once the Hello is accepted
  std::mutex mutex;
  std::condition_variable changed;
  std::map<std::uint64_t, HostBuffer> staged;              // guarded by mutex: uploads by transfer id
  std::size_t staged_bytes = 0;                            // guarded by mutex
  std::deque<std::pair<std::uint64_t, Download>> outbox;   // guarded by mutex: downloads to send
  bool closed = false;                                     // guarded by mutex
  std::atomic<bool> finished{false};                       // the reader thread is done
  std::thread reader;
  std::thread writer;
};

BulkChannel::BulkChannel(Handler& handler, const ServerOptions& options)
    : handler_(handler), max_bytes_(options.max_session_bytes), wait_(options.bulk_wait) {
  try {
    listener_ = bulk::Socket::listen_on(bulk::host_of(options.host + ":0"));  // "[::1]" -> "::1"
  } catch (const bulk::BulkError& e) {
    throw std::runtime_error("crossgrad-server cannot open its bulk channel on " + options.host + ": " + e.what());
  }
  port_ = listener_.local_port();
  acceptor_ = std::thread([this] { accept_loop(); });
}

BulkChannel::~BulkChannel() { stop(); }

void BulkChannel::stop() {
  if (stopping_.exchange(true)) return;
  if (acceptor_.joinable()) acceptor_.join();
  std::vector<std::shared_ptr<Connection>> all;
  {
    std::lock_guard lock(mutex_);
    all.swap(all_);
    by_session_.clear();
  }
  for (const auto& c : all) close(*c);
  for (const auto& c : all) {
    if (c->reader.joinable()) c->reader.join();
  }
  listener_.close();
}

void BulkChannel::accept_loop() {
  while (!stopping_.load()) {
    bulk::Socket socket = listener_.accept(kIdlePoll);
    join_finished();
    if (!socket.valid()) continue;
    auto c = std::make_shared<Connection>();
    c->socket = std::move(socket);
    std::lock_guard lock(mutex_);
    if (stopping_.load()) break;  // `c` closes its socket
    all_.push_back(c);
    c->reader = std::thread([this, c] { serve(c); });
  }
}

void BulkChannel::join_finished() {
  std::vector<std::shared_ptr<Connection>> done;
  {
    std::lock_guard lock(mutex_);
    for (auto it = all_.begin(); it != all_.end();) {
      if ((*it)->finished.load()) {
        done.push_back(std::move(*it));
        it = all_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const auto& c : done) {
    if (c->reader.joinable()) c->reader.join();
  }
}

void BulkChannel::close(Connection& c) {
  {
    std::lock_guard lock(c.mutex);
    c.closed = true;
    c.staged.clear();
    c.staged_bytes = 0;
    c.outbox.clear();
  }
  c.changed.notify_all();
  c.socket.shutdown();  // wakes the reader and the writer
}

std::shared_ptr<BulkChannel::Connection> BulkChannel::bound(std::uint64_t session) {
  std::lock_guard lock(mutex_);
  auto it = by_session_.find(session);
  return it == by_session_.end() ? nullptr : it->second;
}

void BulkChannel::serve(const std::shared_ptr<Connection>& c) {
  try {
    std::array<std::byte, bulk::kHelloBytes> hello_bytes{};
    c->socket.recv_all(hello_bytes, Clock::now() + kHelloWait);
    const std::optional<bulk::Hello> hello = bulk::decode_hello(hello_bytes);
    if (hello && handler_.bulk_hello_valid(*hello)) {
      c->session = hello->session;
      std::shared_ptr<Connection> replaced;
      {
        std::lock_guard lock(mutex_);
        auto& slot = by_session_[c->session];
        replaced = std::exchange(slot, c);
      }
      if (replaced) close(*replaced);
      // Bound before the client hears "accepted", so its next call finds this connection.
      const std::byte accepted[] = {bulk::kAccepted};
      c->socket.send_all(accepted, Clock::now() + kHelloWait);
      c->writer = std::thread([this, c] { write_loop(c); });
      while (!stopping_.load()) {
        if (!c->socket.wait_readable(kIdlePoll)) {
          if (!handler_.session_live(c->session)) break;
          continue;
        }
        std::array<std::byte, bulk::kHeaderBytes> header_bytes{};
        c->socket.recv_all(header_bytes, Clock::now() + wait_);
        const bulk::FrameHeader header = bulk::decode_header(header_bytes);
        std::size_t staged_now = 0;
        {
          std::lock_guard lock(c->mutex);
          staged_now = c->staged_bytes;
        }
        // A frame the session could never hold is a broken client: the connection ends.
        if (header.transfer == 0 || header.bytes > max_bytes_ || staged_now > max_bytes_ - header.bytes) break;
        // From the host buffer cache: pages already mapped, nothing zeroed, and a host backend keeps
        // the buffer as the tensor's storage.
        HostBuffer bytes = HostBuffer::allocate(Shape{static_cast<std::size_t>(header.bytes)}, DType::U8);
        c->socket.recv_all(std::span<std::byte>(bytes.data(), bytes.size()), Clock::now() + wait_);
        {
          std::lock_guard lock(c->mutex);
          if (c->closed) break;
          auto [it, inserted] = c->staged.try_emplace(header.transfer);
          if (!inserted) c->staged_bytes -= it->second.size();
          it->second = std::move(bytes);
          c->staged_bytes += header.bytes;
        }
        c->changed.notify_all();
      }
    }
  } catch (const bulk::BulkError&) {
    // The peer went away or broke the protocol: the connection ends (calls using it: UNAVAILABLE).
  } catch (const std::bad_alloc&) {
  } catch (const Panic&) {  // tensor-too-large from the host buffer
  }
  close(*c);
  if (c->session != 0) {
    std::lock_guard lock(mutex_);
    auto it = by_session_.find(c->session);
    if (it != by_session_.end() && it->second == c) by_session_.erase(it);
  }
  if (c->writer.joinable()) c->writer.join();
  c->finished.store(true);
}

void BulkChannel::write_loop(const std::shared_ptr<Connection>& c) {
  for (;;) {
    std::optional<std::pair<std::uint64_t, Download>> next;
    {
      std::unique_lock lock(c->mutex);
      c->changed.wait(lock, [&] { return c->closed || !c->outbox.empty(); });
      if (c->closed) return;
      next.emplace(std::move(c->outbox.front()));
      c->outbox.pop_front();
    }
    const std::span<const std::byte> bytes = next->second.bytes;
    try {
      const auto deadline = Clock::now() + wait_;
      c->socket.send_all(bulk::encode_header({next->first, bytes.size()}), deadline);
      c->socket.send_all(bytes, deadline);
    } catch (const bulk::BulkError&) {
      close(*c);
      return;
    }
  }
}

HostBuffer BulkChannel::take_upload(std::uint64_t session, std::uint64_t transfer, std::size_t bytes) {
  const std::shared_ptr<Connection> c = bound(session);
  if (!c) throw BulkUnavailable("session " + std::to_string(session) + " has no bulk connection");
  std::unique_lock lock(c->mutex);
  const bool arrived = c->changed.wait_for(lock, wait_, [&] { return c->closed || c->staged.contains(transfer); });
  // Older frames belong to calls that failed before taking them: they are never taken now.
  for (auto it = c->staged.begin(); it != c->staged.end() && it->first < transfer;) {
    c->staged_bytes -= it->second.size();
    it = c->staged.erase(it);
  }
  auto it = c->staged.find(transfer);
  if (it == c->staged.end()) {
    if (!arrived) {
      throw BulkUnavailable("bulk transfer " + std::to_string(transfer) + " did not arrive within " +
                            std::to_string(wait_.count()) + " ms");
    }
    throw BulkUnavailable("the bulk connection closed before transfer " + std::to_string(transfer) + " arrived");
  }
  HostBuffer out = std::move(it->second);
  c->staged_bytes -= out.size();
  c->staged.erase(it);
  if (out.size() != bytes) {
    throw remote::wire::WireError("bulk transfer " + std::to_string(transfer) + " has " + std::to_string(out.size()) +
                                  " bytes, the tensor's shape and dtype need " + std::to_string(bytes));
  }
  return out;
}

void BulkChannel::send_download(std::uint64_t session, std::uint64_t transfer, Download download) {
  const std::shared_ptr<Connection> c = bound(session);
  if (!c) throw BulkUnavailable("session " + std::to_string(session) + " has no bulk connection");
  {
    std::lock_guard lock(c->mutex);
    if (c->closed) throw BulkUnavailable("session " + std::to_string(session) + "'s bulk connection closed");
    c->outbox.emplace_back(transfer, std::move(download));
  }
  c->changed.notify_all();
}

}  // namespace crossgrad::server
