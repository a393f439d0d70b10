// BulkLink (Note [Remote bulk channel]).
#include "backends/remote/bulk_link.hpp"

#include <crossgrad/core/host_buffer.hpp>

#include <array>

namespace crossgrad::remote::client {

std::unique_ptr<BulkLink> BulkLink::connect(const std::string& host, int port, const bulk::Hello& hello,
                                            bulk::Clock::time_point deadline) {
  bulk::Socket socket = bulk::Socket::connect_to(host, port, deadline);
  socket.send_all(bulk::encode_hello(hello), deadline);
  std::array<std::byte, 1> answer{};
  socket.recv_all(answer, deadline);  // a refused Hello: the server closes, recv_all throws
  if (answer[0] != bulk::kAccepted) throw bulk::BulkError("bulk connect: the server did not accept the Hello", false);
  return std::unique_ptr<BulkLink>(new BulkLink(std::move(socket)));
}

void BulkLink::upload(std::uint64_t transfer, std::span<const std::byte> bytes, bulk::Clock::time_point deadline) {
  socket_.send_all(bulk::encode_header({transfer, bytes.size()}), deadline);
  socket_.send_all(bytes, deadline);
}

HostBytes BulkLink::download(std::uint64_t transfer, std::size_t bytes, bulk::Clock::time_point deadline) {
  for (;;) {
    std::array<std::byte, bulk::kHeaderBytes> header_bytes{};
    socket_.recv_all(header_bytes, deadline);
    const bulk::FrameHeader header = bulk::decode_header(header_bytes);
    if (header.transfer < transfer) {
      socket_.discard(header.bytes, deadline);
      continue;
    }
    if (header.transfer != transfer || header.bytes != bytes) {
      throw bulk::BulkError("bulk receive: expected transfer " + std::to_string(transfer) + " of " +
                                std::to_string(bytes) + " bytes, the server sent transfer " +
                                std::to_string(header.transfer) + " of " + std::to_string(header.bytes),
                            false);
    }
    HostBytes out(bytes);  // uninitialised: received below
    socket_.recv_all(out, deadline);
    return out;
  }
}

}  // namespace crossgrad::remote::client
