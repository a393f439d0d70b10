// The bulk channel's framing and its socket (Note [Remote bulk channel]).
#include <crossgrad/remote_protocol/bulk_frame.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/time.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace crossgrad::remote::bulk {
namespace {

void put_u64(std::byte* out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::byte>((v >> (8 * i)) & 0xffu);
}

std::uint64_t get_u64(const std::byte* in) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t{std::to_integer<std::uint8_t>(in[i])} << (8 * i);
  return v;
}

std::string os_error(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// Milliseconds left until `deadline` for poll(), at least 0.
int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 1 << 30));
}

// Waits for `events` on fd until the deadline; BulkError(timed_out) when it passes.
void wait_for(int fd, short events, Clock::time_point deadline, const char* what) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, remaining_ms(deadline));
    if (r > 0) return;  // ready, or an error/hang-up that the next call reports
    if (r == 0) throw BulkError(std::string(what) + ": deadline exceeded", true);
    if (errno != EINTR) throw BulkError(os_error(what), false);
  }
}

void set_nodelay(int fd) {
  const int one = 1;
  (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

}  // namespace

std::array<std::byte, kHelloBytes> encode_hello(const Hello& hello) {
  std::array<std::byte, kHelloBytes> out{};
  std::memcpy(out.data(), kMagic.data(), kMagic.size());
  put_u64(out.data() + kMagic.size(), hello.session);
  std::memcpy(out.data() + kMagic.size() + 8, hello.key.data(), kKeyBytes);
  return out;
}

std::optional<Hello> decode_hello(std::span<const std::byte, kHelloBytes> bytes) {
  if (std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0) return std::nullopt;
  Hello hello;
  hello.session = get_u64(bytes.data() + kMagic.size());
  std::memcpy(hello.key.data(), bytes.data() + kMagic.size() + 8, kKeyBytes);
  return hello;
}

std::array<std::byte, kHeaderBytes> encode_header(const FrameHeader& header) {
  std::array<std::byte, kHeaderBytes> out{};
  put_u64(out.data(), header.transfer);
  put_u64(out.data() + 8, header.bytes);
  return out;
}

FrameHeader decode_header(std::span<const std::byte, kHeaderBytes> bytes) {
  return FrameHeader{get_u64(bytes.data()), get_u64(bytes.data() + 8)};
}

bool keys_equal(const Key& a, const Key& b) {
  unsigned diff = 0;
  for (std::size_t i = 0; i < kKeyBytes; ++i) diff |= static_cast<unsigned>(a[i] ^ b[i]);
  return diff == 0;
}

std::optional<Key> key_from_string(const std::string& bytes) {
  if (bytes.size() != kKeyBytes) return std::nullopt;
  Key key;
  std::memcpy(key.data(), bytes.data(), kKeyBytes);
  return key;
}

std::string key_to_string(const Key& key) { return std::string(reinterpret_cast<const char*>(key.data()), kKeyBytes); }

Socket& Socket::operator=(Socket&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

void Socket::shutdown() {
  if (fd_ >= 0) (void)::shutdown(fd_, SHUT_RDWR);
}

void Socket::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

// Blocking calls with the socket's timeout set to what is left of the deadline: one send() or
// recv() moves many megabytes in the kernel (as a plain blocking copy does), where poll() plus a
// non-blocking call per socket buffer cost a wake-up and two system calls per ~100 KiB.
namespace {

void set_timeout(int fd, int option, Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline - Clock::now()).count();
  // A zero timeout would mean "wait forever": at least a microsecond; the next loop sees the deadline.
  const long long us = std::max<long long>(left, 1);
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(us / 1000000);
  tv.tv_usec = static_cast<suseconds_t>(us % 1000000);
  (void)::setsockopt(fd, SOL_SOCKET, option, &tv, sizeof tv);
}

}  // namespace

void Socket::send_all(std::span<const std::byte> bytes, Clock::time_point deadline) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    if (Clock::now() >= deadline) throw BulkError("bulk send: deadline exceeded", true);
    set_timeout(fd_, SO_SNDTIMEO, deadline);
    const ssize_t w = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (w > 0) {
      sent += static_cast<std::size_t>(w);
    } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      continue;  // the timeout fired (the deadline check above decides) or a signal
    } else {
      throw BulkError(os_error("bulk send"), false);
    }
  }
}

