#pragma once
// The client's side of the bulk channel (Note [Remote bulk channel]): one TCP connection per
// session, used by one transfer at a time (the session's bulk mutex).
#include <crossgrad/core/host_buffer.hpp>
#include <crossgrad/remote_protocol/bulk_frame.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace crossgrad::remote::client {

class BulkLink {
 public:
  // Connects to host:port and sends the Hello; bulk::BulkError when that fails or the server
  // does not accept it.
  static std::unique_ptr<BulkLink> connect(const std::string& host, int port, const bulk::Hello& hello,
                                           bulk::Clock::time_point deadline);

  // The id of the next upload (1, 2, ...: the server drops staged frames older than the one taken).
  std::uint64_t next_upload() { return ++last_upload_; }
  void upload(std::uint64_t transfer, std::span<const std::byte> bytes, bulk::Clock::time_point deadline);
  // The bytes of download `transfer`, which must be `bytes` long; frames of older transfers (whose
  // replies were lost) are read and dropped. bulk::BulkError for anything else.
  HostBytes download(std::uint64_t transfer, std::size_t bytes, bulk::Clock::time_point deadline);

 private:
  explicit BulkLink(bulk::Socket socket) : socket_(std::move(socket)) {}
  bulk::Socket socket_;
  std::uint64_t last_upload_ = 0;
};

}  // namespace crossgrad::remote::client
