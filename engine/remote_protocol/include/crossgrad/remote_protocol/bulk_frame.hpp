#pragma once
// Note [Remote bulk channel]
// gRPC moves a 64 MiB tensor at ~3 % of what one TCP socket on loopback moves (protobuf copies,
// HTTP/2 framing and flow-control windows), so tensor bytes of `from_data` / `into_data` at or above
// the client's bulk threshold (remote::bulk_threshold(), default 1 MiB) travel beside the gRPC call
// on a plain TCP connection to the server's bulk port; the gRPC call still carries everything else
// (session, shape, dtype, handle, errors), so the semantics and every status are those of the
// ordinary call.
//
// The server listens on the gRPC host with an ephemeral port and tells each session its port and a
// random 16-byte key in OpenSessionReply (a gRPC reply, so only a client with the token learns it).
// The client connects once per session, on its first large transfer, and sends a Hello:
//   "CGBULK01"  session (u64 LE)  key (16 bytes)        -> the server answers one byte kAccepted,
// or closes the connection (wrong key, unknown session: compared in constant time). Then each
// transfer is one Frame:   transfer id (u64 LE)  byte count (u64 LE)  bytes.
//   upload:   the client writes the Frame (the server's reader stages it), then calls FromData with
//             bulk_transfer = id; the server takes the staged bytes (waiting for them up to the call
//             deadline) and drops any staged frame with a smaller id (one whose call failed).
//   download: the client calls IntoData with bulk = true; the server queues a Frame (its writer
//             sends it) and replies with the shape, dtype and bulk_transfer = id; the client reads
//             Frames until that id, discarding older ones (a reply it never received).
// Transfer ids grow per session and direction, chosen by the side that sends the bytes' call
// (client for uploads, server for downloads). A session's bulk connection closes when the session
// ends, and a broken connection fails only the call that used it (remote-unavailable).
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

namespace crossgrad::remote::bulk {

inline constexpr std::size_t kKeyBytes = 16;
using Key = std::array<std::uint8_t, kKeyBytes>;

inline constexpr std::array<char, 8> kMagic = {'C', 'G', 'B', 'U', 'L', 'K', '0', '1'};
inline constexpr std::size_t kHelloBytes = kMagic.size() + 8 + kKeyBytes;
inline constexpr std::size_t kHeaderBytes = 16;
inline constexpr std::byte kAccepted{0x59};

struct Hello {
  std::uint64_t session = 0;
  Key key{};
};

struct FrameHeader {
  std::uint64_t transfer = 0;
  std::uint64_t bytes = 0;
};

std::array<std::byte, kHelloBytes> encode_hello(const Hello& hello);
// nullopt when the magic is wrong (not a crossgrad bulk client).
std::optional<Hello> decode_hello(std::span<const std::byte, kHelloBytes> bytes);
std::array<std::byte, kHeaderBytes> encode_header(const FrameHeader& header);
FrameHeader decode_header(std::span<const std::byte, kHeaderBytes> bytes);

// Constant time in the contents (a wrong key takes as long as a right one).
bool keys_equal(const Key& a, const Key& b);
// The key as carried in OpenSessionReply.bulk_key; nullopt unless exactly kKeyBytes long.
std::optional<Key> key_from_string(const std::string& bytes);
std::string key_to_string(const Key& key);

// A socket call that failed: the peer closed, an OS error, or the deadline passed (timed_out()).
class BulkError : public std::runtime_error {
 public:
  BulkError(const std::string& what, bool timed_out) : std::runtime_error(what), timed_out_(timed_out) {}
  bool timed_out() const { return timed_out_; }

 private:
  bool timed_out_;
};

using Clock = std::chrono::steady_clock;

// A TCP socket (move-only; closes on destruction). Every transfer has a deadline: the socket
// waits with poll() and never blocks past it, so a dead or stalled peer is an error, never a hang.
class Socket {
 public:
  Socket() = default;
  explicit Socket(int fd) : fd_(fd) {}
  Socket(Socket&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Socket& operator=(Socket&& other) noexcept;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket() { close(); }

  bool valid() const { return fd_ >= 0; }
  // Wakes any thread blocked on this socket (its call then fails); the fd stays open.
  void shutdown();
  void close();

  void send_all(std::span<const std::byte> bytes, Clock::time_point deadline);
  void recv_all(std::span<std::byte> bytes, Clock::time_point deadline);
  // Reads and throws away `count` bytes (a frame nobody waits for).
  void discard(std::uint64_t count, Clock::time_point deadline);
  // True when a read would not block (data, end of stream or an error) within `wait`.
  bool wait_readable(std::chrono::milliseconds wait) const;

  // A connected socket to host:port (a name, an IPv4 or an IPv6 address), or BulkError.
  static Socket connect_to(const std::string& host, int port, Clock::time_point deadline);
  // A listening socket on host with an ephemeral port (local_port() says which), or BulkError.
  static Socket listen_on(const std::string& host);
  int local_port() const;
  // The next connection, or an invalid Socket when none arrived within `wait`.
  Socket accept(std::chrono::milliseconds wait);

 private:
  int fd_ = -1;
};

// "host:port" (gRPC target syntax, "[v6]:port" included) -> host; the address itself without a port.
std::string host_of(const std::string& address);

}  // namespace crossgrad::remote::bulk