void Socket::recv_all(std::span<std::byte> bytes, Clock::time_point deadline) {
  std::size_t got = 0;
  while (got < bytes.size()) {
    if (Clock::now() >= deadline) throw BulkError("bulk receive: deadline exceeded", true);
    set_timeout(fd_, SO_RCVTIMEO, deadline);
    const ssize_t r = ::recv(fd_, bytes.data() + got, bytes.size() - got, MSG_WAITALL);
    if (r > 0) {
      got += static_cast<std::size_t>(r);
    } else if (r == 0) {
      throw BulkError("bulk receive: the peer closed the connection", false);
    } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      throw BulkError(os_error("bulk receive"), false);
    }
  }
}

void Socket::discard(std::uint64_t count, Clock::time_point deadline) {
  std::vector<std::byte> sink(static_cast<std::size_t>(std::min<std::uint64_t>(count, 1 << 20)));
  while (count > 0) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(count, sink.size()));
    recv_all(std::span<std::byte>(sink.data(), n), deadline);
    count -= n;
  }
}

bool Socket::wait_readable(std::chrono::milliseconds wait) const {
  pollfd p{fd_, POLLIN, 0};
  const int r = ::poll(&p, 1, static_cast<int>(wait.count()));
  return r != 0;  // ready, hung up, or an error (the read reports it)
}

Socket Socket::connect_to(const std::string& host, int port, Clock::time_point deadline) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    throw BulkError("bulk connect: cannot resolve " + host + ": " + ::gai_strerror(rc), false);
  }
  std::string last = "bulk connect: no address for " + host;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    Socket s(::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol));
    if (!s.valid()) {
      last = os_error("bulk connect: socket");
      continue;
    }
    if (::connect(s.fd_, a->ai_addr, a->ai_addrlen) != 0) {
      if (errno != EINPROGRESS) {
        last = os_error("bulk connect");
        continue;
      }
      try {
        wait_for(s.fd_, POLLOUT, deadline, "bulk connect");
      } catch (...) {
        ::freeaddrinfo(found);
        throw;
      }
      int error = 0;
      socklen_t len = sizeof error;
      (void)::getsockopt(s.fd_, SOL_SOCKET, SO_ERROR, &error, &len);
      if (error != 0) {
        errno = error;
        last = os_error("bulk connect");
        continue;
      }
    }
    ::freeaddrinfo(found);
    set_nodelay(s.fd_);
    (void)::fcntl(s.fd_, F_SETFL, ::fcntl(s.fd_, F_GETFL) & ~O_NONBLOCK);  // send_all/recv_all block with timeouts
    return s;
  }
  ::freeaddrinfo(found);
  throw BulkError(last, false);
}

Socket Socket::listen_on(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(host.c_str(), "0", &hints, &found); rc != 0) {
    throw BulkError("bulk listen: cannot resolve " + host + ": " + ::gai_strerror(rc), false);
  }
  std::string last = "bulk listen: no address for " + host;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    Socket s(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
    const int one = 1;
    if (s.valid()) (void)::setsockopt(s.fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (!s.valid() || ::bind(s.fd_, a->ai_addr, a->ai_addrlen) != 0 || ::listen(s.fd_, 64) != 0) {
      last = os_error("bulk listen");
      continue;
    }
    ::freeaddrinfo(found);
    return s;
  }
  ::freeaddrinfo(found);
  throw BulkError(last, false);
}

int Socket::local_port() const {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return 0;
  if (addr.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  return 0;
}

Socket Socket::accept(std::chrono::milliseconds wait) {
  if (!wait_readable(wait)) return Socket();
  const int fd = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) return Socket();
  set_nodelay(fd);
  return Socket(fd);
}

std::string host_of(const std::string& address) {
  std::string a = address;
  for (const char* scheme : {"dns:///", "dns:", "ipv4:", "ipv6:"}) {
    if (a.rfind(scheme, 0) == 0) {
      a = a.substr(std::strlen(scheme));
      break;
    }
  }
  if (a.rfind("unix:", 0) == 0) return {};
  if (!a.empty() && a.front() == '[') {
    const auto close = a.find(']');
    return close == std::string::npos ? std::string() : a.substr(1, close - 1);
  }
  const auto colon = a.rfind(':');
  return colon == std::string::npos ? a : a.substr(0, colon);
}

}  // namespace crossgrad::remote::bulk
